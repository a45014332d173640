"""One progress line every few seconds: pages done/total, by status, rate, ETA."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import AsyncioLoopingCall, create_looping_call

from sv_scrapy.run.registry import setting_default
from sv_scrapy.run.state import find_run

if TYPE_CHECKING:
    from typing import Self

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from twisted.internet.task import LoopingCall


class ProgressExtension:
    def __init__(self, crawler: Crawler, interval: float) -> None:
        self.crawler = crawler
        self.interval = interval
        self.started = time.monotonic()
        self.task: AsyncioLoopingCall | LoopingCall | None = None
        crawler.signals.connect(self.opened, signal=signals.spider_opened)
        crawler.signals.connect(self.closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        interval = crawler.settings.getfloat("SV_PROGRESS_INTERVAL", setting_default("SV_PROGRESS_INTERVAL"))
        if interval <= 0:  # checked before the crawl (runtime.check_settings): 0 means off,
            raise NotConfigured  # as asked, so no message (Scrapy would log it at WARNING)
        return cls(crawler, interval)

    def opened(self, spider: Spider) -> None:
        self.started = time.monotonic()
        self.task = create_looping_call(self.log)
        self.task.start(self.interval, now=False)

    def closed(self, spider: Spider) -> None:
        if self.task is not None and self.task.running:
            self.task.stop()

    def log(self) -> None:
        run, spider = find_run(self.crawler), self.crawler.spider
        if run is None or spider is None:  # not a claim job: nothing to count
            return
        by_status = {k: v for k, v in run.pages_done.items() if k != "journal"}
        done = sum(run.pages_done.values())
        total = run.claims.url_count()
        elapsed = time.monotonic() - self.started
        rate = done / elapsed if elapsed else 0.0
        eta = (total - done) / rate if rate else float("nan")
        spider.logger.info(
            "progress: %(done)d/%(total)d pages (%(by)s), %(rate).1f pages/s, ETA %(eta)s",
            {"done": done, "total": total, "by": ", ".join(f"{k} {v}" for k, v in sorted(by_status.items())) or "-",
             "rate": rate, "eta": f"{eta:.0f} s" if eta == eta else "?"},
        )
