"""Items: one ``PageItem`` per distinct cited URL, carrying the claims that cite it.

The spider fills ``fetched`` (what the downloader produced), ``body`` and, in the audit,
``past`` (the URL's past, loaded once when its request was built), and ``reading`` for a page
quick to read (the one reader's record of the body, its links and frames: ``core.page.reader``);
``ReadPipeline`` sets the others' (a PDF's; a 304's is restored from the store). ``RecordsPipeline``
hands both to ``core.page.pagerecord.page_records`` and keeps its ``outcome`` (fetch_status, note,
claim records). Pipelines read its fields by name (``page_of``).

The claim records in ``outcome`` are final once ``RecordsPipeline`` hands them on: what a later
stage finds for a claim goes into a field of its own (``linked``, ``proposed``), and the pipelines
that keep or export the page take ``records()``, new records with those findings on them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sv_scrapy.core.audit.discover.memory import KeptProposal
from sv_scrapy.core.audit.past import PagePast
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.page.pagerecord import Fetched, PageOutcome
from sv_scrapy.core.page.reader import Reading


@dataclass
class PageItem:
    url: str  # as cited
    claims: list[ClaimRecord]  # the claims citing it
    fetched: Fetched  # the response, failure or refusal, as facts
    body: bytes | None = None  # dropped once it is read (kept for PDFs without text)
    past: PagePast | None = None  # the audit's memory of the URL, loaded once with its request (worklist: None)
    reading: Reading = field(default_factory=Reading)  # what was read of the body (or restored, for a 304)
    raw_hash: str = ""
    outcome: PageOutcome | None = None  # set once, by RecordsPipeline (or from the journal)
    from_journal: bool = False  # done earlier in this (resumed) run: its outcome is final
    # what the stages after RecordsPipeline found, by claim id (their records' found_linked, proposed_*)
    linked: dict[str, dict[str, str]] = field(default_factory=dict)  # one hop: {url, excerpt} (LinkedPipeline)
    proposed: dict[str, KeptProposal] = field(default_factory=dict)  # where the figure went (DiscoverPipeline)

    @property
    def html_page(self) -> bool:
        """Read as HTML from a 200 answer: its reading has its links and frames (a 304 has no body)."""
        return self.reading.kind == "html" and self.fetched.http_status == 200

    def links(self) -> tuple[tuple[str, str], ...]:
        """(URL, link text) of the page's same-host links, for the one hop and discovery."""
        return self.reading.links if self.html_page else ()

    def judged(self) -> PageOutcome:
        """The outcome ``RecordsPipeline`` set, for the pipelines after it."""
        if self.outcome is None:
            raise TypeError(f"{self.url}: read before RecordsPipeline judged it")
        return self.outcome

    def records(self) -> list[ClaimRecord]:
        """The page's claim records as the store and the documents take them: each judged record
        copied, with what the one hop and discovery found for its claim (the judged ones stay as
        ``RecordsPipeline`` made them)."""
        return [self._completed(record) for record in self.judged().records]

    def _completed(self, record: ClaimRecord) -> ClaimRecord:
        done = record.copy()
        claim = str(record["id"])
        if claim in self.linked:
            done["found_linked"] = self.linked[claim]
        kept = self.proposed.get(claim)
        if kept is not None:
            done["proposed_source"], done["proposed_note"] = kept.proposal, kept.searched
            done["proposed_hash"] = kept.text_hash if kept.proposal is not None else None
        return done


def page_of(item: Any) -> PageItem:
    """The item a pipeline is handed, as the project's own ``PageItem``: its fields are read by
    name, so mypy checks every reader (an item of another kind is a programming error)."""
    if not isinstance(item, PageItem):
        raise TypeError(f"sv_scrapy's pipelines take a PageItem, not {type(item).__name__}")
    return item
