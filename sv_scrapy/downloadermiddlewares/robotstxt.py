"""Scrapy's robots.txt middleware, refusing with a distinct exception for ``ROBOTS``.

A robots.txt that cannot be fetched means "no rules" (the page is then fetched and reported
on its own merits); Scrapy logs that as an ERROR with a traceback, which in an unattended
monthly run reads like a crash. It is logged here as one WARNING line instead.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.exceptions import IgnoreRequest

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.robotstxt import RobotParser


class RobotsDisallowed(IgnoreRequest):
    """robots.txt disallows this URL for our user agent; it was never requested."""


class _QuietRobotsErrors(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR and str(record.msg).startswith("Error downloading"):
            args = record.args if isinstance(record.args, dict) else {}
            record.msg = "robots.txt unavailable for %(request)s (%(f_exception)s); fetching as if it had no rules"
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info = record.exc_text = None
            record.args = args
        return True


_FILTER = _QuietRobotsErrors()


class SvRobotsTxtMiddleware(RobotsTxtMiddleware):
    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        parent = logging.getLogger(RobotsTxtMiddleware.__module__)
        if _FILTER not in parent.filters:
            parent.addFilter(_FILTER)

    def process_request_2(self, rp: RobotParser | None, request: Request) -> None:
        try:
            super().process_request_2(rp, request)
        except IgnoreRequest as exc:
            raise RobotsDisallowed("robots.txt disallows this URL") from exc
