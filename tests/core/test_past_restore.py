"""What a 304 restores with a page's stored text, and when a page is asked conditionally at all:
the line shapes, language and title its last full read found, kept with that very text."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sv_scrapy.core.audit.journal import next_entry
from sv_scrapy.core.audit.past import PagePast
from sv_scrapy.core.audit.store import ContentStore, Entry
from sv_scrapy.core.page.pagerecord import Fetched, PageOutcome
from sv_scrapy.core.page.reader import Reading
from sv_scrapy.core.page.shape import LineShape, shapes_to_json

URL = "https://www.rates.gov.uk/t"
TEXT = "Rates\nBand | Levy\nBand 1 | 21.40 %"
SHAPES = (LineShape("h1"), LineShape("head", caption="Rates"), LineShape("row", ("Band", "Levy"), "Band 1", "Rates"))
READ = Reading(kind="html", text=TEXT, content_hash="h1", lang="fr", shapes=SHAPES)


def entry(**fields: object) -> Entry:
    base = Entry(url=URL, fetch_status="OK", content_hash="h1", etag='"e1"', content_kind="html", lang="fr",
                 title="Barème", shapes=shapes_to_json(SHAPES, TEXT))
    return replace(base, **fields)  # type: ignore[arg-type]


def journal(reading: Reading, previous: Entry | None, status: int = 200, title: str = "Barème") -> Entry:
    fetched = Fetched(URL, "2027-01-01T03:00:00+00:00", http_status=status, title=title)
    return next_entry(fetched, reading, PageOutcome("OK", "", []), previous, "run")


def test_a_304_restores_the_shapes_language_and_title_of_its_text() -> None:
    past = PagePast(URL, entry(), TEXT)
    reading = past.restored_reading()
    assert (reading.shapes, reading.lang, reading.restored) == (SHAPES, "fr", True)
    assert past.restored_fetched(Fetched(URL, "now", http_status=304)).title == "Barème"
    assert past.conditional_headers() == {"If-None-Match": '"e1"'}


def test_shapes_kept_with_another_text_or_none_at_all_mean_a_full_read() -> None:
    assert PagePast(URL, entry(), TEXT + " changed").conditional_headers() == {}  # the text was rewritten alone
    assert PagePast(URL, entry(shapes=None), TEXT).conditional_headers() == {}  # a store of format 3 or older
    assert PagePast(URL, entry(shapes="{damaged"), TEXT).conditional_headers() == {}
    # a page with no structure to restore is asked conditionally as before
    assert PagePast(URL, entry(shapes=None, content_kind="pdf"), TEXT).conditional_headers() != {}
    assert PagePast(URL, entry(shapes=shapes_to_json((), TEXT)), TEXT).conditional_headers() != {}


def test_the_journal_keeps_what_goes_with_the_text_it_keeps() -> None:
    first = journal(READ, None)
    assert (first.lang, first.title) == ("fr", "Barème") and PagePast(URL, first, TEXT).restored_reading().shapes == SHAPES
    # a 304 (restored) and a read that gave no text keep the last full read's
    restored = PagePast(URL, first, TEXT).restored_reading()
    assert journal(restored, first, status=304, title="").shapes == first.shapes
    shell = journal(Reading(kind="html", text="", lang="en"), first, title="Loading…")
    assert (shell.lang, shell.title, shell.shapes) == ("fr", "Barème", first.shapes)
    failed = journal(Reading(), first, status=0, title="")
    assert (failed.lang, failed.title, failed.shapes) == ("fr", "Barème", first.shapes)
    # a page that became a PDF keeps no HTML shapes
    assert journal(Reading(kind="pdf", text="Levy 21.40 %", content_hash="h2"), first).shapes is None


def test_a_plain_text_pages_line_ends_come_back_as_stored(tmp_path: Path) -> None:
    """A text/plain page keeps its "\\r\\n": read back as text, its hash check failed and the text
    was set aside every month (no 304, no baseline for the change diff)."""
    store = ContentStore(tmp_path / "store")
    store.save_text(URL, "Fee\r\n12.50 %\rend")
    assert store.text(URL) == "Fee\r\n12.50 %\rend"
    assert not (tmp_path / "store" / "corrupt").exists()


def test_a_page_whose_text_joins_frames_is_never_asked_conditionally() -> None:
    framed = entry(results=[{"id": "fr:2:a", "frames": ["https://www.rates.gov.uk/frame"]}])
    assert PagePast(URL, framed, TEXT).conditional_headers() == {}
    assert PagePast(URL, entry(results=[{"id": "fr:2:a", "frames": []}]), TEXT).conditional_headers() != {}
