"""Retries with the configured backoff, jitter and ``Retry-After`` (Scrapy retries at once).

The wait is not slept here: the retried request carries ``sv_not_before`` and the
paced download handler holds it, so nothing else is blocked meanwhile. A ``Retry-After`` (429,
503) also holds back the whole host; one asking for more than a minute is not waited for —
the page is reported unavailable with that reason instead.
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING

from scrapy.downloadermiddlewares.retry import RetryMiddleware, get_retry_request
from scrapy.utils.httpobj import urlparse_cached

from sv_scrapy.core.policy import Liveness
from sv_scrapy.core.politeness import RETRY_AFTER_CAP_SECONDS, backoff_seconds, parse_retry_after
from sv_scrapy.downloadhandlers.paced import HOLD_HOST, NOT_BEFORE
from sv_scrapy.run.state import crawl_config

RETRY_AFTER_REFUSED = "sv_retry_after_refused"  # meta: the Retry-After (seconds) not waited for

if TYPE_CHECKING:
    from typing import Self

    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response


class BackoffRetryMiddleware(RetryMiddleware):
    liveness: Liveness
    rng: random.Random

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        mw = super().from_crawler(crawler)
        mw.liveness = crawl_config(crawler).liveness
        mw.rng = random.Random()
        return mw

    def _retried(self, request: Request, reason: str | Exception) -> Request | None:
        """Scrapy's public ``get_retry_request``, with the limits this middleware read from the settings."""
        spider = self.crawler.spider
        assert spider is not None
        return get_retry_request(
            request, spider=spider, reason=reason,
            max_retry_times=request.meta.get("max_retry_times", self.max_retry_times),
            priority_adjust=request.meta.get("priority_adjust", self.priority_adjust),
            give_up_log_level=request.meta.get("give_up_log_level", self.give_up_log_level))

    def _schedule(self, retry: Request | None, wait: float, hold_host: bool) -> Request | None:
        if retry is not None:
            until = time.monotonic() + wait
            retry.meta[NOT_BEFORE] = until
            retry.meta.pop(HOLD_HOST, None)  # an earlier attempt's hold is not this one's
            if hold_host:
                retry.meta[HOLD_HOST] = until
                # asked again first: past Scrapy's queue of its host's download slot, where it
                # would wait behind every request queued meanwhile, to the paced handler's line
                retry.meta["download_slot"] = f"{urlparse_cached(retry).hostname} (Retry-After)"
        return retry

    def process_response(self, request: Request, response: Response, spider: Spider | None = None) -> Request | Response:
        if request.meta.get("dont_retry") or response.status not in self.retry_http_codes:
            return response
        asked = parse_retry_after(response.headers.get(b"Retry-After"))
        if asked is not None and asked > RETRY_AFTER_CAP_SECONDS:
            # on the request: a response handed back by a downloader middleware is not tied to
            # its request yet (Scrapy sets response.request after this chain), so response.meta raises
            request.meta[RETRY_AFTER_REFUSED] = asked
            return response
        attempt = request.meta.get("retry_times", 0) + 1
        wait = asked if asked is not None else backoff_seconds(attempt, self.liveness, self.rng)
        retry = self._retried(request, f"http {response.status}")
        return self._schedule(retry, wait, hold_host=asked is not None) or response

    def process_exception(self, request: Request, exception: Exception, spider: Spider | None = None) -> Request | None:
        if request.meta.get("dont_retry") or not isinstance(exception, self.exceptions_to_retry):
            return None
        attempt = request.meta.get("retry_times", 0) + 1
        return self._schedule(self._retried(request, exception), backoff_seconds(attempt, self.liveness, self.rng), False)
