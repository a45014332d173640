"""robots.txt obeyed per RFC 9309, on Scrapy's public API, refusing with a distinct exception for ``ROBOTS``.

It replaces Scrapy's ``RobotsTxtMiddleware`` rather than extending it: Scrapy's offers no public
hook for a robots.txt answer or a failed download. So this one keeps its own table of hosts'
rules and asks for robots.txt itself, through ``crawler.engine.download_async``. It keeps what
Scrapy's does: the settings it reads (``ROBOTSTXT_OBEY``, ``ROBOTSTXT_USER_AGENT``,
``ROBOTSTXT_PARSER``), the ``robots_parsed`` signal, and the ``robotstxt/...`` stats keys.

What a robots.txt answer means is ``core.page.robotsrule``'s: 2xx its rules (and stored for a
later run), 4xx no rules, 5xx / 429 / a network error complete disallow for this run — or the
copy stored from an earlier run, when there is one. A failed robots.txt download is one WARNING
line saying what follows from it, not an ERROR with a traceback (an unattended monthly run must
not read like a crash).

While a host's robots.txt is on its way, the middleware holds one asyncio task for it: the fetch
and reading. Every request to that host awaits the task, and each gets its result; once read, the
host's rules take the task's place (a finished task is ~0.8 KB a host: 8 MB at 10,000 hosts). In
Scrapy 2.19 every waiter awaits one shared ``Deferred`` instead; the first takes the parser and
hands each later one ``None``, read as "no robots.txt", so those requests are sent unchecked
(``docs/development/dependencies.md``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, NamedTuple

from scrapy import Request, signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.misc import build_from_crawler, load_object

from sv_scrapy.core.audit.store import robots_txt_url
from sv_scrapy.core.page.robotsrule import RobotsReading, reading_for, unreachable
from sv_scrapy.exceptions import RobotsDisallowed
from sv_scrapy.extensions.outcome import is_code_error, report_code_error
from sv_scrapy.run.state import find_run

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.robotstxt import RobotParser

    from sv_scrapy.core.audit.store import ContentStore

logger = logging.getLogger(__name__)


ROBOTS_NOTE = "sv_robots_note"  # meta: fetched under a stored robots.txt, because the live one was unreachable


class HostRules(NamedTuple):
    """A host's robots.txt rules: the parser requests are judged by, and how they were had."""

    parser: RobotParser
    reading: RobotsReading


class SvRobotsTxtMiddleware:
    DOWNLOAD_PRIORITY = 1000  # Scrapy's: a host's robots.txt goes before the pages waiting for it

    def __init__(self, crawler: Crawler):
        if not crawler.settings.getbool("ROBOTSTXT_OBEY"):
            raise NotConfigured
        self.crawler = crawler
        self._user_agent: str = crawler.settings["USER_AGENT"]
        self._robots_user_agent: str | None = crawler.settings["ROBOTSTXT_USER_AGENT"]
        self._parser_class: type[RobotParser] = load_object(crawler.settings["ROBOTSTXT_PARSER"])
        build_from_crawler(self._parser_class, crawler, b"")  # a parser's missing dependency fails at start
        # netloc -> its rules, or None when robots.txt was refused or stopped (the pages meet that on their own)
        self._rules: dict[str, HostRules | None] = {}
        self._asking: dict[str, asyncio.Task[HostRules | None]] = {}  # netloc -> its robots.txt on its way

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def _count(self, key: str) -> None:
        assert self.crawler.stats is not None  # set before any request reaches a middleware
        self.crawler.stats.inc_value(key)

    # -- what the rest of the crawl asks ----------------------------------------------------------
    def _known(self, netloc: str) -> HostRules | None:
        """The rules this run holds for ``netloc``; None while they are not known, or when none came."""
        return self._rules.get(netloc)

    def body_of(self, netloc: str) -> bytes | None:
        """The robots.txt rules this run holds for ``netloc`` (None: not asked yet, or none came):
        where discovery reads a site's ``Sitemap:`` lines without asking robots.txt again."""
        rules = self._known(netloc)
        if rules is None or rules.reading.unreachable:
            return None
        return rules.reading.body

    def allows(self, url: str) -> bool | None:
        """Whether the rules this run holds for ``url``'s host allow it; None while they are not known
        (the request then meets them in ``process_request`` like any other)."""
        rules = self._known(urlparse_cached(Request(url)).netloc)
        if rules is None:
            return None
        return bool(rules.parser.allowed(url, self._robots_user_agent or self._user_agent))

    # -- the downloader middleware ------------------------------------------------------------------
    async def process_request(self, request: Request) -> None:
        """Refuse ``request`` with ``RobotsDisallowed`` when its host's robots.txt disallows it."""
        if request.meta.get("dont_obey_robotstxt") or request.url.startswith(("data:", "file:")):
            return
        url = urlparse_cached(request)
        if url.netloc in self._rules:
            rules = self._rules[url.netloc]
        else:
            if url.netloc not in self._asking:
                self._asking[url.netloc] = asyncio.ensure_future(self._ask(url.scheme, url.netloc, request))
            # shielded: a request cancelled while it waits must not cancel its host's robots.txt for the others
            rules = await asyncio.shield(self._asking[url.netloc])
        if rules is None:
            return
        if not rules.parser.allowed(request.url, self._agent(request)):
            logger.debug("Forbidden by robots.txt: %(request)s", {"request": request},
                         extra={"spider": self.crawler.spider})
            self._count("robotstxt/forbidden")
            raise RobotsDisallowed(rules.reading.refusal())
        if rules.reading.standing_in():  # the page's record says which rules it was fetched under
            request.meta[ROBOTS_NOTE] = rules.reading.standing_in()

    def _agent(self, request: Request) -> str | bytes:
        """Scrapy's order: ``ROBOTSTXT_USER_AGENT``, else the request's User-Agent, else ``USER_AGENT``."""
        return self._robots_user_agent or request.headers.get(b"User-Agent") or self._user_agent

    # -- asking robots.txt ------------------------------------------------------------------------
    async def _ask(self, scheme: str, netloc: str, request: Request) -> HostRules | None:
        """Fetch and read ``netloc``'s robots.txt, once a run; ``request`` is the first that needed it."""
        robots_url = robots_txt_url(scheme, netloc)
        asked = Request(robots_url, priority=self.DOWNLOAD_PRIORITY, meta={"dont_obey_robotstxt": True},
                        callback=NO_CALLBACK)
        engine = self.crawler.engine
        assert engine is not None  # the crawl has started: a request is on its way
        rules: HostRules | None
        try:
            response = await engine.download_async(asked)
            rules = await self._answered(response, robots_url, netloc, request)
        except IgnoreRequest:
            rules = None  # refused (the target guard) or stopped: the page meets the same refusal on its own
        except Exception as exc:
            rules = self._failed(exc, robots_url, netloc)
        self._count("robotstxt/request_count")
        self._rules[netloc] = rules  # in the task's place, at once: no request finds neither
        self._asking.pop(netloc, None)
        return rules

    async def _answered(self, response: Response, robots_url: str, netloc: str, request: Request) -> HostRules:
        self._count("robotstxt/response_count")
        self._count(f"robotstxt/response_status_count/{response.status}")
        reading = reading_for(response.status, response.body, None)
        if reading.unreachable:
            reading = reading_for(response.status, response.body, self._stored(robots_url))
        elif reading.store:  # under the URL asked, whatever a redirect answered from: where _stored looks
            self._save(netloc, robots_url, response.body)
        rules = self._host_rules(netloc, reading)
        if not reading.unreachable:
            # before any waiting request goes on: the pacing handler reads Crawl-delay from it
            await self.crawler.signals.send_catch_log_async(signal=signals.robots_parsed, robotparser=rules.parser,
                                                            request=request)
        return rules

    def _failed(self, exc: Exception, robots_url: str, netloc: str) -> HostRules:
        self._count(f"robotstxt/exception_count/{type(exc)}")
        if is_code_error(exc):
            report_code_error(self.crawler, exc, robots_url)
        return self._host_rules(netloc, unreachable(f"network error: {type(exc).__name__}", self._stored(robots_url)))

    def _host_rules(self, netloc: str, reading: RobotsReading) -> HostRules:
        if reading.unreachable:
            self._count("sv/robots/unreachable")
            logger.warning("robots.txt of %(netloc)s unavailable (%(why)s): %(what)s (RFC 9309)",
                           {"netloc": netloc, "why": reading.unreachable,
                            "what": f"the copy stored {reading.stored_at[:10]} stands in" if reading.stored_at
                            else "its pages are not fetched this run"})
        return HostRules(build_from_crawler(self._parser_class, self.crawler, reading.body), reading)

    # -- the copy stored for a later run ------------------------------------------------------------
    def _store(self) -> ContentStore | None:
        run = find_run(self.crawler)
        return run.store if run is not None else None

    def _stored(self, robots_url: str) -> tuple[bytes, str] | None:
        store = self._store()
        return store.robots(robots_url) if store is not None else None

    def _save(self, netloc: str, robots_url: str, body: bytes) -> None:
        store = self._store()
        if store is None:
            return
        try:
            store.save_robots(robots_url, body)
        except OSError as exc:  # a stand-in for a later run is a nicety; the run's own writes report a full disk
            logger.warning("robots.txt of %(netloc)s not stored: %(exc)s", {"netloc": netloc, "exc": exc})
