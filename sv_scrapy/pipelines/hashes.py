"""Content hashes: of the cleaned text (what change detection compares) and of the raw body."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sv_scrapy.core.page.text import content_hash, raw_hash
from sv_scrapy.items import PageItem, page_of


def pdf_bytes_kept(page: PageItem) -> bytes | None:
    """A PDF we did not turn into text (a scan, or extraction switched off), or only by OCR, keeps
    its bytes: ``scrapy verify`` sends them to the model as a document. None for any other page."""
    reading = page.reading
    if page.body and reading.kind == "pdf" and (reading.pdf in ("no_text", "disabled") or reading.text_method == "ocr"):
        return page.body
    return None


class HashPipeline:
    def process_item(self, item: Any) -> Any:
        page = page_of(item)
        if page.fetched.http_status == 304:
            return item  # the stored copy's hashes, as restored (pipelines.read)
        body = page.body
        if body is not None:
            page.raw_hash = raw_hash(body)
        if page.reading.text:
            page.reading = replace(page.reading, content_hash=content_hash(page.reading.text))
        if pdf_bytes_kept(page) is None:
            page.body = None  # the text is what we keep; an unread PDF's bytes go to the LLM layer
        return item
