"""The run's outcome, for the exit status: did it write everything it promised?

Components report what failed with :func:`record_failure` (an output that could not be
written); this extension adds what only signals show — an error raised in a spider
callback or a pipeline (the page's claims would silently go missing), a crawl that ended
early, a crawl in which no request got any answer at all — and ``scrapy crawl`` turns the
first of them into one line and exit 1.
"""

from __future__ import annotations

import resource
from typing import TYPE_CHECKING, Any

from scrapy import signals

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler

FAILURE = "sv/outcome/failure"


def record_failure(crawler: Crawler, message: str) -> None:
    """Keep the first failure: it is the one that explains the others."""
    if crawler.stats is not None and not crawler.stats.get_value(FAILURE):
        crawler.stats.set_value(FAILURE, message)


def run_failure(crawler: Crawler) -> str:
    """The one line that says why the run failed; empty when it did not."""
    return str(crawler.stats.get_value(FAILURE) or "") if crawler.stats is not None else ""


class RunOutcomeExtension:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.errors: list[str] = []
        crawler.signals.connect(self.spider_error, signal=signals.spider_error)
        crawler.signals.connect(self.item_error, signal=signals.item_error)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def spider_error(self, failure: Any, response: Any, spider: Any = None) -> None:
        self.errors.append(f"a spider callback raised {type(failure.value).__name__}: {failure.value} "
                           f"(on {getattr(response, 'url', '?')})")

    def item_error(self, item: Any, response: Any, spider: Any = None, failure: Any = None) -> None:
        self.errors.append(f"a pipeline raised {type(failure.value).__name__}: {failure.value}")

    def spider_closed(self, spider: Any, reason: str) -> None:
        stats = self.crawler.stats
        assert stats is not None
        # the crawl process's own peak (helpers such as Chromium or tesseract are not in it)
        stats.set_value("sv/peak_rss_mb", round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1))
        if reason != "finished":
            record_failure(self.crawler, f"the crawl ended early ({reason})")
        if self.errors:
            record_failure(self.crawler, f"{len(self.errors)} error(s) in sv_scrapy's own code; first: {self.errors[0]}")
            stats.set_value("sv/outcome/errors", len(self.errors))
        sent = stats.get_value("downloader/request_count", 0)
        if sent and not stats.get_value("downloader/response_count", 0):
            record_failure(self.crawler, f"none of {sent} request(s) got an answer (network or proxy down?); "
                                         "results are partial")
