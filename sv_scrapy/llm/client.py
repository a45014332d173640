"""Calls to the Messages API through the anthropic SDK, and what each answer means.

The key comes from ``ANTHROPIC_API_KEY`` and is never logged; ``ANTHROPIC_BASE_URL`` (the
SDK's own variable) points the client elsewhere, which is how the tests reach their stub.

Every ``stop_reason`` is handled: ``tool_use`` / ``end_turn`` / ``stop_sequence`` carry an
answer (or not, if the tool was not called); ``max_tokens`` is asked once more with the
larger budget, then reported "answer cut off"; ``refusal``, ``pause_turn`` and a full
context window are no answer, each said so. The request's shape (thinking, forced tool) was
decided before the first claim from what the model supports; a 400 never reshapes it.

Errors are classified by the SDK's exception class, ``error.type`` and ``error.details.error_code``
(:func:`from_exception`), never by searching the message: authentication, permission, billing,
a spend limit (the 400 the account owner's limit answers, the tier cap's 429) and an unknown
model stop the run (no more sends; what came back is kept); a timeout, a request the API
refused for its content, or an overload / server error still there after the retries makes
that one claim ``INDETERMINATE``. The retries are ours, not the SDK's (its client is built with
``max_retries=0``), so a spend cap's 429 is never retried: 429 rate limits, 529 overloads, 5xx,
408/409 and dropped connections are, honouring ``retry-after``; a timeout is not (the request
would hang again).

The cost cap (:class:`Gate`) is enforced while running: before each send, the spent cost (from
each answer's ``usage``) plus the worst case of the requests in flight and of this one must stay
under it; a send that would not fit waits for those in flight, and when none is left the run
stops sending, said so.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from sv_scrapy.core.errors import ArgumentError
from sv_scrapy.llm.cost import Usage, call_cost
from sv_scrapy.llm.prompts import count_params, with_changes
from sv_scrapy.llm.verdictschema import TOOL_NAME
from sv_scrapy.run.registry import env

# Outcome.kind: why there is no answer
API = "api"  # no verdict for an API reason (unreachable, auth, quota, overloaded, expired): the run may exit 1
REQUEST = "request"  # the API refused this request (invalid, too large): resubmitting it would fail again
CUT = "cut"  # stop_reason max_tokens
MODEL = "model"  # the model answered, but not with a usable verdict (refusal, no tool call)

# Outcome.reason: the report counts the claims without a verdict by these
TIMEOUT = "timeout"
COST_CAP = "cost_cap"
NOT_SENT = "not_sent"  # after a fatal error
SPEND_CODES = frozenset({"enforced_spend_limit_reached", "contract_spend_limit_reached",
                         "linked_organization_spend_limit_reached"})
# A spend limit the account owner set answers 400 invalid_request_error with no error_code; the
# documented marker is the start of its message (organisation or workspace limit).
SPEND_LIMIT_400 = ("You have reached your specified API usage limits",
                   "You have reached your specified workspace API usage limits")
FATAL_BY_STATUS = {401: "authentication", 402: "billing", 403: "permission", 404: "model_not_found"}
FATAL_BY_TYPE = {"authentication_error": "authentication", "permission_error": "permission",
                 "billing_error": "billing", "not_found_error": "model_not_found"}
RETRY_STATUS = frozenset({408, 409, 429})
# a retried answer's reason: by its error type, else by its status, else "server_error"
RETRY_REASON_BY_TYPE = {"overloaded_error": "overloaded", "rate_limit_error": "rate_limited"}
RETRY_REASON_BY_STATUS = {529: "overloaded", 429: "rate_limited"}
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
    reason: str = ""  # why no verdict, in one word (timeout, overloaded, spend_limit, cost_cap, ...)
    calls: list[Usage] = field(default_factory=list)  # each billed request's usage (priced one by one)
    retry: bool = False  # worth sending again after a pause
    retry_after: float | None = None


def make_client(max_retries: int, timeout_s: float) -> Any:
    key = env("ANTHROPIC_API_KEY").strip()
    if not key:
        raise ArgumentError("ANTHROPIC_API_KEY is not set: export your Anthropic API key to run scrapy verify")
    import anthropic

    del max_retries  # the retries are ours (run_sync), so that a spend cap's 429 is never retried
    return anthropic.Anthropic(api_key=key, max_retries=0, timeout=timeout_s)


def parse_message(message: Any, structured: bool = False) -> Outcome:
    stop = str(getattr(message, "stop_reason", "") or "")
    usage = Usage.from_api(getattr(message, "usage", None))
    outcome = Outcome(stop_reason=stop, usage=usage, calls=[usage])
    if stop == "max_tokens":
        outcome.kind, outcome.error = CUT, "answer cut off at max_tokens"
        return outcome
    if stop in STOP_NOTES:
        outcome.kind, outcome.error = MODEL, STOP_NOTES[stop]
        return outcome
    texts: list[str] = []
    for block in getattr(message, "content", None) or []:
        kind = getattr(block, "type", "")
        if kind == "tool_use" and getattr(block, "name", "") == TOOL_NAME:
            value = getattr(block, "input", None)
            outcome.answer = dict(value) if isinstance(value, Mapping) else None
        elif kind == "text":
            texts.append(str(getattr(block, "text", "") or ""))
            for citation in getattr(block, "citations", None) or []:
                cited = getattr(citation, "cited_text", None)
                if cited:
                    outcome.cited_texts.append(str(cited))
    if outcome.answer is None and structured:  # output_config.format: the text is the verdict object
        try:
            value = json.loads("".join(texts))
        except ValueError:
            value = None
        outcome.answer = dict(value) if isinstance(value, Mapping) else None
    if outcome.answer is None and structured:
        outcome.kind, outcome.error = MODEL, "the structured answer was not a verdict object"
    elif outcome.answer is None:
        outcome.kind, outcome.error = MODEL, "the model answered without calling record_verdict"
    return outcome


def _first_line(text: str) -> str:
    return (text.splitlines() or [""])[0][:200]


def _retry_after(exc: Any) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            return min(60.0, float(str(headers.get(name))) * scale)
        except (TypeError, ValueError):
            continue
    return None


def from_exception(exc: BaseException) -> Outcome:
    """An SDK exception as an outcome: by its class, ``error.type`` and ``error.details.error_code``."""
    import anthropic

    if isinstance(exc, anthropic.APITimeoutError):  # a subclass of APIConnectionError: test it first
        return Outcome(kind=API, reason=TIMEOUT, error=f"timeout: no answer within the client's timeout "
                                                       f"({type(exc).__name__})")
    if isinstance(exc, anthropic.APIConnectionError):
        return Outcome(kind=API, fatal=True, reason="unreachable",
                       error=f"API unreachable ({type(exc).__name__}: {_first_line(str(exc))})", retry=True)
    if isinstance(exc, anthropic.APIStatusError):
        body: Mapping[str, Any] = exc.body if isinstance(exc.body, Mapping) else {}
        raw = body.get("error")
        err: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        etype = str(err.get("type") or "")
        code = str(getattr(exc, "error_code", None) or "")
        message = _first_line(str(err.get("message") or exc.message))
        status = exc.status_code
        line = f"HTTP {status} {etype or type(exc).__name__}{f' ({code})' if code else ''}: {message}"
        fatal = FATAL_BY_TYPE.get(etype) or FATAL_BY_STATUS.get(status)
        if code in SPEND_CODES or (isinstance(exc, anthropic.BadRequestError) and message.startswith(SPEND_LIMIT_400)):
            fatal = "spend_limit"
        if fatal:
            return Outcome(kind=API, fatal=True, reason=fatal, error=line, error_type=etype)
        if isinstance(exc, anthropic.InternalServerError) or status in RETRY_STATUS or etype in (
                "overloaded_error", "api_error", "rate_limit_error"):
            reason = RETRY_REASON_BY_TYPE.get(etype) or RETRY_REASON_BY_STATUS.get(status, "server_error")
            return Outcome(kind=API, reason=reason, error=line, error_type=etype, retry=True,
                           retry_after=_retry_after(exc))
        if status == 413:
            return Outcome(kind=REQUEST, reason="request_too_large", error=line, error_type=etype or "request_too_large")
        return Outcome(kind=REQUEST, reason="invalid_request", error=line, error_type=etype or "invalid_request_error")
    return Outcome(kind=API, reason="error", error=f"{type(exc).__name__}: {_first_line(str(exc))}")


def follow_up(params: Mapping[str, Any], outcome: Outcome, retry_budget: int) -> tuple[dict[str, Any] | None, str]:
    """The one changed request worth sending after ``outcome`` (a larger budget), or (None, final error)."""
    if outcome.kind == CUT:
        budget = int(params["max_tokens"])
        if budget < retry_budget:
            return with_changes(params, max_tokens=retry_budget), f"cut off at max_tokens {budget}; asked again " \
                                                                  f"with {retry_budget}"
        return None, f"answer cut off at max_tokens {budget}"
    return None, outcome.error


def finish(previous: Outcome | None, latest: Outcome) -> Outcome:
    """``latest`` with the usage and notes of the attempts before it."""
    if previous is None:
        return latest
    usage = Usage()
    usage.add(previous.usage)
    usage.add(latest.usage)
    latest.usage = usage
    latest.calls = previous.calls + latest.calls
    latest.notes = previous.notes + latest.notes
    return latest


Worst = Callable[[str, Mapping[str, Any]], float]  # (item id, request) -> the most that request can cost


class Gate:
    """The run's brakes: the first fatal error stops the sends not yet made, and the cost cap
    admits a send only while spent + in flight (worst case) + this send (worst case) <= cap."""

    def __init__(self, cap: float | None = None, prices: Mapping[str, Any] | None = None, batch: bool = False) -> None:
        self.cap, self.prices, self.batch = cap, prices, batch
        self.cond = threading.Condition()
        self.spent = 0.0
        self.in_flight = 0.0
        self.sending = 0  # requests in flight (counted, not inferred from the float sum)
        self.stopped = ""  # why nothing more is sent
        self.stopped_by = ""  # the reason code: cost_cap, or the fatal error's
        self.fatal: Outcome | None = None

    def trip(self, outcome: Outcome) -> None:
        with self.cond:
            if not self.stopped:
                self.stopped, self.stopped_by, self.fatal = outcome.error, outcome.reason or NOT_SENT, outcome
            self.cond.notify_all()

    def acquire(self, worst: float, wait: bool = True) -> str:
        """'' when the send may go (its worst case now counted in flight), else why not."""
        with self.cond:
            while True:
                if self.stopped:
                    return self.stopped
                if self.cap is None or self.spent + self.in_flight + worst <= self.cap:
                    self.in_flight += worst
                    self.sending += 1
                    return ""
                if self.sending <= 0 or not wait:
                    self.stopped_by = COST_CAP
                    self.stopped = (f"--max-cost-usd {self.cap:g} reached: ${self.spent:.4f} spent, the next request "
                                    f"could cost up to ${worst:.4f}")
                    self.cond.notify_all()
                    return self.stopped
                self.cond.wait()

    def release(self, worst: float, calls: list[Usage]) -> None:
        with self.cond:
            self.sending = max(0, self.sending - 1)
            self.in_flight = max(0.0, self.in_flight - worst) if self.sending else 0.0
            if self.prices is not None:
                self.spent += sum(call_cost(u, self.prices, self.batch) for u in calls)
            self.cond.notify_all()

    def refused(self, why: str) -> Outcome:
        """The outcome of a claim this gate did not let through."""
        code = COST_CAP if self.stopped_by == COST_CAP else NOT_SENT
        return Outcome(kind=API, reason=code, error=f"not sent: {why}")


def _pause(attempt: int, retry_after: float | None) -> float:
    if retry_after is not None:
        return retry_after
    return float(min(8.0, 0.5 * 2 ** attempt) * random.uniform(0.75, 1.0))  # noqa: S311 — jitter, not a secret


def send(client: Any, key: str, params: Mapping[str, Any], gate: Gate, worst: Worst | None, max_retries: int
         ) -> Outcome:
    """One request through the gate, with our retries for what can pass (never a spend cap)."""
    tries: list[str] = []
    for attempt in range(max_retries + 1):
        cost = worst(key, params) if worst else 0.0
        refused = gate.acquire(cost)
        if refused:
            return gate.refused(refused)
        got = Outcome(kind=API, reason="error", error="no response")
        try:
            got = parse_message(client.messages.create(**params), structured="output_config" in params)
        except Exception as exc:  # an API failure is reported on its item, never a traceback
            got = from_exception(exc)
        finally:
            gate.release(cost, got.calls)
        if got.retry and attempt < max_retries and not gate.stopped:
            tries.append(got.reason)
            time.sleep(_pause(attempt, got.retry_after))
            continue
        if got.fatal:
            gate.trip(got)
            return got
        if tries:
            got.notes.insert(0, f"retried {len(tries)} time(s) after: {', '.join(tries)}")
        return got
    raise AssertionError("unreachable")


def run_sync(client: Any, jobs: Mapping[str, Mapping[str, Any]], concurrency: int, retry_budget: int,
             gate: Gate | None = None, worst: Worst | None = None, max_retries: int = 4, warm_first: bool = False
             ) -> dict[str, Outcome]:
    """One ``messages.create`` per job (plus at most the larger budget), ``concurrency`` at a time.

    ``warm_first``: the first request goes alone, so that every later one can read the prefix it
    cached (requests sent together before the first answer would each write it)."""
    gate = gate or Gate()

    def call(key: str) -> tuple[str, Outcome]:
        params: Mapping[str, Any] = jobs[key]
        done: Outcome | None = None
        for _ in range(2):  # the first call, a larger budget
            got = finish(done, send(client, key, params, gate, worst, max_retries))
            nxt, why = follow_up(params, got, retry_budget)
            if nxt is None:
                if got.answer is None:
                    got.error = why
                return key, got
            got.notes.append(why)
            done, params = got, nxt
        assert done is not None
        return key, done

    keys = list(jobs)
    out: dict[str, Outcome] = {}
    if warm_first and keys:
        out.update([call(keys[0])])
        keys = keys[1:]
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        out.update(pool.map(call, keys))
    return out


def count_tokens(client: Any, jobs: Mapping[str, Mapping[str, Any]], concurrency: int,
                 log: Callable[[str], None]) -> dict[str, int] | None:
    """``messages.count_tokens`` (free) for every job; None (use the heuristic) if any count fails."""
    counter = client.with_options(max_retries=1)
    failed = threading.Event()
    why: list[str] = []

    def count(key: str) -> tuple[str, int | None]:
        if failed.is_set():
            return key, None
        try:
            return key, int(counter.messages.count_tokens(**count_params(jobs[key])).input_tokens)
        except Exception as exc:  # unreachable or refused: the estimate falls back to the heuristic
            why.append(from_exception(exc).error)
            failed.set()
            return key, None

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        counted = dict(pool.map(count, list(jobs)))
    if failed.is_set():
        log(f"token count unavailable ({why[0] if why else 'failed'}): estimating by the heuristic")
        return None
    return {k: v for k, v in counted.items() if v is not None}
