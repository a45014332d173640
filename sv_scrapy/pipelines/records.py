"""Claim records: the page's facts and reading handed to ``core.page.pagerecord.page_records``,
its outcome (fetch_status, note, one record per claim) kept on the item."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sv_scrapy.core.audit.past import PagePast
from sv_scrapy.core.page.pagerecord import page_records
from sv_scrapy.items import page_of
from sv_scrapy.run.runtime import page_rules
from sv_scrapy.run.state import crawl_config, run_of

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler

    from sv_scrapy.core.page.pagerecord import PageRules


class RecordsPipeline:
    def __init__(self, crawler: Crawler, rules: PageRules) -> None:
        self.crawler = crawler
        self.rules = rules
        # the audit remembers a URL across runs (fail streaks, change settling); the worklist does not
        self.remembers = crawler.settings.get("SV_JOB") == "audit"

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler, page_rules(crawl_config(crawler)))

    def process_item(self, item: Any) -> Any:
        page = page_of(item)
        if page.from_journal:
            return item
        run, previous = run_of(self.crawler), None
        if self.remembers:  # the past the request carried (a URL never seen: an empty one)
            previous = (page.past or PagePast(page.url)).previous()
        outcome = page_records(page.fetched, page.reading, page.claims, self.rules, previous)
        page.outcome = outcome
        for prior in outcome.priors:
            self.crawler.stats.inc_value(f"sv/prior/{prior}")
        self.crawler.stats.inc_value(f"sv/fetch_status/{outcome.raw_status}")
        run.pages_done[outcome.raw_status] += 1
        return item
