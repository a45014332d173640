"""The review memory in the reports (Markdown, ``issue.md`` and HTML alike): the command that
records a row's review, the model's latest verdict beside a flag, the news of expired reviews,
and the collapsed "Reviewed (N)" section. Kept apart from ``report_md`` / ``report_html`` so
those only call in."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from sv_scrapy.core.audit.reviews import ROOT_CITATION, SUGGESTED, findings, quiet
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.escape import h, md_code, md_inline, md_text
from sv_scrapy.core.report.issuecut import Section


def review_command(ids: Sequence[str], finding: str = "", decision: str = "") -> str:
    """The command that records the review of these claims (edit the decision and the reason).

    >>> review_command(["fr:12:0a1b2c3d"], "TOKENS_ABSENT")
    'scrapy review fr:12:0a1b2c3d --as figure_elsewhere --reason "…"'
    >>> review_command(["fr:3:0a1b2c3d"], "root_citation")
    'scrapy review fr:3:0a1b2c3d --finding root_citation --as fix_pending --reason "…"'
    """
    only = f" --finding {finding}" if finding == ROOT_CITATION else ""
    decision = decision or SUGGESTED.get(finding, "false_positive")
    return f"scrapy review {' '.join(shlex.quote(i) for i in ids)}{only} --as {decision} --reason \"…\""


def item_command(item: ClaimRecord) -> str:
    shown = findings(item)
    return review_command([str(item["id"])], shown[0] if shown else "")


def root_command(row: Mapping[str, Any]) -> str:
    return review_command([str(row["id"])], ROOT_CITATION)


def group_command(items: Sequence[ClaimRecord]) -> str:
    shown = findings(items[0]) if items else []
    return review_command([str(i["id"]) for i in items], shown[0] if shown else "")


# -- Markdown --------------------------------------------------------------------------------

def md_cmd(command: str) -> str:
    """A command as a code span fit for a table cell (a pipe would end the cell)."""
    return md_code(command).replace("|", "\\|")


def md_verdict(item: ClaimRecord) -> str:
    """The latest ``scrapy verify`` verdict, for beside the claim's flag ("" when none)."""
    v = item.get("verdict")
    if not v:
        return ""
    quote = " ".join(str(v.get("source_says") or "").split())
    quote = quote if len(quote) <= 160 else quote[:159] + "…"
    stale = f" _(stale: {md_inline(str(v['why_stale']))})_" if v.get("stale") else ""
    return (f"model {md_code(str(v['verdict']))} {md_text(str(v['date']))}"
            + (f" “{md_inline(quote)}”" if quote else "") + stale)


def md_expired(item: ClaimRecord) -> str:
    return md_inline(md_expired_plain(item)) if item.get("review") else ""


def md_expired_section(items: Sequence[ClaimRecord], where: Any) -> Section:
    """News: reviews that expired on this audit, the finding back."""
    rows = [f"| {where(i)} | {md_code(', '.join(findings(i)))} | {md_expired(i)} | {md_cmd(item_command(i))} |"
            for i in items]
    return Section([f"### Review expired — the finding is back ({len(items)})", "",
                    "| where | finding | review | review again |", "|---|---|---|---|"], rows, [""])


def reviewed(doc: Mapping[str, Any]) -> tuple[list[tuple[ClaimRecord, dict[str, Any]]], list[Any], list[Any]]:
    """What the "Reviewed (N)" section lists, in either report: each quiet claim with its review,
    the reviewed linter rows and the orphaned reviews."""
    info = doc.get("reviews") or {}
    items: list[ClaimRecord] = doc["items"]
    return ([(i, i.get("review") or {}) for i in items if quiet(i)], info.get("root_citations_reviewed") or [],
            info.get("orphaned") or [])


def md_reviewed_section(doc: Mapping[str, Any], where: Any) -> list[Section]:
    """The collapsed "Reviewed (N)" section: decision, reason and date of each live review, and
    the orphaned reviews (their claim is no longer in the corpus)."""
    items, roots, orphans = reviewed(doc)
    total = len(items) + len(roots)
    if not total and not orphans:
        return []
    rows = [f"| {where(i)} | {md_code(', '.join(findings(i)))} | {md_code(r['decision'])} | "
            f"{md_text(r['reason'], 200)} | {md_text(r['date'])}"
            + (f" (until {md_text(r['until'])})" if r.get("until") else "") + " |" for i, r in items]
    rows += [f"| {md_code(str(r['scope']) + ':' + str(r['line_no']))} | `root_citation` | "
             f"{md_code(r['review']['decision'])} | {md_text(r['review']['reason'], 200)} | "
             f"{md_text(r['review']['date'])} |" for r in roots]
    out = [Section(["<details><summary>Reviewed (" + str(total) + ") — quiet until the page or the claim "
                    "changes</summary>", "",
                    "| where | finding | decision | reason | date |", "|---|---|---|---|---|"], rows, [""])]
    if orphans:
        out.append(Section([f"Orphaned reviews ({len(orphans)}): no claim of the corpus has their key any more "
                            "(the line or its figures were removed); delete them from the file when done.", "",
                            "| claim (when reviewed) | finding | decision | date |", "|---|---|---|---|"],
                           [f"| {md_code(o['claim'])} | {md_code(o['finding'])} | {md_code(o['decision'])} | "
                            f"{md_text(o['date'])} |" for o in orphans], [""]))
    out[-1].tail.append("</details>")
    out[-1].tail.append("")
    return out


# -- HTML --------------------------------------------------------------------------------------

def html_cmd(command: str) -> str:
    return f"<code>{h(command)}</code>"


def html_verdict(item: ClaimRecord) -> str:
    v = item.get("verdict")
    if not v:
        return ""
    quote = str(v.get("source_says") or "")
    stale = f' <em>(stale: {h(str(v["why_stale"]))})</em>' if v.get("stale") else ""
    return (f"<br><small>model <code>{h(str(v['verdict']))}</code> {h(str(v['date']))}"
            + (f" “{h(quote, 160)}”" if quote else "") + f"{stale}</small>")


def html_expired_section(items: Sequence[ClaimRecord], where: Any, table: Any) -> list[str]:
    if not items:
        return []
    return [f"<h3>Review expired — the finding is back ({len(items)})</h3>",
            table([[where(i), f"<code>{h(', '.join(findings(i)))}</code>", h(md_expired_plain(i)),
                    html_cmd(item_command(i))] for i in items], ["where", "finding", "review", "review again"])]


def md_expired_plain(item: ClaimRecord) -> str:
    r = item.get("review") or {}
    return f"reviewed {r.get('date')} as {r.get('decision')} — {r.get('why_expired')}"


def html_reviewed_section(doc: Mapping[str, Any], where: Any, table: Any) -> list[str]:
    items, roots, orphans = reviewed(doc)
    total = len(items) + len(roots)
    if not total and not orphans:
        return []
    rows = [[where(i), f"<code>{h(', '.join(findings(i)))}</code>", f"<code>{h(r['decision'])}</code>",
             h(r["reason"]), h(r["date"]) + (f"<br><small>until {h(r['until'])}</small>" if r.get("until") else "")]
            for i, r in items]
    rows += [[f"<code>{h(r['scope'])}:{int(r['line_no'])}</code>", "<code>root_citation</code>",
              f"<code>{h(r['review']['decision'])}</code>", h(r["review"]["reason"]), h(r["review"]["date"])]
             for r in roots]
    body = table(rows, ["where", "finding", "decision", "reason", "date"])
    if orphans:
        body += (f"<p>Orphaned reviews ({len(orphans)}): no claim of the corpus has their key any more.</p>"
                 + table([[f"<code>{h(o['claim'])}</code>", f"<code>{h(o['finding'])}</code>",
                           f"<code>{h(o['decision'])}</code>", h(o["date"])] for o in orphans],
                         ["claim (when reviewed)", "finding", "decision", "date"]))
    return [f"<details><summary>Reviewed ({total}) — quiet until the page or the claim changes</summary>{body}"
            "</details>"]
