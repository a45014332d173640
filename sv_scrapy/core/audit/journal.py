"""The run journal's side of a page: the store entry the audit writes once a URL's records are
made (``next_entry``), a journalled URL read back as final (``journal_outcome``) when a
killed run is resumed, and the run's claim records read back from it for the audit's documents
(``JournalRecords``)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence

from sv_scrapy.core.audit.store import ContentStore, Entry
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.page.fetchstatus import BINARY, OK
from sv_scrapy.core.page.pagerecord import Fetched, PageOutcome
from sv_scrapy.core.page.reader import Reading
from sv_scrapy.core.page.shape import shapes_to_json


def journal_outcome(entry: Entry) -> PageOutcome:
    """A URL finished earlier in this (resumed) run: its journalled records are final."""
    return PageOutcome(entry.fetch_status, "", list(entry.results), entry.fetch_status)


def next_entry(fetched: Fetched, reading: Reading, outcome: PageOutcome, previous: Entry | None, run_id: str,
               raw_hash: str = "") -> Entry:
    """The store entry the audit journals for the URL once its records are made."""
    prev = previous or Entry(url=fetched.url)
    ok = outcome.raw_status in (OK, BINARY)
    state = outcome.state or prev.state
    etag, last_modified = fetched.headers.get("etag", ""), fetched.headers.get("last-modified", "")
    if fetched.http_status == 304:
        etag, last_modified = etag or prev.etag, last_modified or prev.last_modified
    stable = bool(reading.content_hash) and state.stable_hash == reading.content_hash
    # what goes with the text: a page read now gives its own; a 304 or a failure keeps the last
    # (with the text the journal keeps: a read that gave no text keeps the last one's)
    lang, title, shapes = prev.lang, prev.title, prev.shapes
    if reading.content_hash and not reading.restored:
        lang, title = reading.lang, fetched.title
        shapes = shapes_to_json(reading.shapes, reading.text) if reading.kind == "html" else None
    return Entry(
        url=fetched.url, fetched_at=fetched.fetched_at, http_status=fetched.http_status,
        fetch_status=outcome.fetch_status, content_hash=reading.content_hash or prev.content_hash,
        raw_hash=raw_hash or prev.raw_hash, etag=etag if ok else prev.etag,
        last_modified=last_modified if ok else prev.last_modified, content_kind=reading.kind or prev.content_kind,
        state=state, fail_streak=outcome.fail_streak,
        excerpts={r["id"]: r["excerpts"] for r in outcome.records} if stable else prev.excerpts,
        run_id=run_id, results=outcome.records, rendered=fetched.rendered if ok else prev.rendered,
        lang=lang, title=title, shapes=shapes)


RECENT_URLS = 64  # the URLs whose journalled records JournalRecords keeps at hand


class JournalRecords(Mapping[str, ClaimRecord]):
    """Claim id -> the record this run journalled for it (its page's entry, ``run_id`` this
    run's), read from the store when asked: the audit's documents are written from the journal,
    so a crawl of 100,000 claims never holds every record until its end (issue #42). A claim
    whose page this run did not journal has none."""

    def __init__(self, store: ContentStore, run_id: str, claims: Sequence[ClaimRecord]) -> None:
        self.store, self.run_id, self.claims = store, run_id, claims
        # where the next id is looked for: the finish and the part file ask in the claims' order,
        # so an id is found at once, with no id -> URL index (a dict entry a claim, ~50 bytes)
        self._next = 0
        # the records of the URLs read last: a URL's claims come in corpus order, most of them
        # together but some files apart (17 of the slice's 104 claims came back to a URL read
        # before), and each return was one more read of its entry. Bounded, so the finish never
        # holds more than a few pages' records.
        self._recent: OrderedDict[str, dict[str, ClaimRecord]] = OrderedDict()

    def _url(self, claim_id: str) -> str:
        """The claim's URL, looked for from where the last one was found, around the claims once."""
        n = len(self.claims)
        for step in range(n):
            k = (self._next + step) % n
            if self.claims[k]["id"] == claim_id:
                self._next = k + 1
                return str(self.claims[k]["source_url"])
        raise KeyError(claim_id)

    def _records(self, url: str) -> dict[str, ClaimRecord]:
        found = self._recent.get(url)
        if found is None:
            entry = self.store.load(url)
            results = entry.results if entry is not None and entry.run_id == self.run_id else []
            found = self._recent[url] = {str(r.get("id")): r for r in results}
            if len(self._recent) > RECENT_URLS:
                self._recent.popitem(last=False)
        self._recent.move_to_end(url)
        return found

    def __getitem__(self, claim_id: str) -> ClaimRecord:
        return self._records(self._url(claim_id))[claim_id]

    def __iter__(self) -> Iterator[str]:
        return (str(c["id"]) for c in self.claims if str(c["id"]) in self._records(str(c["source_url"])))

    def __len__(self) -> int:
        return sum(1 for _ in self)
