"""The model's word beside the flag: the latest ``scrapy verify`` verdict of each claim, read from
the verify reports' JSON (``source-verify-<scope>-<stamp>.json``), for the audit report.

A verdict is matched to a claim by id, or (a moved line) by scope, page and claim text. It is
**stale** when the page changed after it: the page's content hash differs from the one the
verdict was given on, or (a report without that hash) a change was confirmed after its date.
Decision support only: a ``MATCH`` never reviews a finding by itself.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sv_scrapy.core.claims.record import ClaimRecord

PATTERN = "source-verify-*.json"


def reports_dir(output_dir: Path) -> Path:
    """Where ``scrapy verify`` writes its reports: ``_local/reports/`` beside ``_local/source-verify/``."""
    return output_dir.parent / "reports"


def _claim_keys(v: Mapping[str, Any]) -> tuple[str, tuple[str, str, str]]:
    return str(v.get("id", "")), (str(v.get("scope", "")), str(v.get("source_url", "")), str(v.get("claim_text", "")))


def read_verdicts(folder: Path) -> tuple[dict[Any, dict[str, Any]], list[str]]:
    """(claim id or (scope, url, claim text) -> its latest verdict, warnings for reports that could not be read)."""
    latest: dict[Any, dict[str, Any]] = {}
    warnings: list[str] = []
    if not folder.is_dir():
        return latest, warnings
    for path in sorted(folder.glob(PATTERN)):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            at, rows = str(doc["generated_at"]), doc["verdicts"]
            if not isinstance(rows, list):
                raise TypeError("verdicts is not a list")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            warnings.append(f"{path}: not a verify report ({type(exc).__name__}); its verdicts are not shown")
            continue
        for v in rows:
            if not isinstance(v, dict) or not v.get("verdict"):
                continue
            record = {"verdict": str(v["verdict"]), "source_says": str(v.get("source_says") or ""),
                      "confidence": str(v.get("confidence") or ""), "at": at, "date": at[:10],
                      "model": str(doc.get("model") or ""), "report": path.name,
                      "content_hash": str(v.get("content_hash") or "")}
            for key in _claim_keys(v):
                if key and (key not in latest or latest[key]["at"] <= at):
                    latest[key] = record
    return latest, warnings


def why_stale(verdict: Mapping[str, Any], item: ClaimRecord) -> str:
    """Why a verdict no longer speaks of the page the audit read ("" while it does).

    >>> why_stale({"content_hash": "a", "at": "2027-01-02"}, {"content_hash": "b"})
    'the page changed since the verdict'
    >>> why_stale({"content_hash": "", "at": "2027-01-02T00:00:00+00:00"}, {"changed_at": "2027-02-01T03:00:00+00:00"})
    'the page changed since the verdict'
    >>> why_stale({"content_hash": "a", "at": "2027-01-02"}, {"content_hash": "a"})
    ''
    """
    page = str(item.get("content_hash") or "")
    if verdict.get("content_hash") and page:
        return "" if page == verdict["content_hash"] else "the page changed since the verdict"
    changed = str(item.get("changed_at") or "")
    return "the page changed since the verdict" if changed and changed > str(verdict.get("at", "")) else ""


def attach_verdicts(items: Sequence[ClaimRecord], latest: Mapping[Any, Mapping[str, Any]]) -> int:
    """Set ``verdict`` on every item (null when ``scrapy verify`` never judged it); return how many have one."""
    shown = 0
    for item in items:
        cid, loose = _claim_keys(item)
        found = latest.get(cid) or latest.get(loose)
        if not found:
            item["verdict"] = None
            continue
        why = why_stale(found, item)
        item["verdict"] = {k: found[k] for k in ("verdict", "source_says", "confidence", "date", "model", "report")} \
            | {"stale": bool(why), "why_stale": why or None}
        shown += 1
    return shown
