"""Items: one ``PageItem`` per distinct cited URL, carrying the claims that cite it.

The spider fills ``fetched`` (what the downloader produced), ``body`` and, in the audit,
``past`` (the URL's past, loaded once when its request was built); the reading
pipelines fill the reading fields (text, PDF text, hashes); ``RecordsPipeline`` hands both to
``core.page.pagerecord.page_records`` and keeps its ``outcome`` (fetch_status, note, claim records).
Pipelines read it through itemadapter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from sv_scrapy.core.audit.past import PagePast
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.page.pagerecord import Fetched, PageOutcome, Reading
from sv_scrapy.core.page.shape import LineShape


@dataclass
class PageItem:
    url: str  # as cited
    claims: list[ClaimRecord]  # the claims citing it
    fetched: Fetched  # the response, failure or refusal, as facts
    body: bytes | None = None  # dropped once text is extracted (kept for PDFs without text)
    past: PagePast | None = None  # the audit's memory of the URL, loaded once with its request (worklist: None)
    # what the reading stages found (core.page.pagerecord.Reading)
    kind: str = ""  # html | text | pdf | binary
    lang: str = ""  # the page's language as it declares it (Content-Language, <html lang>): a matching hint
    text: str = ""
    shapes: tuple[LineShape, ...] = ()  # an HTML page: where each line of ``text`` stands (core.page.shape)
    text_method: str = ""  # html | text | pdf:pypdfium2 | pdf:pdfminer | ocr
    charset: str = ""  # the encoding an HTML/text body was read in (core.page.charset)
    charset_source: str = ""  # bom | header | meta | detected | default | fallback:…
    pdf: str = ""  # "" | disabled | cut | no_text
    read_note: str = ""
    ocr: dict[str, Any] | None = None  # a scan's OCR reading: confidence, pages read (core.page.ocr.OcrText.summary)
    frames: list[tuple[str, str]] = field(default_factory=list)  # (URL, text) of frames read into ``text``
    links: list[tuple[str, str]] = field(default_factory=list)  # (URL, link text), same host: one hop (linked.*)
    linked_before: dict[str, Any] = field(default_factory=dict)  # a 304: claim id -> its stored found_linked
    content_hash: str = ""
    raw_hash: str = ""
    restored: bool | None = None  # a 304: whether the store had its text
    outcome: PageOutcome | None = None  # set once, by RecordsPipeline (or from the journal)
    from_journal: bool = False  # done earlier in this (resumed) run: its outcome is final
    # an archived capture of the page (pipelines.archive.CaptureItem): read like a page, but it has
    # no past, is no page of this audit and never fetches today's frames or links
    is_capture: ClassVar[bool] = False

    @property
    def not_modified(self) -> bool:
        return self.fetched.http_status == 304

    def reading(self) -> Reading:
        return Reading(kind=self.kind, text=self.text, text_method=self.text_method, lang=self.lang, pdf=self.pdf,
                       note=self.read_note, ocr=self.ocr, content_hash=self.content_hash, restored=self.restored,
                       charset=self.charset, charset_source=self.charset_source, frames=tuple(self.frames),
                       shapes=self.shapes)
