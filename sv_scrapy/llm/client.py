"""Calls to the Messages API through the anthropic SDK, and what each answer means.

The key comes from ``ANTHROPIC_API_KEY`` and is never logged; ``ANTHROPIC_BASE_URL`` (the
SDK's own variable) points the client elsewhere, which is how the tests reach their stub.

Every ``stop_reason`` is handled: ``tool_use`` / ``end_turn`` / ``stop_sequence`` carry an
answer (or not, if the tool was not called); ``max_tokens`` is asked once more with the
larger budget, then reported "answer cut off"; ``refusal``, ``pause_turn`` and a full
context window are no answer, each said so. A 400 that rejects the forced tool is asked
once more with ``tool_choice: auto`` (the guardrails are the same either way). Failures that
mean no call can succeed (unreachable, auth, permission, billing) stop the run's remaining
calls. Sync mode: bounded concurrency, the SDK's own retries for 429/529/5xx/connection.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from sv_scrapy.core.errors import ArgumentError
from sv_scrapy.llm.cost import Usage
from sv_scrapy.llm.prompts import count_params, with_changes
from sv_scrapy.llm.schema import TOOL_NAME

# Outcome.kind: why there is no answer
API = "api"  # no verdict for an API reason (unreachable, auth, quota, overloaded, expired): the run may exit 1
REQUEST = "request"  # the API refused this request (invalid, too large): resubmitting it would fail again
CUT = "cut"  # stop_reason max_tokens
MODEL = "model"  # the model answered, but not with a usable verdict (refusal, no tool call)

FATAL_STATUS = (401, 402, 403)  # authentication, billing, permission: no other call can succeed
STOP_NOTES = {
    "refusal": "model refused (stop_reason refusal)",
    "pause_turn": "the model paused its turn (stop_reason pause_turn; no server tools are used here)",
    "model_context_window_exceeded": "the request filled the model's context window",
}


class LlmUnavailable(Exception):  # noqa: N818 — reads as the one line it prints
    """No verdict could be had for an API reason; the command exits 1 with this line."""


@dataclass
class Outcome:
    """What came back for one item, over all its attempts: the tool input, citations, usage, or why not."""

    answer: dict[str, Any] | None = None
    cited_texts: list[str] = field(default_factory=list)
    error: str = ""
    kind: str = ""
    stop_reason: str = ""
    usage: Usage = field(default_factory=Usage)
    notes: list[str] = field(default_factory=list)
    fatal: bool = False
    error_type: str = ""  # the API's error type, when there was one


def make_client(max_retries: int, timeout_s: float) -> Any:
    key = os.environ.get("ANTHROPIC_API_KEY", "").strip()
    if not key:
        raise ArgumentError("ANTHROPIC_API_KEY is not set: export your Anthropic API key to run scrapy verify")
    import anthropic

    return anthropic.Anthropic(api_key=key, max_retries=max_retries, timeout=timeout_s)


def parse_message(message: Any) -> Outcome:
    stop = str(getattr(message, "stop_reason", "") or "")
    outcome = Outcome(stop_reason=stop, usage=Usage.from_api(getattr(message, "usage", None)))
    if stop == "max_tokens":
        outcome.kind, outcome.error = CUT, "answer cut off at max_tokens"
        return outcome
    if stop in STOP_NOTES:
        outcome.kind, outcome.error = MODEL, STOP_NOTES[stop]
        return outcome
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
        outcome.kind, outcome.error = MODEL, "the model answered without calling record_verdict"
    return outcome


def _first_line(text: str) -> str:
    return (text.splitlines() or [""])[0][:200]


def from_exception(exc: BaseException) -> Outcome:
    """An SDK exception as an outcome: which kind, and whether the run can go on."""
    import anthropic

    if isinstance(exc, anthropic.APIConnectionError):
        what = "timed out" if isinstance(exc, anthropic.APITimeoutError) else "unreachable"
        return Outcome(kind=API, fatal=True, error=f"API {what} ({type(exc).__name__}: {_first_line(str(exc))})")
    if isinstance(exc, anthropic.APIStatusError):
        body: Mapping[str, Any] = exc.body if isinstance(exc.body, Mapping) else {}
        raw = body.get("error")
        err: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        etype = str(err.get("type") or "")
        message = _first_line(str(err.get("message") or exc.message))
        line = f"HTTP {exc.status_code} {etype or type(exc).__name__}: {message}"
        if exc.status_code in FATAL_STATUS or "usage limit" in message.lower():
            return Outcome(kind=API, fatal=True, error=line, error_type=etype)
        if exc.status_code in (400, 404, 413, 422):
            return Outcome(kind=REQUEST, error=line, error_type=etype or "invalid_request_error")
        return Outcome(kind=API, error=line, error_type=etype)
    return Outcome(kind=API, error=f"{type(exc).__name__}: {_first_line(str(exc))}")


def rejects_forced_tool(params: Mapping[str, Any], outcome: Outcome) -> bool:
    """A 400 on a request that forced the tool, naming the tool choice or thinking."""
    forced = (params.get("tool_choice") or {}).get("type") in ("tool", "any")
    text = outcome.error.lower()
    return forced and outcome.kind == REQUEST and ("tool_choice" in text or "thinking" in text)


def follow_up(params: Mapping[str, Any], outcome: Outcome, retry_budget: int) -> tuple[dict[str, Any] | None, str]:
    """The one changed request worth sending after ``outcome``, or (None, final error)."""
    if outcome.kind == CUT:
        budget = int(params["max_tokens"])
        if budget < retry_budget:
            return with_changes(params, max_tokens=retry_budget), f"cut off at max_tokens {budget}; asked again " \
                                                                  f"with {retry_budget}"
        return None, f"answer cut off at max_tokens {budget}"
    if rejects_forced_tool(params, outcome):
        return with_changes(params, tool_choice={"type": "auto"}), "the API refused the forced tool; asked again " \
                                                                   "with tool_choice auto"
    return None, outcome.error


def finish(previous: Outcome | None, latest: Outcome) -> Outcome:
    """``latest`` with the usage and notes of the attempts before it."""
    if previous is None:
        return latest
    usage = Usage()
    usage.add(previous.usage)
    usage.add(latest.usage)
    latest.usage = usage
    latest.notes = previous.notes + latest.notes
    return latest


class _Abort:
    """The first fatal failure stops the calls not yet sent."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.reason = ""

    def trip(self, reason: str) -> None:
        if not self.event.is_set():
            self.reason = reason
            self.event.set()


def run_sync(client: Any, jobs: Mapping[str, Mapping[str, Any]], concurrency: int, retry_budget: int
             ) -> dict[str, Outcome]:
    """One ``messages.create`` per job (plus at most the follow-ups), ``concurrency`` at a time."""
    abort = _Abort()

    def call(key: str) -> tuple[str, Outcome]:
        params: Mapping[str, Any] = jobs[key]
        done: Outcome | None = None
        for _ in range(3):  # the first call, a larger budget, the tool unforced
            if abort.event.is_set():
                return key, finish(done, Outcome(kind=API, error=f"not sent: {abort.reason}"))
            try:
                got = parse_message(client.messages.create(**params))
            except Exception as exc:  # an API failure is reported on its item, never a traceback
                got = from_exception(exc)
                if got.fatal:
                    abort.trip(got.error)
            got = finish(done, got)
            nxt, why = follow_up(params, got, retry_budget)
            if nxt is None:
                got.error = why if got.answer is None else got.error
                return key, got
            got.notes.append(why)
            done, params = got, nxt
        assert done is not None
        return key, done

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        return dict(pool.map(call, list(jobs)))


def count_tokens(client: Any, jobs: Mapping[str, Mapping[str, Any]], concurrency: int,
                 log: Callable[[str], None]) -> dict[str, int] | None:
    """``messages.count_tokens`` (free) for every job; None (use the heuristic) if any count fails."""
    counter = client.with_options(max_retries=1)
    abort = _Abort()

    def count(key: str) -> tuple[str, int | None]:
        if abort.event.is_set():
            return key, None
        try:
            return key, int(counter.messages.count_tokens(**count_params(jobs[key])).input_tokens)
        except Exception as exc:  # unreachable or refused: the estimate falls back to the heuristic
            abort.trip(from_exception(exc).error)
            return key, None

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        counted = dict(pool.map(count, list(jobs)))
    if abort.event.is_set():
        log(f"token count unavailable ({abort.reason}): estimating by the heuristic")
        return None
    return {k: v for k, v in counted.items() if v is not None}
