"""The target guard: the last middleware before a request leaves.

Every request — pages, robots.txt, retries, each redirect hop — passes here, so refused
targets (excluded hosts, unsafe addresses, and, when no proxy resolves for us, names that
resolve to unsafe addresses) never leave: ``TargetRefused``. *When* a request may leave
is not decided here but in the paced download handler (``downloadhandlers/paced.py``).
"""

from __future__ import annotations

import asyncio
import ipaddress
from typing import TYPE_CHECKING

from scrapy.exceptions import IgnoreRequest
from scrapy.utils.httpobj import urlparse_cached

from sv_scrapy.core.page.safety import address_reason, refusal_reason
from sv_scrapy.crawlstate import crawl_config

if TYPE_CHECKING:
    from typing import Self

    from scrapy import Request
    from scrapy.crawler import Crawler


class TargetRefused(IgnoreRequest):
    """The request's target is excluded or unsafe; it was never sent."""


class TargetGuardMiddleware:
    def __init__(self, crawler: Crawler, excluded: dict[str, str]) -> None:
        self.crawler = crawler
        self.excluded = excluded
        self._resolved: dict[str, str | None] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler, crawl_config(crawler).liveness.excluded_hosts)

    async def process_request(self, request: Request) -> None:
        reason = refusal_reason(request.url, self.excluded)
        if not reason and not request.meta.get("proxy"):
            reason = await self._resolved_reason(urlparse_cached(request).hostname or "")
        if reason:
            self.crawler.stats.inc_value("sv/guard/refused")
            raise TargetRefused(reason)

    async def _resolved_reason(self, host: str) -> str | None:
        """No proxy resolves for us: refuse names that point at unsafe addresses."""
        if host not in self._resolved:
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
