"""The audit's HTML report: the Markdown report's content, readable in a browser, with a
per-country chart of priors drawn as inline SVG. No external asset, no script; every
page- or corpus-derived string is escaped, and only http(s) URLs become links.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sv_scrapy.core.audit import buckets, by_scope_priors
from sv_scrapy.core.escape import h, safe_href
from sv_scrapy.core.prefilter import PRIORS

COLOURS = {
    "TOKENS_ABSENT": "#c0392b", "WEAK_MATCH": "#e67e22", "TOKENS_PRESENT": "#27ae60",
    "SOURCE_BINARY": "#7f8c8d", "SOURCE_UNAVAILABLE": "#95a5a6", "PDF_NO_TEXT": "#8e44ad",
}
STYLE = """body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.25em .5em;vertical-align:top}
th{background:#f4f4f4;text-align:left}.note{background:#fff8e1;border-left:4px solid #f1c40f;padding:.5em 1em}
code{background:#f4f4f4;padding:0 .2em}.old{color:#922}.new{color:#262}small{color:#666}"""


def _link(url: str) -> str:
    href = safe_href(url)
    return f'<a href="{href}" rel="noopener noreferrer nofollow">{h(url, 120)}</a>' if href else h(url, 120)


def _where(item: Mapping[str, Any]) -> str:
    return f"<code>{h(item['scope'])}:{int(item['line_no'])}</code>"


def chart(counts: Mapping[str, Mapping[str, int]]) -> str:
    """Horizontal stacked bars, one per scope, widths proportional to claims."""
    if not counts:
        return "<p><em>(no claims)</em></p>"
    bar_w, row_h, label_w = 520, 22, 170
    biggest = max(sum(c.values()) for c in counts.values()) or 1
    height = row_h * len(counts) + 40
    legend_w = sum(14 + 7.2 * len(p) + 12 for p in PRIORS)
    width = int(max(label_w + bar_w + 60, label_w + legend_w))
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'role="img" aria-label="priors per scope">']
    for row, (scope, by_prior) in enumerate(counts.items()):
        y = row * row_h + 4
        parts.append(f'<text x="{label_w - 6}" y="{y + 14}" text-anchor="end" font-size="12">{h(scope, 28)}</text>')
        x = float(label_w)
        for prior in PRIORS:
            n = by_prior.get(prior, 0)
            if not n:
                continue
            w = bar_w * n / biggest
            parts.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row_h - 6}" fill="{COLOURS[prior]}">'
                         f"<title>{h(scope)}: {prior} {n}</title></rect>")
            x += w
        parts.append(f'<text x="{x + 4:.1f}" y="{y + 14}" font-size="11">{sum(by_prior.values())}</text>')
    legend_y = row_h * len(counts) + 24
    x = float(label_w)
    for prior in PRIORS:
        parts.append(f'<rect x="{x:.0f}" y="{legend_y - 10}" width="10" height="10" fill="{COLOURS[prior]}"/>'
                     f'<text x="{x + 14:.0f}" y="{legend_y}" font-size="10">{prior}</text>')
        x += 14 + 7.2 * len(prior) + 12
    parts.append("</svg>")
    return "".join(parts)


def _table(rows: Sequence[Sequence[str]], head: Sequence[str]) -> str:
    if not rows:
        return "<p><em>(none)</em></p>"
    thead = "".join(f"<th>{h(c)}</th>" for c in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{thead}</tr></thead><tbody>{body}</tbody></table>"


def _changed(items: Sequence[Mapping[str, Any]]) -> str:
    rows = []
    for i in items:
        old, new = i.get("previous_excerpts") or [], i.get("excerpts") or []
        diff = "<br>".join(h(d, 160) for d in (i.get("change_diff") or [])[:6])
        rows.append([
            _where(i), h(i["claim_text"], 220), h((i.get("inline_stamp") or {}).get("date", "never verified")),
            h(str(i.get("changed_at", ""))[:10]),
            f'<span class="old">{h(old[0], 300) if old else "(no excerpt)"}</span>',
            f'<span class="new">{h(new[0], 300) if new else "(figure no longer on the page)"}</span>'
            + (f"<br><small>{diff}</small>" if diff else ""),
            _link(i["source_url"]),
        ])
    return _table(rows, ["where", "claim", "last verified", "change seen", "before", "now", "page"])


def render_html(doc: Mapping[str, Any], linter_rows: Sequence[Mapping[str, Any]] = ()) -> str:
    stats, items = doc["stats"], doc["items"]
    b = buckets(items)
    counts = [
        ("⚠️ changed after Last verified", stats["stale_changed"]), ("TOKENS_ABSENT", stats["tokens_absent"]),
        ("CONTENT_CHANGED", stats["content_changed"]), ("unavailable", stats["unavailable"]),
        ("PDF_NO_TEXT", stats["pdf_no_text"]), ("DEAD", stats["dead"]),
    ]
    sections = [
        f"<h1>Source-content audit — {h(doc['generated_at'][:10])}</h1>",
        '<p class="note"><strong>Tripwires, not verdicts.</strong> A TOKENS_ABSENT figure may sit on a deeper '
        "page or be written differently; a changed page may have changed elsewhere than the figure. Nothing was "
        "edited and no <code>Last verified</code> stamp was touched.</p>",
        f"<p>Claims checked: <strong>{stats['claims']}</strong> over <strong>{stats['urls']}</strong> cited URLs · "
        f"unchanged (HTTP 304): {stats['not_modified_urls']} ({stats['not_modified_pct']:g} %)</p>",
        _table([[h(name), str(n)] for name, n in counts], ["signal", "claims"]),
        "<h2>Priors per scope</h2>", chart(by_scope_priors(items)),
        f"<h2>⚠️ Changed after Last verified ({len(b['stale_changed'])})</h2>", _changed(b["stale_changed"]),
        f"<h2>TOKENS_ABSENT ({len(b['tokens_absent'])})</h2>",
        _table([[_where(i), h(i["claim_text"], 160), h(", ".join(i.get("missing_tokens", [])[:6])),
                 _link(i.get("final_url") or i["source_url"])] for i in b["tokens_absent"]],
               ["where", "claim", "missing", "page read"]),
        f"<h2>CONTENT_CHANGED ({len(b['content_changed'])})</h2>", _changed(b["content_changed"]),
        "<h2>Unavailable, by reason</h2>",
        _table([[h(reason), str(len(rows)), ", ".join(_where(r) for r in rows[:12])]
                for reason, rows in b["unavailable"].items()], ["reason", "claims", "where"]),
        f"<h2>PDF_NO_TEXT ({len(b['pdf_no_text'])})</h2>",
        _table([[_where(i), _link(i["source_url"])] for i in b["pdf_no_text"]], ["where", "PDF"]),
    ]
    if linter_rows:
        sections += [f"<h2>Citation linter backlog ({len(linter_rows)})</h2>",
                     _table([[f"<code>{h(r['scope'])}:{int(r['line_no'])}</code>", h(r["figure"]), _link(r["url"])]
                             for r in linter_rows], ["where", "figure", "root URL"])]
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Source-content audit</title>'
            f'<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">'
            f"<style>{STYLE}</style></head><body>{''.join(sections)}</body></html>\n")
