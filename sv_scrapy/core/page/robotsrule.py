"""RFC 9309 §2.3.1: what a robots.txt answer means for the pages of its host.

* 2xx: the rules it states.
* 3xx: followed by the downloader (at most ``follow_redirects_max`` hops, RFC 9309 asks for
  at least five); what the last hop answers decides.
* 4xx ("unavailable"): no rules — every page may be fetched.
* 5xx, a 429 and network errors ("unreachable"): complete disallow for this run, unless a
  robots.txt stored from an earlier run stands in (Google's practice, allowed by §2.3.1.4's
  "reasonable" caching). A 429 is read as unreachable, as Google does: it says "slow down",
  never "there are no rules".

Pure: the middleware (``downloadermiddlewares/robotstxt.py``) feeds it statuses and bodies.
"""

from __future__ import annotations

from dataclasses import dataclass

DISALLOW_ALL = b"User-agent: *\nDisallow: /\n"


@dataclass(frozen=True)
class RobotsReading:
    """The rules to apply for a host and, when robots.txt was unreachable, why."""

    body: bytes  # what the parser gets
    unreachable: str = ""  # "503", "network error (TimeoutError)"; "" when robots.txt answered
    stored_at: str = ""  # the date of the stored copy that stood in ("" when none did)
    store: bool = False  # a 2xx answer: keep it for a later run that finds robots.txt unreachable

    def standing_in(self) -> str:
        """The note of a URL a stored copy allows while robots.txt is unreachable ("" otherwise)."""
        if not (self.unreachable and self.stored_at):
            return ""
        return f"robots.txt unavailable ({self.unreachable}): the copy stored {self.stored_at[:10]} allows this URL"

    def refusal(self) -> str:
        """The page note of a URL these rules disallow."""
        if not self.unreachable:
            return "robots.txt disallows this URL"
        if self.stored_at:
            return (f"robots.txt unavailable ({self.unreachable}): the copy stored {self.stored_at[:10]} "
                    "disallows this URL (RFC 9309)")
        return f"robots.txt unavailable ({self.unreachable}): not fetched (RFC 9309)"


def unreachable(why: str, stored: tuple[bytes, str] | None) -> RobotsReading:
    """robots.txt could not be had: the stored copy (body, date) if any, else disallow all."""
    if stored is not None:
        return RobotsReading(stored[0], why, stored_at=stored[1] or "an earlier run")
    return RobotsReading(DISALLOW_ALL, why)


def reading_for(status: int, body: bytes, stored: tuple[bytes, str] | None) -> RobotsReading:
    """The rules from robots.txt's final answer.

    >>> reading_for(200, b"User-agent: *\\nDisallow: /x", None).store
    True
    >>> reading_for(404, b"<html>not found</html>", None).body
    b''
    >>> reading_for(503, b"", None).refusal()
    'robots.txt unavailable (503): not fetched (RFC 9309)'
    """
    if 200 <= status < 300:
        return RobotsReading(body, store=True)
    if 300 <= status < 500 and status != 429:  # a redirect not followed to the end reads as 4xx (§2.3.1.2)
        return RobotsReading(b"")
    return unreachable(str(status), stored)
