"""PDF text off the reactor thread (one worker: pdfium is not thread-safe); a scan is OCR'd
there too, once per distinct PDF (the content store caches the reading by the PDF's hash)."""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from itemadapter import ItemAdapter

from sv_scrapy.core.errors import OutputError
from sv_scrapy.core.page.ocr import OcrSettings, OcrText, OcrUnavailable, installed_languages, languages_for, needs_ocr, ocr_pdf
from sv_scrapy.core.page.pdf import pdf_to_text
from sv_scrapy.core.page.text import raw_hash
from sv_scrapy.crawlstate import find_run
from sv_scrapy.extensions.outcome import stop_for_output
from sv_scrapy.runtime import config_of

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler

    from sv_scrapy.core.audit.store import ContentStore

logger = logging.getLogger(__name__)


def _empty_note(ocr: OcrText) -> str:
    return "" if ocr.text.strip() else f"OCR read no text ({ocr.note()})"


class PdfTextPipeline:
    def __init__(self, crawler: Crawler, enabled: bool, max_pages: int, max_bytes: int,
                 ocr: OcrSettings | None = None) -> None:
        self.crawler = crawler
        self.enabled = enabled
        self.max_pages = max_pages
        self.max_bytes = max_bytes
        self.ocr = ocr  # None: OCR switched off (pdf.ocr: false)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sv-pdf")
        self._warned = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        pdf = config_of(crawler.settings).pdf
        ocr = OcrSettings(
            command=crawler.settings.get("SV_TESSERACT") or "tesseract", languages=pdf.ocr_languages,
            max_pages=pdf.ocr_max_pages, page_timeout_s=pdf.ocr_page_timeout_seconds,
        ) if pdf.ocr else None
        return cls(crawler, pdf.enabled, pdf.max_pages, pdf.max_bytes, ocr)

    def close_spider(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    @property
    def _store(self) -> ContentStore | None:
        run = find_run(self.crawler)
        return run.store if run is not None else None

    async def process_item(self, item: Any) -> Any:
        page = ItemAdapter(item)
        if page["kind"] != "pdf" or page["body"] is None:  # a 304's OCR facts were restored with its text
            return item
        # what is not read is named here; core.page.pagerecord says what that makes the page
        if not self.enabled:
            page["pdf"] = "disabled"
            return item
        if page["fetched"].truncated:
            page["pdf"] = "cut"
            return item
        loop = asyncio.get_running_loop()
        result = await loop.run_in_executor(self._executor, pdf_to_text, page["body"], self.max_pages)
        self.crawler.stats.inc_value(f"sv/pdf/{result.method or 'no_text'}")
        ocr_note = ""
        if self.ocr is not None and not result.error and needs_ocr(result.text, result.pages):
            try:
                ocr, ocr_note = await loop.run_in_executor(self._executor, self._read_scan, page)
            except OutputError as exc:  # the OCR cache could not be written: the output folder failed
                raise stop_for_output(self.crawler, exc) from None
            if ocr is not None and len(ocr.text.split()) > 2 * len(result.text.split()):
                page["text"], page["text_method"], page["read_note"] = ocr.text, "ocr", ocr.note()
                page["ocr"] = ocr.summary()
                return item
        if result.has_text:
            page["text"], page["text_method"] = result.text, f"pdf:{result.method}"
        else:
            page["pdf"] = "no_text"
            page["read_note"] = (
                f"PDF could not be parsed ({result.error})" if result.error
                else f"PDF with no text layer ({result.pages} page(s)): a scan?"
            ) + (f" {ocr_note}" if ocr_note else "")
        return item

    def _read_scan(self, page: ItemAdapter) -> tuple[OcrText | None, str]:
        """(reading, note) in the PDF worker thread: the cached reading of these bytes, else OCR."""
        assert self.ocr is not None
        store, key = self._store, raw_hash(page["body"])
        hosts = [urlsplit(u).hostname or "" for u in (page["url"], page["fetched"].final_url) if u]
        try:
            languages = languages_for(hosts, [c.get("scope", "") for c in page["claims"]], self.ocr.languages,
                                      installed_languages(self.ocr.command))
            cached = OcrText.from_json(store.ocr_text(key) or {}) if store is not None else None
            if cached is not None and cached.reusable_for(self.ocr, languages):
                self._count("cache_hit")
                return cached, _empty_note(cached)
            ocr = ocr_pdf(page["body"], self.ocr, languages)
        except OcrUnavailable as exc:
            self._count("unavailable")
            if not self._warned:
                self._warned = True
                logger.warning("OCR unavailable, scans stay PDF_NO_TEXT: %s", exc)
            return None, f"OCR unavailable: {exc}"
        except Exception as exc:  # a hostile or broken file must not stop the crawl
            self._count("failed")
            return None, f"OCR failed: {type(exc).__name__}"
        self._count("documents")
        self._count("pages", ocr.pages_read)
        if ocr.timed_out:
            self._count("page_timeouts", ocr.timed_out)
        if store is not None:
            store.save_ocr_text(key, ocr.to_json())
        return ocr, _empty_note(ocr)

    def _count(self, event: str, count: int = 1) -> None:
        # from the worker thread: Scrapy's stats are a plain dict, one key per event here
        self.crawler.stats.inc_value(f"sv/ocr/{event}", count)
