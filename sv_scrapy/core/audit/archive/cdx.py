"""The Wayback Machine's CDX API, as URLs out and captures in (no network here).

Two small queries per (URL, date), both ``output=json`` with ``filter=statuscode:200`` and the
public fields ``urlkey,timestamp,original,mimetype,statuscode,digest,length``:

* *before*: ``to=<date>`` with ``limit=-1`` (a negative limit gives the last rows): the capture
  closest before the end of the stamp's day;
* *after*: ``from=<date + 1 day>`` with ``collapse=digest`` and ``limit=2``: the first capture
  after it and, when the page changed after that, the next distinct one.

A capture is read raw (``/web/<timestamp>id_/<url>``: the archived bytes, no toolbar). The
digests tell whether the archive saw the page change after the stamp without downloading it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any
from urllib.parse import urlencode

ARCHIVE_HOST = "web.archive.org"
CDX_ENDPOINT = f"https://{ARCHIVE_HOST}/cdx/search/cdx"
FIELDS = ("urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length")


class CdxError(ValueError):
    """A CDX answer that is not the JSON table it should be."""


@dataclass(frozen=True)
class Capture:
    timestamp: str  # 14 digits, UTC
    original: str
    mimetype: str = ""
    digest: str = ""

    @property
    def day(self) -> str:
        """``YYYY-MM-DD`` of the capture."""
        t = self.timestamp
        return f"{t[:4]}-{t[4:6]}-{t[6:8]}"

    def raw_url(self) -> str:
        """The archived bytes as captured, without the archive's toolbar or rewritten links."""
        return f"https://{ARCHIVE_HOST}/web/{self.timestamp}id_/{self.original}"

    def page_url(self) -> str:
        """The capture as a reader opens it (the citation candidate)."""
        return f"https://{ARCHIVE_HOST}/web/{self.timestamp}/{self.original}"


@dataclass(frozen=True)
class Choice:
    """The capture chosen for a stamp date, and what the digests say."""

    capture: Capture | None
    after: bool = False  # no capture before the date: the first one after it
    changed_after: bool | None = None  # the archive saw other content after the stamp (None: no later capture)


def _compact(day: str) -> str:
    return day.replace("-", "")


def cdx_query(url: str, day: str, side: str) -> str:
    """The CDX URL of one side (``before`` | ``after``) of ``day`` (``YYYY-MM-DD``).

    >>> cdx_query("https://a.gov/x", "2026-05-20", "before").split("?")[1]
    'url=https%3A%2F%2Fa.gov%2Fx&output=json&fl=urlkey%2Ctimestamp%2Coriginal%2Cmimetype%2Cstatuscode%2Cdigest%2Clength&filter=statuscode%3A200&to=20260520&limit=-1'
    >>> cdx_query("https://a.gov/x", "2026-05-20", "after").split("&", 4)[4]
    'from=20260521&collapse=digest&limit=2'
    """
    params: list[tuple[str, str]] = [("url", url), ("output", "json"), ("fl", ",".join(FIELDS)),
                                     ("filter", "statuscode:200")]
    if side == "before":
        params += [("to", _compact(day)), ("limit", "-1")]
    else:
        following = date.fromisoformat(day) + timedelta(days=1)
        params += [("from", following.strftime("%Y%m%d")), ("collapse", "digest"), ("limit", "2")]
    return f"{CDX_ENDPOINT}?{urlencode(params)}"


def parse_cdx(body: bytes | str) -> list[Capture]:
    """The rows of a JSON CDX answer (the first row names the fields; an empty body or ``[]``
    is no capture); anything else raises :class:`CdxError`.

    >>> parse_cdx('[["urlkey","timestamp","original","mimetype","statuscode","digest","length"],'
    ...           '["gov,a)/x","20260515000000","https://a.gov/x","text/html","200","D1","10"]]')[0].day
    '2026-05-15'
    >>> parse_cdx(b"")
    []
    >>> parse_cdx(b"[" * 100_000)
    Traceback (most recent call last):
    sv_scrapy.core.audit.archive.cdx.CdxError: malformed CDX JSON (RecursionError)
    """
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    if not text.strip():
        return []
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CdxError(f"malformed CDX JSON ({exc.msg})") from None
    except (ValueError, RecursionError) as exc:  # valid JSON json.loads refuses: a 5,000-digit number, deep nesting
        raise CdxError(f"malformed CDX JSON ({type(exc).__name__})") from None
    if not isinstance(data, list) or not all(isinstance(r, list) for r in data):
        raise CdxError("malformed CDX JSON (not a table)")
    if not data:
        return []
    head = [str(h) for h in data[0]]
    if "timestamp" not in head or "original" not in head:
        raise CdxError("malformed CDX JSON (no timestamp/original field)")
    out = []
    for row in data[1:]:
        rec = dict(zip(head, (str(v) for v in row), strict=False))
        stamp = rec.get("timestamp", "")
        if len(stamp) != 14 or not (stamp.isascii() and stamp.isdigit()) or not rec.get("original"):
            raise CdxError(f"malformed CDX row (timestamp {stamp[:20]!r})")
        out.append(Capture(stamp, rec["original"], rec.get("mimetype", ""), rec.get("digest", "")))
    return out


def choose(before: list[Capture], after: list[Capture]) -> Choice:
    """The closest capture before the stamp (the last *before* row), else the first after it.

    >>> a, b, c = Capture("20260301000000", "u", digest="X"), Capture("20260515000000", "u", digest="Y"), \
Capture("20260610000000", "u", digest="Z")
    >>> ch = choose([a, b], [c]); (ch.capture.timestamp, ch.after, ch.changed_after)
    ('20260515000000', False, True)
    >>> ch = choose([], [c]); (ch.capture.timestamp, ch.after, ch.changed_after)
    ('20260610000000', True, None)
    >>> choose([], []).capture is None
    True
    """
    if before:
        chosen = max(before, key=lambda c: c.timestamp)
        changed = any(c.digest != chosen.digest for c in after) if after else None
        return Choice(chosen, False, changed)
    if after:
        first = min(after, key=lambda c: c.timestamp)
        return Choice(first, True, True if len(after) > 1 else None)
    return Choice(None)


def captures_to_json(rows: list[Capture]) -> list[dict[str, str]]:
    return [{"timestamp": c.timestamp, "original": c.original, "mimetype": c.mimetype, "digest": c.digest}
            for c in rows]


def captures_from_json(rows: Any) -> list[Capture] | None:
    """Rows kept in the store; None when they are not the shape written."""
    if not isinstance(rows, list):
        return None
    try:
        return [Capture(str(r["timestamp"]), str(r["original"]), str(r.get("mimetype", "")), str(r.get("digest", "")))
                for r in rows]
    except (KeyError, TypeError):
        return None
