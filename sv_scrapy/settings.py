"""Scrapy settings for sv_scrapy.

The SV_* locations come from the environment (or ``-s NAME=VALUE``). Politeness is not
defined here: ``sv_scrapy.addon.SvAddon`` derives it from ``_url-liveness.json`` at
start-up (user agent, robots, concurrency, floors, AutoThrottle, timeouts, retries).
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
# where `scrapy crawl audit -a ci=1` writes its reports (the Actions artifact)
SV_CI_DIR = os.environ.get("SV_CI_DIR", str(_PROJECT_DIR / "_ci" / "source-verify"))
# the OCR engine for scanned PDFs (Debian's tesseract-ocr); a missing one leaves scans PDF_NO_TEXT
SV_TESSERACT = os.environ.get("SV_TESSERACT", "tesseract")

ADDONS = {"sv_scrapy.addon.SvAddon": 0}

DOWNLOADER_MIDDLEWARES = {
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    "sv_scrapy.downloadermiddlewares.robotstxt.SvRobotsTxtMiddleware": 100,
    "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
    "sv_scrapy.downloadermiddlewares.retry.BackoffRetryMiddleware": 550,
    # last before the download handler: sees every request, robots.txt and redirects included
    "sv_scrapy.downloadermiddlewares.politeness.PolitenessMiddleware": 950,
}
EXTENSIONS = {
    "scrapy.extensions.throttle.AutoThrottle": None,
    "sv_scrapy.extensions.throttle.FlooredAutoThrottle": 0,
    "sv_scrapy.extensions.bodycap.BodyCapExtension": 0,
    "scrapy.extensions.telnet.TelnetConsole": None,
}

COOKIES_ENABLED = False  # every fetch stands alone; no session state between pages
RETRY_GIVE_UP_LOG_LEVEL = "WARNING"  # a dead page is a finding, not a crawler error
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
FEED_EXPORT_ENCODING = "utf-8"
LOG_LEVEL = "INFO"
LOGSTATS_INTERVAL = 10.0
