"""AutoThrottle that may slow a host down under load but never takes it below its floor.

Stock AutoThrottle clamps every slot to ``DOWNLOAD_DELAY``; a government host's floor
(1 s) or a robots ``Crawl-delay`` (10 s) is higher than that and must hold.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy import signals
from scrapy.extensions.throttle import AutoThrottle
from scrapy.utils.httpobj import urlparse_cached

from sv_scrapy.core.politeness import HostFloors
from sv_scrapy.runtime import load_cached

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.core.downloader import Slot
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from scrapy.robotstxt import RobotParser


class FlooredAutoThrottle(AutoThrottle):
    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        cfg = load_cached(crawler.settings["SV_CONFIG_DIR"])
        self.floors = HostFloors(cfg.liveness, cfg.hosts)
        crawler.signals.connect(self._learn, signal=signals.robots_parsed)

    def _learn(self, robotparser: RobotParser, request: Request) -> None:
        agent = self.crawler.settings.get("ROBOTSTXT_USER_AGENT") or self.crawler.settings["USER_AGENT"]
        self.floors.learn_crawl_delay(urlparse_cached(request).hostname or "", robotparser.crawl_delay(agent))

    def _adjust_delay(self, slot: Slot, latency: float, response: Response) -> None:
        super()._adjust_delay(slot, latency, response)
        host = urlparse_cached(response).hostname or ""
        slot.delay = max(slot.delay, self.floors.floor(host))
