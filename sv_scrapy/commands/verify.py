"""``scrapy verify``: the LLM layer over a worklist, quote-or-abstain enforced in code.

Items whose page could not be read get ``SOURCE_UNAVAILABLE`` without a call; PDFs we could
not read ourselves go as document blocks with citations; every other item is one request.
The cost is estimated before any call, and ``--max-cost-usd`` refuses to start above it.
"""

from __future__ import annotations

import json
import os
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sv_scrapy.cmdbase import SvCommand
from sv_scrapy.core.atomic import write_json, write_text
from sv_scrapy.core.errors import ArgumentError
from sv_scrapy.core.store import ContentStore
from sv_scrapy.llm.client import BatchRunner, Outcome, actual_cost, estimate_cost, make_client, run_sync
from sv_scrapy.llm.guardrails import apply_guardrails
from sv_scrapy.llm.prompts import build_params, estimate_input_tokens, widen
from sv_scrapy.llm.report import render_verify_markdown

if TYPE_CHECKING:
    import argparse

UNREADABLE = ("SOURCE_UNAVAILABLE",)
PDF_PRIORS = ("PDF_NO_TEXT", "SOURCE_BINARY")


def load_worklist(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ArgumentError(f"{path}: worklist not found (run `scrapy crawl worklist` first)") from None
    except (OSError, ValueError) as exc:
        raise ArgumentError(f"{path}: not a readable worklist JSON ({str(exc).splitlines()[0][:80]})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("items"), list):
        raise ArgumentError(f"{path}: not a worklist (no 'items' list)")
    for i, item in enumerate(doc["items"]):
        missing = [k for k in ("id", "scope", "line_no", "source_url", "claim_text", "prior") if k not in item]
        if missing:
            raise ArgumentError(f"{path}: items[{i}] lacks {', '.join(missing)}")
    return doc


class Command(SvCommand):
    name = "verify"

    def syntax(self) -> str:
        return "[--worklist PATH] [--count N] [--model M] [--mode sync|batch] [--max-cost-usd X] [--resume BATCH_ID]"

    def short_desc(self) -> str:
        return "LLM verdicts over a worklist; quotes checked against the fetched pages"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--worklist", metavar="PATH", help="default <SV_OUTPUT_DIR>/worklist.json")
        parser.add_argument("--count", metavar="N", help="verify the first N items (default all)")
        parser.add_argument("--model", metavar="M", help="model id (default from config: llm.model)")
        parser.add_argument("--mode", default="sync", help="sync (default) or batch (Message Batches, half price)")
        parser.add_argument("--max-cost-usd", metavar="X", help="refuse to start when the estimate is above X")
        parser.add_argument("--resume", metavar="BATCH_ID", help="collect the results of a submitted batch")

    def execute(self, opts: argparse.Namespace) -> int:
        rt = self.runtime()
        llm = rt.config.llm
        mode = opts.mode
        if mode not in ("sync", "batch"):
            raise ArgumentError(f"--mode {mode!r}: expected sync or batch")
        if opts.resume:
            mode = "batch"
            if not re.fullmatch(r"[A-Za-z0-9_-]{1,128}", opts.resume):
                raise ArgumentError(f"--resume {opts.resume!r}: not a batch id")
        count = _positive_int("--count", opts.count)
        max_cost = _money("--max-cost-usd", opts.max_cost_usd)
        model = opts.model or llm["model"]
        path = Path(opts.worklist) if opts.worklist else rt.output_dir / "worklist.json"
        worklist = load_worklist(path)
        store = ContentStore(rt.output_dir / "store")

        items, seen = [], set()
        for item in worklist["items"]:
            if item["id"] not in seen:
                seen.add(item["id"])
                items.append(item)
        items = items[:count] if count else items

        jobs: dict[str, dict[str, Any]] = {}
        texts: dict[str, str | None] = {}
        skipped: dict[str, str] = {}
        for item in items:
            pdf_path = store.pdf_path(item["source_url"])
            if item["prior"] in PDF_PRIORS:
                if pdf_path.is_file():
                    jobs[item["id"]] = build_params(item, model, llm["max_output_tokens"], pdf=pdf_path.read_bytes())
                else:
                    skipped[item["id"]] = "the PDF's bytes are not in the content store: nothing to send"
            elif item["prior"] in UNREADABLE or item.get("fetch_status") not in ("OK", None):
                skipped[item["id"]] = f"the page was not read ({item.get('note') or item.get('fetch_status')})"
            else:
                text = store.text(item["source_url"])
                texts[item["id"]] = text if text is not None else "\n".join(item.get("excerpts") or []) or None
                evidence = widen(item, text, llm["evidence_chars"])
                jobs[item["id"]] = build_params(item, model, llm["max_output_tokens"], evidence=evidence)

        prices = llm["prices_usd_per_mtok"]
        est_in = sum(estimate_input_tokens(p) for p in jobs.values())
        est_out = len(jobs) * llm["max_output_tokens"]
        est_cost = estimate_cost(est_in, est_out, prices, batch=mode == "batch")
        if max_cost is not None and est_cost > max_cost and not opts.resume:
            raise ArgumentError(f"estimated cost ${est_cost:.4f} ({len(jobs)} calls, ~{est_in:,} input tokens) "
                                f"is above --max-cost-usd {max_cost:g}: nothing was sent")
        client = make_client(llm["max_retries"], llm["timeout_seconds"]) if jobs else None
        print(f"estimate: {len(jobs)} call(s), ~{est_in:,} input + ≤{est_out:,} output tokens, ≤ ${est_cost:.4f} "
              f"with {model} ({mode}); {len(skipped)} item(s) need no call", file=sys.stderr)

        outcomes: dict[str, Outcome] = {}
        if jobs:
            if mode == "sync":
                outcomes = run_sync(client, jobs, llm["concurrency"])
            else:
                poll = float(os.environ.get("SV_LLM_POLL_SECONDS") or llm["poll_seconds"])
                runner = BatchRunner(client, self.reports_dir(rt.output_dir), poll,
                                     lambda msg: print(msg, file=sys.stderr, flush=True))
                outcomes = runner.run(jobs, {"worklist": str(path), "model": model}, resume=opts.resume)

        verdicts = []
        for item in items:
            if item["id"] in skipped:
                verdicts.append(_unavailable(item, skipped[item["id"]]))
                continue
            outcome = outcomes.get(item["id"]) or Outcome(error="no response")
            is_pdf = item["prior"] in PDF_PRIORS
            verdicts.append(apply_guardrails(
                item, outcome.answer, page_text=None if is_pdf else texts.get(item["id"]),
                cited_texts=outcome.cited_texts if is_pdf else None, error=outcome.error))
        self.write_report(rt.output_dir, worklist, path, model, mode, verdicts, list(outcomes.values()),
                          {"input_tokens": est_in, "output_tokens": est_out, "cost_usd": round(est_cost, 6)}, prices)
        return 0

    @staticmethod
    def reports_dir(output_dir: Path) -> Path:
        return output_dir.parent / "reports"

    def write_report(self, output_dir: Path, worklist: dict[str, Any], path: Path, model: str, mode: str,
                     verdicts: list[dict[str, Any]], outcomes: list[Outcome], estimate: dict[str, Any],
                     prices: dict[str, float]) -> None:
        now = datetime.now(UTC)
        scope = (worklist.get("params") or {}).get("country") or "all"
        scope_slug = re.sub(r"[^A-Za-z0-9_-]+", "-", str(scope)).strip("-") or "all"
        batch = mode == "batch"
        doc = {
            "generated_at": now.isoformat(timespec="seconds"), "scope": scope, "model": model, "mode": mode,
            "worklist": str(path), "estimate": estimate,
            "usage": {"calls": len(outcomes), "input_tokens": sum(o.input_tokens for o in outcomes),
                      "output_tokens": sum(o.output_tokens for o in outcomes),
                      "cache_read_tokens": sum(o.cache_read_tokens for o in outcomes),
                      "cost_usd": round(actual_cost(outcomes, prices, batch), 6)},
            "verdicts": verdicts,
        }
        base = self.reports_dir(output_dir) / f"source-verify-{scope_slug}-{now.date().isoformat()}"
        write_json(base.with_suffix(".json"), doc)
        write_text(base.with_suffix(".md"), render_verify_markdown(doc))
        counts: dict[str, int] = {}
        for v in verdicts:
            counts[v["verdict"]] = counts.get(v["verdict"], 0) + 1
        downgraded = sum(1 for v in verdicts if v.get("guardrail_actions"))
        print(json.dumps({"verdicts": counts, "downgraded": downgraded, "usage": doc["usage"],
                          "report": str(base.with_suffix(".md"))}, indent=2))


def _unavailable(item: dict[str, Any], why: str) -> dict[str, Any]:
    return {"id": item["id"], "scope": item["scope"], "line_no": item["line_no"], "source_url": item["source_url"],
            "claim_text": item.get("claim_text", ""), "source_tier": item.get("source_tier", ""),
            "prior": item.get("prior", ""), "verdict": "SOURCE_UNAVAILABLE", "claimed": "", "source_says": "",
            "confidence": "HIGH", "note": why, "guardrail_actions": [], "model_verdict": None}


def _positive_int(flag: str, raw: str | None) -> int | None:
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ArgumentError(f"{flag} {raw!r}: expected a whole number") from None
    if value < 1:
        raise ArgumentError(f"{flag} {raw!r}: must be >= 1")
    return value


def _money(flag: str, raw: str | None) -> float | None:
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise ArgumentError(f"{flag} {raw!r}: expected an amount in USD, like 0.50") from None
    if value < 0:
        raise ArgumentError(f"{flag} {raw!r}: must be >= 0")
    return value
