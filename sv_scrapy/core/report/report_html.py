"""The audit's HTML report: the Markdown report's content, readable in a browser — the news
first, the counts beside last audit's with a trend, a per-country chart of priors, and the
whole standing backlog folded in ``<details>``. Charts are inline SVG; no external asset, no
script; every page- or corpus-derived string is escaped, and only http(s) URLs become links.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sv_scrapy.core.audit.history import comparison, delta, trend_svg
from sv_scrapy.core.audit.news import NEW_CLAIM, NEWS_SECTIONS, STALE_CHANGED, VANISHED, news
from sv_scrapy.core.audit.reviews import expired_news, quiet
from sv_scrapy.core.audit.stats import buckets, by_scope_priors, linked_note, reason_group, run_notes, standing, top
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.escape import h, safe_href
from sv_scrapy.core.page.prefilter import PRIORS
from sv_scrapy.core.report.claimtext import claim_html
from sv_scrapy.core.report.fragment import item_link
from sv_scrapy.core.report.notes import html_note
from sv_scrapy.core.report.proposed import stated_now_html
from sv_scrapy.core.report.reviewed import (
    group_command,
    html_cmd,
    html_expired_section,
    html_reviewed_section,
    html_verdict,
    item_command,
    root_command,
)
from sv_scrapy.core.report.thennowlines import then_now_html
from sv_scrapy.core.report.totals import Totals

COLOURS = {
    "TOKENS_ABSENT": "#c0392b", "WEAK_MATCH": "#e67e22", "TOKENS_PRESENT": "#27ae60",
    "SOURCE_BINARY": "#7f8c8d", "SOURCE_UNAVAILABLE": "#95a5a6", "PDF_NO_TEXT": "#8e44ad",
}
STYLE = """body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.25em .5em;vertical-align:top}
th{background:#f4f4f4;text-align:left}.note{background:#fff8e1;border-left:4px solid #f1c40f;padding:.5em 1em}
code{background:#f4f4f4;padding:0 .2em}.old{color:#922}.new{color:#262}small{color:#666}
mark{background:#ffe58a;padding:0 .15em}.hint mark{background:#d6eaff}details{margin:.4em 0}
summary{cursor:pointer;font-weight:600}h3{margin-top:1.4em}"""


def _link(url: str) -> str:
    href = safe_href(url)
    return f'<a href="{href}" rel="noopener noreferrer nofollow">{h(url, 120)}</a>' if href else h(url, 120)


def _page(item: ClaimRecord) -> str:
    """The page's plain link and, beside it, the link that lands on the figure the excerpt shows."""
    plain = _link(item.get("final_url") or item["source_url"])
    href = safe_href(item_link(item) or "")
    return (f'{plain}<br><a href="{href}" rel="noopener noreferrer nofollow" class="figure">↪ at the figure</a>'
            if href else plain)


def _stated_now(item: Mapping[str, Any]) -> str:
    return stated_now_html(item, h, _link)


def _where(item: ClaimRecord) -> str:
    label = f"<code>{h(item['scope'])}:{int(item['line_no'])}</code>"
    href = safe_href(str(item.get("source_line_url") or ""))
    return f'<a href="{href}" rel="noopener noreferrer">{label}</a>' if href else label


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


def _hint(item: ClaimRecord) -> str:
    hint = str(item.get("page_hint") or "")
    return f'<span class="hint">page now says <mark>{h(hint)}</mark><br><small>a hint, not a verdict</small></span>' \
        if hint else ""


def _now(item: ClaimRecord) -> str:
    linked = f"<br><small>{linked_note(item, _link)}</small>" if linked_note(item) else ""
    return _now_excerpt(item) + linked + then_now_html(item)


def _now_excerpt(item: ClaimRecord) -> str:
    new = item.get("excerpts") or []
    if new:
        return f'<span class="new">{h(new[0], 240)}</span>'
    if item.get("page_excerpt"):
        return (f'<small>where the page speaks of the claim\'s subject:</small><br>'
                f'<span class="new">{h(str(item["page_excerpt"]), 240)}</span>')
    return "<em>(the figure is not on the page, nor the claim's words)</em>"


def _changed(items: Sequence[ClaimRecord]) -> str:
    rows = []
    for i in items:
        old = i.get("previous_excerpts") or []
        diff = "<br>".join(h(d, 160) for d in (i.get("change_diff") or [])[:6])
        move = (f"<br><code>{h(str(i['previous_prior']))}</code> → <code>{h(str(i['prior']))}</code>"
                if i.get("previous_prior") and i.get("previous_prior") != i.get("prior") else "")
        rows.append([
            _where(i), claim_html(i) + move,
            h((i.get("inline_stamp") or {}).get("date", "never verified"))
            + (f"<br><small>change seen {h(str(i['changed_at'])[:10])}</small>" if i.get("changed_at") else ""),
            f'<span class="old">{h(old[0], 240)}</span>' if old else "<em>(no excerpt)</em>",
            _now(i) + (f"<br><small>{diff}</small>" if diff else "") + html_verdict(i),
            _hint(i), _page(i), html_cmd(item_command(i)),
        ])
    return _table(rows, ["where", "claim", "last verified", "before", "now", "hint", "page", "review"])


def _state(item: ClaimRecord) -> str:
    return str(item["fetch_status"] if item.get("fetch_status") == "DEAD" else item["prior"])


def _listed(items: Sequence[ClaimRecord], reason: bool = True) -> str:
    return _table([[_where(i), claim_html(i, 160), f"<code>{h(_state(i))}</code>" + (
        f"<br>{_hint(i)}" if i.get("page_hint") else "") + then_now_html(i) + html_verdict(i),
        *([h(reason_group(str(i.get("note", ""))))] if reason else []), _link(i["source_url"]), _stated_now(i),
        html_cmd(item_command(i))] for i in items],
        ["where", "claim", "now", *(["reason"] if reason else []), "page", "stated now at", "review"])


def _news(items: Sequence[ClaimRecord], since: str, expired: Sequence[ClaimRecord] = (),
          baseline: int | None = None) -> tuple[list[str], set[str]]:
    sections = news(items)
    listed = {str(i["id"]) for rows in sections.values() for i in rows}
    if not since:
        counted = len(items) if baseline is None else baseline
        return ["<h2>New since the previous audit</h2>", f"<p><em>The first audit over this store: {counted} "
                "claim(s) are now the baseline; next month's report opens with what changed.</em></p>"], listed
    listed |= {str(i["id"]) for i in expired}
    out = [f"<h2>New since {h(since[:10])} ({len(listed)})</h2>"]
    if not listed:
        out.append("<p><em>Nothing new: every claim stands where the previous audit left it.</em></p>")
    for key, title, _ in NEWS_SECTIONS:
        rows = sections[key]
        if rows:
            out.append(f"<h3>{h(title.replace('`', ''))} ({len(rows)})</h3>")
            out.append(_changed(rows) if key in (VANISHED, STALE_CHANGED) else _listed(rows, key != NEW_CLAIM))
    out += html_expired_section(expired, _where, _table)
    pending = sum(1 for i in items if i.get("transition_pending"))
    if pending:
        out.append(f"<p><small>{pending} claim(s) lost their figure on a page still changing; the next audit "
                   "confirms or drops them.</small></p>")
    return out, listed


def _counts(doc: Mapping[str, Any]) -> list[str]:
    hist = doc.get("history") or {}
    prev, cur = hist.get("previous"), hist.get("current")
    if not cur:
        return []
    head = f"previous ({str(prev['at'])[:10]})" if prev else "previous"
    rows = [[h(label), "" if before is None else str(before), f"<strong>{now}</strong>", h(delta(before, now))]
            for label, before, now in comparison(prev, cur)]
    return ["<h2>Counts, this audit beside the previous</h2>", _table(rows, ["signal", head, "this audit", "change"]),
            "<h3>Trend</h3>", trend_svg(hist.get("trend") or [])]


def _details(title: str, body: str, count: int) -> str:
    return f"<details><summary>{h(title)} — {count}</summary>{body}</details>"


def _backlog(items: Sequence[ClaimRecord], listed: set[str], linter_rows: Sequence[Mapping[str, Any]],
             candidates: Sequence[Mapping[str, Any]] = ()) -> list[str]:
    b = buckets(standing(items, listed))
    everything = len(items)
    by_id = {str(i["id"]): i for i in items}
    out = ["<h2>Standing backlog</h2>", "<p><small>Not new this audit; most urgent first (stale marker, never verified, "
           "stamp age, statute or money).</small></p>",
           _details("TOKENS_ABSENT", _table([[_where(i), claim_html(i, 160), _now(i) + html_verdict(i), _hint(i),
                                              _page(i), _stated_now(i), html_cmd(item_command(i))]
                                             for i in top(b["tokens_absent"], everything)],
                                            ["where", "claim", "now", "hint", "page read", "stated now at", "review"]),
                    len(b["tokens_absent"])),
           _details("CONTENT_CHANGED, claim verified since", _changed(top(b["content_changed"], everything)),
                    len(b["content_changed"])),
           _details("Unavailable, by reason",
                    _table([[h(reason), str(len(rows)), ", ".join(_where(r) for r in top(rows, everything)),
                             html_cmd(group_command(rows))]
                            for reason, rows in b["unavailable"].items()], ["reason", "claims", "where", "review"]),
                    sum(len(r) for r in b["unavailable"].values())),
           _details("Figure found, other context (TOKENS_PRESENT, but never among the claim's words)",
                    _table([[_where(i), claim_html(i, 160), _now_excerpt(i), _page(i)]
                            for i in top(b["other_context"], everything)], ["where", "claim", "first excerpt", "page"]),
                    len(b["other_context"])),
           _details("PDF_NO_TEXT", _table([[_where(i), _link(i["source_url"]), html_cmd(item_command(i))]
                                           for i in top(b["pdf_no_text"], everything)],
                                          ["where", "PDF", "review"]), len(b["pdf_no_text"]))]
    if linter_rows:
        out.append(_details("Citation linter: bare-host citations next to a figure",
                            _table([[f"<code>{h(r['scope'])}:{int(r['line_no'])}</code>", h(r["figure"]), _link(r["url"]),
                                     _stated_now(by_id.get(str(r.get("id")), {})),
                                     html_cmd(root_command(r)) if r.get("id") else ""]
                                    for r in linter_rows], ["where", "figure", "root URL", "stated now at", "review"]),
                            len(linter_rows)))
    if candidates:
        out.append(_details("Allowlist candidates: secondary hosts that look official, cited next to a figure "
                            "(add to primary-source-allowlist.txt if they are; never done automatically)",
                            _table([[f"<code>{h(c['host'])}</code>", str(c["count"]), h("; ".join(c["why"])),
                                     ", ".join(f"<code>{h(i)}</code>" for i in c["examples"])] for c in candidates],
                                   ["host", "citations", "why", "examples"]), len(candidates)))
    return out


def render_html(doc: Mapping[str, Any], linter_rows: Sequence[Mapping[str, Any]] = (), totals: Totals | None = None) -> str:
    """The HTML report; with ``totals``, ``doc["items"]`` may hold only the claims a report can list."""
    stats, items, run = doc["stats"], doc["items"], doc.get("run", {})
    since = str(doc.get("news_since") or "")  # "" on the first audit over this store
    # reviewed claims are quiet (listed last); a review that expired this audit is news of its own
    open_items = [i for i in items if not quiet(i)]
    expired = [i for i in open_items if expired_news(i)]
    news_part, listed = _news([i for i in open_items if not expired_news(i)], since, expired,
                              totals.baseline if totals else None)
    sections = [
        f"<h1>Source-content audit — {h(doc['generated_at'][:10])}</h1>",
        '<p class="note"><strong>Tripwires, not verdicts.</strong> A TOKENS_ABSENT figure may sit on a deeper '
        "page or be written differently; a changed page may have changed elsewhere than the figure; a hint is the "
        "nearest figure of the same kind, not the right one. Nothing was edited and no <code>Last verified</code> "
        "stamp was touched.</p>",
        f"<p>Claims checked: <strong>{stats['claims']}</strong> over <strong>{stats['urls']}</strong> cited URLs · "
        f"new findings: <strong>{stats.get('new_findings', 0)}</strong> · "
        f"unchanged (HTTP 304): {stats['not_modified_urls']} ({stats['not_modified_pct']:g} %) · "
        f"previous audit: {h(str(run.get('previous_finished_at') or '')[:10] or '(none)')}"
        + (" · resumed after an interruption" if run.get("resumed") else "") + "</p>",
        *[f'<p class="note">⚠️ {html_note(note)}</p>' for note in run_notes(doc)],
        *news_part, *_counts(doc),
        "<h2>Priors per scope</h2>", chart(totals.priors_by_scope if totals else by_scope_priors(items)),
        *_backlog(open_items, listed, linter_rows, doc.get("allowlist_candidates", [])),
        *html_reviewed_section(doc, _where, _table),
    ]
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Source-content audit</title>'
            f'<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">'
            f"<style>{STYLE}</style></head><body>{''.join(sections)}</body></html>\n")
