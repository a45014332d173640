"""The human-review report of ``scrapy verify`` (Markdown; the JSON beside it has it all)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from sv_scrapy.core.escape import md, md_code
from sv_scrapy.core.report.report_md import md_url
from sv_scrapy.llm.verdictschema import ORDER

HEADER = (
    "> **Decision support, not a verdict on the world.** A `MATCH` means *the page you linked says this*, "
    "not *this is true*, and it authorises no re-stamp of `Last verified`: re-stamping is a human decision "
    "over the whole claim. Every quote below was checked against the fetched page (or its OCR text); a "
    "quote of a scan we hold no text of could not be checked and counts for nothing. Answers that failed a check "
    "were downgraded, and the downgrade is shown. "
    "No playbook was edited."
)


def sort_key(v: Mapping[str, Any]) -> tuple[int, str, int]:
    return ORDER.get(v["verdict"], 9), v["scope"], int(v["line_no"])


def render_verify_markdown(doc: Mapping[str, Any]) -> str:
    verdicts: Sequence[Mapping[str, Any]] = doc["verdicts"]
    counts = Counter(v["verdict"] for v in verdicts)
    usage = doc["usage"]
    partial: list[str] = []
    if doc.get("partial") or doc.get("complete") is False:
        partial = [f"> **Partial report:** {md(doc.get('partial_reason', ''), 300)}. Those claims are "
                   "`INDETERMINATE` for an API reason (or were not sent), not on their evidence; run it again to "
                   "complete them.", ""]
    if doc.get("incomplete"):
        partial[-1:-1] = ["", "Claims without a verdict, by reason: " + ", ".join(
            f"{md(str(why))} {n}" for why, n in sorted(doc["incomplete"].items()))]
    est = doc["estimate"]
    cost = "cost not reported (no prices for this model)"
    if usage.get("cost_usd") is not None:
        cost = f"cost ${usage['cost_usd']:.4f} as billed"
    if est.get("cost_usd") is not None:
        cost += f" (estimated beforehand ~${est['cost_usd']:.4f}"
        cost += f", worst case ≤ ${est['worst_cost_usd']:.4f})" if est.get("worst_cost_usd") is not None else ")"
    shape = [f"Request shape: {md(doc['request_shape'], 300)}", ""] if doc.get("request_shape") else []
    out = [
        f"# Source verification — {md(doc['scope'])} — {md(doc['generated_at'][:19])}",
        "",
        HEADER,
        "",
        *partial,
        f"Model `{md(doc['model'])}` · mode {md(doc['mode'])} · {len(verdicts)} claim(s) · "
        f"{usage['calls']} model call(s) · input tokens {usage['prompt_tokens']:,} (uncached "
        f"{usage['input_tokens']:,}, cache writes {usage['cache_write_5m_tokens'] + usage['cache_write_1h_tokens']:,}, "
        f"cache reads {usage['cache_read_input_tokens']:,}) · output {usage['output_tokens']:,} · {cost}",
        "",
        *shape,
        "| verdict | claims |",
        "|---|---|",
        *[f"| {md_code(k)} | {counts[k]} |" for k in sorted(counts, key=lambda k: ORDER.get(k, 9))],
        "",
        f"Guardrail downgrades: {sum(1 for v in verdicts if v.get('guardrail_actions'))}",
        "",
    ]
    for v in sorted(verdicts, key=sort_key):
        out += [
            f"## {md_code(v['verdict'])} {md_code(str(v['scope']) + ':' + str(v['line_no']))} — confidence "
            f"{md(v.get('confidence', ''))}",
            "",
            f"- claim: {md(v.get('claim_text', ''), 400)}",
            f"- cited page: {md_url(v['source_url'])} ({md(v.get('source_tier', ''))}; prefilter "
            f"{md(v.get('prior', ''))})",
            f"- source says: {'«' + md(v['source_says'], 500) + '»' if v.get('source_says') else '_(no quote)_'}",
            f"- note: {md(v.get('note', ''), 400)}",
            f"- sent: {md(str(v.get('sent_as', '')))}"
            + (f"; {'; '.join(md(a, 120) for a in v['attempts'])}" if v.get("attempts") else ""),
        ]
        if v.get("guardrail_actions"):
            out.append(f"- guardrails (model said {md_code(str(v.get('model_verdict')))}): "
                       + "; ".join(md(a, 200) for a in v["guardrail_actions"]))
        proposed = v.get("proposed") or {}
        if proposed.get("url"):  # the page the audit found on the same site (a suggestion, never an edit)
            out.append(f"- proposed page {md_url(str(proposed['url']))}: {md_code(str(proposed.get('verdict')))}, "
                       f"confidence {md(str(proposed.get('confidence') or ''))}"
                       + (f" — «{md(str(proposed['source_says']), 300)}»" if proposed.get("source_says") else ""))
        out.append("")
    return "\n".join(out).rstrip() + "\n"
