"""Body caps enforced while downloading, so a huge page never fills memory.

HTML and other text stop at ``fetch.max_body_bytes`` and are read as far as they came
(``truncated``); PDFs may use ``pdf.max_bytes`` (a cut PDF does not parse, so an over-cap
PDF is reported unavailable, not half-read); a body that is neither, under a binary
content type, is not downloaded past its first chunk. A request may name its own cap
(``WANTED_CAP``): a sitemap, whose protocol allows 50 MB.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy import signals
from scrapy.exceptions import StopDownload
from scrapy.utils.httpobj import urlparse_cached

from sv_scrapy.core.page.pdf import PDF_MAGIC
from sv_scrapy.run.state import crawl_config

if TYPE_CHECKING:
    from typing import Self

    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Headers

CAP = "sv_body_cap"
SEEN = "sv_body_seen"
WANTED_CAP = "sv_body_cap_wanted"  # meta: a request's own cap (a sitemap may hold 50 MB by its protocol)


class BodyCapExtension:
    def __init__(self, crawler: Crawler, html_cap: int, pdf_cap: int, binary_prefixes: tuple[str, ...]) -> None:
        self.crawler = crawler
        self.html_cap = html_cap
        self.pdf_cap = pdf_cap
        self.binary_prefixes = binary_prefixes
        crawler.signals.connect(self.headers_received, signal=signals.headers_received)
        crawler.signals.connect(self.bytes_received, signal=signals.bytes_received)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        cfg = crawl_config(crawler)
        return cls(crawler, cfg.fetch.max_body_bytes, cfg.pdf.max_bytes, cfg.fetch.binary_content_prefixes)

    def headers_received(self, headers: Headers, body_length: int, request: Request, spider: object = None) -> None:
        ctype = (headers.get(b"Content-Type") or b"").decode("latin-1").lower()
        pdfish = "pdf" in ctype or urlparse_cached(request).path.lower().endswith(".pdf")
        binary = any(ctype.startswith(p) for p in self.binary_prefixes)
        # a binary type might still be a PDF by its magic bytes: decide on the first chunk
        request.meta[CAP] = request.meta.get(WANTED_CAP) or (self.pdf_cap if (pdfish or binary) else self.html_cap)
        request.meta["sv_binary_type"] = binary and not pdfish
        request.meta[SEEN] = 0

    def bytes_received(self, data: bytes, request: Request, spider: object = None) -> None:
        seen = request.meta.get(SEEN, 0)
        if seen == 0 and request.meta.get("sv_binary_type") and PDF_MAGIC not in data[:1024]:
            request.meta["sv_stopped"] = "binary content: not downloaded"
            raise StopDownload(fail=False)
        seen += len(data)
        request.meta[SEEN] = seen
        cap = request.meta.get(CAP, self.html_cap)
        if seen >= cap:
            request.meta["sv_stopped"] = f"body cut at the {cap}-byte cap"
            self.crawler.stats.inc_value("sv/bodycap/stopped")
            raise StopDownload(fail=False)
