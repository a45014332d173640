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


def test_a_failed_robots_download_is_not_scrapys_error(caplog: pytest.LogCaptureFixture) -> None:
    """Scrapy's ERROR is dropped; what follows from the failure (RFC 9309: disallow, or the stored
    copy) is the middleware's own WARNING line, said where the rules are installed
    (tests/test_robots_rfc9309.py reads it from a crawl's log)."""
    record = scrapy_record(logging.ERROR, "Error downloading %(request)s: %(f_exception)s",
                           {"request": "<GET https://x.gouv.fr/robots.txt>", "f_exception": "TimeoutError"})
    with caplog.at_level(logging.WARNING, logger="sv_scrapy.downloadermiddlewares.robotstxt"):
        assert _FILTER.filter(record) is False
    assert not caplog.records


def test_other_records_pass_as_they_are() -> None:
    record = scrapy_record(logging.DEBUG, "Forbidden by robots.txt: %(request)s", {"request": "<GET …>"})
    assert _FILTER.filter(record) is True and record.levelno == logging.DEBUG
