"""The one place that decides when a request leaves: per-host gaps, per-host concurrency
and the global cap, applied at the moment the real handler is called.

Why here and not in a middleware or on Scrapy's download slots: a downloader middleware
runs *before* the request waits in its slot, so a gap it reserves can be eaten by the
slot queue; a slot's delay knows nothing of the global cap, a retry's not-before or a
``Retry-After`` hold; AutoThrottle rewrites slot delays behind its back. Every request
Scrapy sends — pages, robots.txt, retries, each redirect hop, browser navigations —
is handed to the download handler of its scheme, and ``SvAddon`` installs this one for
``http`` and ``https``, wrapping the handler that really talks to the network (Scrapy's
HTTP/1.1 handler, or scrapy-playwright's when rendering is on). Slots keep Scrapy's
defaults with no delay, and AutoThrottle is off: the latency rule lives in
:class:`~sv_scrapy.core.politeness.Pacer`, where it can only raise a floor.

A browser navigation leaves when Chromium sends it, not when scrapy-playwright is called
(creating the page takes a while): so for a rendered request the handler only waits until
the host is ready, and the turn itself is taken in the browser's request route — the hook
scrapy-playwright awaits before it lets a request continue — for every navigation
request. The sub-resources a page loads (its scripts and data calls) are the page's own
and are not paced; redirects the browser follows by itself are not routed (Playwright
routes the first URL only).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from scrapy import signals
from scrapy.exceptions import IgnoreRequest
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.misc import build_from_crawler, load_object

from sv_scrapy import signals as sv_signals
from sv_scrapy.core.audit.parts import part_of, shared_liveness
from sv_scrapy.core.politeness import HostFloors, Pacer
from sv_scrapy.crawlstate import find_run
from sv_scrapy.runtime import config_of

if TYPE_CHECKING:
    from typing import Self

    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.robotstxt import RobotParser

logger = logging.getLogger(__name__)

NOT_BEFORE = "sv_not_before"  # monotonic time before which a (retried) request must not start
HOLD_HOST = "sv_hold_host_until"  # monotonic time until which its whole host waits
INNER_HANDLER = "SV_NETWORK_HANDLER"  # the handler that talks to the network (set by the add-on)


# A timer fires only when the event loop gets to it, a few ms late on a busy loop; since
# each start is measured from the previous one's actual start, that lateness would add up
# start after start (about 15 % at 50 requests/s). So the last stretch is waited by
# yielding to the loop instead: other work runs, and the start leaves on time.
_SPIN = 0.003


async def _sleep_until(when: float) -> float:
    delay = when - time.monotonic()
    if delay <= 0:
        return 0.0
    if delay > _SPIN:
        await asyncio.sleep(delay - _SPIN)
    while time.monotonic() < when:
        await asyncio.sleep(0)
    return delay


class PacedDownloadHandler:
    lazy = False

    def __init__(self, crawler: Crawler, inner: Any, pacer: Pacer) -> None:
        self.crawler = crawler
        self.inner = inner
        self.pacer = pacer
        self._host_locks: dict[str, asyncio.Lock] = {}
        self._in_flight: dict[str, asyncio.Semaphore] = {}
        self._browser_abort: Any = None
        self._stopped = ""  # why nothing more may be sent (sv_scrapy.signals.stop_sending)
        self._wire_browser()
        crawler.signals.connect(self._robots_parsed, signal=signals.robots_parsed)
        crawler.signals.connect(self._stop_sending, signal=sv_signals.stop_sending)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        cfg = config_of(settings)
        # a part of N on one address: a Nth of the global cap and of the archive's floor each
        run = find_run(crawler)
        sharing = 1 if run is None or settings.getbool("SV_PARTS_SEPARATE_MACHINES") else part_of(run.params).count
        liveness = shared_liveness(cfg.liveness, sharing)
        rps = settings.getfloat("SV_REQ_PER_SEC", cfg.liveness.req_per_sec) / sharing
        pacer = Pacer(
            HostFloors(liveness, cfg.hosts),
            min_gap=1.0 / rps if rps > 0 else 0.0,
            start_delay=settings.getfloat("AUTOTHROTTLE_START_DELAY", 0.0),
            max_delay=settings.getfloat("AUTOTHROTTLE_MAX_DELAY", 60.0),
            target_concurrency=settings.getfloat("AUTOTHROTTLE_TARGET_CONCURRENCY", 1.0),
        )
        inner = build_from_crawler(load_object(settings[INNER_HANDLER]), crawler)
        return cls(crawler, inner, pacer)

    def _wire_browser(self) -> None:
        """Put the turn-taking in front of scrapy-playwright's own abort check (images,
        fonts, unsafe sub-requests): it is awaited before every browser request leaves."""
        if hasattr(self.inner, "abort_request"):
            self._browser_abort = self.inner.abort_request
            self.inner.abort_request = self._route_gate

    async def _route_gate(self, pw_request: Any) -> bool:
        if self._browser_abort is not None:
            verdict = self._browser_abort(pw_request)
            if inspect.isawaitable(verdict):
                verdict = await verdict
            if verdict:
                return True
        if pw_request.is_navigation_request():
            await self._take_turn(urlsplit(pw_request.url).hostname or "")
        return False

    def _semaphore(self, host: str) -> asyncio.Semaphore:
        if host not in self._in_flight:
            self._in_flight[host] = asyncio.Semaphore(max(1, self.pacer.floors.policy(host).concurrency))
        return self._in_flight[host]

    def _stop_sending(self, reason: str) -> None:
        self._stopped = reason

    def _refuse_if_stopped(self) -> None:
        if self._stopped:
            self.crawler.stats.inc_value("sv/pacing/not_sent_after_stop")
            raise IgnoreRequest(f"not sent: {self._stopped}")

    async def download_request(self, request: Request) -> Response:
        host = urlparse_cached(request).hostname or ""
        self._refuse_if_stopped()
        hold = request.meta.get(HOLD_HOST)
        if hold:
            self.pacer.hold(host, hold)
        # a retry's backoff is its own: it waits before queueing behind its host
        await _sleep_until(request.meta.get(NOT_BEFORE, 0.0))
        async with self._semaphore(host):
            if request.meta.get("playwright"):
                await _sleep_until(self.pacer.host_ready(host))  # the route takes the turn itself
            else:
                await self._take_turn(host)
            self._refuse_if_stopped()  # the turn may have come after the crawl stopped sending
            started = time.monotonic()
            try:
                response: Response = await self.inner.download_request(request)
            except Exception:
                self.pacer.observe(host, time.monotonic() - started, ok=False)
                raise
            latency = request.meta.get("download_latency") or (time.monotonic() - started)
            self.pacer.observe(host, float(latency), ok=response.status < 400)
            return response

    async def _take_turn(self, host: str) -> None:
        lock = self._host_locks.setdefault(host, asyncio.Lock())
        async with lock:  # one start at a time per host, in arrival order
            waited = 0.0
            while True:
                # a request queued behind its host when the crawl stopped sending leaves at once,
                # without waiting for (and using up) a turn it will never take
                self._refuse_if_stopped()
                await _sleep_until(self.pacer.host_ready(host))
                waited += await _sleep_until(self.pacer.global_slot(time.monotonic()))
                # an earlier start that left late (a busy loop wakes sleepers late) pushes
                # this one back by as much; it keeps its place in the queue
                while self.pacer.global_ready() > time.monotonic():
                    waited += await _sleep_until(self.pacer.global_ready())
                now = time.monotonic()
                if self.pacer.host_ready(host) <= now:  # a Crawl-delay or hold may have come in
                    break
            self.pacer.started(host, now)
            self.crawler.stats.inc_value("sv/pacing/starts")
            if waited:
                self.crawler.stats.inc_value("sv/pacing/global_cap_waits")

    def _robots_parsed(self, robotparser: RobotParser, request: Request) -> None:
        host = urlparse_cached(request).hostname or ""
        agent = self.crawler.settings.get("ROBOTSTXT_USER_AGENT") or self.crawler.settings["USER_AGENT"]
        delay = robotparser.crawl_delay(agent)
        if delay:
            self.pacer.learn_crawl_delay(host, delay)
            self.crawler.stats.inc_value("sv/pacing/crawl_delay_hosts")
            logger.info("robots.txt of %(host)s asks for Crawl-delay %(delay)s s", {"host": host, "delay": delay})

    async def close(self) -> None:
        await self.inner.close()
