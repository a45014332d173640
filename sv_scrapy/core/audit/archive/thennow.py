"""Which claims the archive is asked about, and what then-and-now says of each.

A claim is looked up when today's audit flags it: the figure absent or only weakly matched
(which covers a vanished figure), a page changed after ``Last verified`` (``stale_changed``),
or a page DEAD or unavailable. Excluded and robots-refused pages are our choice, not a finding:
never looked up. The most urgent first (the sampling priority), at most ``archive.max_lookups``.

The verdict (``then_now``) compares the prior of the archived page with today's:

* present then, absent now -> ``changed_since_verified``;
* absent then and now (or today unreadable) -> ``not_on_page_when_verified``;
* present now -> ``present_now`` (nothing to add);
* DEAD / unavailable now, present then -> ``replacement_candidate`` (the archived URL);
* no date, no capture, a capture that cannot be read, the archive unavailable -> said so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field

from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.page.fetchstatus import DEAD, UNAVAILABLE
from sv_scrapy.core.page.prefilter import TOKENS_ABSENT, TOKENS_PRESENT, WEAK_MATCH
from sv_scrapy.core.schema import Section

CHANGED = "changed_since_verified"
NOT_THEN = "not_on_page_when_verified"
PRESENT_NOW = "present_now"
REPLACEMENT = "replacement_candidate"
NO_DATE = "no_date"
NO_CAPTURE = "no_capture"
UNREADABLE = "capture_unreadable"
ARCHIVE_UNAVAILABLE = "archive_unavailable"
VERDICTS = (CHANGED, NOT_THEN, PRESENT_NOW, REPLACEMENT, NO_DATE, NO_CAPTURE, UNREADABLE, ARCHIVE_UNAVAILABLE)

DEFAULT_MAX_LOOKUPS = 300
_ABSENT = (TOKENS_ABSENT, WEAK_MATCH)


class ArchiveSettings(Section):
    """``archive`` in ``_source-verify.json`` (every key optional)."""

    enabled: bool = Field(True, description="Then and now: look up a flagged claim's page in the Wayback Machine.")
    max_lookups: int = Field(DEFAULT_MAX_LOOKUPS, ge=0, description="Archive lookups a run makes at most.")


def is_flagged(record: ClaimRecord) -> bool:
    """Today's audit flags the claim (see the module docstring).

    >>> is_flagged({"prior": "TOKENS_ABSENT", "fetch_status": "OK"})
    True
    >>> is_flagged({"prior": "SOURCE_UNAVAILABLE", "fetch_status": "ROBOTS"})
    False
    """
    status = record.get("fetch_status")
    if status in (DEAD, UNAVAILABLE):
        return True
    return status == "OK" and (record.get("prior") in _ABSENT or bool(record.get("stale_changed")))


def stamp_date(record: ClaimRecord, file_dates: Mapping[str, str]) -> tuple[str, str]:
    """(``YYYY-MM-DD`` to compare with, where it came from: ``stamp`` | ``file`` | "")."""
    stamp = record.get("inline_stamp") or {}
    if stamp.get("date"):
        return str(stamp["date"]), "stamp"
    file_date = file_dates.get(str(record.get("file") or ""), "")
    return (file_date, "file") if file_date else ("", "")


def select(records: Sequence[ClaimRecord], max_lookups: int) -> list[ClaimRecord]:
    """The flagged claims to look up, most urgent first (``priority``, then id), at most ``max_lookups``."""
    flagged = sorted((r for r in records if is_flagged(r)), key=lambda r: (-float(r.get("priority") or 0), str(r["id"])))
    return flagged[: max(0, max_lookups)]


def _as_written(raw: str, found: str) -> str:
    """The page's form of a figure, with the claim's unit when the page's match left it off.

    >>> _as_written("5.81 %", "5,81"), _as_written("€125", "125 €")
    ('5,81 %', '125 €')
    """
    tail = re.sub(r"^.*\d", "", raw) if raw[:1].isdigit() else ""
    return found + tail if tail.strip() and not found.endswith(tail.strip()) else found


def _figure(then: Mapping[str, Any]) -> str:
    found = then.get("found_as") or {}
    if isinstance(found, dict) and found:
        shown = [_as_written(str(raw), str(form)) for raw, form in found.items()]
    else:
        shown = [str(v) for v in then.get("matched_tokens") or []]
    return ", ".join(shown[:3]) or "the figure"


def verdict(item: ClaimRecord, then: Mapping[str, Any] | None) -> dict[str, str] | None:
    """``then_now`` of one claim record (None when the archive was not asked about it)."""
    if then is None:
        return None
    problem = str(then.get("problem") or "")
    if problem:
        return {"verdict": problem, "line": str(then.get("line") or problem)}
    stamp = str(then.get("timestamp") or "")
    day = f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]}" if len(stamp) >= 8 else str(then.get("date") or "")
    then_prior, now_prior = str(then.get("prior") or ""), str(item.get("prior") or "")
    when = f"the archived page of {day}" + (" (the first capture after the stamp)" if then.get("after") else "")
    if then_prior not in (TOKENS_PRESENT, *_ABSENT):
        return {"verdict": UNREADABLE,
                "line": f"capture unreadable: {when} gave {then_prior or 'no text'}" +
                        (f" ({then['note']})" if then.get("note") else "")}
    present_then = then_prior == TOKENS_PRESENT
    if now_prior == TOKENS_PRESENT:
        return {"verdict": PRESENT_NOW, "line": ""}
    readable_now = item.get("fetch_status") == "OK" and now_prior in _ABSENT
    if present_then and readable_now:
        return {"verdict": CHANGED, "line": f"changed since verified: {when} said {_figure(then)} — today's page does not"}
    if present_then:
        return {"verdict": REPLACEMENT,
                "line": f"replacement citation candidate: {when} said {_figure(then)}: {then.get('archive_url', '')}"}
    return {"verdict": NOT_THEN, "line": f"not on the page when verified either: {when} did not say it"}


def problem(kind: str, line: str) -> dict[str, str]:
    """A lookup that found nothing to compare: the ``then`` fields of a said-so outcome."""
    return {"problem": kind, "line": line}


def by_verdict(items: Sequence[ClaimRecord]) -> dict[str, int]:
    """How many claims got each then-and-now verdict."""
    counts: dict[str, int] = {}
    for item in items:
        verdict = (item.get("then_now") or {}).get("verdict")
        if verdict:
            counts[verdict] = counts.get(verdict, 0) + 1
    return dict(sorted(counts.items()))


def apply(items: Sequence[ClaimRecord], thens: Mapping[str, Mapping[str, Any]], enabled: bool = True) -> None:
    """Set ``then`` and ``then_now`` on every claim record (null where no lookup was made)."""
    for item in items:
        then = thens.get(str(item["id"])) if enabled else None
        item["then"] = dict(then) if then is not None else None
        item["then_now"] = verdict(item, then)
