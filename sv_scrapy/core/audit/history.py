"""Each audit's counts, by signal and by scope, kept in the content store; last month beside
this month in the Markdown report, a small trend (inline SVG, no script) in the HTML one."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.escape import h

SIGNALS: tuple[tuple[str, str], ...] = (
    ("new_findings", "new findings"),
    ("stale_changed", "⚠️ changed after Last verified"),
    ("tokens_absent", "TOKENS_ABSENT"),
    ("content_changed", "CONTENT_CHANGED"),
    ("unavailable", "unavailable"),
    ("pdf_no_text", "PDF_NO_TEXT"),
    ("dead", "DEAD"),
    ("reviewed", "reviewed, quiet (counted above too)"),
    ("claims", "claims checked"),
)
TREND = (("tokens_absent", "#c0392b"), ("unavailable", "#95a5a6"), ("dead", "#2c3e50"),
         ("stale_changed", "#e67e22"), ("new_findings", "#2980b9"))
KEEP = 120  # audits kept: ten years of monthly runs


def scope_signals(items: Sequence[ClaimRecord]) -> dict[str, dict[str, int]]:
    """Scope -> signal -> claims (only signals with a count)."""
    out: dict[str, Counter[str]] = {}
    for item in items:
        counts = out.setdefault(str(item["scope"]), Counter())
        counts["claims"] += 1
        if item.get("prior") == "TOKENS_ABSENT":
            counts["tokens_absent"] += 1
        if item.get("stale_changed"):
            counts["stale_changed"] += 1
        if item.get("prior") == "SOURCE_UNAVAILABLE":
            counts["unavailable"] += 1
        if item.get("fetch_status") == "DEAD":
            counts["dead"] += 1
    return {scope: dict(c) for scope, c in sorted(out.items())}


def entry(doc: Mapping[str, Any]) -> dict[str, Any]:
    """This audit's line in the history."""
    stats = doc["stats"]
    return {
        "at": doc["generated_at"],
        "run_id": doc.get("run", {}).get("run_id", ""),
        "country": doc.get("params", {}).get("country"),
        "signals": {key: int(stats.get(key, 0)) for key, _ in SIGNALS},
        "by_scope": scope_signals(doc["items"]),
    }


def appended(history: Sequence[Mapping[str, Any]], new: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The history with ``new`` last (replacing an entry of the same run), at most ``KEEP`` long."""
    kept = [dict(e) for e in history if not new.get("run_id") or e.get("run_id") != new.get("run_id")]
    return [*kept, dict(new)][-KEEP:]


def previous(history: Sequence[Mapping[str, Any]], current: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The last earlier audit over the same scopes (a ``-a country=`` run compares with its like)."""
    for old in reversed(history):
        if old.get("run_id") != current.get("run_id") and old.get("country") == current.get("country"):
            return dict(old)
    return None


def comparison(prev: Mapping[str, Any] | None, cur: Mapping[str, Any]) -> list[tuple[str, int | None, int]]:
    """(label, previous count or None, this count) per signal.

    >>> comparison({"signals": {"tokens_absent": 4}}, {"signals": {"tokens_absent": 6}})[2]
    ('TOKENS_ABSENT', 4, 6)
    """
    before = (prev or {}).get("signals", {})
    return [(label, (int(before.get(key, 0)) if prev else None), int(cur["signals"].get(key, 0)))
            for key, label in SIGNALS]


def delta(before: int | None, now: int) -> str:
    """The change from last audit, signed.

    >>> delta(4, 6), delta(6, 4), delta(3, 3), delta(None, 2)
    ('+2', '−2', '=', '')
    """
    if before is None:
        return ""
    return "=" if now == before else (f"+{now - before}" if now > before else f"−{before - now}")


def trend_svg(history: Sequence[Mapping[str, Any]], width: int = 560, height: int = 150) -> str:
    """One polyline per signal over the kept audits (oldest left); no script, no external asset."""
    points = [e for e in history if e.get("signals")][-24:]
    if len(points) < 2:
        return "<p><em>(the trend starts with the second audit)</em></p>"
    left, right, top, bottom = 34, 130, 10, 24
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max(max(int(e["signals"].get(k, 0)) for k, _ in TREND) for e in points) or 1
    step = plot_w / (len(points) - 1)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
             f'aria-label="counts per audit">',
             f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="#999"/>',
             f'<text x="{left - 4}" y="{top + 8}" font-size="10" text-anchor="end">{peak}</text>',
             f'<text x="{left - 4}" y="{top + plot_h}" font-size="10" text-anchor="end">0</text>',
             f'<text x="{left}" y="{height - 6}" font-size="10">{h(str(points[0]["at"])[:10])}</text>',
             f'<text x="{left + plot_w}" y="{height - 6}" font-size="10" text-anchor="end">'
             f'{h(str(points[-1]["at"])[:10])}</text>']
    for row, (key, colour) in enumerate(TREND):
        coords = " ".join(f"{left + i * step:.1f},{top + plot_h - plot_h * int(e['signals'].get(key, 0)) / peak:.1f}"
                          for i, e in enumerate(points))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{coords}">'
                     f"<title>{key}</title></polyline>")
        y = top + 10 + row * 16
        parts.append(f'<rect x="{left + plot_w + 10}" y="{y - 8}" width="10" height="10" fill="{colour}"/>'
                     f'<text x="{left + plot_w + 24}" y="{y + 1}" font-size="10">{key} '
                     f'{int(points[-1]["signals"].get(key, 0))}</text>')
    parts.append("</svg>")
    return "".join(parts)
