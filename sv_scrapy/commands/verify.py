"""``scrapy verify``: the LLM layer over a worklist or an audit's flags, quote-or-abstain
enforced in code.

Items whose page could not be read get ``SOURCE_UNAVAILABLE`` without a call; what is sent
for each page kind is decided in ``sv_scrapy.llm.jobs``. The model is looked up first
(``models.retrieve``: an unknown id or a model without prices is a user's mistake, exit 2) and
the request shape follows from what it supports (``sv_scrapy.llm.models``). The cost is
estimated before any call (``messages.count_tokens`` when reachable: expected and worst case)
and ``--max-cost-usd`` is enforced while running. Exit 0 with the report written (claims
without a verdict for a per-claim reason make it ``complete: false``); 2 for a user's mistake;
1 when the run was stopped (a fatal API error, the cost cap) or no verdict could be had —
the report is then kept, marked partial.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy.commands import ScrapyCommand

from sv_scrapy.commands import SvCommand
from sv_scrapy.core.atomic import write_json, write_text
from sv_scrapy.core.audit.verdicts import reports_dir
from sv_scrapy.core.claims.record import ClaimRecord, records_of
from sv_scrapy.core.errors import ArgumentError
from sv_scrapy.llm.batch import BatchRunner
from sv_scrapy.llm.client import API, REQUEST, Gate, LlmUnavailable, Outcome, count_tokens, run_sync
from sv_scrapy.llm.cost import billed, cache_hit_share, total, worst_cost
from sv_scrapy.llm.files import delete_files, upload_scans
from sv_scrapy.llm.guardrails import apply_guardrails
from sv_scrapy.llm.jobs import Plan, load_items, parse_only, proposed_item, proposed_key, select
from sv_scrapy.llm.report import render_verify_markdown
from sv_scrapy.llm.runplan import Calls, VerifyArgs, estimate, log, set_up_calls, verify_exit
from sv_scrapy.llm.thenevidence import then_excerpt
from sv_scrapy.run.registry import env

if TYPE_CHECKING:
    import argparse

    from sv_scrapy.core.clock import Clock


@dataclass(frozen=True)
class Chosen:
    items: list[ClaimRecord]
    source: dict[str, Any]  # where they came from, for the report
    scope: str


def choose_items(opts: argparse.Namespace, output_dir: Path, count: int | None) -> Chosen:
    """The claims to verify: an audit's flags (``--from-audit``) or a worklist's items."""
    if opts.from_audit is not None:
        if opts.worklist:
            raise ArgumentError("--worklist and --from-audit: give one source")
        path = Path(opts.from_audit) if opts.from_audit else output_dir / "audit" / "audit.json"
        only = parse_only(opts.only)
        doc = load_items(path, "audit")
        items = select(records_of(doc["items"]), only=only, country=opts.country, count=count)
        source: dict[str, Any] = {"audit": str(path), "only": list(only)}
    else:
        if opts.only is not None:
            raise ArgumentError("--only selects an audit's flags: use it with --from-audit")
        path = Path(opts.worklist) if opts.worklist else output_dir / "worklist.json"
        doc = load_items(path, "worklist")
        items = select(records_of(doc["items"]), country=opts.country, count=count)
        source = {"worklist": str(path)}
    return Chosen(items, source, opts.country or (doc.get("params") or {}).get("country") or "all")


def document(calls: Calls, chosen: Chosen, verdicts: list[dict[str, Any]], outcomes: dict[str, Outcome], gate: Gate,
             est: dict[str, Any], now: str) -> tuple[dict[str, Any], bool]:
    """The report's document (verdicts, usage and cost, whether the run is complete) and whether
    every call failed."""
    plan, prices, shape = calls.plan, calls.prices, calls.shape
    failed = [k for k in plan.jobs if outcomes.get(k, Outcome(kind=API)).kind == API]
    missing: dict[str, int] = {}
    for k in plan.jobs:
        o = outcomes.get(k) or Outcome(kind=API, reason="no_response")
        if o.answer is None and o.kind in (API, REQUEST):
            why = o.reason or o.kind
            missing[why] = missing.get(why, 0) + 1
    usage = total(o.usage for o in outcomes.values())
    sent = [u for o in outcomes.values() for u in o.calls]
    long_calls = sum(1 for u in sent if prices and prices.get("long_context")
                     and u.prompt_tokens > prices["long_context"]["threshold_tokens"])
    spent = billed(sent, prices, calls.batch)
    return {
        "generated_at": now, "scope": chosen.scope, "model": calls.model,
        "mode": calls.mode, "source": chosen.source, "thinking": shape.thinking,
        "tool_forced": shape.forces_tool and shape.output == "tool", "output": shape.output,
        "request_shape": calls.why, "prompt_cache": calls.cache_ttl, "max_cost_usd": gate.cap,
        "estimate": est,
        "usage": {**usage.as_dict(), "cost_usd": None if spent is None else round(spent, 6),
                  "long_context_calls": long_calls,
                  "cache_hit_share": round(cache_hit_share(usage), 4), "prices_usd_per_mtok": prices},
        "complete": not missing and not gate.stopped,
        "incomplete": missing,
        "stopped": gate.stopped,
        "stopped_by": gate.stopped_by,
        "partial": bool(failed) or bool(gate.stopped),
        "partial_reason": _why(failed, outcomes, missing, gate.stopped),
        "verdicts": verdicts,
    }, bool(failed) and len(failed) == len(plan.jobs)


class Command(SvCommand, ScrapyCommand):
    name = "verify"

    def syntax(self) -> str:
        return ("[--worklist PATH | --from-audit [PATH] [--only FLAGS]] [--country CC] [--count N] [--model M] "
                "[--mode sync|batch] [--max-cost-usd X] [--price-unknown-ok] [--resume BATCH_ID]")

    def short_desc(self) -> str:
        return "LLM verdicts over a worklist or an audit's flags; quotes checked against the fetched pages"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--worklist", metavar="PATH", help="default <SV_OUTPUT_DIR>/worklist.json")
        parser.add_argument("--from-audit", nargs="?", const="", metavar="PATH",
                            help="verify an audit's flagged claims (default <SV_OUTPUT_DIR>/audit/audit.json)")
        parser.add_argument("--only", metavar="FLAGS",
                            help="with --from-audit: TOKENS_ABSENT,stale_changed,CONTENT_CHANGED (default all)")
        parser.add_argument("--country", metavar="CC", help="only this scope (country code)")
        parser.add_argument("--count", metavar="N", help="verify the first N items (default all)")
        parser.add_argument("--model", metavar="M", help="model id (default from config: llm.model)")
        parser.add_argument("--mode", default="sync", help="sync (default) or batch (Message Batches, half price)")
        parser.add_argument("--max-cost-usd", metavar="X",
                            help="stop sending before the spent cost could pass X (report partial, exit 1)")
        parser.add_argument("--price-unknown-ok", action="store_true",
                            help="run a model without prices in config (llm.models); its cost is not reported; "
                                 "not with --max-cost-usd")
        parser.add_argument("--resume", metavar="BATCH_ID", help="collect the results of a submitted batch")

    def execute(self, opts: argparse.Namespace) -> int:
        import anthropic

        try:
            return self.verify(opts)
        except (anthropic.AnthropicError, LlmUnavailable) as exc:  # one line, never a traceback
            print(f"scrapy verify: error: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}", file=sys.stderr)
            return 1

    def verify(self, opts: argparse.Namespace) -> int:
        """Choose the items, set up the calls, estimate, send, report, exit: one part each."""
        rt = self.runtime()
        llm = rt.config.llm
        args = VerifyArgs.parse(opts, llm.model)
        chosen = choose_items(opts, rt.output_dir, args.count)
        calls = set_up_calls(args, chosen.items, llm, rt, opts.price_unknown_ok)
        fresh = calls.sendable and not opts.resume
        uploaded: list[str] = []
        if fresh and llm.files_api:
            uploaded = upload_scans(calls.client, calls.plan.jobs, calls.batch, log)
        counted: dict[str, int] | None = None
        if fresh and llm.count_tokens:
            counted = count_tokens(calls.client, calls.plan.jobs, llm.concurrency, log)
        sizes, est = estimate(calls, counted, llm.expected_output_tokens)
        gate = Gate(args.max_cost, calls.prices, calls.batch)
        outcomes = self.send(calls, sizes, gate, llm, rt.output_dir, {**chosen.source, "model": args.model}, opts.resume)
        if outcomes is None:
            return 1
        delete_files(calls.client, uploaded)
        doc, all_failed = document(calls, chosen, [self.verdict(item, calls.plan, outcomes) for item in chosen.items],
                                   outcomes, gate, est, rt.clock.iso())
        return verify_exit(doc, self.write_report(rt.output_dir, chosen.scope, doc, rt.clock), all_failed)

    def send(self, calls: Calls, sizes: dict[str, int], gate: Gate, llm: Any, output_dir: Path,
             source: dict[str, Any], resume: str | None) -> dict[str, Outcome] | None:
        """Every job's outcome: sent at once (sync) or as a batch; nothing sent when the model
        could not be looked up. None (its line printed) when a batch cannot be followed."""
        prices, batch = calls.prices, calls.batch

        def worst(key: str, params: Mapping[str, Any]) -> float:
            return worst_cost(sizes.get(key, 0), int(params["max_tokens"]), prices, batch) if prices else 0.0

        failure = calls.failure
        if failure is not None:  # the model could not be looked up: nothing is sent
            gate.trip(failure)
            return {k: Outcome(kind=API, reason=failure.reason, error=f"not sent: {failure.error}") for k in calls.plan.jobs}
        if not calls.plan.jobs:
            return {}
        if not batch:
            return run_sync(calls.client, calls.plan.jobs, llm.concurrency, calls.retry_budget, gate, worst,
                            llm.max_retries, warm_first=bool(calls.cache_ttl))
        poll = float(env("SV_LLM_POLL_SECONDS") or llm.poll_seconds)
        runner = BatchRunner(calls.client, self.reports_dir(output_dir), poll, log, llm.batch_max_requests,
                             llm.batch_max_bytes, calls.retry_budget, gate=gate, worst=worst)
        try:
            return runner.run(calls.plan.jobs, source, resume=resume)
        except LlmUnavailable as exc:  # the batch goes on: its files must outlive this process
            print(f"scrapy verify: error: {exc}", file=sys.stderr)
            return None

    @staticmethod
    def verdict(item: ClaimRecord, plan: Plan, outcomes: dict[str, Outcome]) -> dict[str, Any]:
        """The claim's verdict on its cited page and, when one was proposed, on the proposed page too."""
        record = Command.page_verdict(item, item["id"], plan, outcomes)
        proposed = proposed_item(item)
        if proposed is not None and proposed_key(item["id"]) in plan.jobs:
            on = Command.page_verdict(proposed, proposed_key(item["id"]), plan, outcomes)
            record["proposed"] = {"url": proposed["source_url"], "verdict": on.get("verdict"),
                                  "source_says": on.get("source_says"), "confidence": on.get("confidence"),
                                  "guardrail_actions": on.get("guardrail_actions")}
        return record

    @staticmethod
    def page_verdict(item: ClaimRecord, key: str, plan: Plan, outcomes: dict[str, Outcome]) -> dict[str, Any]:
        if key in plan.skipped:
            verdict, why = plan.skipped[key]
            return {**_identity(item), "verdict": verdict, "claimed": "", "source_says": "",
                    "confidence": "HIGH" if verdict == "SOURCE_UNAVAILABLE" else "LOW", "note": why,
                    "guardrail_actions": [], "model_verdict": None, "sent_as": "nothing"}
        outcome = outcomes.get(key) or Outcome(kind=API, error="no response")
        record = apply_guardrails(item, outcome.answer, page_text=plan.texts.get(key), error=outcome.error,
                                  unchecked=plan.unchecked.get(key, ""), then_text=then_excerpt(item))
        no_verdict_reason = no_verdict_why = ""
        if outcome.answer is None:
            no_verdict_reason, no_verdict_why = outcome.kind, outcome.reason or outcome.kind
        return {**record, "content_hash": item.get("content_hash", ""),  # what the audit's staleness compares
                "sent_as": plan.methods.get(key, ""), "stop_reason": outcome.stop_reason,
                "attempts": outcome.notes, "no_verdict_reason": no_verdict_reason, "no_verdict_why": no_verdict_why}

    @staticmethod
    def reports_dir(output_dir: Path) -> Path:
        return reports_dir(output_dir)

    def write_report(self, output_dir: Path, scope: str, doc: dict[str, Any], clock: Clock) -> Path:
        """``source-verify-<scope>-<YYYYMMDD-HHMMSS>.md`` + ``.json``; never an existing one."""
        slug = re.sub(r"[^A-Za-z0-9_-]+", "-", str(scope)).strip("-") or "all"
        folder = self.reports_dir(output_dir)
        folder.mkdir(parents=True, exist_ok=True)
        stamp = clock.stamp()
        for n in range(1, 1000):
            base = folder / f"source-verify-{slug}-{stamp}{'' if n == 1 else f'-{n}'}"
            try:  # reserve the name: a second run in the same second takes the next one
                os.close(os.open(base.with_suffix(".json"), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            except FileExistsError:
                continue
            break
        write_json(base.with_suffix(".json"), doc)
        write_text(base.with_suffix(".md"), render_verify_markdown(doc))
        counts: dict[str, int] = {}
        for v in doc["verdicts"]:
            counts[v["verdict"]] = counts.get(v["verdict"], 0) + 1
        downgraded = sum(1 for v in doc["verdicts"] if v.get("guardrail_actions"))
        print(json.dumps({"verdicts": counts, "downgraded": downgraded, "partial": doc["partial"],
                          "usage": doc["usage"], "report": str(base.with_suffix(".md"))}, indent=2))
        return base.with_suffix(".md")


def _why(failed: list[str], outcomes: dict[str, Outcome], missing: dict[str, int], stopped: str) -> str:
    if not missing and not stopped:
        return ""
    first = stopped or next((outcomes[k].error for k in failed if k in outcomes and outcomes[k].error), "") or \
        next((o.error for o in outcomes.values() if o.answer is None and o.kind in (API, REQUEST) and o.error), "")
    counts = ", ".join(f"{n} {why}" for why, n in sorted(missing.items()))
    return f"{sum(missing.values())} claim(s) without a verdict ({counts}): {first or 'no response'}"


def _identity(item: ClaimRecord) -> dict[str, Any]:
    return {"id": item["id"], "scope": item["scope"], "line_no": item["line_no"], "source_url": item["source_url"],
            "claim_text": item.get("claim_text", ""), "source_tier": item.get("source_tier", ""),
            "prior": item.get("prior", ""), "content_hash": item.get("content_hash", "")}
