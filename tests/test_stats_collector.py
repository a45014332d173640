"""The run's stats are Scrapy's, read without Python code on each attribute (``extensions/stats.py``)."""

from __future__ import annotations

from typing import Any

from scrapy import Spider
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.test import get_crawler

from sv_scrapy import settings as project
from sv_scrapy.extensions.stats import RunStatsCollector


def exercised(stats: Any) -> dict[str, Any]:
    stats.open_spider()
    stats.inc_value("downloader/request_count")
    stats.inc_value("downloader/request_count", 2)
    stats.inc_value("sv/x", start=5)
    stats.max_value("m", 3), stats.max_value("m", 1)
    stats.min_value("n", 3), stats.min_value("n", 1)
    stats.set_value("s", "v")
    assert stats.get_value("s") == "v" and stats.get_value("absent", 7) == 7
    stats.close_spider(reason="finished")
    return dict(stats.get_stats())


def test_the_project_s_stats_hold_what_scrapy_s_hold_read_plainly() -> None:
    crawler = get_crawler(Spider, settings_dict={"STATS_CLASS": project.STATS_CLASS})
    assert type(crawler.stats) is RunStatsCollector
    assert type(crawler.stats).__getattribute__ is object.__getattribute__
    assert exercised(crawler.stats) == exercised(MemoryStatsCollector(get_crawler(Spider)))
