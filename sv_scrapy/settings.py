"""Scrapy settings for sv_scrapy.

The SV_* locations come from the environment (or ``-s NAME=VALUE``). Politeness is not
defined here: it is derived from ``_url-liveness.json`` at start-up.
"""

from __future__ import annotations

import os
from pathlib import Path

_PROJECT_DIR = Path(__file__).resolve().parent.parent

BOT_NAME = "sv_scrapy"
SPIDER_MODULES = ["sv_scrapy.spiders"]
NEWSPIDER_MODULE = "sv_scrapy.spiders"
COMMANDS_MODULE = "sv_scrapy.commands"

SV_CORPUS_ROOT = os.environ.get("SV_CORPUS_ROOT", str(_PROJECT_DIR / "examples" / "corpus"))
SV_CONFIG_DIR = os.environ.get("SV_CONFIG_DIR", str(_PROJECT_DIR / "config"))
SV_OUTPUT_DIR = os.environ.get("SV_OUTPUT_DIR", str(_PROJECT_DIR / "_local" / "source-verify"))

ROBOTSTXT_OBEY = True
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
FEED_EXPORT_ENCODING = "utf-8"
LOG_LEVEL = "INFO"
