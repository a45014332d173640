"""``scrapy crawl``, with sv_scrapy's spiders' arguments, config, corpus and outputs checked
first, one writer per output folder, and an exit status that tells the truth.

The checks run in ``process_options``, before Scrapy builds the crawler process and starts
logging: a bad ``-a`` value, config key or corpus root is one line and exit 2; an output
folder that cannot be written is one line and exit 1; another run holding the folder's
lock is one line and exit 75. After the crawl, a run that could not write what it
promises, ended early or hit errors in its own code exits 1 with one line.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING

from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.exceptions import UsageError
from scrapy.spiderloader import get_spider_loader

from sv_scrapy.core.errors import SvError
from sv_scrapy.extensions.outcome import run_failure
from sv_scrapy.quietlog import console_handler, log_to_file

if TYPE_CHECKING:
    import argparse


class Command(ScrapyCrawlCommand):
    def _fail(self, name: str, message: str, code: int) -> None:
        print(f"scrapy crawl {name}: error: {message}", file=sys.stderr)
        sys.exit(code)

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
        try:
            preflight(self.settings, opts.spargs)
        except SvError as exc:
            self._fail(args[0], str(exc), exc.exit_code)
        # quiet by default: Scrapy's INFO chatter to a log file under the output folder
        self.quiet = log_to_file(self.settings, opts, args[0]) is not None

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError("give exactly one spider name")
        if getattr(self, "quiet", False):
            logging.root.addHandler(console_handler(args[0]))
        assert self.crawler_process
        crawler = self._create_crawler(args[0])
        self.crawler_process.crawl(crawler, **opts.spargs)
        self.crawler_process.start()
        failure = run_failure(crawler)
        if self.crawler_process.bootstrap_failed and not failure:
            failure = "the crawler could not start (see the log above)"
        if failure:
            print(f"scrapy crawl {args[0]}: error: {failure}", file=sys.stderr)
            self.exitcode = 1
