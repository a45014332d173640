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

# Components are listed here once, for every spider; a spider switches one on or off with a
# scalar setting (``SV_JOB``), never by setting one of these dicts in ``custom_settings``,
# which would replace the whole dict and silently drop the rest (tests/test_components_enabled.py).
DOWNLOADER_MIDDLEWARES = {
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    "sv_scrapy.downloadermiddlewares.robotstxt.SvRobotsTxtMiddleware": 100,
    "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
    "sv_scrapy.downloadermiddlewares.retry.BackoffRetryMiddleware": 550,
    # last before the download handler: sees every request, robots.txt and redirects included
    "sv_scrapy.downloadermiddlewares.guard.TargetGuardMiddleware": 950,
}
EXTENSIONS = {
    # pacing (floors, Crawl-delay, latency, the global cap) is the paced download handler's alone
    "scrapy.extensions.throttle.AutoThrottle": None,
    # an unattended job that reads untrusted pages opens no control port
    "scrapy.extensions.telnet.TelnetConsole": None,
    "scrapy.extensions.remote_control.RemoteControl": None,
    "sv_scrapy.extensions.bodycap.BodyCapExtension": 0,
    "sv_scrapy.extensions.progress.ProgressExtension": 0,
    "sv_scrapy.extensions.outcome.RunOutcomeExtension": 0,
    # after the outcome: the quiet console, heartbeat, metrics.prom and the log's outcome line
    "sv_scrapy.extensions.monitor.MonitorExtension": 10,
}
# text -> PDF text -> hashes -> (audit: restore 304s) -> priors -> store -> export; the
# job-specific ones enable themselves by ``SV_JOB`` (``worklist`` or ``audit``)
ITEM_PIPELINES = {
    "sv_scrapy.pipelines.store.StoreRestorePipeline": 50,  # a 304: the stored copy, before any reading
    "sv_scrapy.pipelines.text.TextPipeline": 100,
    # a thin or zero-match page's frames join its text; its links kept for one hop (issue #19)
    "sv_scrapy.pipelines.outlinks.FramesPipeline": 150,
    "sv_scrapy.pipelines.outlinks.LinksPipeline": 160,
    "sv_scrapy.pipelines.pdf.PdfTextPipeline": 200,
    "sv_scrapy.pipelines.hashes.HashPipeline": 300,
    "sv_scrapy.pipelines.records.RecordsPipeline": 400,
    "sv_scrapy.pipelines.archive.ArchivePipeline": 410,  # then and now: archived captures end here
    "sv_scrapy.pipelines.outlinks.LinkedPipeline": 420,
    "sv_scrapy.pipelines.store.StoreUpdatePipeline": 450,
    "sv_scrapy.pipelines.store.StoreTextPipeline": 460,
    "sv_scrapy.pipelines.export.WorklistExportPipeline": 900,
    "sv_scrapy.pipelines.audit.AuditExportPipeline": 910,
}
SV_JOB = ""
# set by `scrapy crawl` once it ran the spider's checks before Scrapy's log started; any other
# start (scrapyd's runner goes through `scrapy crawl`; a script, a test) has the spider run them
SV_PREFLIGHT_DONE = False
REMOTE_CONTROL_ENABLED = False

COOKIES_ENABLED = False  # every fetch stands alone; no session state between pages
RETRY_GIVE_UP_LOG_LEVEL = "WARNING"  # a dead page is a finding, not a crawler error
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
FEED_EXPORT_ENCODING = "utf-8"
LOG_LEVEL = "INFO"
LOGSTATS_INTERVAL = 10.0
