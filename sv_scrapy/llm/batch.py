"""Message Batches: half price, asynchronous, resumable.

The jobs are split into parts that stay under the API's limits (``llm.batch_max_requests``
requests and ``llm.batch_max_bytes`` serialised bytes; the API allows 100,000 / 256 MB);
a part the API still finds too large (413) is halved and sent again. Each part has its own
saved state under ``_local/reports/`` and every part of a run belongs to one group, so
``--resume <any part's id>`` collects them all and submits what a dead process never sent.

After the results: a request cut off at ``max_tokens`` is asked again with the larger budget;
an errored request is resubmitted only for an error that can pass (overloaded, api_error,
timeouts) or when it expired; an ``invalid_request_error`` would fail again and is reported
as it is. The cost cap admits a request into a batch only while the spent cost plus every
submitted request's worst case stays under it (a batch cannot be stopped halfway).
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from sv_scrapy.core.atomic import write_json
from sv_scrapy.core.errors import ArgumentError
from sv_scrapy.llm.client import (
    API,
    REQUEST,
    Gate,
    LlmUnavailable,
    Outcome,
    Worst,
    finish,
    follow_up,
    from_exception,
    parse_message,
)

RETRYABLE_ERRORS = frozenset({"overloaded_error", "api_error", "timeout_error", "gateway_timeout_error"})
REFUSED_ERRORS = frozenset({"invalid_request_error", "request_too_large", "not_found_error"})  # would fail again


def custom_id(item_id: str) -> str:
    """Batch custom ids must match ``^[a-zA-Z0-9_-]{1,64}$``; claim ids hold ``:`` and ``/``."""
    return "c" + hashlib.sha1(item_id.encode("utf-8")).hexdigest()[:24]


def request_bytes(request: Mapping[str, Any]) -> int:
    """Serialised size, as the SDK sends it (default separators: a little over, never under)."""
    return len(json.dumps(request).encode("utf-8")) + 2


def plan_parts(requests: list[dict[str, Any]], max_requests: int, max_bytes: int) -> list[list[dict[str, Any]]]:
    """Consecutive parts under both limits (a single request over the byte limit goes alone).

    >>> [len(p) for p in plan_parts([{"custom_id": str(i), "params": {}} for i in range(5)], 2, 10**6)]
    [2, 2, 1]
    """
    parts: list[list[dict[str, Any]]] = []
    size = 0
    for request in requests:
        n = request_bytes(request)
        if not parts or len(parts[-1]) >= max_requests or size + n > max_bytes - 16:
            parts.append([])
            size = 0
        parts[-1].append(request)
        size += n
    return parts


class _Stop(Exception):  # noqa: N818
    """A fatal create error: nothing more can be submitted."""


class BatchRunner:
    def __init__(self, client: Any, state_dir: Path, poll_seconds: float, log: Callable[[str], None],
                 max_requests: int, max_bytes: int, retry_budget: int, gate: Gate | None = None,
                 worst: Worst | None = None) -> None:
        self.client = client
        self.state_dir = state_dir
        self.poll_seconds = poll_seconds
        self.log = log
        self.max_requests = max_requests
        self.max_bytes = max_bytes
        self.retry_budget = retry_budget
        self.failed: dict[str, Outcome] = {}  # item id -> why it was never submitted
        self.gate = gate or Gate()
        self.worst = worst
        self.reserved: dict[str, float] = {}  # item id -> its worst case, counted in flight until collected
        self.structured: set[str] = set()  # item ids asked for structured output (output_config.format)

    # -- saved state ---------------------------------------------------------------------
    def _part_path(self, batch_id: str) -> Path:
        return self.state_dir / f"verify-batch-{batch_id}.json"

    def _group_path(self, group: str) -> Path:
        return self.state_dir / f"verify-group-{group}.json"

    def _read(self, path: Path, what: str) -> dict[str, Any]:
        try:
            return dict(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            raise ArgumentError(f"--resume {what}: no saved state at {path}") from None

    def _load_group(self, batch_id: str) -> tuple[str, list[dict[str, Any]]]:
        part = self._read(self._part_path(batch_id), batch_id)
        group = str(part.get("group") or batch_id)
        if not part.get("group"):  # a state saved before groups existed: one part
            return group, [{"batch_id": batch_id, "round": 1, "ids": part["ids"]}]
        parts = self._read(self._group_path(group), batch_id).get("parts", [])
        return group, [{**p, "ids": self._read(self._part_path(p["batch_id"]), p["batch_id"])["ids"]} for p in parts]

    # -- submit --------------------------------------------------------------------------
    def _create(self, requests: list[dict[str, Any]], ids: Mapping[str, str], group: str, round_no: int,
                parts: list[dict[str, Any]], meta: Mapping[str, Any]) -> None:
        import anthropic

        try:
            batch = self.client.messages.batches.create(requests=requests)
        except anthropic.APIStatusError as exc:
            if exc.status_code == 413 and len(requests) > 1:
                half = len(requests) // 2
                self.log(f"batch of {len(requests)} requests refused as too large (413): splitting it in two")
                self._create(requests[:half], ids, group, round_no, parts, meta)
                self._create(requests[half:], ids, group, round_no, parts, meta)
                return
            failure = from_exception(exc)
            if failure.fatal:
                self.gate.trip(failure)
                raise _Stop(failure.error) from None
            for request in requests:
                self.failed[ids[request["custom_id"]]] = Outcome(kind=failure.kind, error=f"batch create: {failure.error}")
            return
        except Exception as exc:  # unreachable, timeout: nothing more can be sent
            failure = from_exception(exc)
            failure.fatal = True
            self.gate.trip(failure)
            raise _Stop(failure.error) from None
        part_ids = {r["custom_id"]: ids[r["custom_id"]] for r in requests}
        write_json(self._part_path(batch.id), {"batch_id": batch.id, "group": group, "round": round_no,
                                               "ids": part_ids, "meta": dict(meta)})
        parts.append({"batch_id": str(batch.id), "round": round_no, "ids": part_ids})
        write_json(self._group_path(group), {"group": group, "meta": dict(meta),
                                             "parts": [{"batch_id": p["batch_id"], "round": p["round"]} for p in parts]})
        size = sum(request_bytes(r) for r in requests)
        self.log(f"submitted batch {batch.id} ({len(requests)} requests, {size / 1e6:.1f} MB); "
                 f"resume with --resume {parts[0]['batch_id']}")

    def submit(self, jobs: Mapping[str, Mapping[str, Any]], group: str, round_no: int,
               parts: list[dict[str, Any]], meta: Mapping[str, Any]) -> None:
        admitted = {}
        for key, params in jobs.items():
            cost = self.worst(key, params) if self.worst else 0.0
            refused = self.gate.acquire(cost, wait=False)
            if refused:
                self.failed[key] = self.gate.refused(refused)
                continue
            self.reserved[key] = cost
            admitted[key] = params
        jobs = admitted
        ids = {custom_id(k): k for k in jobs}
        requests = [{"custom_id": cid, "params": dict(jobs[key])} for cid, key in ids.items()]
        pending = plan_parts(requests, self.max_requests, self.max_bytes)
        try:
            for part in pending:
                self._create(part, ids, group, round_no, parts, meta)
        except _Stop as stop:
            sent = {k for p in parts for k in p["ids"].values()}
            for key in jobs:
                if key not in sent and key not in self.failed:
                    self.failed[key] = Outcome(kind=API, fatal=True, reason=self.gate.stopped_by or "not_sent",
                                               error=f"not sent: {stop}")

    # -- collect -------------------------------------------------------------------------
    def collect(self, batch_id: str, ids: Mapping[str, str]) -> dict[str, Outcome]:
        try:
            while True:
                batch = self.client.messages.batches.retrieve(batch_id)
                if batch.processing_status == "ended":
                    break
                time.sleep(self.poll_seconds)
            entries = list(self.client.messages.batches.results(batch_id))
        except Exception as exc:  # the batch goes on server-side; its state is saved
            raise LlmUnavailable(f"batch {batch_id} could not be read ({from_exception(exc).error}); "
                                 f"collect it later with --resume {batch_id}") from None
        outcomes: dict[str, Outcome] = {}
        for entry in entries:
            item_id = ids.get(entry.custom_id)
            if item_id is None:
                continue
            result = entry.result
            if result.type == "succeeded":
                outcomes[item_id] = parse_message(result.message, item_id in self.structured)
            elif result.type == "errored":
                err = getattr(getattr(result, "error", None), "error", None)
                etype, message = str(getattr(err, "type", "") or ""), str(getattr(err, "message", "") or "")
                kind = REQUEST if etype in REFUSED_ERRORS else API
                outcomes[item_id] = Outcome(kind=kind, error_type=etype, reason=etype or "errored",
                                            error=f"batch request errored: {etype or 'unknown'}: {message[:160]}")
            else:  # expired, canceled
                outcomes[item_id] = Outcome(kind=API, error_type=result.type, reason=result.type,
                                            error=f"batch request {result.type}")
        for item_id in ids.values():
            outcomes.setdefault(item_id, Outcome(kind=API, error="no result in the batch"))
        return outcomes

    def _collect_round(self, parts: list[dict[str, Any]], round_no: int) -> dict[str, Outcome]:
        out: dict[str, Outcome] = {}
        for part in [p for p in parts if p["round"] == round_no]:
            out.update(self.collect(part["batch_id"], part["ids"]))
        for key, outcome in out.items():  # what came back replaces its worst case in the spent cost
            if key in self.reserved:
                self.gate.release(self.reserved.pop(key), outcome.calls)
        return out

    def _again(self, params: Mapping[str, Any], outcome: Outcome) -> tuple[dict[str, Any] | None, str]:
        if outcome.error_type in RETRYABLE_ERRORS or outcome.error_type == "expired":
            return dict(params), f"{outcome.error}; resubmitted once"
        return follow_up(params, outcome, self.retry_budget)

    # -- the whole run -------------------------------------------------------------------
    def run(self, jobs: Mapping[str, Mapping[str, Any]], meta: Mapping[str, Any], resume: str | None = None
            ) -> dict[str, Outcome]:
        self.structured = {k for k, p in jobs.items() if "output_config" in p}
        group, parts = self._load_group(resume) if resume else (uuid.uuid4().hex[:16], [])
        covered = {k for p in parts if p["round"] == 1 for k in p["ids"].values()}
        self.submit({k: v for k, v in jobs.items() if k not in covered}, group, 1, parts, meta)
        outcomes = {**self._collect_round(parts, 1), **self.failed}

        second: dict[str, dict[str, Any]] = {}
        for key, outcome in outcomes.items():
            if key in jobs and outcome.answer is None and not outcome.fatal:
                params, why = self._again(jobs[key], outcome)
                if params is None:
                    outcome.error = why
                else:
                    outcome.notes.append(why)
                    second[key] = params
        if second:
            self.log(f"{len(second)} request(s) to ask again (retryable errors, expired, cut off, or the forced "
                     f"tool refused)")
            covered = {k for p in parts if p["round"] == 2 for k in p["ids"].values()}
            self.failed = {}
            self.submit({k: v for k, v in second.items() if k not in covered}, group, 2, parts, meta)
            again = {**self._collect_round(parts, 2), **self.failed}
            for key, params in second.items():
                if key in again:
                    merged = finish(outcomes[key], again[key])
                    if merged.answer is None:
                        merged.error = follow_up(params, merged, 0)[1]  # no third round
                    outcomes[key] = merged
        return {k: v for k, v in outcomes.items() if k in jobs}
