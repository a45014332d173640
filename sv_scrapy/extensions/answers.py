"""What a request got, as facts for ``core.page.pagerecord``: the statuses that reach the
caller, and a downloader's exception described (spiders and the page journey alike)."""

from __future__ import annotations

from scrapy import Request
from scrapy.exceptions import IgnoreRequest
from twisted.python.failure import Failure

from sv_scrapy.core.page.pagerecord import FetchFailure
from sv_scrapy.exceptions import RobotsDisallowed, TargetRefused

# every non-2xx status reaches the callback; 3xx stay with RedirectMiddleware, but 304
# (our conditional requests) is an answer, not a redirect
HANDLED_STATUSES = [304, *range(400, 600), 999]


def failed_request(failure: Failure) -> Request:
    """The request an errback's failure is about: Scrapy sets it on the Failure it hands the
    errback, an attribute Twisted's Failure does not declare, so it is looked up and checked
    (a Failure with none is no errback's: a code error, never a page's outcome)."""
    request = getattr(failure, "request", None)
    if not isinstance(request, Request):
        raise TypeError(f"an errback's failure carries its request; this one has none: {failure!r}")
    return request


def describe_failure(failure: Failure | BaseException) -> FetchFailure:
    """The downloader's exception (or an errback's Failure of it) as facts for
    ``core.page.pagerecord.failure_outcome``."""
    # a Failure is a BaseException itself in Twisted 24+: asked first
    exc = failure.value if isinstance(failure, Failure) else failure
    if isinstance(exc, RobotsDisallowed):
        return FetchFailure("robots", message=str(exc))
    if isinstance(exc, TargetRefused):
        return FetchFailure("refused", message=str(exc))
    kind = "ignored" if isinstance(exc, IgnoreRequest) else "error"
    return FetchFailure(kind, type(exc).__name__, str(exc))
