"""Calls to the Messages API through the anthropic SDK: sync (bounded concurrency, the SDK's
own retries for 429/529/5xx) or Message Batches (half price, resumable from its id).

The key comes from ``ANTHROPIC_API_KEY`` and is never logged; ``ANTHROPIC_BASE_URL`` (the
SDK's own variable) points the client elsewhere, which is how the tests reach their stub.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sv_scrapy.core.atomic import write_json
from sv_scrapy.core.errors import ArgumentError
from sv_scrapy.llm.schema import TOOL_NAME


@dataclass
class Outcome:
    """What came back for one request: the tool input, citations, usage, or the error."""

    answer: dict[str, Any] | None = None
    cited_texts: list[str] = field(default_factory=list)
    error: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0


def make_client(max_retries: int, timeout_s: float) -> Any:
    key = os.environ.get("ANTHROPIC_API_KEY", "").strip()
    if not key:
        raise ArgumentError("ANTHROPIC_API_KEY is not set: export your Anthropic API key to run scrapy verify")
    import anthropic

    return anthropic.Anthropic(api_key=key, max_retries=max_retries, timeout=timeout_s)


def parse_message(message: Any) -> Outcome:
    usage = getattr(message, "usage", None)
    outcome = Outcome(
        input_tokens=int(getattr(usage, "input_tokens", 0) or 0),
        output_tokens=int(getattr(usage, "output_tokens", 0) or 0),
        cache_read_tokens=int(getattr(usage, "cache_read_input_tokens", 0) or 0),
    )
    for block in getattr(message, "content", None) or []:
        kind = getattr(block, "type", "")
        if kind == "tool_use" and getattr(block, "name", "") == TOOL_NAME:
            value = getattr(block, "input", None)
            outcome.answer = dict(value) if isinstance(value, Mapping) else None
        elif kind == "text":
            for citation in getattr(block, "citations", None) or []:
                cited = getattr(citation, "cited_text", None)
                if cited:
                    outcome.cited_texts.append(str(cited))
    if outcome.answer is None:
        outcome.error = "the model answered without calling record_verdict"
    return outcome


def _error_text(exc: BaseException) -> str:
    status = getattr(exc, "status_code", None)
    return f"{type(exc).__name__}" + (f" (HTTP {status})" if status else "") + ": " + str(exc).splitlines()[0][:160]


def run_sync(client: Any, jobs: Mapping[str, Mapping[str, Any]], concurrency: int) -> dict[str, Outcome]:
    """One ``messages.create`` per job, ``concurrency`` at a time."""

    def call(key: str) -> tuple[str, Outcome]:
        try:
            return key, parse_message(client.messages.create(**jobs[key]))
        except Exception as exc:  # an API failure is reported on its item, never fatal to the run
            return key, Outcome(error=_error_text(exc))

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        return dict(pool.map(call, list(jobs)))


def custom_id(item_id: str) -> str:
    """Batch custom ids allow ``[A-Za-z0-9_-]{1,64}``; claim ids hold ``:`` and ``/``."""
    return "c" + hashlib.sha1(item_id.encode("utf-8")).hexdigest()[:24]


class BatchRunner:
    """Create → poll → results; errored/expired requests are resubmitted once."""

    def __init__(self, client: Any, state_dir: Path, poll_seconds: float, log: Callable[[str], None]) -> None:
        self.client = client
        self.state_dir = state_dir
        self.poll_seconds = poll_seconds
        self.log = log

    def _state_path(self, batch_id: str) -> Path:
        return self.state_dir / f"verify-batch-{batch_id}.json"

    def submit(self, jobs: Mapping[str, Mapping[str, Any]], meta: Mapping[str, Any]) -> str:
        requests = [{"custom_id": custom_id(key), "params": dict(params)} for key, params in jobs.items()]
        batch = self.client.messages.batches.create(requests=requests)
        write_json(self._state_path(batch.id), {"batch_id": batch.id, "ids": {custom_id(k): k for k in jobs},
                                                "meta": dict(meta)})
        self.log(f"submitted batch {batch.id} ({len(requests)} requests); resume with --resume {batch.id}")
        return str(batch.id)

    def load_state(self, batch_id: str) -> dict[str, Any]:
        try:
            return dict(json.loads(self._state_path(batch_id).read_text(encoding="utf-8")))
        except (OSError, ValueError):
            raise ArgumentError(f"--resume {batch_id}: no saved state at {self._state_path(batch_id)}") from None

    def collect(self, batch_id: str, ids: Mapping[str, str]) -> tuple[dict[str, Outcome], list[str]]:
        """(outcomes by item id, item ids to retry: errored or expired)."""
        while True:
            batch = self.client.messages.batches.retrieve(batch_id)
            if batch.processing_status == "ended":
                break
            time.sleep(self.poll_seconds)
        outcomes: dict[str, Outcome] = {}
        retry: list[str] = []
        for entry in self.client.messages.batches.results(batch_id):
            item_id = ids.get(entry.custom_id)
            if item_id is None:
                continue
            kind = entry.result.type
            if kind == "succeeded":
                outcomes[item_id] = parse_message(entry.result.message)
            elif kind in ("errored", "expired"):
                retry.append(item_id)
                detail = getattr(getattr(entry.result, "error", None), "error", None)
                outcomes[item_id] = Outcome(error=f"batch request {kind}" + (f": {detail}" if detail else ""))
            else:
                outcomes[item_id] = Outcome(error=f"batch request {kind}")
        for item_id in ids.values():
            outcomes.setdefault(item_id, Outcome(error="no result in the batch"))
        return outcomes, retry

    def run(self, jobs: Mapping[str, Mapping[str, Any]], meta: Mapping[str, Any], resume: str | None = None
            ) -> dict[str, Outcome]:
        if resume:
            state = self.load_state(resume)
            batch_id, ids = resume, state["ids"]
        else:
            batch_id = self.submit(jobs, meta)
            ids = {custom_id(k): k for k in jobs}
        outcomes, retry = self.collect(batch_id, ids)
        retry = [k for k in retry if k in jobs]
        if retry:
            self.log(f"{len(retry)} request(s) errored or expired: resubmitting them once")
            again_id = self.submit({k: jobs[k] for k in retry}, {**meta, "retry_of": batch_id})
            again, _ = self.collect(again_id, {custom_id(k): k for k in retry})
            outcomes.update(again)
        return outcomes


def estimate_cost(input_tokens: int, output_tokens: int, prices: Mapping[str, float], batch: bool) -> float:
    cost = (input_tokens * prices["input"] + output_tokens * prices["output"]) / 1_000_000
    return cost * (prices.get("batch_discount", 0.5) if batch else 1.0)


def actual_cost(outcomes: Sequence[Outcome], prices: Mapping[str, float], batch: bool) -> float:
    total = 0.0
    for o in outcomes:
        fresh = max(0, o.input_tokens - o.cache_read_tokens)
        total += (fresh * prices["input"] + o.cache_read_tokens * prices.get("cache_read", prices["input"] / 10)
                  + o.output_tokens * prices["output"]) / 1_000_000
    return total * (prices.get("batch_discount", 0.5) if batch else 1.0)
