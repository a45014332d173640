"""PDF text off the reactor thread (one worker: pdfium is not thread-safe)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter

from sv_scrapy.core.fetchstatus import BINARY, UNAVAILABLE
from sv_scrapy.core.pdf import pdf_to_text
from sv_scrapy.runtime import load_cached

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler


class PdfTextPipeline:
    def __init__(self, crawler: Crawler, enabled: bool, max_pages: int, max_bytes: int) -> None:
        self.crawler = crawler
        self.enabled = enabled
        self.max_pages = max_pages
        self.max_bytes = max_bytes
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sv-pdf")

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        pdf = load_cached(crawler.settings["SV_CONFIG_DIR"]).pdf
        return cls(crawler, pdf.enabled, pdf.max_pages, pdf.max_bytes)

    def close_spider(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def process_item(self, item: Any) -> Any:
        page = ItemAdapter(item)
        if page["kind"] != "pdf":
            return item
        if not self.enabled:
            page["fetch_status"], page["note"] = BINARY, "PDF extraction disabled in config (pdf.enabled)"
            return item
        if page["truncated"]:
            page["fetch_status"] = UNAVAILABLE
            page["note"] = f"PDF larger than pdf.max_bytes ({self.max_bytes} bytes): a cut PDF cannot be read"
            return item
        loop = asyncio.get_running_loop()
        result = await loop.run_in_executor(self._executor, pdf_to_text, page["body"], self.max_pages)
        self.crawler.stats.inc_value(f"sv/pdf/{result.method or 'no_text'}")
        if result.has_text:
            page["text"], page["text_method"] = result.text, f"pdf:{result.method}"
        else:
            page["pdf_no_text"] = True
            page["note"] = (
                f"PDF could not be parsed ({result.error})" if result.error
                else f"PDF with no text layer ({result.pages} page(s)): a scan?"
            )
        return item
