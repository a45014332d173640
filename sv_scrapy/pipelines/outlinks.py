"""Frames and linked documents: the extra requests a page may need (``core.page.outlinks``).

Both fetch with ``engine.download_async`` — the path Scrapy's own robots.txt middleware takes —
so every such request passes the same downloader middlewares (robots.txt, the target guard,
retries) and waits its turn in the paced download handler like any page: the per-host floors
hold (tests/test_hostile_web.py reads them from the mock web's log). A refused or failed extra
is simply not read; an error in our own code is a code error (``sv_scrapy.codeerror``).

* ``FramesPipeline`` (after the text is read, before the hashes): a thin or zero-match HTML page's
  same-site frames, their text joined to the page's.
* ``LinkedPipeline`` (after the claim records, before the store keeps them): for each
  ``TOKENS_ABSENT`` claim of an HTML page, at most ``linked.max_per_page`` candidate links read;
  ``found_linked`` where one holds the figure. Each URL is read once per run.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import scrapy
from itemadapter import ItemAdapter
from scrapy.exceptions import IgnoreRequest
from scrapy.http.request import NO_CALLBACK

from sv_scrapy.codeerror import is_code_error, report_code_error
from sv_scrapy.core.page.outlinks import (
    found_in,
    frame_urls,
    join_frames,
    linked_candidates,
    page_links,
    wants_frames,
)
from sv_scrapy.core.page.pdf import is_pdf, pdf_to_text
from sv_scrapy.core.page.prefilter import TOKENS_ABSENT
from sv_scrapy.core.page.text import decode_body, html_to_text
from sv_scrapy.runtime import config_of, page_rules

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler

    from sv_scrapy.config import Config

logger = logging.getLogger(__name__)

# statuses that reach us rather than the retry/redirect middlewares' end
_HANDLED = [*range(400, 600)]


async def fetch_text(crawler: Crawler, url: str, purpose: str, max_pdf_pages: int) -> str | None:
    """The text of ``url`` (HTML, plain text or a PDF's text layer); None when it could not be had."""
    request = scrapy.Request(url, callback=NO_CALLBACK, dont_filter=True,
                             meta={"sv_url": url, "sv_purpose": purpose, "handle_httpstatus_list": _HANDLED,
                                   "dont_merge_cookies": True})
    stats = crawler.stats
    assert stats is not None and crawler.engine is not None
    stats.inc_value(f"sv/{purpose}/requested")
    try:
        response = await crawler.engine.download_async(request)
    except IgnoreRequest as exc:  # robots.txt, the target guard, a stop
        stats.inc_value(f"sv/{purpose}/refused")
        logger.debug("%(purpose)s %(url)s not fetched: %(exc)s", {"purpose": purpose, "url": url, "exc": exc})
        return None
    except Exception as exc:
        if is_code_error(exc):
            report_code_error(crawler, exc, url)
        stats.inc_value(f"sv/{purpose}/failed")
        return None
    if response.status != 200:
        stats.inc_value(f"sv/{purpose}/failed")
        return None
    body, ctype = response.body, (response.headers.get(b"Content-Type") or b"").decode("latin-1")
    if is_pdf(body):
        return pdf_to_text(body, max_pdf_pages).text
    text = decode_body(body, ctype or None).text
    return html_to_text(text) if "html" in ctype.lower() or not ctype or text.lstrip()[:1] == "<" else text


class _Outlinks:
    def __init__(self, crawler: Crawler, config: Config) -> None:
        self.crawler = crawler
        self.config = config
        self.rules = page_rules(config)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler, config_of(crawler.settings))

    @staticmethod
    def _html_page(page: ItemAdapter) -> bool:
        """A page of today's web read as HTML: an archived capture (``pipelines.archive``) is the
        page as it was, and today's frames or links would mix the present into it."""
        fetched = page["fetched"]
        return bool(page["kind"] == "html" and fetched.http_status == 200 and not page.item.is_capture)


class FramesPipeline(_Outlinks):
    async def process_item(self, item: Any) -> Any:
        page = ItemAdapter(item)
        body = page["body"]
        if body is None or not self._html_page(page) or b"frame" not in body.lower():
            return item
        fetched = page["fetched"]
        html = decode_body(body, fetched.content_type or None, truncated=fetched.truncated).text
        base = fetched.final_url or page["url"]
        urls = frame_urls(html, base)
        if not urls or not wants_frames(page["claims"], page["text"], self.rules.prefilter):
            return item
        frames = []
        for url in urls:
            text = await fetch_text(self.crawler, url, "frame", self.config.pdf.max_pages)
            if text:
                frames.append((url, text))
        page["frames"] = frames
        page["text"] = join_frames(page["text"], frames)
        return item


class LinkedPipeline(_Outlinks):
    def __init__(self, crawler: Crawler, config: Config) -> None:
        super().__init__(crawler, config)
        self.read: dict[str, str | None] = {}  # URL -> its text: each linked document is read once per run

    async def _text(self, url: str) -> str | None:
        if url not in self.read:
            self.read[url] = await fetch_text(self.crawler, url, "linked", self.config.pdf.max_pages)
        return self.read[url]

    async def process_item(self, item: Any) -> Any:
        page = ItemAdapter(item)
        outcome = page["outcome"]
        if not self.config.linked.enabled or page["from_journal"] or outcome is None:
            return item
        if page["linked_before"]:  # a 304: no body, no links; what the unchanged page linked to stands
            for record in outcome.records:
                if record["prior"] == TOKENS_ABSENT and record["id"] in page["linked_before"]:
                    record["found_linked"] = page["linked_before"][record["id"]]
            return item
        if not page["links"] or not self._html_page(page):
            return item
        budget = self.config.linked.max_per_page
        for record in outcome.records:
            if record["prior"] != TOKENS_ABSENT or budget <= 0:
                continue
            for url in linked_candidates(page["links"], record, self.config.linked.max_per_page):
                if url not in self.read:
                    if budget <= 0:
                        break
                    budget -= 1
                text = await self._text(url)
                excerpt = found_in(record["values"], text or "", self.rules.prefilter)
                if excerpt:
                    record["found_linked"] = {"url": url, "excerpt": excerpt}
                    self.crawler.stats.inc_value("sv/linked/found")
                    break
        return item


class LinksPipeline(_Outlinks):
    """Keeps a page's same-host links while its body is still there, for ``LinkedPipeline``."""

    def process_item(self, item: Any) -> Any:
        page = ItemAdapter(item)
        body = page["body"]
        if self.config.linked.enabled and body is not None and self._html_page(page):
            fetched = page["fetched"]
            html = decode_body(body, fetched.content_type or None, truncated=fetched.truncated).text
            page["links"] = page_links(html, fetched.final_url or page["url"])
        return item
