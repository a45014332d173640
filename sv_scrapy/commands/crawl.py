"""``scrapy crawl``, with sv_scrapy's spiders' arguments, config and corpus checked first.

The check runs in ``process_options``, before Scrapy builds the crawler process and starts
logging: a bad ``-a`` value, config key or corpus root is exactly one line on stderr and
exit 2, never a traceback from inside the reactor.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING

from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.spiderloader import get_spider_loader

from sv_scrapy.core.errors import SvError
from sv_scrapy.quietlog import console_handler, log_to_file

if TYPE_CHECKING:
    import argparse


class Command(ScrapyCrawlCommand):
    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        super().process_options(args, opts)
        if len(args) != 1 or self.settings is None:
            return  # Scrapy's own usage errors apply
        try:
            spidercls = get_spider_loader(self.settings).load(args[0])
        except KeyError:
            return
        preflight = getattr(spidercls, "preflight", None)
        if preflight is None:
            return
        try:
            preflight(self.settings, opts.spargs)
        except SvError as exc:
            print(f"scrapy crawl {args[0]}: error: {exc}", file=sys.stderr)
            sys.exit(2)
        self.quiet = log_to_file(self.settings, opts, args[0]) is not None  # issue #14: quiet by default

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if getattr(self, "quiet", False):
            logging.root.addHandler(console_handler(args[0]))
        super().run(args, opts)
