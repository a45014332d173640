"""A URL's past, as the audit remembers it: loaded from the content store once, when the URL's
request is built, and carried on the request and then on the page's item (state travels
with the work). Every later stage asks this value, never the store again:

- the request's conditional headers (and whether a script-built page is rendered again);
- a 304's text, hashes and OCR facts (``restored_reading``), in one stage before any reading;
- what the page's judgement needs (``previous``: streak, content state, baseline excerpts/text);
- the journal's next entry (``entry``) and whether the baseline text must be written again.

Reads per URL: the entry and, when the page ever had a text, that text. The baseline text is
the latest text whenever the entry says they hash alike (the usual month); it is read
separately only for a page whose change is still pending.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from sv_scrapy.core.audit.store import ContentStore, Entry
from sv_scrapy.core.page.ocr import OcrText
from sv_scrapy.core.page.pagerecord import Fetched, Previous
from sv_scrapy.core.page.reader import Reading
from sv_scrapy.core.page.shape import LineShape, kept_with, shapes_from_json

NOT_MODIFIED = "store (304 Not Modified)"  # the text method of a page restored from the store


@dataclass(frozen=True)
class PagePast:
    url: str
    entry: Entry | None = None
    text: str | None = None  # the latest stored text (what a 304 restores)
    stable_text: str | None = None  # the confirmed baseline's text
    stable_kept: bool = False  # the baseline's text is on disk (else the journal writes it again)
    ocr: Mapping[str, Any] | None = None  # a stored scan's OCR reading (OcrText.to_json)

    @property
    def rendered(self) -> bool:
        """Read through the browser last time: a script-built page is rendered again, whole."""
        return self.entry is not None and self.entry.rendered

    @cached_property
    def shapes_kept(self) -> bool:
        """Line shapes were kept with this very text (not: an older store, a text written without
        its entry). Checked by the hash alone: most pages answer 200, and their shapes are never
        decoded."""
        return self.entry is not None and self.entry.shapes is not None and self.text is not None \
            and kept_with(self.entry.shapes, self.text)

    def conditional_headers(self) -> dict[str, str]:
        """``If-None-Match``/``If-Modified-Since`` for a page a 304 can be restored from."""
        entry = self.entry
        if entry is None or entry.fetch_status != "OK" or self.text is None:
            return {}
        if entry.content_kind == "html" and not self.shapes_kept:  # a 304 could not restore its structure
            return {}
        # its stored text joins its frames', and a 304 of the page would not ask them again: a static
        # frameset's content frame changes while the frameset answers 304 (the frames themselves are
        # asked conditionally when the page is read)
        if any(record.get("frames") for record in entry.results):
            return {}
        headers = {"If-None-Match": entry.etag, "If-Modified-Since": entry.last_modified}
        return {name: value for name, value in headers.items() if value}

    def restored_reading(self) -> Reading:
        """What a 304 reads from the store; ``restored=False`` when there is no stored copy to
        read (the page says so: ``core.page.pagerecord.page_status``)."""
        entry = self.entry
        if entry is None or self.text is None:
            return Reading(restored=False)
        scan = OcrText.from_json(dict(self.ocr)) if self.ocr else None
        if scan is not None and scan.text.strip():  # a scan: its text was OCR, and this sure
            return Reading(kind=entry.content_kind, text=self.text, text_method="ocr", note=scan.note(),
                           ocr=scan.summary(), content_hash=entry.content_hash, restored=True, lang=entry.lang)
        return Reading(kind=entry.content_kind, text=self.text, text_method=NOT_MODIFIED,
                       content_hash=entry.content_hash, restored=True, lang=entry.lang,
                       shapes=self._restored_shapes())

    def _restored_shapes(self) -> tuple[LineShape, ...]:
        """The kept shapes, when they were kept with this text (``shapes_from_json`` checks)."""
        if self.entry is None or self.entry.shapes is None or self.text is None:
            return ()
        return shapes_from_json(self.entry.shapes, self.text) or ()

    def restored_fetched(self, fetched: Fetched) -> Fetched:
        """A 304's answer with the title its page had (a 304 has no body to read it from)."""
        if self.entry is None or fetched.title or self.text is None:
            return fetched
        return replace(fetched, title=self.entry.title)

    def linked_before(self) -> dict[str, Any]:
        """Claim id -> its stored ``found_linked``: an unchanged page links where it linked, so
        its one-hop findings stand (``pipelines/outlinks.py``)."""
        if self.entry is None:
            return {}
        return {r["id"]: r["found_linked"] for r in self.entry.results if r.get("found_linked")}

    def previous(self) -> Previous:
        """What the page's judgement needs of this past (``core.page.pagerecord.page_records``)."""
        entry = self.entry
        if entry is None:
            return Previous()
        return Previous(entry.fail_streak, entry.state, entry.excerpts, self.stable_text)


def load_past(store: ContentStore, url: str) -> PagePast:
    """The URL's past, each file read (and checked) once."""
    entry = store.load(url)
    if entry is None:
        return PagePast(url)
    # the latest text serves a 304 and, when it is the baseline, the change diff
    text = store.text(url) if entry.content_hash else None
    baseline = entry.state.stable_hash
    stable_text: str | None
    if baseline and baseline == entry.content_hash and text is not None:
        stable_text, stable_kept = text, store.has_stable_text(url)
    else:
        stable_text = store.stable_text(url)
        stable_kept = stable_text is not None
    ocr = store.ocr_text(entry.raw_hash) if entry.content_kind == "pdf" and entry.raw_hash else None
    return PagePast(url, entry, text, stable_text, stable_kept, ocr)
