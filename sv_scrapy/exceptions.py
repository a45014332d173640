"""sv_scrapy's own refusals, as Scrapy keeps its own in ``scrapy.exceptions``: a request that was
never sent, raised by a downloader middleware and read by the spider's errback
(``extensions/answers.py``) as a page fact, never as a code error."""

from __future__ import annotations

from scrapy.exceptions import IgnoreRequest


class TargetRefused(IgnoreRequest):
    """The request's target is excluded or unsafe; it was never sent."""


class RobotsDisallowed(IgnoreRequest):
    """robots.txt disallows this URL for our user agent (or could not be had); it was never requested."""
