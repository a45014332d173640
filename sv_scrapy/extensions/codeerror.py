"""An exception of sv_scrapy's own code met on the way to a page is a code error, not a page fact.

A downloader middleware or the download handler that raises ``AttributeError`` hands Scrapy a
failure that reaches the request's errback exactly like a timeout does; read as a fetch note
it would hide a bug behind "UNAVAILABLE" and an exit status of 0. The spider's errback asks
:func:`is_code_error` first: a programming error is logged with its traceback (in the log
file), counted (``sv/outcome/code_errors``) and made the run's failure (exit 1), and the page
is left unjudged — it is not journalled, so the next run fetches it again.
"""

from __future__ import annotations

import logging
import traceback
from typing import TYPE_CHECKING

from sv_scrapy.extensions.outcome import record_failure

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from twisted.python.failure import Failure

logger = logging.getLogger(__name__)

# what a mistake in Python code raises; the network, TLS, the proxy and our deliberate refusals
# (IgnoreRequest and its kind) raise none of these
PROGRAMMING_ERRORS: tuple[type[BaseException], ...] = (
    AttributeError, TypeError, LookupError, NameError, AssertionError, ArithmeticError, NotImplementedError,
    RecursionError, ImportError,
)  # not UnicodeError: a playbook's malformed host name raises it from IDNA encoding
CODE_ERRORS = "sv/outcome/code_errors"


def is_code_error(exc: BaseException | None) -> bool:
    """True for an exception that only a bug raises.

    >>> is_code_error(AttributeError("x")), is_code_error(TimeoutError()), is_code_error(ConnectionRefusedError())
    (True, False, False)
    """
    return isinstance(exc, PROGRAMMING_ERRORS)


def report_code_error(crawler: Crawler, error: Failure | BaseException, url: str) -> None:
    """Count it, make it the run's failure (exit 1) and log it: one ERROR line, and the
    traceback at INFO, which the quiet console of ``scrapy crawl audit`` leaves to the log file."""
    from twisted.python.failure import Failure  # a BaseException itself in Twisted 24+: asked first

    if isinstance(error, Failure):
        exc, trace = error.value, error.getTraceback()
    else:
        exc, trace = error, "".join(traceback.format_exception(error))
    what = f"{type(exc).__name__}: {str(exc)[:160]}"
    logger.error("error in sv_scrapy's own code while fetching %(url)s: %(what)s (traceback in the log file)",
                 {"url": url, "what": what})
    logger.info("traceback of the error in sv_scrapy's own code while fetching %(url)s:\n%(tb)s",
                {"url": url, "tb": trace})
    if crawler.stats is not None:
        crawler.stats.inc_value(CODE_ERRORS)
    record_failure(crawler, f"error in sv_scrapy's own code while fetching {url}: {what} (traceback in the log)")
