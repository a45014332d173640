"""Scrapy's in-memory stats, read without Python code on every attribute.

Scrapy's ``StatsCollector`` overrides ``__getattribute__`` to wrap its methods in a warning
for the deprecated ``spider`` argument: every attribute read then runs Python code, and the
read of ``_stats`` that each ``inc_value`` makes raises and catches an ``AttributeError``
first. A crawl makes a score of stats calls a request, ~1.7 µs each instead of ~0.1. Here
attributes are read as Python reads them; the methods, so every stats key and value, are
Scrapy's. What goes is the warning for a caller passing ``spider``: sv_scrapy's never do,
and Scrapy's own engine asks first (``argument_is_required``).
"""

from __future__ import annotations

from scrapy.statscollectors import MemoryStatsCollector


class RunStatsCollector(MemoryStatsCollector):
    __getattribute__ = object.__getattribute__
