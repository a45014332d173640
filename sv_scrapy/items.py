"""Items: one ``PageItem`` per distinct cited URL, carrying the claims that cite it.

The spider fills ``fetched`` (what the downloader produced), ``body`` and, in the audit,
``past`` (the URL's past, loaded once when its request was built); ``ReadPipeline`` sets
``reading`` (the one reader's record of the body: ``core.page.reader``; a 304's is restored from
the store); ``RecordsPipeline`` hands both to ``core.page.pagerecord.page_records`` and keeps its
``outcome`` (fetch_status, note, claim records). Pipelines read it through itemadapter.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    links: list[tuple[str, str]] = field(default_factory=list)  # (URL, link text), same host: one hop (linked.*)
    raw_hash: str = ""
    outcome: PageOutcome | None = None  # set once, by RecordsPipeline (or from the journal)
    from_journal: bool = False  # done earlier in this (resumed) run: its outcome is final
