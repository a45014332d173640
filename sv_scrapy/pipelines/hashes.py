"""Content hashes: of the cleaned text (what change detection compares) and of the raw body."""

from __future__ import annotations

from typing import Any

from itemadapter import ItemAdapter

from sv_scrapy.core.text import content_hash, raw_hash


class HashPipeline:
    def process_item(self, item: Any) -> Any:
        page = ItemAdapter(item)
        body = page["body"]
        if body is not None:
            page["raw_hash"] = raw_hash(body)
        if page["text"]:
            page["content_hash"] = content_hash(page["text"])
        if not page["pdf_no_text"]:
            page["body"] = None  # the text is what we keep; a scan's bytes go to the LLM layer
        return item
