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
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)


class RobotsDisallowed(IgnoreRequest):
    """robots.txt disallows this URL for our user agent; it was never requested."""


class _RobotsErrorAsWarning(logging.Filter):
    """Scrapy 2.19 offers no hook for how a failed robots.txt download is reported: it logs an
    ERROR with ``exc_info`` inside ``RobotsTxtMiddleware.robot_parser`` and carries on without
    rules. That one record is dropped here and said again as our own WARNING line; Scrapy's
    record itself is left as it is."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR and str(record.msg).startswith("Error downloading"):
            args = record.args if isinstance(record.args, dict) else {}
            logger.warning("robots.txt unavailable for %(request)s (%(f_exception)s); fetching as if it had no rules",
                           {"request": args.get("request"), "f_exception": args.get("f_exception")})
            return False
        return True


_FILTER = _RobotsErrorAsWarning()


class SvRobotsTxtMiddleware(RobotsTxtMiddleware):
    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        parent = logging.getLogger(RobotsTxtMiddleware.__module__)
        if _FILTER not in parent.filters:
            parent.addFilter(_FILTER)

    async def process_request(self, request: Request, spider: Spider | None = None) -> None:
        """The documented hook: Scrapy's refusal (its only ``IgnoreRequest`` here) becomes ours."""
        try:
            await super().process_request(request)
        except IgnoreRequest as exc:
            raise RobotsDisallowed("robots.txt disallows this URL") from exc
