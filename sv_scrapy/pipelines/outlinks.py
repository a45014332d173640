"""Frames and linked documents: the extra requests a page may need (``core.page.outlinks``).

Both fetch and read through the page's journey (``journey``): every such request
passes the same downloader middlewares (robots.txt, the target guard, retries) and waits its
turn in the paced download handler like any page — the per-host floors hold
(tests/test_hostile_web.py reads them from the mock web's log) — and is read by the one reader,
a scanned PDF by OCR. A refused or failed extra is simply not read.

* ``FramesPipeline`` (after the text is read, before the hashes): a thin or zero-match HTML page's
  same-site frames, their text joined to the page's.
* ``LinkedPipeline`` (after the claim records, before the store keeps them): for each
  ``TOKENS_ABSENT`` claim of an HTML page, at most ``linked.max_per_page`` candidate links read;
  ``found_linked`` where one holds the figure (kept in the item's ``linked``: the records are final).
  Each URL is read once per run.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sv_scrapy.core.errors import OutputError
from sv_scrapy.core.page.outlinks import found_in, join_frames, linked_candidates, wants_frames
from sv_scrapy.core.page.prefilter import TOKENS_ABSENT
from sv_scrapy.extensions.journey import journey_of
from sv_scrapy.extensions.outcome import stop_for_output
from sv_scrapy.items import PageItem, page_of
from sv_scrapy.run.runtime import page_rules
from sv_scrapy.run.state import crawl_config, find_run

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler

    from sv_scrapy.core.audit.past import PagePast
    from sv_scrapy.core.claims.record import ClaimRecord
    from sv_scrapy.run.config import Config

async def fetch_text(crawler: Crawler, url: str, purpose: str) -> str | None:
    """The text of ``url`` read by the one reader (HTML, plain text, a PDF's text layer or its
    OCR); None when it could not be had. Asked conditionally when the store keeps its validators
    and text from an earlier run: a 304 is that text again, for a few hundred bytes."""
    journey, run = journey_of(crawler), find_run(crawler)
    store = run.store if run is not None else None
    kept = store.extra(url) if store is not None else None
    conditional = _conditional_headers(kept[0]) if kept is not None else {}
    fetch = await journey.fetch(url, purpose, headers=conditional)
    if fetch.response is None:
        return None
    if fetch.status == 304 and kept is not None and conditional:
        crawler.stats.inc_value(f"sv/{purpose}/not_modified")
        return kept[1]
    if fetch.status != 200:
        crawler.stats.inc_value(f"sv/{purpose}/failed")
        return None
    headers = fetch.headers()
    reading = await journey.read(fetch.response.body, headers.get("content-type", ""), urls=(url,))
    etag, modified = headers.get("etag", ""), headers.get("last-modified", "")
    if store is not None and (etag or modified) and not fetch.response.meta.get("sv_stopped"):
        try:
            store.save_extra(url, etag, modified, reading.text)
        except OutputError as exc:
            stop_for_output(crawler, exc)
    return reading.text


def _conditional_headers(validators: dict[str, str]) -> dict[str, str]:
    headers = {"If-None-Match": validators.get("etag", ""), "If-Modified-Since": validators.get("last_modified", "")}
    return {name: value for name, value in headers.items() if value}


class _Outlinks:
    def __init__(self, crawler: Crawler, config: Config) -> None:
        self.crawler = crawler
        self.config = config
        self.rules = page_rules(config)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler, crawl_config(crawler))


class FramesPipeline(_Outlinks):
    async def process_item(self, item: Any) -> Any:
        page = page_of(item)
        frames = []
        for url in self._wanted(page):
            text = await fetch_text(self.crawler, url, "frame")
            if text:
                frames.append((url, text))
        if frames:
            reading = page.reading
            page.reading = replace(reading, text=join_frames(reading.text, frames), frames=tuple(frames))
        return item

    def _wanted(self, page: PageItem) -> list[str]:
        """The same-site frames of a thin or zero-match HTML page (its reading found them); none for any other page."""
        urls = list(page.reading.frame_urls) if page.html_page else []
        return urls if urls and wants_frames(page.claims, page.reading.text, self.rules.prefilter) else []


class LinkedPipeline(_Outlinks):
    def __init__(self, crawler: Crawler, config: Config) -> None:
        super().__init__(crawler, config)
        self.read: dict[str, str | None] = {}  # URL -> its text: each linked document is read once per run

    async def _text(self, url: str) -> str | None:
        if url not in self.read:
            self.read[url] = await fetch_text(self.crawler, url, "linked")
        return self.read[url]

    async def process_item(self, item: Any) -> Any:
        page = page_of(item)
        outcome = page.outcome
        if self.config.linked.enabled and not page.from_journal and outcome is not None:
            if page.fetched.http_status == 304:
                page.linked.update(self._findings_stand(page.past, outcome.records))
            elif links := page.links():
                page.linked.update(await self._one_hop(links, outcome.records))
        return item

    @staticmethod
    def _findings_stand(past: PagePast | None, records: list[ClaimRecord]) -> dict[str, dict[str, str]]:
        """A 304 has no body, so no links: what the unchanged page linked to stands."""
        before = past.linked_before() if past is not None else {}
        return {r["id"]: before[r["id"]] for r in records if r["prior"] == TOKENS_ABSENT and r["id"] in before}

    async def _one_hop(self, links: tuple[tuple[str, str], ...], records: list[ClaimRecord]) -> dict[str, dict[str, str]]:
        """Claim id -> where its figure was found: for each ``TOKENS_ABSENT`` claim, its candidate links
        read (``linked.max_per_page`` new ones for the page in all) until one holds the figure."""
        found: dict[str, dict[str, str]] = {}
        budget = self.config.linked.max_per_page
        for record in records:
            if record["prior"] != TOKENS_ABSENT or budget <= 0:
                continue
            for url in linked_candidates(links, record, self.config.linked.max_per_page):
                if url not in self.read:
                    if budget <= 0:
                        break
                    budget -= 1
                text = await self._text(url)
                excerpt = found_in(record["values"], text or "", self.rules.prefilter)
                if excerpt:
                    found[record["id"]] = {"url": url, "excerpt": excerpt}
                    self.crawler.stats.inc_value("sv/linked/found")
                    break
        return found
