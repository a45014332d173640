"""A downloader middleware with a bug in it, for tests/test_hostile_web.py: sv_scrapy's own code
raising on the way to a page must be a code error (exit 1), never a page note."""

from __future__ import annotations

from typing import Any


class RaisingMiddleware:
    def process_response(self, request: Any, response: Any, spider: Any = None) -> Any:
        if "/boom" in request.url:
            return response.no_such_attribute  # the bug
        return response
