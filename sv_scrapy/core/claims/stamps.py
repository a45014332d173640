"""The tracker's own verification stamps, and masking their dates out of claim text.

Forms seen in the corpus:

* inline, date first: ``(2026-05-27 verified; source …)``, ``(2026-05-27 stale-marker)``
* inline, keyword first: ``(verified 2026-07-03)``, ``(… link dead (verified 2026-06-13))``
* file level: ``**Last verified**: 2026-05-27`` — the default for lines without their own
* a heading carrying a stamp — the default for the lines under it

A stamp date is metadata about the tracker, never a figure the cited page must contain, so
:func:`mask_stamp_dates` blanks it (and "as of / as researched / checked <date>") before
values are extracted. So is a provenance date: when a named source was consulted, read or seen
("cross-checked Cayman Compass 18 Dec 2025", "accessed 3 March 2026", "fetched 2026-05-28",
"in maintenance mode on 2026-09-18"). Masking keeps every
character offset, for link attribution.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

_DATE = r"\d{4}-\d{2}-\d{2}"
_KIND = r"re-verified|verified|stale-marker|stale|updated"
DATE_FIRST_RE = re.compile(rf"\((?P<date>{_DATE})\s+(?P<kind>{_KIND})\b", re.IGNORECASE)
KEYWORD_FIRST_RE = re.compile(rf"(?=[rv])\b(?P<kind>re-verified|verified)\s+(?P<date>{_DATE})\b", re.IGNORECASE)
FILE_STAMP_RE = re.compile(
    rf"^\s*(?:[-*>]\s*)?\**Last[ -]verified\**\s*:?\s*\**\s*(?P<date>{_DATE})", re.IGNORECASE
)
# dates the tracker writes about itself; masked, but not stamps of a claim. The lookaheads hold
# the first letters of the keywords: one character test at each position, not the alternation
_SELF_DATE_RE = re.compile(
    r"(?=[acruv])\b(?:as of|as researched|researched|checked|re-checked|updated|verified|re-verified)"
    r"\s+(?P<date>\d{4}-\d{2}(?:-\d{2})?)\b",
    re.IGNORECASE,
)

# when a source was consulted, read or seen, with the source's name (up to four capitalised words)
# and an "on"/"at" between — "checked against the 1 Jan 2026 schedule" dates the schedule, not the
# checking; a site's own state when it was read ("in maintenance mode on …") dates the reading
# too: in any of the forms a writer dates things ("18 Dec 2025", "Dec 18, 2025", "May 2025", "2025-12-18")
_PROVENANCE_RE = re.compile(
    r"(?=[acdfmor])\b(?:cross-checked|checked|accessed|retrieved|researched|consulted|fetched|observed|captured"
    r"|archived|downloaded|re-read|maintenance(?:\smode)?[*_]*)(?:\s(?-i:[A-Z])[^\s\d.;,()]*){0,4}(?:\s(?:on|at))?\s"
    r"(?P<date>\d{1,2}\s[^\W\d_]{3,9}\.?,?\s\d{4}|[^\W\d_]{3,9}\.?\s(?:\d{1,2},?\s)?\d{4}|\d{4}-\d{2}(?:-\d{2})?)(?!\d)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Stamp:
    """When a claim was last verified (or marked stale), and where that came from."""

    date: str
    kind: str  # verified | stale-marker | stale | updated
    origin: str = "line"  # line | heading | file

    @property
    def is_stale(self) -> bool:
        return self.kind.startswith("stale")

    def as_dict(self) -> dict[str, str]:
        return {"date": self.date, "kind": self.kind, "origin": self.origin}


def _calendar(day: str) -> bool:
    """A stamp's date is a day of the calendar in ASCII digits (``\\d`` also matches ``٢``, and
    "2026-13-45" fits the pattern): the audit compares it with dates, so anything else is no stamp."""
    try:
        date.fromisoformat(day)
    except ValueError:
        return False
    return day.isascii()


def _kind(raw: str) -> str:
    kind = raw.lower()
    return "verified" if kind == "re-verified" else kind


def parse_line_stamp(line: str, origin: str = "line") -> Stamp | None:
    """The stamp a line carries: a stale marker wins, else the latest verified date.

    >>> parse_line_stamp("VAT 10% (2026-05-27 verified; source DIR)")
    Stamp(date='2026-05-27', kind='verified', origin='line')
    >>> parse_line_stamp("rate 2% (2026-05-27 stale-marker)").kind
    'stale-marker'
    >>> parse_line_stamp("link dead (verified 2026-06-13)").date
    '2026-06-13'
    >>> parse_line_stamp("as of 2026-05-28") is None
    True
    >>> parse_line_stamp("rate 2% (2026-13-45 verified)") is None
    True
    """
    found = [
        Stamp(m.group("date"), _kind(m.group("kind")), origin)
        for rx in (DATE_FIRST_RE, KEYWORD_FIRST_RE)
        for m in rx.finditer(line)
        if _calendar(m.group("date"))
    ]
    if not found:
        return None
    stale = [s for s in found if s.is_stale]
    return stale[0] if stale else max(found, key=lambda s: s.date)


def parse_file_stamp(line: str) -> Stamp | None:
    """``**Last verified**: 2026-05-27`` -> the file-level default stamp."""
    m = FILE_STAMP_RE.match(line)
    return Stamp(m.group("date"), "verified", "file") if m and _calendar(m.group("date")) else None


def mask_stamp_dates(line: str) -> str:
    """Blank the dates of stamps and self-dating phrases, keeping every offset.

    >>> mask_stamp_dates("10% (2026-05-27 verified) as researched 2026-05-28")
    '10% (           verified) as researched           '
    >>> mask_stamp_dates("rose 7% (cross-checked Cayman Compass 19 May 2025)")
    'rose 7% (cross-checked Cayman Compass            )'
    >>> mask_stamp_dates("checked against the 1 Jan 2026 schedule")
    'checked against the 1 Jan 2026 schedule'
    """
    spans = [
        m.span("date")
        for rx in (DATE_FIRST_RE, KEYWORD_FIRST_RE, FILE_STAMP_RE, _SELF_DATE_RE, _PROVENANCE_RE)
        for m in rx.finditer(line)
    ]
    if not spans:
        return line
    chars = list(line)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)
