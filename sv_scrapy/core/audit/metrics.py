"""The last audit as a Prometheus textfile (``<SV_OUTPUT_DIR>/metrics.prom``), for the node
exporter's textfile collector: when it ended, whether it succeeded, how long it took, claims by
prior, new findings, pages by fetch status and the share of pages that answered 304. Alert on
``time() - sv_audit_last_success_timestamp_seconds > 35 * 86400`` (no good month in 35 days).

Written by hand in the text exposition format (``# HELP``, ``# TYPE``, one sample a line); the
tests parse it with ``prometheus_client.parser``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

LAST_SUCCESS = "sv_audit_last_success_timestamp_seconds"


def _label(value: str) -> str:
    r"""A label value escaped as the text format wants it.

    >>> _label('a"b\\c')
    'a\\"b\\\\c'
    """
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


@dataclass(frozen=True)
class RunMetrics:
    ended_at: float  # Unix time
    success: bool
    duration_s: float
    last_success_at: float | None  # this run's end if it succeeded, else the last good run's
    stats: Mapping[str, Any] | None = None  # the audit document's stats (None: no document written)


def _gauge(name: str, help_text: str, samples: list[tuple[str, float]]) -> list[str]:
    lines = [f"# HELP {name} {help_text}", f"# TYPE {name} gauge"]
    return lines + [f"{name}{labels} {value}" for labels, value in samples]


def last_success(previous_text: str) -> float | None:
    """The last good run's end, as the previous textfile says (a failed run keeps it).

    >>> last_success("# TYPE sv_audit_last_success_timestamp_seconds gauge\\nsv_audit_last_success_timestamp_seconds 1796.5\\n")
    1796.5
    """
    found = re.search(rf"^{LAST_SUCCESS} (\S+)$", previous_text, re.MULTILINE)
    try:
        return float(found.group(1)) if found else None
    except ValueError:
        return None


def prometheus_text(m: RunMetrics) -> str:
    """The textfile: every metric a gauge; counts only for a run that wrote its document."""
    out: list[str] = []
    out += _gauge("sv_audit_last_run_end_timestamp_seconds", "When the last audit ended (Unix time).",
                  [("", round(m.ended_at, 3))])
    out += _gauge("sv_audit_last_run_success", "1 if the last audit wrote every promised output, else 0.",
                  [("", int(m.success))])
    out += _gauge("sv_audit_last_run_duration_seconds", "How long the last audit ran.", [("", round(m.duration_s, 3))])
    if m.last_success_at is not None:
        out += _gauge(LAST_SUCCESS, "When the last successful audit ended (Unix time).",
                      [("", round(m.last_success_at, 3))])
    stats = m.stats
    if stats is not None:
        out += _gauge("sv_audit_claims", "Claims checked by the last audit, by prior.",
                      [(f'{{prior="{_label(str(k))}"}}', int(v)) for k, v in sorted(stats.get("by_prior", {}).items())])
        out += _gauge("sv_audit_new_findings", "Findings new since the previous audit.",
                      [("", int(stats.get("new_findings", 0)))])
        out += _gauge("sv_audit_pages", "Pages (distinct URLs) of the last audit, by fetch status.",
                      [(f'{{fetch_status="{_label(str(k))}"}}', int(v))
                       for k, v in sorted(stats.get("pages_by_fetch_status", {}).items())])
        out += _gauge("sv_audit_not_modified_ratio", "Share of the pages read that answered 304 Not Modified.",
                      [("", round(float(stats.get("not_modified_pct", 0.0)) / 100.0, 4))])
        out += archive_gauges(stats.get("archive") or {})
    return "\n".join(out) + "\n"


def archive_gauges(archive: Mapping[str, Any]) -> list[str]:
    """Then and now (``stats.archive``): lookups, captures read, archive errors, claims by verdict."""
    if not archive:
        return []
    events = ("lookups", "cdx_requests", "cdx_cached", "captures_read", "captures_cached", "errors", "skipped")
    out = _gauge("sv_audit_archive_events", "The Wayback Machine in the last audit: lookups, requests, cache hits, "
                 "captures read, archive errors, flagged claims over archive.max_lookups.",
                 [(f'{{event="{e}"}}', int(archive.get(e, 0))) for e in events])
    return out + _gauge("sv_audit_archive_claims", "Claims of the last audit by then-and-now verdict.",
                        [(f'{{verdict="{_label(str(k))}"}}', int(v))
                         for k, v in sorted((archive.get("by_verdict") or {}).items())])
