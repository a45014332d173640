"""The politeness gate: the last middleware before a request leaves.

Every request — pages, robots.txt, retries, each redirect hop — passes here, so:

* refused targets (excluded hosts, unsafe addresses, and, when no proxy resolves for us,
  names that resolve to unsafe addresses) never leave: ``TargetRefused``;
* per-host floors: starts to one host are at least ``floor`` seconds apart (policy of
  ``_url-liveness.json``, raised by robots ``Crawl-delay``), waited here *and* set on the
  host's Scrapy download slot (delay = floor, no jitter, the policy's concurrency), which
  AutoThrottle may only raise;
* the global ``req_per_sec`` cap: starts across all hosts at least ``1/req_per_sec`` apart;
* retry backoff and ``Retry-After``: a retried request carries ``sv_not_before``; a
  ``Retry-After`` also holds back the whole host.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from scrapy import signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.utils.httpobj import urlparse_cached

from sv_scrapy.core.politeness import HostFloors
from sv_scrapy.core.safety import address_reason, refusal_reason
from sv_scrapy.runtime import load_cached

if TYPE_CHECKING:
    from typing import Self

    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.robotstxt import RobotParser

logger = logging.getLogger(__name__)

NOT_BEFORE = "sv_not_before"  # monotonic time before which a (retried) request must not start
HOLD_HOST = "sv_hold_host_until"  # monotonic time until which its whole host waits


class TargetRefused(IgnoreRequest):
    """The request's target is excluded or unsafe; it was never sent."""


class PolitenessMiddleware:
    def __init__(self, crawler: Crawler, floors: HostFloors, excluded: dict[str, str], req_per_sec: float) -> None:
        self.crawler = crawler
        self.floors = floors
        self.excluded = excluded
        self.min_gap = 1.0 / req_per_sec if req_per_sec > 0 else 0.0
        self._next_global = 0.0
        self._next_host: dict[str, float] = {}
        self._last_start: dict[str, float] = {}
        self._configured_slots: set[str] = set()
        self._resolved: dict[str, str | None] = {}
        self._lock = asyncio.Lock()
        crawler.signals.connect(self._configure_slot, signal=signals.request_reached_downloader)
        crawler.signals.connect(self._robots_parsed, signal=signals.robots_parsed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not crawler.settings.getbool("SV_POLITENESS_ENABLED", True):
            raise NotConfigured("SV_POLITENESS_ENABLED is off")
        cfg = load_cached(crawler.settings["SV_CONFIG_DIR"])
        rps = crawler.settings.getfloat("SV_REQ_PER_SEC", cfg.liveness.req_per_sec)
        return cls(crawler, HostFloors(cfg.liveness, cfg.hosts), cfg.liveness.excluded_hosts, rps)

    # -- refusal -----------------------------------------------------------------------
    async def _refusal(self, request: Request) -> str | None:
        reason = refusal_reason(request.url, self.excluded)
        if reason:
            return reason
        if not request.meta.get("proxy"):
            return await self._resolved_reason(urlparse_cached(request).hostname or "")
        return None

    async def _resolved_reason(self, host: str) -> str | None:
        """No proxy resolves for us: refuse names that point at unsafe addresses."""
        if host not in self._resolved:
            import ipaddress

            try:
                infos = await asyncio.get_running_loop().getaddrinfo(host, None)
            except OSError:
                infos = []  # let the download fail on its own: DNS errors are UNAVAILABLE
            reason = None
            for info in infos:
                unsafe = address_reason(ipaddress.ip_address(info[4][0]))
                if unsafe:
                    reason = f"unsafe target: {host} resolves to a {unsafe}"
                    break
            self._resolved[host] = reason
        return self._resolved[host]

    # -- pacing ------------------------------------------------------------------------
    async def process_request(self, request: Request) -> None:
        reason = await self._refusal(request)
        if reason:
            self.crawler.stats.inc_value("sv/politeness/refused")
            raise TargetRefused(reason)
        host = urlparse_cached(request).hostname or ""
        hold = request.meta.get(HOLD_HOST)
        if hold:
            self._next_host[host] = max(self._next_host.get(host, 0.0), hold)
        await self._sleep_until(request.meta.get(NOT_BEFORE, 0.0))
        async with self._lock:  # reservations are made in arrival order
            now = time.monotonic()
            host_start = max(now, self._next_host.get(host, 0.0))
            self._next_host[host] = host_start + self.floors.floor(host)
        await self._sleep_until(host_start)
        async with self._lock:
            now = time.monotonic()
            start = max(now, self._next_global)
            self._next_global = start + self.min_gap
            self._next_host[host] = max(self._next_host[host], start + self.floors.floor(host))
            self._last_start[host] = start
        waited = await self._sleep_until(start)
        if waited:
            self.crawler.stats.inc_value("sv/politeness/global_cap_waits")

    @staticmethod
    async def _sleep_until(when: float) -> bool:
        delay = when - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
            return True
        return False

    # -- slots -------------------------------------------------------------------------
    def _configure_slot(self, request: Request, spider: object = None) -> None:
        downloader = self.crawler.engine.downloader if self.crawler.engine else None
        key = request.meta.get("download_slot")
        if downloader is None or key is None or key in self._configured_slots:
            return
        slot = downloader.slots.get(key)
        if slot is None:
            return
        host = urlparse_cached(request).hostname or key
        slot.delay = self.floors.floor(host)
        slot.jitter = 0.0
        slot.concurrency = self.floors.policy(host).concurrency
        self._configured_slots.add(key)

    def _robots_parsed(self, robotparser: RobotParser, request: Request) -> None:
        host = urlparse_cached(request).hostname or ""
        agent = self.crawler.settings.get("ROBOTSTXT_USER_AGENT") or self.crawler.settings["USER_AGENT"]
        delay = robotparser.crawl_delay(agent)
        if delay:
            self.floors.learn_crawl_delay(host, delay)
            # the next start to this host waits the new floor from the last one (robots.txt)
            self._next_host[host] = max(self._next_host.get(host, 0.0),
                                        self._last_start.get(host, 0.0) + self.floors.floor(host))
            self.crawler.stats.inc_value("sv/politeness/crawl_delay_hosts")
            logger.info("robots.txt of %(host)s asks for Crawl-delay %(delay)s s", {"host": host, "delay": delay})
            slot = self.crawler.engine.downloader.slots.get(request.meta.get("download_slot", host))
            if slot is not None:
                slot.delay = max(slot.delay, self.floors.floor(host))
