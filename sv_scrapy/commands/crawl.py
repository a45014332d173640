"""``scrapy crawl``, with sv_scrapy's spiders' checks run before Scrapy starts its log, and an
exit status that tells the truth.

Everything else a crawl tells its watchers — the quiet console, the heartbeat, ``metrics.prom``,
the outcome line — belongs to the crawl itself (``sv_scrapy.extensions.monitor``, the add-on),
so scrapyd's runner and a script with ``CrawlerProcess`` get the same. What this command adds:
the spider's checks (``ClaimSpider.preflight``) in ``process_options``, so a bad ``-a`` value,
config key or corpus root is one line and exit 2, an output folder that cannot be written one
line and exit 1, a folder locked by another run one line and exit 75, a bug met by the checks
one line (its traceback kept in a file, as the other commands keep theirs) and exit 1 — before
Scrapy builds the crawler process and writes a log; and the process's log pointed at the quiet
file from the start (Scrapy logs its own start-up before any crawler exists).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.exceptions import UsageError
from scrapy.spiderloader import get_spider_loader

from sv_scrapy.commands import bug_message
from sv_scrapy.core.errors import SvError
from sv_scrapy.extensions.monitor import record_outcome, start_failed
from sv_scrapy.extensions.outcome import exit_status, judged
from sv_scrapy.extensions.quietlog import add_console, is_quiet, log_to_file
from sv_scrapy.run.registry import apply_environment
from sv_scrapy.spiders.base import PREFLIGHT, ClaimSpider, Preflight, job_of

if TYPE_CHECKING:
    import argparse


class Command(ScrapyCrawlCommand):
    job = ""  # the spider's SV_JOB, once process_options found a claim spider
    found: Preflight | None = None  # what its checks found, handed to the spider (its run's lock, clock, config)

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        super().process_options(args, opts)
        if len(args) != 1 or self.settings is None:
            return  # Scrapy's own usage errors apply
        apply_environment(self.settings)  # the checks below read them before the crawler process is made
        try:
            spidercls = get_spider_loader(self.settings).load(args[0])
        except KeyError:
            known = ", ".join(sorted(get_spider_loader(self.settings).list()))
            message = f"no spider named {args[0]!r} (known: {known})"
            print(f"scrapy crawl {args[0]}: error: {message}", file=sys.stderr)
            record_outcome(self.settings, 2, message)
            sys.exit(2)
        if not issubclass(spidercls, ClaimSpider):
            return
        self.job = job_of(spidercls)
        try:
            self.found = spidercls.preflight(self.settings, opts.spargs)
        except SvError as exc:
            start_failed(self.settings, args[0], self.job, exc.exit_code, str(exc))
            sys.exit(exc.exit_code)
        except Exception as exc:  # noqa: BLE001  # a bug: one line and exit 1, as the other commands
            start_failed(self.settings, args[0], self.job, 1, bug_message("crawl", exc))
            sys.exit(1)
        log_to_file(self.settings, self.job, self.found.runtime.clock)

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError("give exactly one spider name")
        assert self.crawler_process and self.settings is not None
        if is_quiet(self.settings, self.job):
            add_console(args[0])  # before the spider is made: its start-up lines (resume, skipped) reach it
        crawler = self.crawler_process.create_crawler(args[0])  # public; Scrapy's -o feeds are not ours
        handed = {PREFLIGHT: self.found} if self.found is not None else {}
        try:
            self.crawler_process.crawl(crawler, **opts.spargs, **handed)
            self.crawler_process.start()
        finally:
            if self.found is not None:  # a crawl that never started never took it over
                self.found.lock.release()
        self.exitcode, failure = exit_status(crawler)
        if failure:
            print(f"scrapy crawl {args[0]}: error: {failure}", file=sys.stderr)
        if not judged(crawler):  # the crawl never got as far as its own outcome
            record_outcome(self.settings, self.exitcode, failure)
