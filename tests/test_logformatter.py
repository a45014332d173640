"""The per-page DEBUG lines are built only when ``LOG_LEVEL`` shows them, and then as Scrapy builds them."""

from __future__ import annotations

import logging

import pytest
from scrapy import Request, Spider
from scrapy.http import HtmlResponse
from scrapy.logformatter import LogFormatter
from scrapy.utils.test import get_crawler

from sv_scrapy import settings as project
from sv_scrapy.extensions.logformatter import RunLogFormatter

SPIDER = Spider(name="t")
RESPONSE = HtmlResponse("https://a.example/p", body=b"<p>x</p>", request=Request("https://a.example/p"))


def formatter(level: str | int) -> RunLogFormatter:
    crawler = get_crawler(settings_dict={"LOG_FORMATTER": project.LOG_FORMATTER, "LOG_LEVEL": level})
    crawler._apply_settings()
    assert isinstance(crawler.logformatter, RunLogFormatter)
    return crawler.logformatter


@pytest.mark.parametrize("level", ["INFO", "WARNING", logging.INFO])
def test_above_debug_no_page_line_is_built(level: str | int) -> None:
    lf = formatter(level)
    assert lf.crawled(RESPONSE.request, RESPONSE, SPIDER) is None
    assert lf.scraped({"a": 1}, RESPONSE, SPIDER) is None


@pytest.mark.parametrize("level", ["DEBUG", "debug", logging.DEBUG])
def test_at_debug_the_lines_are_scrapys(level: str | int) -> None:
    lf, scrapys = formatter(level), LogFormatter()
    assert lf.crawled(RESPONSE.request, RESPONSE, SPIDER) == scrapys.crawled(RESPONSE.request, RESPONSE, SPIDER)
    assert lf.scraped({"a": 1}, RESPONSE, SPIDER) == scrapys.scraped({"a": 1}, RESPONSE, SPIDER)
