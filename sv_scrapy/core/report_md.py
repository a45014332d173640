"""The audit's Markdown report (what the rolling GitHub issue shows). Counts first.

Every page- or corpus-derived string goes through ``escape.md``; URLs become autolinks
only when they are plain http(s) URLs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from sv_scrapy.core.audit import buckets
from sv_scrapy.core.escape import md, md_code

HEADER = (
    "> **Tripwires, not verdicts.** A `TOKENS_ABSENT` figure may sit on a deeper page or be written "
    "differently; a changed page may have changed elsewhere than the figure. Triage before acting. "
    "Nothing was edited and no `Last verified` stamp was touched."
)


def md_url(url: str) -> str:
    return f"<{url}>" if re.fullmatch(r"https?://[^\s<>|`]+", url) else md(url)


def _where(item: Mapping[str, Any]) -> str:
    return md_code(f"{item['scope']}:{int(item['line_no'])}")


def _stamp(item: Mapping[str, Any]) -> str:
    stamp = item.get("inline_stamp") or {}
    return md(stamp.get("date", "never verified"))


def _table(rows: Sequence[Sequence[str]], head: Sequence[str]) -> list[str]:
    if not rows:
        return ["_(none)_", ""]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return [*out, ""]


def _changed_block(item: Mapping[str, Any]) -> list[str]:
    lines = [
        f"- {_where(item)} — {md(item['claim_text'], 220)}",
        f"  - cited page: {md_url(item['source_url'])}; last verified {_stamp(item)}; "
        f"change first seen {md(str(item.get('changed_at', ''))[:10])}",
    ]
    old, new = item.get("previous_excerpts") or [], item.get("excerpts") or []
    lines.append(f"  - before: {md(old[0], 300) if old else '_(no excerpt around the figure)_'}")
    lines.append(f"  - now: {md(new[0], 300) if new else '_(the figure is no longer on the page)_'}")
    diff = item.get("change_diff") or []
    if diff:
        lines.append("  - changed lines: " + " · ".join(md(d, 160) for d in diff[:6]))
    return lines


def render_markdown(doc: Mapping[str, Any], linter_rows: Sequence[Mapping[str, Any]] = ()) -> str:
    stats, items = doc["stats"], doc["items"]
    b = buckets(items)
    run = doc.get("run", {})
    out = [
        f"# Source-content audit — {md(doc['generated_at'][:10])}",
        "",
        HEADER,
        "",
        f"Claims checked: **{stats['claims']}** over **{stats['urls']}** cited URLs · "
        f"unchanged (HTTP 304): {stats['not_modified_urls']} ({stats['not_modified_pct']:g} %) · "
        f"previous audit: {md(run.get('previous_finished_at') or '(none)')}"
        + (" · resumed after an interruption" if run.get("resumed") else ""),
        "",
        *_table(
            [
                ["⚠️ changed after `Last verified`", str(stats["stale_changed"])],
                ["`TOKENS_ABSENT` — figure not on the cited page", str(stats["tokens_absent"])],
                ["`CONTENT_CHANGED` — page changed (settled)", str(stats["content_changed"])],
                ["unavailable (not read)", str(stats["unavailable"])],
                ["`PDF_NO_TEXT` — scanned PDF", str(stats["pdf_no_text"])],
                ["`DEAD` (404/410 on consecutive runs)", str(stats["dead"])],
            ],
            ["signal", "claims"],
        ),
        "Priors: " + ", ".join(f"{md_code(k)} {v}" for k, v in stats["by_prior"].items()),
        "",
        f"## ⚠️ Changed after `Last verified` — re-verify first ({len(b['stale_changed'])})",
        "",
    ]
    for item in b["stale_changed"]:
        out += _changed_block(item)
    if not b["stale_changed"]:
        out.append("_(none)_")
    out += ["", f"## `TOKENS_ABSENT` — the figure is not on the cited page ({len(b['tokens_absent'])})", ""]
    out += _table(
        [[_where(i), md(i["claim_text"], 140), md(", ".join(i.get("missing_tokens", [])[:6]), 80),
          md_url(i.get("final_url") or i["source_url"])] for i in b["tokens_absent"]],
        ["where", "claim", "missing", "page read"],
    )
    out += [f"## `CONTENT_CHANGED` — cited page changed since the last audit ({len(b['content_changed'])})", ""]
    for item in b["content_changed"]:
        out += _changed_block(item)
    if not b["content_changed"]:
        out.append("_(none)_")
    out += ["", "## Unavailable, by reason", ""]
    out += _table(
        [[md(reason, 80), str(len(rows)), ", ".join(_where(r) for r in rows[:12]) + (" …" if len(rows) > 12 else "")]
         for reason, rows in b["unavailable"].items()],
        ["reason", "claims", "where"],
    )
    out += [f"## `PDF_NO_TEXT` — scanned PDFs, need OCR or the LLM layer ({len(b['pdf_no_text'])})", ""]
    out += _table([[_where(i), md_url(i["source_url"])] for i in b["pdf_no_text"]], ["where", "PDF"])
    if linter_rows:
        out += [f"## Citation linter backlog — bare-host citations next to a figure ({len(linter_rows)})", ""]
        out += _table([[md_code(f"{r['scope']}:{int(r['line_no'])}"), md(r["figure"], 40), md_url(r["url"])]
                       for r in linter_rows], ["where", "figure", "root URL"])
    return "\n".join(out).rstrip() + "\n"
