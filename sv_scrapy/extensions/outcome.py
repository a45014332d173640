"""The run's outcome, for the exit status: did it write everything it promised?

Components report what failed with :func:`record_failure` (an output that could not be
written); this extension adds what only signals show — an error raised in a spider
callback or a pipeline (the page's claims would silently go missing), a crawl that ended
early, a crawl in which no request got any answer at all — and ``scrapy crawl`` turns the
first of them into one line and exit 1.

An exception of sv_scrapy's own code met on the way to a page is a code error, not a page fact.

A downloader middleware or the download handler that raises ``AttributeError`` hands Scrapy a
failure that reaches the request's errback exactly like a timeout does; read as a fetch note
it would hide a bug behind "UNAVAILABLE" and an exit status of 0. The spider's errback asks
:func:`is_code_error` first: a programming error is logged with its traceback (in the log
file), counted (``sv/outcome/code_errors``) and made the run's failure (exit 1), and the page
is left unjudged — it is not journalled, so the next run fetches it again.
"""

from __future__ import annotations

import logging
import resource
import traceback
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import DropItem
from scrapy.utils.defer import deferred_from_coro

from sv_scrapy import signals as sv_signals

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector
    from twisted.python.failure import Failure

FAILURE = "sv/outcome/failure"
OUTPUT_FAILED = "sv/outcome/output_failed"
EXIT = "sv/outcome/exit"  # the run's exit status, once sv_scrapy.extensions.monitor has judged it
NOT_STARTED = "the crawler could not start (see the log above)"


def stats_if_started(crawler: Crawler) -> StatsCollector | None:
    """The crawler's stats, or None before the crawl starts: Scrapy documents that reading
    ``crawler.stats`` then raises ``RuntimeError`` (its ``_LateAttribute``)."""
    try:
        return crawler.stats
    except RuntimeError:
        return None


def record_failure(crawler: Crawler, message: str) -> None:
    """Keep the first failure: it is the one that explains the others."""
    if crawler.stats is not None and not crawler.stats.get_value(FAILURE):
        crawler.stats.set_value(FAILURE, message)


def stop_for_output(crawler: Crawler, exc: Exception) -> DropItem:
    """A write to the output folder failed (a full disk, a folder gone): nothing fetched from
    now on could be kept, so nothing more is fetched. The first failure is the run's one line;
    the crawl closes (``output_failed``), the pages journalled so far stay journalled and the
    next run resumes from them. Returns the ``DropItem`` the caller raises for its item."""
    stats = crawler.stats
    if stats is not None and not stats.get_value(OUTPUT_FAILED):
        stats.set_value(OUTPUT_FAILED, str(exc))
        record_failure(crawler, f"{exc}: the crawl stopped at the first failed write (no more requests sent); "
                                "the next run resumes it")
        crawler.signals.send_catch_log(sv_signals.stop_sending, reason="a write to the output folder failed")
        engine = crawler.engine
        if engine is not None and engine.spider is not None:
            deferred_from_coro(engine.close_spider_async(reason="output_failed")).addErrback(lambda _: None)
    return DropItem(f"not kept: {exc}", log_level="DEBUG")


def output_stopped(crawler: Crawler) -> bool:
    """A write already failed: later pages are not kept either (the journal stays as it was)."""
    return bool(crawler.stats is not None and crawler.stats.get_value(OUTPUT_FAILED))


def run_failure(crawler: Crawler) -> str:
    """The one line that says why the run failed; empty when it did not."""
    stats = stats_if_started(crawler)
    return str(stats.get_value(FAILURE) or "") if stats is not None else ""


def record_exit(crawler: Crawler, code: int, line: str) -> None:
    """The run's final word (after metrics and heartbeat had their say), for :func:`exit_status`."""
    if crawler.stats is not None:
        crawler.stats.set_value(EXIT, code)
        crawler.stats.set_value(FAILURE, line)


def judged(crawler: Crawler) -> bool:
    """The crawl ran far enough for ``MonitorExtension`` to record its exit status."""
    stats = stats_if_started(crawler)
    return stats is not None and stats.get_value(EXIT) is not None


def exit_status(crawler: Crawler) -> tuple[int, str]:
    """How a crawl that has finished ends: its exit status and one line, the same whoever
    started it (``scrapy crawl``, or a script: ``sys.exit(exit_status(crawler)[0])``). A
    crawler that never got its extensions, or never judged its run, failed to start."""
    if not judged(crawler):
        return 1, run_failure(crawler) or NOT_STARTED
    stats = crawler.stats
    return int(stats.get_value(EXIT)), str(stats.get_value(FAILURE) or "")


def peak_rss_mb() -> float:
    """The crawl process's own peak resident memory (Chromium and tesseract are processes of
    their own). ``VmHWM`` is reset by ``exec``; ``ru_maxrss`` is not (Linux keeps the forking
    parent's peak in it), so it is read first and ``ru_maxrss`` is only the fallback."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except (OSError, ValueError):
        pass
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


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


class RunOutcomeExtension:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.errors: list[str] = []
        crawler.signals.connect(self.spider_error, signal=signals.spider_error)
        crawler.signals.connect(self.item_error, signal=signals.item_error)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def spider_error(self, failure: Any, response: Any, spider: Any = None) -> None:
        self.errors.append(f"a spider callback raised {type(failure.value).__name__}: {failure.value} "
                           f"(on {getattr(response, 'url', '?')})")

    def item_error(self, item: Any, response: Any, spider: Any = None, failure: Any = None) -> None:
        self.errors.append(f"a pipeline raised {type(failure.value).__name__}: {failure.value}")

    def spider_closed(self, spider: Any, reason: str) -> None:
        stats = self.crawler.stats
        assert stats is not None
        stats.set_value("sv/peak_rss_mb", peak_rss_mb())
        if reason != "finished":
            record_failure(self.crawler, f"the crawl ended early ({reason})")
        if self.errors:
            record_failure(self.crawler, f"{len(self.errors)} error(s) in sv_scrapy's own code; first: {self.errors[0]}")
            stats.set_value("sv/outcome/errors", len(self.errors))
        sent = stats.get_value("downloader/request_count", 0)
        if sent and not stats.get_value("downloader/response_count", 0):
            record_failure(self.crawler, f"none of {sent} request(s) got an answer (network or proxy down?); "
                                         "results are partial")
