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
from sv_scrapy.core.args import parse_amount, parse_int
from sv_scrapy.core.atomic import write_json, write_text
from sv_scrapy.core.audit.storeformat import open_for_reading
from sv_scrapy.core.audit.verdicts import reports_dir
from sv_scrapy.core.claims.record import ClaimRecord, records_of
from sv_scrapy.core.errors import ArgumentError
from sv_scrapy.llm.batch import BatchRunner
from sv_scrapy.llm.client import API, REQUEST, Gate, LlmUnavailable, Outcome, count_tokens, make_client, run_sync
from sv_scrapy.llm.cost import CHARS_PER_TOKEN, billed, cache_hit_share, expected_cost, tokens_of, total, worst_cost
from sv_scrapy.llm.files import delete_files, upload_scans
from sv_scrapy.llm.guardrails import apply_guardrails
from sv_scrapy.llm.jobs import Plan, load_items, parse_only, plan_jobs, proposed_item, proposed_key, select
from sv_scrapy.llm.models import ModelShape, output_budget, request_shape, retrieve
from sv_scrapy.llm.prompts import Shape, estimate_input_tokens, prefix_chars
from sv_scrapy.llm.report import render_verify_markdown
from sv_scrapy.llm.thenevidence import then_excerpt
from sv_scrapy.run.llmconfig import for_model, model_entry
from sv_scrapy.run.registry import env
from sv_scrapy.run.runtime import Runtime

if TYPE_CHECKING:
    import argparse

    from sv_scrapy.core.clock import Clock


def log(message: str) -> None:
    """Progress for the person watching: stdout, so stderr holds only warnings and the one error line."""
    print(message, flush=True)


@dataclass(frozen=True)
class VerifyArgs:
    """The command line, checked: a bad value is one line and exit 2 before anything is read."""
    mode: str  # sync | batch (a resumed run is a batch)
    count: int | None
    max_cost: float | None
    model: str

    @classmethod
    def parse(cls, opts: argparse.Namespace, default_model: str) -> VerifyArgs:
        if opts.mode not in ("sync", "batch"):
            raise ArgumentError(f"--mode {opts.mode!r}: expected sync or batch")
        if opts.resume and not re.fullmatch(r"[A-Za-z0-9_-]{1,128}", opts.resume):
            raise ArgumentError(f"--resume {opts.resume!r}: not a batch id")
        if opts.country is not None and not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,31}", opts.country):
            raise ArgumentError(f"--country {opts.country!r}: expected a scope like fr")
        return cls("batch" if opts.resume else opts.mode,
                   parse_int("--count ", opts.count, minimum=1) if opts.count is not None else None,
                   parse_amount("--max-cost-usd ", opts.max_cost_usd) if opts.max_cost_usd is not None else None,
                   opts.model or default_model)


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


@dataclass
class Calls:
    """How the claims are sent: the model's request shape, its budget and prices, the jobs."""
    model: str
    mode: str
    prices: dict[str, Any] | None
    cache_min: int
    plan: Plan
    client: Any  # an anthropic client; None when no call is needed
    shape: Shape
    why: str  # why the request has this shape (the model's capabilities)
    failure: Outcome | None  # the model could not be looked up: nothing is sent
    max_tokens: int
    retry_budget: int
    cache_ttl: str | None
    prefix_tokens: int

    @property
    def batch(self) -> bool:
        return self.mode == "batch"

    @property
    def sendable(self) -> bool:
        return bool(self.plan.jobs) and self.failure is None


def set_up_calls(args: VerifyArgs, items: list[ClaimRecord], llm: Any, rt: Runtime, price_unknown_ok: bool) -> Calls:
    """The model looked up (an unknown id: exit 2 here, before any claim) and the jobs planned
    with the request shape it supports."""
    prices, cache_min = for_model(llm, args.model)
    if args.max_cost is not None and price_unknown_ok:
        raise ArgumentError("--price-unknown-ok and --max-cost-usd: a cost cap needs the model's prices")
    store = open_for_reading(rt.output_dir / "store", rt.clock)
    plan = plan_jobs(items, store, Shape(args.model, llm.max_tokens), llm.evidence_chars)
    client = make_client(llm.max_retries, llm.timeout_seconds) if plan.jobs else None
    mshape = ModelShape(llm.thinking, llm.thinking == "off", True, "")
    failure: Outcome | None = None
    max_tokens, retry_budget = llm.max_tokens, llm.max_tokens_retry
    if plan.jobs:
        info, failure = retrieve(client, args.model)
        max_tokens, retry_budget = output_budget(info, max_tokens, retry_budget)
        if prices is None and not price_unknown_ok:
            raise ArgumentError(f"--model {args.model!r}: no prices in config (llm.models.{args.model}.prices_usd_per_mtok); "
                                f"add them, or pass --price-unknown-ok to run it with its cost unreported")
        if failure is None:
            mshape = request_shape(llm.thinking, info, model_entry(llm, args.model))
            log(f"model {args.model}: {mshape.why}")
    prefix_tokens = tokens_of(prefix_chars())
    cache_ttl: str | None
    if prefix_tokens < cache_min:  # too short for the API to cache
        cache_ttl = None
    elif args.mode == "batch":
        cache_ttl = "1h"
    else:
        cache_ttl = "5m"
    shape = Shape(args.model, max_tokens, mshape.thinking, cache_ttl, forced=mshape.forced, strict=mshape.strict,
                  output=mshape.output)
    return Calls(args.model, args.mode, prices, cache_min, plan_jobs(items, store, shape, llm.evidence_chars), client,
                 shape, mshape.why, failure, max_tokens, retry_budget, cache_ttl, prefix_tokens)


def estimate(calls: Calls, counted: dict[str, int] | None, expected_output: int) -> tuple[dict[str, int], dict[str, Any]]:
    """Each job's input tokens (counted by the API when it could) and the run's estimate, logged."""
    plan, prices, batch = calls.plan, calls.prices, calls.batch
    sizes = {k: counted[k] if counted and k in counted else estimate_input_tokens(p, plan.pdf_pages.get(k, 0))
             for k, p in plan.jobs.items()}
    est_in = sum(sizes.values())
    est_out = len(plan.jobs) * calls.max_tokens
    est: dict[str, Any] = {"input_tokens": est_in, "output_tokens": est_out, "counted_by_api": bool(counted),
                           "chars_per_token": None if counted else CHARS_PER_TOKEN, "cost_usd": None,
                           "worst_cost_usd": None}
    if prices is not None:
        est["cost_usd"] = round(expected_cost(sizes.values(), min(calls.prefix_tokens, min(sizes.values(), default=0)),
                                              expected_output, prices, batch, calls.cache_ttl), 6)
        est["worst_cost_usd"] = round(sum(worst_cost(n, calls.max_tokens, prices, batch)
                                          + worst_cost(n, calls.retry_budget, prices, batch)
                                          for n in sizes.values()), 6)
    dollars = "cost unknown (no prices for this model)"
    if prices is not None:
        dollars = f"expected ~${est['cost_usd']:.4f}, worst case ≤ ${est['worst_cost_usd']:.4f}"
    log(f"estimate: {len(plan.jobs)} call(s), {est_in:,} input tokens ({'counted by the API' if counted else 'heuristic'}"
        f") + ≤{est_out:,} output; {dollars} with {calls.model} ({calls.mode}, prompt cache "
        f"{calls.cache_ttl or f'off: prefix under {calls.cache_min:,} tokens'}); {len(plan.skipped)} item(s) need no call")
    return sizes, est


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


def verify_exit(doc: dict[str, Any], report: Path, all_failed: bool) -> int:
    """1 when no verdict could be had or sending stopped (the partial report kept); 0 otherwise,
    with a warning when some claims got no verdict."""
    if all_failed:
        print(f"scrapy verify: error: no verdict could be had: {doc['partial_reason']}; "
              f"partial report kept at {report}", file=sys.stderr)
        return 1
    if doc["stopped"]:
        print(f"scrapy verify: error: stopped sending: {doc['partial_reason']}; partial report kept at "
              f"{report}", file=sys.stderr)
        return 1
    if doc["incomplete"]:
        print(f"scrapy verify: warning: partial report: {doc['partial_reason']}", file=sys.stderr)
    return 0


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
