"""The audit's Markdown report (the rolling GitHub issue): the month's news first, then this
month's counts beside last month's, then the standing backlog, collapsed to a count and the
first claims by priority.

Text reads like prose: corpus and page text go through ``escape.md_text``, which escapes
only what Markdown would act on (table pipes, a leading ``#``/``-``/``>``, HTML, links,
``@mentions``). URLs become autolinks only when they are plain http(s) URLs. The report is
built as sections of rows, so ``issue_markdown`` can cut it on a row boundary.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from sv_scrapy.core.audit.history import comparison, delta
from sv_scrapy.core.audit.news import NEW_CLAIM, NEWS_SECTIONS, STALE_CHANGED, VANISHED, news
from sv_scrapy.core.audit.reviews import expired_news, quiet
from sv_scrapy.core.audit.stats import buckets, linked_note, reason_group, run_notes, standing, top
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.escape import md, md_code, md_inline, md_text
from sv_scrapy.core.report.claimtext import claim_md
from sv_scrapy.core.report.fragment import SAFE_MD_URL, md_figure_link
from sv_scrapy.core.report.issuecut import GITHUB_ISSUE_LIMIT, Section, fit, join
from sv_scrapy.core.report.notes import md_note
from sv_scrapy.core.report.proposed import proposal, stated_now_md
from sv_scrapy.core.report.reviewed import (
    group_command,
    item_command,
    md_cmd,
    md_expired_section,
    md_reviewed_section,
    md_verdict,
    root_command,
)
from sv_scrapy.core.report.thennowlines import then_excerpt_md, then_now_md
from sv_scrapy.core.report.totals import Totals

HEADER = (
    "> **Tripwires, not verdicts.** A `TOKENS_ABSENT` figure may sit on a deeper page or be written "
    "differently; a changed page may have changed elsewhere than the figure; a hint is the nearest figure "
    "of the same kind, not the right one. Nothing was edited and no `Last verified` stamp was touched."
)
TOP_N = 15


def md_url(url: str) -> str:
    return f"<{url}>" if re.fullmatch(r"https?://[^\s<>|`]+", url) else md(url)


def md_page(item: ClaimRecord) -> str:
    """The page's plain link and, beside it, the link that lands on the figure the excerpt shows."""
    plain = md_url(item.get("final_url") or item["source_url"])
    link = md_figure_link(item)
    return f"{plain} · {link}" if link else plain


def where(item: ClaimRecord) -> str:
    """``scope:line``, linked to the playbook line when a link is known."""
    label = md_code(f"{item['scope']}:{int(item['line_no'])}")
    url = str(item.get("source_line_url") or "")
    return f"[{label}]({url})" if SAFE_MD_URL.fullmatch(url) else label


def _stamp(item: ClaimRecord) -> str:
    return md_text((item.get("inline_stamp") or {}).get("date", "never verified"))


def _quote(text: str, limit: int = 240) -> str:
    flat = " ".join(text.split())
    return "“" + md_inline(flat if len(flat) <= limit else flat[: limit - 1] + "…") + "”"


def _hint(item: ClaimRecord) -> str:
    hint = str(item.get("page_hint") or "")
    return f"page now says **{md_inline(hint)}** _(a hint, not a verdict)_" if hint else ""


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], title: str, empty: str = "_(none)_") -> Section:
    if not rows:
        return Section([title, "", empty], [], [""])
    return Section([title, "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)],
                   ["| " + " | ".join(row) + " |" for row in rows], [""])


def claim_block(item: ClaimRecord) -> str:
    """One absent or changed claim: where, the claim, before → now in the page's words, the hint."""
    lines = [f"- {where(item)} — {claim_md(item)}"]
    facts = [f"page {md_page(item)}", f"last verified {_stamp(item)}"]
    if item.get("changed_at"):
        facts.append(f"change first seen {md_text(str(item['changed_at'])[:10])}")
    if item.get("previous_prior") and item.get("previous_prior") != item.get("prior"):
        facts.append(f"{md_code(str(item['previous_prior']))} → {md_code(str(item['prior']))}")
    lines.append("  - " + " · ".join(facts))
    old, new = item.get("previous_excerpts") or [], item.get("excerpts") or []
    if old:
        lines.append(f"  - before: {_quote(old[0])}")
    if new:
        lines.append(f"  - now: {_quote(new[0])}")
    elif item.get("page_excerpt"):
        lines.append(f"  - now, where the page speaks of the claim's subject: {_quote(str(item['page_excerpt']))}")
    else:
        lines.append("  - now: _(the figure is not on the page, nor the claim's words)_")
    if _hint(item):
        lines.append(f"  - {_hint(item)}")
    if linked_note(item):
        lines.append(f"  - {linked_note(item, md_url)}")
    if proposal(item):
        lines.append(f"  - stated now at: {stated_now_md(item)}")
    if then_now_md(item):
        lines.append(f"  - {then_now_md(item)}" + (f" — then: {then_excerpt_md(item)}" if then_excerpt_md(item) else ""))
    diff = item.get("change_diff") or []
    if diff:
        lines.append("  - changed lines: " + " · ".join(md_inline(d[:160]) for d in diff[:6]))
    if md_verdict(item):
        lines.append(f"  - {md_verdict(item)}")
    lines.append(f"  - review: {md_cmd(item_command(item))}")
    return "\n".join(lines)


def _row_now(item: ClaimRecord) -> str:
    parts = [md_code(str(item["fetch_status"] if item.get("fetch_status") == "DEAD" else item["prior"]))]
    if item.get("page_hint"):
        parts.append(f"page now says **{md_inline(str(item['page_hint']))}** (hint)")
    if md_verdict(item):
        parts.append(md_verdict(item))
    if then_now_md(item):
        parts.append(then_now_md(item))
    return " · ".join(parts)


def _news_sections(items: Sequence[ClaimRecord], since: str, expired: Sequence[ClaimRecord] = (),
                   baseline: int | None = None) -> tuple[list[Section], set[str], int]:
    sections = news(items)
    listed = {str(i["id"]) for rows in sections.values() for i in rows} | {str(i["id"]) for i in expired}
    total = len(listed)
    out: list[Section] = []
    if not since:
        counted = len(items) if baseline is None else baseline
        out.append(Section(["## New since the previous audit", "",
                            f"_This is the first audit over this store: nothing to compare with yet. "
                            f"{counted} claim(s) are now the baseline; next month's report opens with "
                            f"what changed._", ""]))
        return out, listed - {str(i["id"]) for i in expired}, 0
    out.append(Section([f"## New since {md_text(since[:10])} ({total})", ""]))
    if not total:
        out[0].head += ["_Nothing new: every claim stands where the previous audit left it._", ""]
    for key, title, _ in NEWS_SECTIONS:
        rows = sections[key]
        if not rows:
            continue
        heading = f"### {title} ({len(rows)})"
        if key in (VANISHED, STALE_CHANGED):
            out.append(Section([heading, ""], [claim_block(i) for i in rows], [""]))
        elif key == NEW_CLAIM:
            out.append(_table(["where", "claim", "now", "page", "stated now at", "review"],
                              [[where(i), claim_md(i, 140), _row_now(i), md_url(i["source_url"]), stated_now_md(i),
                                md_cmd(item_command(i))] for i in rows], heading))
        else:
            out.append(_table(["where", "claim", "now", "reason", "page", "stated now at", "review"],
                              [[where(i), claim_md(i, 140), _row_now(i), md_text(reason_group(str(i.get("note", ""))), 80),
                                md_url(i["source_url"]), stated_now_md(i), md_cmd(item_command(i))] for i in rows],
                              heading))
    if expired:
        out.append(md_expired_section(expired, where))
    pending = [i for i in items if i.get("transition_pending")]
    if pending:
        out.append(Section([f"_{len(pending)} claim(s) lost their figure on a page still changing; "
                            "the next audit confirms or drops them._", ""]))
    return out, listed, total


def _counts(doc: Mapping[str, Any]) -> Section:
    hist = doc.get("history") or {}
    prev, cur = hist.get("previous"), hist.get("current")
    if not cur:
        return Section(["## Counts", ""])
    prev_head = f"previous ({md_text(str(prev['at'])[:10])})" if prev else "previous"
    rows = [[md_text(label), "" if before is None else str(before), str(now), delta(before, now)]
            for label, before, now in comparison(prev, cur)]
    return _table(["signal", prev_head, "this audit", "change"], rows, "## Counts, this audit beside the previous")


def _backlog(items: Sequence[ClaimRecord], listed: set[str], linter_rows: Sequence[Mapping[str, Any]],
             top_n: int, doc_candidates: Mapping[str, Any]) -> list[Section]:
    rest = standing(items, listed)
    b = buckets(rest)
    out = [Section(["## Standing backlog", "",
                    f"_Not new this month; the first {top_n} of each list by priority (stale marker, never "
                    "verified, stamp age, statute or money). Every claim is in report.html and audit.json._", ""])]
    absent = b["tokens_absent"]
    out.append(_table(["where", "claim", "page now says", "page read", "stated now at", "review"],
                      [[where(i), claim_md(i, 140), " · ".join(filter(None, [md_inline(str(i.get("page_hint") or "")),
                                                                           linked_note(i, md_url), then_now_md(i),
                                                                           md_verdict(i)])),
                        md_url(i.get("final_url") or i["source_url"]), stated_now_md(i), md_cmd(item_command(i))]
                       for i in top(absent, top_n)],
                      f"### `TOKENS_ABSENT` — {len(absent)} standing"))
    changed = b["content_changed"]
    if changed:
        out.append(_table(["where", "claim", "last verified", "page", "review"],
                          [[where(i), claim_md(i, 140), _stamp(i), md_url(i["source_url"]), md_cmd(item_command(i))]
                           for i in top(changed, top_n)],
                          f"### `CONTENT_CHANGED`, claim verified since — {len(changed)}"))
    out.append(_table(["reason", "claims", "where", "review"],
                      [[md_text(reason, 80), str(len(rows)),
                        ", ".join(where(r) for r in top(rows, 8)) + (" …" if len(rows) > 8 else ""),
                        md_cmd(group_command(rows))]
                       for reason, rows in b["unavailable"].items()],
                      f"### Unavailable, by reason — {sum(len(r) for r in b['unavailable'].values())} standing"))
    other = b["other_context"]
    if other:
        out.append(_table(["where", "claim", "first excerpt", "page"],
                          [[where(i), claim_md(i, 140), _quote(str((i.get("excerpts") or [""])[0])[:240]),
                            md_page(i)] for i in top(other, top_n)],
                          f"### Figure found, other context — {len(other)} (the figure stands on the page, but never "
                          "among the claim's words: `TOKENS_PRESENT` still)"))
    scans = b["pdf_no_text"]
    out.append(_table(["where", "PDF", "review"], [[where(i), md_url(i["source_url"]), md_cmd(item_command(i))]
                                                   for i in top(scans, top_n)],
                      f"### `PDF_NO_TEXT` — {len(scans)} scanned PDF(s), need OCR or the LLM layer"))
    if linter_rows:
        by_id = {str(i["id"]): i for i in items}
        out.append(_table(["where", "figure", "root URL", "stated now at", "review"],
                          [[md_code(f"{r['scope']}:{int(r['line_no'])}"), md_text(r["figure"], 40), md_url(r["url"]),
                            stated_now_md(by_id.get(str(r.get("id")), {})), md_cmd(root_command(r)) if r.get("id") else ""]
                           for r in linter_rows[:top_n]],
                          f"### Citation linter — {len(linter_rows)} bare-host citation(s) next to a figure"))
    candidates = doc_candidates.get("rows", [])
    if candidates:
        out.append(_table(["host", "citations", "why", "examples"],
                          [[md_code(c["host"]), str(c["count"]), md_text("; ".join(c["why"]), 120),
                            ", ".join(md_code(i) for i in c["examples"])] for c in candidates[:top_n]],
                          f"### Allowlist candidates — {len(candidates)} secondary host(s) that look official, "
                          "cited next to a figure (add to `primary-source-allowlist.txt` if they are; never done "
                          "automatically)"))
    return out


def markdown_sections(doc: Mapping[str, Any], linter_rows: Sequence[Mapping[str, Any]] = (),
                      top_n: int = TOP_N, totals: Totals | None = None) -> list[Section]:
    """The report's sections; with ``totals``, ``doc["items"]`` may hold only the claims a report
    can list (``core.report.finish``)."""
    stats, items, run = doc["stats"], doc["items"], doc.get("run", {})
    since = str(doc.get("news_since") or "")  # "" on the first audit over this store
    head = Section([
        f"# Source-content audit — {md_text(doc['generated_at'][:10])}", "", HEADER, "",
        f"Claims checked: **{stats['claims']}** over **{stats['urls']}** cited URLs · new findings: "
        f"**{stats.get('new_findings', 0)}** · unchanged (HTTP 304): {stats['not_modified_urls']} "
        f"({stats['not_modified_pct']:g} %) · previous audit: "
        f"{md_text(str(run.get('previous_finished_at') or '')[:10] or '(none)')}"
        + (" · resumed after an interruption" if run.get("resumed") else ""), "",
        *[f"> ⚠️ {md_note(note)}\n" for note in run_notes(doc)]])
    # reviewed claims are quiet (listed last); a review that expired this audit is news of its own
    open_items = [i for i in items if not quiet(i)]
    expired = [i for i in open_items if expired_news(i)]
    news_part, listed, _ = _news_sections([i for i in open_items if not expired_news(i)], since, expired,
                                          totals.baseline if totals else None)
    return [head, *news_part, _counts(doc),
            *_backlog(open_items, listed, linter_rows, top_n, {"rows": doc.get("allowlist_candidates", [])}),
            *md_reviewed_section(doc, where)]


def render_markdown(doc: Mapping[str, Any], linter_rows: Sequence[Mapping[str, Any]] = (), top_n: int = TOP_N,
                    totals: Totals | None = None) -> str:
    return join(markdown_sections(doc, linter_rows, top_n, totals))


def issue_markdown(doc: Mapping[str, Any], linter_rows: Sequence[Mapping[str, Any]] = (), top_n: int = TOP_N,
                   limit: int = GITHUB_ISSUE_LIMIT, totals: Totals | None = None) -> str:
    """The rolling issue's body: the report, cut on a row boundary to fit GitHub's limit."""
    return fit(markdown_sections(doc, linter_rows, top_n, totals), limit)
