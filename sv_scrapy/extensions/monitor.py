"""What a crawl tells whoever watches it, however it was started (``scrapy crawl``, scrapyd's
runner, a script with ``CrawlerProcess``): the quiet console, the heartbeat and
``metrics.prom`` of the monthly audit (``sv_scrapy.ops.watchers``), and the run's outcome —
its exit status and one line, kept in the stats for whoever started the crawl and appended
to ``LOG_FILE`` for a runner that reads only the log (``sv_scrapy.ops.schedule``).

A start that fails its checks (``ClaimSpider.preflight``) never gets a crawl, nor this
extension: :func:`start_failed` tells the same watchers in its place.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import NotConfigured

from sv_scrapy.core.atomic import append_lines
from sv_scrapy.core.errors import FindingsInChange, LockHeld, OutputError
from sv_scrapy.extensions.outcome import record_exit, run_failure
from sv_scrapy.extensions.quietlog import add_console, guard_log_files, is_quiet
from sv_scrapy.ops.heartbeat import Heartbeat
from sv_scrapy.ops.watchers import AuditMonitor, healthcheck_url
from sv_scrapy.run.runtime import new_clock
from sv_scrapy.run.state import find_run, finish

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler

MONITORED_JOBS = ("audit",)  # by SV_JOB: the monthly job, watched by a heartbeat and metrics.prom
OUTCOME = "sv_scrapy outcome: exit="  # the last line of the log: what a runner reading only the log reports


def outcome_line(code: int, message: str = "") -> str:
    """The run's exit status and its one line, as the last line of its log.

    >>> outcome_line(0), outcome_line(1, "none of 9 request(s) got an answer")
    ('sv_scrapy outcome: exit=0', 'sv_scrapy outcome: exit=1: none of 9 request(s) got an answer')
    """
    return f"{OUTCOME}{code}" + (f": {message}" if message else "")


def record_outcome(settings: Mapping[str, Any], code: int, message: str = "") -> None:
    """Append the outcome to ``LOG_FILE`` when one is set (scrapyd sets it; its scheduler reads
    the job's log and exits with this status). A log that cannot be written (a full disk) loses
    the line, never the run's own exit status."""
    log_file = settings.get("LOG_FILE")
    if log_file:
        with contextlib.suppress(OutputError):
            append_lines(log_file, [outcome_line(code, message)], "the log file")


def warn(name: str, warnings: list[str]) -> None:
    for warning in warnings:
        print(f"scrapy crawl {name}: warning: {warning}", file=sys.stderr)


def start_failed(settings: Mapping[str, Any], name: str, job: str, code: int, message: str) -> None:
    """A crawl refused by its checks (or stopped by a bug in them): its one line on stderr and in
    the log, and for the monitored job a failed heartbeat — unless the lock was taken: that run
    did not run."""
    print(f"scrapy crawl {name}: error: {message}", file=sys.stderr)
    record_outcome(settings, code, message)
    if job in MONITORED_JOBS and code != LockHeld.exit_code:
        heartbeat = Heartbeat(healthcheck_url())
        heartbeat.finish(code, message)
        warn(name, heartbeat.warnings)


class MonitorExtension:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.name = crawler.spidercls.name
        job = crawler.settings.get("SV_JOB", "")
        if not job:
            raise NotConfigured("not one of sv_scrapy's claim jobs")
        self.monitor: AuditMonitor | None = None
        if job in MONITORED_JOBS:
            run = find_run(crawler)  # made by the spider, before the extensions: its clock
            self.monitor = AuditMonitor.from_settings(crawler.settings, run.runtime.clock if run else new_clock())
            self.monitor.start()
        self.console = add_console(self.name) if is_quiet(crawler.settings, job) else None
        crawler.signals.connect(self.engine_started, signal=signals.engine_started)
        crawler.signals.connect(self.engine_stopped, signal=signals.engine_stopped)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def engine_started(self) -> None:
        # the crawler has installed its own log handler by now (its LOG_FILE): guard that one
        guard_log_files()

    def engine_stopped(self) -> None:
        # after spider_closed: the reports are written and RunOutcomeExtension has judged the run
        failure, run = run_failure(self.crawler), find_run(self.crawler)
        code = 1 if failure else 0
        if not failure and run is not None and run.change_failures:
            code = FindingsInChange.exit_code  # the outputs are written; the change checked itself fails
        if self.monitor is not None:
            code, failure = self.monitor.finish(code, failure, run.document_stats if run else None)
            warn(self.name, self.monitor.heartbeat.warnings)
        record_exit(self.crawler, code, failure)
        record_outcome(self.crawler.settings, code, failure)
        if self.console is not None:
            logging.root.removeHandler(self.console)
        finish(self.crawler)  # the run's last word is written: its output folder is free
