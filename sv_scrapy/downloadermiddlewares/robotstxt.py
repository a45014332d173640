"""Scrapy's robots.txt middleware, read per RFC 9309 and refusing with a distinct exception for ``ROBOTS``.

The one module that names Scrapy's private API: ``RobotsTxtMiddleware`` offers no public hook for
a robots.txt answer or a failed download, so this subclass overrides ``_parse_robots`` and
``_robots_error`` and installs parsers in ``_parsers``; ``tests/test_scrapy_private.py`` fails
loudly when a Scrapy upgrade changes any of them, and fails when another module names a private
Scrapy name.

What a robots.txt answer means is ``core.page.robotsrule``'s: 2xx its rules (and stored for a
later run), 4xx no rules, 5xx / 429 / a network error complete disallow for this run — or the
copy stored from an earlier run, when there is one. Scrapy logs a failed robots.txt download
as an ERROR with a traceback, which in an unattended monthly run reads like a crash; it is
logged here as one WARNING line instead.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import Request, signals
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.exceptions import IgnoreRequest
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.misc import build_from_crawler, load_object
from twisted.internet.defer import Deferred

from sv_scrapy.core.page.robotsrule import RobotsReading, reading_for, unreachable
from sv_scrapy.exceptions import RobotsDisallowed
from sv_scrapy.extensions.outcome import is_code_error, report_code_error
from sv_scrapy.run.state import find_run

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.robotstxt import RobotParser

    from sv_scrapy.core.audit.store import ContentStore

logger = logging.getLogger(__name__)


ROBOTS_NOTE = "sv_robots_note"  # meta: fetched under a stored robots.txt, because the live one was unreachable


class _RobotsErrorAsWarning(logging.Filter):
    """Scrapy 2.19 offers no hook for how a failed robots.txt download is reported: it logs an
    ERROR with ``exc_info`` inside ``RobotsTxtMiddleware.robot_parser`` and then calls
    ``_robots_error``. That one record is dropped here; ``_robots_error`` below says what
    follows from it in one WARNING line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.levelno >= logging.ERROR and str(record.msg).startswith("Error downloading"))


_FILTER = _RobotsErrorAsWarning()


def _settled(shared: Deferred[Any]) -> Deferred[None]:
    """A Deferred that fires when ``shared`` does, without taking ``shared``'s result from its other waiters."""
    relay: Deferred[None] = Deferred()

    def passing(result: Any) -> Any:
        relay.callback(None)
        return result

    shared.addBoth(passing)
    return relay


def _robots_url(scheme: str, netloc: str) -> str:
    return f"{scheme}://{netloc}/robots.txt"


class SvRobotsTxtMiddleware(RobotsTxtMiddleware):
    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        parent = logging.getLogger(RobotsTxtMiddleware.__module__)
        if _FILTER not in parent.filters:
            parent.addFilter(_FILTER)
        self._readings: dict[str, RobotsReading] = {}  # netloc -> how its rules were had
        self._schemes: dict[str, str] = {}
        self._parser_class: type[RobotParser] = load_object(crawler.settings["ROBOTSTXT_PARSER"])

    def _store(self) -> ContentStore | None:
        run = find_run(self.crawler)
        return run.store if run is not None else None

    def _stored(self, netloc: str) -> tuple[bytes, str] | None:
        store = self._store()
        return store.robots(_robots_url(self._schemes.get(netloc, "https"), netloc)) if store is not None else None

    def _install(self, netloc: str, reading: RobotsReading) -> None:
        """Hand the parser of ``reading`` to the requests waiting for this host's rules."""
        self._readings[netloc] = reading
        if reading.unreachable:
            self.crawler.stats.inc_value("sv/robots/unreachable")
            logger.warning("robots.txt of %(netloc)s unavailable (%(why)s): %(what)s (RFC 9309)",
                           {"netloc": netloc, "why": reading.unreachable,
                            "what": f"the copy stored {reading.stored_at[:10]} stands in" if reading.stored_at
                            else "its pages are not fetched this run"})
        rp = build_from_crawler(self._parser_class, self.crawler, reading.body)
        waiting = self._parsers[netloc]
        self._parsers[netloc] = rp
        if isinstance(waiting, Deferred):
            waiting.callback(rp)

    def body_of(self, netloc: str) -> bytes | None:
        """The robots.txt rules this run holds for ``netloc`` (None: not asked yet, or none came):
        where discovery reads a site's ``Sitemap:`` lines without asking robots.txt again."""
        reading = self._readings.get(netloc)
        return reading.body if reading is not None and not reading.unreachable else None

    def allows(self, url: str) -> bool | None:
        """Whether the rules this run holds for ``url``'s host allow it; None while they are not known
        (the request then meets them in ``process_request`` like any other)."""
        parser = self._parsers.get(urlparse_cached(Request(url)).netloc)
        if parser is None or isinstance(parser, Deferred):
            return None
        agent = self._robotstxt_useragent or self._default_useragent
        return bool(parser.allowed(url, agent))

    async def robot_parser(self, request: Request) -> RobotParser | None:
        url = urlparse_cached(request)
        self._schemes.setdefault(url.netloc, url.scheme)
        pending = self._parsers.get(url.netloc)
        if isinstance(pending, Deferred):
            # robots.txt of this host is in flight. Scrapy 2.19 awaits the shared Deferred with
            # ``asFuture``, whose callback returns None: the first waiter gets the parser, every
            # later one None, read as "no robots.txt" — and its request was sent. Waiting on a
            # relay leaves the shared result alone; the parser is then read where it was installed.
            await maybe_deferred_to_future(_settled(pending))
            return self._parsers[url.netloc]  # type: ignore[return-value]  # no longer a Deferred
        return await super().robot_parser(request)

    async def _parse_robots(self, response: Response, netloc: str, request: Request) -> None:
        self.crawler.stats.inc_value("robotstxt/response_count")
        self.crawler.stats.inc_value(f"robotstxt/response_status_count/{response.status}")
        reading = reading_for(response.status, response.body, None)
        if reading.unreachable:
            reading = reading_for(response.status, response.body, self._stored(netloc))
        elif reading.store and (store := self._store()) is not None:
            try:
                store.save_robots(_robots_url(urlparse_cached(response).scheme, netloc), response.body)
            except OSError as exc:  # a stand-in for a later run is a nicety; the run's own writes report a full disk
                logger.warning("robots.txt of %(netloc)s not stored: %(exc)s", {"netloc": netloc, "exc": exc})
        self._install(netloc, reading)
        if not reading.unreachable:
            await self.crawler.signals.send_catch_log_async(
                signal=signals.robots_parsed, robotparser=self._parsers[netloc], request=request)

    def _robots_error(self, exc: Exception, netloc: str) -> None:
        if isinstance(exc, IgnoreRequest):
            # refused (the target guard) or stopped: the page meets the same refusal on its own
            super()._robots_error(exc, netloc)
            return
        self.crawler.stats.inc_value(f"robotstxt/exception_count/{type(exc)}")
        if is_code_error(exc):
            report_code_error(self.crawler, exc, _robots_url(self._schemes.get(netloc, "https"), netloc))
        self._install(netloc, unreachable(f"network error: {type(exc).__name__}", self._stored(netloc)))

    async def process_request(self, request: Request, spider: Spider | None = None) -> None:
        """The documented hook: Scrapy's refusal (its only ``IgnoreRequest`` here) becomes ours."""
        try:
            await super().process_request(request)
        except IgnoreRequest as exc:
            reading = self._readings.get(urlparse_cached(request).netloc)
            raise RobotsDisallowed(reading.refusal() if reading else "robots.txt disallows this URL") from exc
        reading = self._readings.get(urlparse_cached(request).netloc)
        if reading is not None and reading.standing_in():
            request.meta[ROBOTS_NOTE] = reading.standing_in()  # the page's record says which rules it was fetched under
