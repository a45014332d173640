"""A ``scrapy verify`` run's planning, apart from the command: its arguments checked
(``VerifyArgs``), the model looked up and the calls set up (``set_up_calls``: the request shape,
the budget, the prompt cache, the jobs), their cost estimated before any is sent (``estimate``),
and the exit status the finished report makes (``verify_exit``)."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sv_scrapy.core.args import parse_amount, parse_int
from sv_scrapy.core.audit.storeformat import open_for_reading
from sv_scrapy.core.errors import ArgumentError
from sv_scrapy.llm.client import Outcome, make_client
from sv_scrapy.llm.cost import CHARS_PER_TOKEN, expected_cost, tokens_of, worst_cost
from sv_scrapy.llm.jobs import Plan, plan_jobs
from sv_scrapy.llm.models import ModelShape, output_budget, request_shape, retrieve
from sv_scrapy.llm.prompts import Shape, estimate_input_tokens, prefix_chars
from sv_scrapy.run.llmconfig import for_model, model_entry

if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from sv_scrapy.core.claims.record import ClaimRecord
    from sv_scrapy.run.runtime import Runtime


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
