"""Scrapy settings for sv_scrapy.

The SV_* locations come from the environment (or ``-s NAME=VALUE``), read when a run starts
(``registry.apply_environment``: the add-on's pre-crawler hook and the commands), never when
this module is imported; their names, defaults and docs are declared in
``sv_scrapy/run/registry.py``. Politeness is not defined here: ``sv_scrapy.addon.SvAddon``
derives it from ``_url-liveness.json`` at start-up (user agent, robots, concurrency, floors,
AutoThrottle, timeouts, retries).
"""

from __future__ import annotations

from scrapy.settings import default_settings

from sv_scrapy.run.registry import setting_default

BOT_NAME = "sv_scrapy"
SPIDER_MODULES = ["sv_scrapy.spiders"]
NEWSPIDER_MODULE = "sv_scrapy.spiders"
COMMANDS_MODULE = "sv_scrapy.commands"

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
# Scrapy's own extensions less three that never run here. They are left out of the base rather than
# set to None in EXTENSIONS: Scrapy 2.19 imports every key of EXTENSIONS to match it with its base
# entry, a None one too, and the remote control's module imports aiohttp for its server: 0.17 s of CPU
# in every crawl process, for an extension that is off (docs/development/dependencies.md).
# (lower case: Scrapy takes every upper-case name of this module for a setting)
_scrapy_extensions_off = (
    # pacing (floors, Crawl-delay, latency, the global cap) is the paced download handler's alone
    "scrapy.extensions.throttle.AutoThrottle",
    # an unattended job that reads untrusted pages opens no control port
    "scrapy.extensions.telnet.TelnetConsole",
    "scrapy.extensions.remote_control.RemoteControl",
)
EXTENSIONS_BASE = {path: order for path, order in default_settings.EXTENSIONS_BASE.items()
                   if path not in _scrapy_extensions_off}
EXTENSIONS = {
    "sv_scrapy.extensions.bodycap.BodyCapExtension": 0,
    "sv_scrapy.extensions.progress.ProgressExtension": 0,
    "sv_scrapy.extensions.gcpace.GcPaceExtension": 0,  # no full collection stops the loop mid-crawl
    "sv_scrapy.extensions.outcome.RunOutcomeExtension": 0,
    # the one reader and the one way to fetch what a page needs (frames, linked documents, the archive)
    "sv_scrapy.extensions.journey.Journey": 0,
    # after the outcome: the quiet console, heartbeat, metrics.prom and the log's outcome line
    "sv_scrapy.extensions.monitor.MonitorExtension": 10,
}
# the order is the numbers below (the docs' architecture page draws it from this dict, so no summary
# here can go stale); the job-specific ones enable themselves by ``SV_JOB`` (``worklist`` or ``audit``)
ITEM_PIPELINES = {
    # the one reader: a body read (HTML, text, PDF, OCR), a 304's reading restored from the store
    "sv_scrapy.pipelines.read.ReadPipeline": 100,
    # a thin or zero-match page's frames join its text (issue #19)
    "sv_scrapy.pipelines.outlinks.FramesPipeline": 150,
    "sv_scrapy.pipelines.hashes.HashPipeline": 300,
    "sv_scrapy.pipelines.records.RecordsPipeline": 400,
    "sv_scrapy.pipelines.outlinks.LinkedPipeline": 420,
    # then and now: a flagged claim's lookup starts once its records are final
    "sv_scrapy.pipelines.archive.ArchivePipeline": 430,
    # where the figure went: the cited site's links, sitemaps and search for a page stating it (issue #38)
    "sv_scrapy.pipelines.discover.DiscoverPipeline": 440,
    "sv_scrapy.pipelines.store.StoreUpdatePipeline": 450,
    "sv_scrapy.pipelines.store.StoreTextPipeline": 460,
    "sv_scrapy.pipelines.export.WorklistExportPipeline": 900,
    "sv_scrapy.pipelines.auditexport.AuditExportPipeline": 910,
}
SV_JOB = ""
# Scrapy's default is on: this keeps the remote control off should an EXTENSIONS of a spider or a
# script name it again
REMOTE_CONTROL_ENABLED = False

COOKIES_ENABLED = False  # every fetch stands alone; no session state between pages
SCHEDULER_PRIORITY_QUEUE = "sv_scrapy.pqueues.HostTurnQueue"  # Scrapy's downloader-aware order, in turns
# Scrapy re-reads a generator callback's source for each response (its cache is keyed by the bound
# method, new with every request): a seventh of an audit's CPU at 10,000 pages. The spiders' own
# callbacks are checked once by tests/test_spider_callbacks.py instead.
WARN_ON_GENERATOR_RETURN_VALUE = False
LOG_FORMATTER = "sv_scrapy.extensions.logformatter.RunLogFormatter"  # no per-page DEBUG line built for INFO to drop
STATS_CLASS = "sv_scrapy.extensions.stats.RunStatsCollector"  # Scrapy's stats, no Python code on each attribute read
RETRY_GIVE_UP_LOG_LEVEL = "WARNING"  # a dead page is a finding, not a crawler error
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
# one resolver for the run: a host resolved once, unsafe answers refused, only checked addresses connected
TWISTED_DNS_RESOLVER = setting_default("TWISTED_DNS_RESOLVER")
FEED_EXPORT_ENCODING = "utf-8"
LOG_LEVEL = "INFO"
LOGSTATS_INTERVAL = 10.0
