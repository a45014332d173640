"""``scrapy crawl``, with sv_scrapy's spiders' arguments, config and corpus checked first.

A bad ``-a`` value, config key or corpus root is one line and exit 2 before any crawler
starts, instead of a traceback from inside the reactor.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.spiderloader import get_spider_loader

from sv_scrapy.core.errors import SvError

if TYPE_CHECKING:
    import argparse


class Command(ScrapyCrawlCommand):
    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) == 1 and self.settings is not None:
            try:
                spidercls = get_spider_loader(self.settings).load(args[0])
            except KeyError:
                spidercls = None
            preflight = getattr(spidercls, "preflight", None)
            if preflight is not None:
                try:
                    preflight(self.settings, opts.spargs)
                except SvError as exc:
                    print(f"scrapy crawl {args[0]}: error: {exc}", file=sys.stderr)
                    self.exitcode = 2
                    return
        super().run(args, opts)
