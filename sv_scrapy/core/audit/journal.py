"""The run journal's side of a page: the store entry the audit writes once a URL's records are
made (``next_entry``), and a journalled URL read back as final (``journal_outcome``) when a
killed run is resumed."""

from __future__ import annotations

from sv_scrapy.core.audit.store import Entry
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
