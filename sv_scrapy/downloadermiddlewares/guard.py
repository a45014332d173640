"""The target guard: the last middleware before a request leaves.

Every request — pages, robots.txt, retries, each redirect hop — passes here, so refused
targets (excluded hosts, unsafe addresses, and, when no proxy resolves for us, names that
resolve to unsafe addresses) never leave: ``TargetRefused``. Names are judged by the run's
one resolver (``sv_scrapy/resolver.py``), the one the connection then asks. *When* a request may leave
is not decided here but in the paced download handler (``downloadhandlers/paced.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.utils.httpobj import urlparse_cached

from sv_scrapy.core.page.safety import refusal_reason
from sv_scrapy.exceptions import TargetRefused
from sv_scrapy.resolver import PinnedResolver, resolver_for
from sv_scrapy.run.state import crawl_config

if TYPE_CHECKING:
    from typing import Self

    from scrapy import Request
    from scrapy.crawler import Crawler


class TargetGuardMiddleware:
    def __init__(self, crawler: Crawler, excluded: dict[str, str], resolver: PinnedResolver) -> None:
        self.crawler = crawler
        self.excluded = excluded
        self.resolver = resolver  # the run's one resolver: the addresses judged are the ones connected

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler, crawl_config(crawler).liveness.excluded_hosts, resolver_for(crawler))

    async def process_request(self, request: Request) -> None:
        reason = refusal_reason(request.url, self.excluded)
        if not reason and not request.meta.get("proxy"):
            # no proxy resolves for us: a name with an unsafe answer is refused
            reason = await self.resolver.refusal(urlparse_cached(request).hostname or "")
        if reason:
            self.crawler.stats.inc_value("sv/guard/refused")
            raise TargetRefused(reason)
