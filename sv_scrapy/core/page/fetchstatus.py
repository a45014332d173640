"""Outcome of a fetch -> the design's ``fetch_status`` and a reason a person can read.

``OK | DEAD | BINARY | EXCLUDED | ROBOTS | UNAVAILABLE``. Only 404 and 410 say a page is
gone; a WAF challenge, a rate limit, a timeout or a reset says nothing about the page and
is ``UNAVAILABLE`` with its reason — never ``DEAD``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

OK = "OK"
DEAD = "DEAD"
BINARY = "BINARY"
EXCLUDED = "EXCLUDED"
ROBOTS = "ROBOTS"
UNAVAILABLE = "UNAVAILABLE"
FETCH_STATUSES = (OK, DEAD, BINARY, EXCLUDED, ROBOTS, UNAVAILABLE)


def challenge_reason(
    status: int,
    headers: Mapping[str, str],
    title: str,
    marker_headers: Sequence[str],
    marker_titles: Sequence[str],
    blocking_codes: frozenset[int],
) -> str | None:
    """A Cloudflare/WAF challenge, from the config's markers.

    A marker *title* is a challenge whatever the status. A marker *header* is one only on a
    blocking status (403/429/503/999…) or when it is ``cf-mitigated``: ``cf-ray`` rides on
    every Cloudflare response, ordinary 200 pages included.
    """
    low_title = title.lower()
    for marker in marker_titles:
        if marker.lower() in low_title:
            return f"challenge page (title {title[:60]!r})"
    for name in marker_headers:
        if name.lower() in headers and (status in blocking_codes or name.lower() == "cf-mitigated"):
            return f"challenge/blocked: http {status} with {name} header"
    return None


def status_outcome(status: int, blocking_codes: frozenset[int]) -> tuple[str, str] | None:
    """(fetch_status, note) for a non-success final status; None for a 2xx."""
    if 200 <= status < 300:
        return None
    if status in (404, 410):
        return DEAD, f"http {status}"
    if status == 401:
        return UNAVAILABLE, "http 401: authentication required"
    if status == 429:
        return UNAVAILABLE, "http 429: rate limited"
    if status in blocking_codes:
        return UNAVAILABLE, f"http {status}: blocked or unavailable"
    if 300 <= status < 400:
        return UNAVAILABLE, f"http {status}: redirect not followed"
    return UNAVAILABLE, f"http {status}"
