"""Classify a fetched body (PDF by magic bytes, binary, HTML, plain text) and read HTML/text;
a binary is only named here (``core.page.pagerecord`` makes it ``BINARY``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter

from sv_scrapy.core.page.pdf import is_pdf
from sv_scrapy.core.page.text import decode_body, html_lang, html_reading
from sv_scrapy.runtime import config_of

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler

_TEXTUAL = ("text/", "application/xhtml", "application/xml", "application/json", "application/ld+json")


def classify(body: bytes, content_type: str, binary_prefixes: tuple[str, ...]) -> str:
    """``pdf`` | ``binary`` | ``html`` | ``text``: magic bytes first, then the declared type.

    HTML served at a ``.pdf`` URL is HTML; a PDF served as octet-stream is a PDF.
    """
    ctype = content_type.split(";", 1)[0].strip().lower()
    if is_pdf(body):
        return "pdf"
    if "html" in ctype or "xml" in ctype or not ctype:
        return "html"
    if ctype.startswith(_TEXTUAL):
        return "text"
    if any(ctype.startswith(p) for p in binary_prefixes) or ctype.startswith("application/"):
        return "binary"
    return "html" if body.lstrip()[:1] == b"<" else "binary"


class TextPipeline:
    def __init__(self, binary_prefixes: tuple[str, ...]) -> None:
        self.binary_prefixes = binary_prefixes

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(config_of(crawler.settings).fetch.binary_content_prefixes)

    def process_item(self, item: Any) -> Any:
        page = ItemAdapter(item)
        body, fetched = page["body"], page["fetched"]
        if body is None:  # a failure, a refusal or a 304: nothing to read (core.page.pagerecord.body_to_read)
            return item
        kind = classify(body, fetched.content_type, self.binary_prefixes)
        page["kind"] = kind
        if kind in ("html", "text"):
            read = decode_body(body, fetched.content_type or None, truncated=fetched.truncated)
            decoded = read.text
            page["charset"], page["charset_source"] = read.encoding, read.source
            if kind == "html":  # the text and where each line stands (a figure's context: core.page.context)
                shaped = html_reading(decoded)
                page["text"], page["shapes"] = shaped.text, shaped.shapes
            else:
                page["text"] = decoded
            if kind == "html" and not page["lang"]:
                page["lang"] = html_lang(decoded)
            page["text_method"] = kind
        return item
