"""The sv_scrapy add-on: Scrapy's settings derived from ``_url-liveness.json`` at start-up.

Politeness is never redefined in sv_scrapy: user agent, robots obedience, concurrency,
per-host floors, Crawl-delay, latency throttling and the global cap (all enforced by one
owner, the paced download handler), timeouts, retries and redirects all come from
the config file a playbook repo's url-liveness tool already uses. Set at ``addon``
priority, so ``-s NAME=VALUE`` still overrides any of them.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy import signals

from sv_scrapy import __version__
from sv_scrapy.downloadhandlers.pinnedproxy import PinnedProxy
from sv_scrapy.downloadhandlers.render import launch_options, resolved_here
from sv_scrapy.extensions.quietlog import log_to_file
from sv_scrapy.resolver import resolver_for
from sv_scrapy.run.registry import apply_environment, setting_default
from sv_scrapy.run.runtime import ignore_https_errors
from sv_scrapy.run.state import crawl_config, find_run

if TYPE_CHECKING:
    from typing import Self

    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings, Settings

PRIORITY = "addon"


class SvAddon:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler  # its run (made by the spider, before the add-ons) holds the config

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def _pinned_proxy(self) -> int | None:
        """The loopback port of the browser's pinned proxy, started where the run resolves names
        for the browser (no configured proxy, or hosts that bypass it); None where none is needed."""
        if not resolved_here():
            return None
        crawler = self.crawler
        proxy = PinnedProxy(lambda: resolver_for(crawler))  # the run's resolver, asked once the reactor runs
        crawler.signals.connect(proxy.start, signal=signals.engine_started, weak=False)
        crawler.signals.connect(proxy.stop, signal=signals.engine_stopped, weak=False)
        return proxy.port
    @classmethod
    def update_pre_crawler_settings(cls, settings: BaseSettings) -> None:
        """A crawler process or runner is being made (``scrapy crawl``, scrapyd's runner, a script):
        the SV_* locations from the environment."""
        apply_environment(settings)

    def update_settings(self, settings: Settings) -> None:
        if ignore_https_errors():
            # Scrapy does not verify certificates, it warns on a mismatch: silence only that
            logging.getLogger("scrapy.core.downloader.tls").setLevel(logging.ERROR)
        cfg = crawl_config(self.crawler)
        lv = cfg.liveness
        policies = [lv.default_policy, lv.gov_policy, *lv.per_host.values()]
        network_handler = "scrapy.core.downloader.handlers.http11.HTTP11DownloadHandler"
        derived = {
            "USER_AGENT": lv.user_agent(__version__),
            "ROBOTSTXT_OBEY": True,
            "CONCURRENT_REQUESTS": lv.concurrency,
            # per-host concurrency is the paced handler's (by policy); the slot only must not be lower
            "CONCURRENT_REQUESTS_PER_DOMAIN": max(p.concurrency for p in policies),
            # slots add no delay of their own and AutoThrottle is off: the paced handler owns
            # every gap; these AUTOTHROTTLE_* numbers feed its latency rule
            "DOWNLOAD_DELAY": 0.0,
            "DOWNLOAD_DELAY_JITTER": 0.0,
            "AUTOTHROTTLE_ENABLED": False,
            "AUTOTHROTTLE_START_DELAY": lv.default_policy.interval_ms / 1000.0,
            "AUTOTHROTTLE_MAX_DELAY": setting_default("AUTOTHROTTLE_MAX_DELAY"),
            "DOWNLOAD_TIMEOUT": lv.request_timeout_seconds,
            # the url-liveness tool counts max_retries as attempts in all
            "RETRY_TIMES": max(0, lv.max_retries - 1),
            "REDIRECT_MAX_TIMES": lv.follow_redirects_max,
            # a hard backstop only; the per-kind caps (HTML, PDF) are enforced while
            # downloading by BodyCapExtension
            "DOWNLOAD_MAXSIZE": 2 * max(cfg.pdf.max_bytes, cfg.fetch.max_body_bytes),
            "DOWNLOAD_WARNSIZE": 0,
            # a callback yields one item (a page's), and Scrapy starts CONCURRENT_ITEMS worker
            # tasks for each callback's output whatever its length: at the default of 100 that
            # was a million tasks in an audit of 10,000 pages. Items of different pages are
            # still processed side by side.
            "CONCURRENT_ITEMS": 1,
        }
        if settings.getbool("SV_RENDER_ENABLED", setting_default("SV_RENDER_ENABLED")):
            network_handler = "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler"
            derived.update({
                "PLAYWRIGHT_BROWSER_TYPE": "chromium",
                "PLAYWRIGHT_BROWSER_PROVIDER": "sv_scrapy.downloadhandlers.render.LazyBrowserProvider",
                "PLAYWRIGHT_LAUNCH_OPTIONS": launch_options(lv.request_timeout_seconds * 2, self._pinned_proxy()),
                "PLAYWRIGHT_MAX_CONTEXTS": 1,
                "PLAYWRIGHT_MAX_PAGES_PER_CONTEXT": 4,
                "PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT": lv.request_timeout_seconds * 1000,
                "PLAYWRIGHT_ABORT_REQUEST": "sv_scrapy.downloadhandlers.render.abort_heavy",
            })
        paced = "sv_scrapy.downloadhandlers.paced.PacedDownloadHandler"
        derived.update({"DOWNLOAD_HANDLERS": {"http": paced, "https": paced}, "SV_NETWORK_HANDLER": network_handler})
        for name, value in derived.items():
            settings.set(name, value, priority=PRIORITY)
        # a crawl not started by `scrapy crawl` (which chose before Scrapy's log began) is quiet too
        run = find_run(self.crawler)
        log_to_file(settings, settings.get("SV_JOB", ""), run.runtime.clock if run else None)
