"""A robots.txt that cannot be downloaded is one WARNING line of ours, not Scrapy's ERROR with a
traceback (an unattended run must not read like a crash); other records pass untouched."""

from __future__ import annotations

import logging

import pytest

from sv_scrapy.downloadermiddlewares.robotstxt import _FILTER


def scrapy_record(level: int, msg: str, args: dict[str, object]) -> logging.LogRecord:
    record = logging.LogRecord("scrapy.downloadermiddlewares.robotstxt", level, __file__, 1, msg, None, None)
    record.args = args
    return record


def test_a_failed_robots_download_is_our_warning(caplog: pytest.LogCaptureFixture) -> None:
    record = scrapy_record(logging.ERROR, "Error downloading %(request)s: %(f_exception)s",
                           {"request": "<GET https://x.gouv.fr/robots.txt>", "f_exception": "TimeoutError"})
    with caplog.at_level(logging.WARNING, logger="sv_scrapy.downloadermiddlewares.robotstxt"):
        assert _FILTER.filter(record) is False
    (ours,) = caplog.records
    assert ours.levelno == logging.WARNING and ours.exc_info is None
    assert ours.getMessage() == ("robots.txt unavailable for <GET https://x.gouv.fr/robots.txt> (TimeoutError); "
                                 "fetching as if it had no rules")


def test_other_records_pass_as_they_are() -> None:
    record = scrapy_record(logging.DEBUG, "Forbidden by robots.txt: %(request)s", {"request": "<GET …>"})
    assert _FILTER.filter(record) is True and record.levelno == logging.DEBUG
