"""``scrapy crawl``, with sv_scrapy's spiders' arguments, config, corpus and outputs checked
first, one writer per output folder, and an exit status that tells the truth.

The checks run in ``process_options``, before Scrapy builds the crawler process and starts
logging: a bad ``-a`` value, config key or corpus root is one line and exit 2; an output
folder that cannot be written is one line and exit 1; another run holding the folder's
lock is one line and exit 75. After the crawl, a run that could not write what it
promises, ended early or hit errors in its own code exits 1 with one line.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from typing import TYPE_CHECKING

from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.exceptions import UsageError
from scrapy.spiderloader import get_spider_loader

from sv_scrapy.core.atomic import append_lines
from sv_scrapy.core.errors import FindingsInChange, LockHeld, OutputError, SvError
from sv_scrapy.crawlstate import find_run
from sv_scrapy.extensions.outcome import run_failure
from sv_scrapy.ops.heartbeat import Heartbeat
from sv_scrapy.ops.monitor import AuditMonitor
from sv_scrapy.quietlog import console_handler, guard_log_files, log_to_file
from sv_scrapy.registry import env
from sv_scrapy.runtime import process_clock

if TYPE_CHECKING:
    import argparse


OUTCOME = "sv_scrapy outcome: exit="  # the last line of the log: what a runner reading only the log reports


def outcome_line(code: int, message: str = "") -> str:
    """The run's exit status and its one line, as the last line of its log.

    >>> outcome_line(0), outcome_line(1, "none of 9 request(s) got an answer")
    ('sv_scrapy outcome: exit=0', 'sv_scrapy outcome: exit=1: none of 9 request(s) got an answer')
    """
    return f"{OUTCOME}{code}" + (f": {message}" if message else "")


class Command(ScrapyCrawlCommand):
    def _record_outcome(self, code: int, message: str = "") -> None:
        """Append the outcome to ``LOG_FILE`` when one is set (scrapyd sets it; its scheduler,
        ``sv_scrapy.ops.schedule``, reads the job's log and exits with this status). A log that
        cannot be written (a full disk) loses the line, never the run's own exit status."""
        log_file = self.settings.get("LOG_FILE") if self.settings is not None else None
        if log_file:
            with contextlib.suppress(OutputError):
                append_lines(log_file, [outcome_line(code, message)], "the log file")

    monitor: AuditMonitor | None = None  # the monthly audit's heartbeat and metrics.prom

    def _fail(self, name: str, message: str, code: int, monitored: bool = False) -> None:
        print(f"scrapy crawl {name}: error: {message}", file=sys.stderr)
        self._record_outcome(code, message)
        if monitored and code != LockHeld.exit_code:  # a run that found the lock taken did not run
            heartbeat = Heartbeat(env("SV_HEALTHCHECK_URL").strip())
            heartbeat.finish(code, message)
            self._warn(name, heartbeat.warnings)
        sys.exit(code)

    @staticmethod
    def _warn(name: str, warnings: list[str]) -> None:
        for warning in warnings:
            print(f"scrapy crawl {name}: warning: {warning}", file=sys.stderr)

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        super().process_options(args, opts)
        if len(args) != 1 or self.settings is None:
            return  # Scrapy's own usage errors apply
        try:
            spidercls = get_spider_loader(self.settings).load(args[0])
        except KeyError:
            known = ", ".join(sorted(get_spider_loader(self.settings).list()))
            self._fail(args[0], f"no spider named {args[0]!r} (known: {known})", 2)
            return
        preflight = getattr(spidercls, "preflight", None)
        if preflight is None:
            return
        monitored = bool(getattr(spidercls, "monitored", False))
        try:
            preflight(self.settings, opts.spargs)
        except SvError as exc:
            self._fail(args[0], str(exc), exc.exit_code, monitored)
        if monitored:
            self.monitor = AuditMonitor.from_settings(self.settings, process_clock())
            self.monitor.start()
        # quiet by default: Scrapy's INFO chatter to a log file under the output folder
        self.quiet = log_to_file(self.settings, opts, args[0]) is not None

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError("give exactly one spider name")
        if getattr(self, "quiet", False):
            logging.root.addHandler(console_handler(args[0]))
        guard_log_files()
        assert self.crawler_process
        crawler = self._create_crawler(args[0])
        self.crawler_process.crawl(crawler, **opts.spargs)
        self.crawler_process.start()
        failure = run_failure(crawler)
        if self.crawler_process.bootstrap_failed and not failure:
            failure = "the crawler could not start (see the log above)"
        if failure:
            self.exitcode = 1
        elif (checked := find_run(crawler)) is not None and checked.change_failures:
            self.exitcode = FindingsInChange.exit_code  # outputs written; the change itself fails
        if self.monitor is not None:
            run = find_run(crawler)
            self.exitcode, failure = self.monitor.finish(self.exitcode, failure, run.document_stats if run else None)
            self._warn(args[0], self.monitor.heartbeat.warnings)
        if failure:
            print(f"scrapy crawl {args[0]}: error: {failure}", file=sys.stderr)
        self._record_outcome(self.exitcode, failure)
