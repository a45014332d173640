"""A local stub of the Messages API (with token counting and Message Batches), for tests and
benchmarks, holding the real API's rules so the client's mistakes fail here first.

The real anthropic SDK talks to it through ``ANTHROPIC_BASE_URL``. Rules kept (from the API's
documentation): ``max_tokens`` is required; a forced tool (``tool_choice`` tool/any) is
refused next to thinking; ``thinking.budget_tokens`` ≥ 1,024 and below ``max_tokens``; a PDF
over 100 pages is refused; a request over 32 MB, or a batch over its byte limit (256 MB,
settable small), is a 413 ``request_too_large``; a batch holds 1–100,000 requests whose
``custom_id`` match ``^[a-zA-Z0-9_-]{1,64}$`` and are unique; no citation points into a PDF
without a text layer; ``cache_control`` caches the prefix (tools, then system) only when it
reaches the model's minimum, and usage reports it as the API does (``input_tokens`` without
the cache lines, ``cache_creation`` by TTL, ``cache_read_input_tokens``).

Answers are scripted per claim id (read from the request's claim block): a verdict through
the tool, a text-only reply, failures before success, a reply cut at ``max_tokens`` below a
given budget, a refusal, a forced tool refused, citations, a batch result errored (of a given
error type), expired or canceled. Tokens are counted at 2.5 characters a token (the current
tokenizer's ratio on this text) and 1,500 a PDF
page; every billed usage is kept in ``usages`` so a test can price it independently.

The Models API and the rules that differ by model (``MODELS``): ``GET /v1/models[/{id}]`` with
each model's capabilities and a 404 ``not_found_error`` for an unknown id (a message naming
one is a 404 too); a Sonnet-5.5-like model that answers 400 to ``thinking: disabled`` and to
a forced tool; each model's caching minimum (Haiku 5.5: 512). Account rules, settable: a
spend limit the owner set (400 ``invalid_request_error``, "You have reached your specified API
usage limits…") after N messages let through; the tier's spend cap (429 ``rate_limit_error`` with
``error.details.error_code: enforced_spend_limit_reached`` and no ``retry-after``) after N; a
529 ``overloaded_error`` on every k-th message request; a scripted claim that hangs (``hang``:
seconds) past the client's timeout. ``log`` holds every request as (method, path). The rules
themselves (models, counting, request checks) are ``anthropic_rules``.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import re
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from testing.mockweb.anthropic_rules import (
    CUSTOM_ID,
    FILES,
    MAX_REQUEST_BYTES,
    MODELS,
    SPEND_LIMIT_MESSAGE,
    TTL_SECONDS,
    Refused,
    check_params,
    claim_id_of,
    count_input_tokens,
    documents,
    model_info,
    multipart_file,
    pdf_has_text,
    prefix_chars,
    tokens_of_chars,
)
from testing.mockweb.threaded import serve_in_thread

Script = dict[str, Any]


class AnthropicStub:
    def __init__(self, scripts: dict[str, Script] | None = None, default: Script | None = None,
                 polls_before_end: int = 2, *, batch_max_bytes: int = 256_000_000, batch_max_requests: int = 100_000,
                 cache_min_tokens: int | None = None, reject_key: bool = False,
                 models: dict[str, dict[str, Any]] | None = None, spend_limit_after: int | None = None,
                 tier_cap_after: int | None = None, overload_every: int | None = None) -> None:
        self.scripts = scripts or {}
        self.default = default or {"tool": {"verdict": "INDETERMINATE", "claimed": "", "source_says": "",
                                            "confidence": "LOW", "note": "stub default"}}
        self.polls_before_end = polls_before_end
        self.batch_max_bytes = batch_max_bytes
        self.batch_max_requests = batch_max_requests
        self.cache_min_tokens = cache_min_tokens  # None: each model's own
        self.reject_key = reject_key
        self.models = dict(MODELS if models is None else models)
        self.spend_limit_after = spend_limit_after
        self.tier_cap_after = tier_cap_after
        self.overload_every = overload_every
        self.overloaded: set[str] = set()  # the requests a 529 answered (a retry of one is let through)
        self.log: list[tuple[str, str]] = []  # (method, path) of every request received
        self.message_posts = 0  # POST /v1/messages received, answered or not
        self.answered = 0  # messages answered 200
        self.admitted = 0  # messages let through the account's limits (a spend limit counts these)
        self.after_stop: list[str] = []  # requests received after the first spend-limit answer
        self.body_bytes: dict[str, int] = {}  # path -> request body bytes received (what a client sent)
        self.files: list[str] = []  # file ids uploaded to this stub
        self.deleted: list[str] = []
        self.requests: list[dict[str, Any]] = []  # every /v1/messages body that was answered, with "_tokens"
        self.usages: list[dict[str, Any]] = []  # every billed usage: {"usage": ..., "batch": bool}
        self.refusals: list[tuple[int, str]] = []  # (status, message) of every refused request
        self.count_calls = 0
        self.unauthorized: list[str] = []  # paths answered 401
        self.batches: dict[str, dict[str, Any]] = {}
        self.calls: dict[str, int] = {}
        self._cache: dict[str, float] = {}  # prefix hash -> expiry (monotonic)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> AnthropicStub:
        handler = type("StubHandler", (_Handler,), {"stub": self})
        self._server = serve_in_thread(handler, "anthropic-stub")
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> AnthropicStub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def env(self) -> dict[str, str]:
        return {"ANTHROPIC_BASE_URL": self.base_url, "ANTHROPIC_API_KEY": "sk-test-not-a-real-key",
                "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}

    # -- answers -----------------------------------------------------------------------
    def next_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}_stub_{next(self._ids):04d}"

    def script_for(self, params: dict[str, Any]) -> tuple[str, Script, int]:
        cid = claim_id_of(params)
        with self._lock:
            self.calls[cid] = self.calls.get(cid, 0) + 1
            return cid, self.scripts.get(cid, self.default), self.calls[cid]

    def usage(self, params: dict[str, Any], output_tokens: int) -> dict[str, Any]:
        """Usage as the API reports it: ``input_tokens`` excludes the cache lines."""
        total = count_input_tokens(params)
        marker = next((b["cache_control"] for b in params.get("system") or []
                       if isinstance(b, dict) and b.get("cache_control")), None)
        prefix = tokens_of_chars(prefix_chars(params))
        read = written = 0
        ttl = "5m"
        floor = self.cache_min_tokens or int(self.models.get(params.get("model", ""), {}).get("cache_min", 4096))
        if marker and prefix >= floor:
            ttl = marker.get("ttl", "5m")
            key = hashlib.sha1(json.dumps([params.get("model"), params.get("tools"), params.get("system")],
                                          sort_keys=True).encode()).hexdigest()
            now = time.monotonic()
            with self._lock:
                if self._cache.get(key, 0.0) > now:
                    read = prefix
                else:
                    written = prefix
                self._cache[key] = now + TTL_SECONDS[ttl]
        return {"input_tokens": total - read - written, "output_tokens": output_tokens,
                "cache_read_input_tokens": read, "cache_creation_input_tokens": written,
                "cache_creation": {"ephemeral_5m_input_tokens": written if ttl == "5m" else 0,
                                   "ephemeral_1h_input_tokens": written if ttl == "1h" else 0}}

    def message(self, params: dict[str, Any], script: Script, batch: bool = False) -> dict[str, Any]:
        if script.get("reject_forced_tool") and (params.get("tool_choice") or {}).get("type") in ("tool", "any"):
            raise Refused(400, "invalid_request_error",
                          "tool_choice: this model thinks by default; forcing a tool is not supported with thinking")
        content: list[dict[str, Any]] = []
        stop = "tool_use" if "tool" in script else "end_turn"
        if "text" in script:
            content.append({"type": "text", "text": script["text"]})
        citable = [d for d, data in documents(params) if (d.get("citations") or {}).get("enabled")
                   and pdf_has_text(data)]
        if "citations" in script and citable:  # the API cannot cite into page images
            content.append({"type": "text", "text": "The document says:", "citations": [
                {"type": "page_location", "cited_text": c, "document_index": 0, "document_title": "doc",
                 "start_page_number": 1, "end_page_number": 2} for c in script["citations"]]})
        if "tool" in script and (params.get("output_config") or {}).get("format"):
            content.append({"type": "text", "text": json.dumps(script["tool"])})  # the structured answer
            stop = "end_turn"
        elif "tool" in script:
            content.append({"type": "tool_use", "id": self.next_id("toolu"), "name": "record_verdict",
                            "input": script["tool"]})
        output = int(script.get("output_tokens", len(json.dumps(script.get("tool", {}))) // 4 + 40))
        if script.get("refusal"):
            content, stop = [{"type": "text", "text": "I can't help with that."}], "refusal"
        elif script.get("cut") and params["max_tokens"] < script["cut"]:
            stop, output = "max_tokens", params["max_tokens"]  # the content is there, but cut: not an answer
        usage = self.usage(params, output)
        with self._lock:
            self.requests.append({**params, "_tokens": count_input_tokens(params)})
            self.usages.append({"usage": usage, "batch": batch})
            self.answered += 1
        return {"id": self.next_id("msg"), "type": "message", "role": "assistant", "model": params.get("model"),
                "content": content, "stop_reason": stop, "stop_sequence": None, "usage": usage}


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _error(etype: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": etype, "message": message}, "request_id": "req_stub"}


class _Handler(BaseHTTPRequestHandler):
    stub: AnthropicStub
    protocol_version = "HTTP/1.1"
    # the head and the body leave in two writes: with Nagle's algorithm on, the body waits for the
    # client's delayed ACK of the head (~40 ms on Linux loopback) on every kept-alive answer
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout)
            self._send_json(status, body, headers)

    def _send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _refuse(self, refused: Refused) -> None:
        with self.stub._lock:
            self.stub.refusals.append((refused.status, refused.message))
        self._json(refused.status, _error(refused.etype, refused.message), {"x-should-retry": "false"})

    def _authorized(self, path: str, method: str) -> bool:
        with self.stub._lock:
            self.stub.log.append((method, path))
        if self.stub.reject_key or not (self.headers.get("x-api-key") or self.headers.get("authorization")):
            with self.stub._lock:
                self.stub.unauthorized.append(path)
            self._json(401, _error("authentication_error", "invalid x-api-key"), {"x-should-retry": "false"})
            return False
        return True

    def _account_stop(self, params: dict[str, Any]) -> bool:
        """The account's limits and the service's load: True when answered with one. A 529 is the
        service's load, not the request's fault: the same request is not refused twice (its
        retry goes through), so "every k-th request" stays a rate, never a claim singled out."""
        stub = self.stub
        with stub._lock:
            stub.message_posts += 1
            n = stub.message_posts
            # counted when let through, not when answered: two requests arriving together cannot both
            # pass a limit that one of them reaches
            spent_out = stub.spend_limit_after is not None and stub.admitted >= stub.spend_limit_after
            capped = stub.tier_cap_after is not None and stub.admitted >= stub.tier_cap_after
            if spent_out or capped:
                stub.after_stop.append(self.path)
            else:
                stub.admitted += 1
        if spent_out:
            self._refuse(Refused(400, "invalid_request_error", SPEND_LIMIT_MESSAGE))
            return True
        if capped:  # the tier's monthly cap: a 429 without retry-after, which no retry can pass
            body = _error("rate_limit_error", "Your organization has reached its monthly usage limit for its tier.")
            body["error"]["details"] = {"error_code": "enforced_spend_limit_reached"}
            with stub._lock:
                stub.refusals.append((429, body["error"]["message"]))
            self._json(429, body)
            return True
        if stub.overload_every and n % stub.overload_every == 0:
            key = hashlib.sha256(json.dumps(params.get("messages"), sort_keys=True).encode()).hexdigest()
            with stub._lock:
                first = key not in stub.overloaded
                stub.overloaded.add(key)
            if first:
                self._json(529, _error("overloaded_error", "Overloaded"), {"retry-after-ms": "20"})
                return True
        return False

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)  # always read the body: the connection is kept alive
        path = self.path.split("?")[0].rstrip("/")
        if not self._authorized(path, "POST"):
            return
        with self.stub._lock:
            self.stub.body_bytes[path] = self.stub.body_bytes.get(path, 0) + length
        if path == "/v1/files":
            data = multipart_file(self.headers.get("Content-Type", ""), raw)
            if not data or not data.startswith(b"%PDF"):
                self._refuse(Refused(400, "invalid_request_error", "file: a PDF is required"))
                return
            file_id = f"file_stub_{uuid.uuid4().hex[:20]}"
            with self.stub._lock:
                FILES[file_id] = data
                self.stub.files.append(file_id)
            self._json(200, {"id": file_id, "type": "file", "filename": "scan.pdf", "mime_type": "application/pdf",
                             "size_bytes": len(data), "created_at": _now(), "downloadable": False})
            return
        limit = self.stub.batch_max_bytes if path.endswith("/batches") else MAX_REQUEST_BYTES
        try:
            if length > limit:
                raise Refused(413, "request_too_large", "Request exceeds the maximum allowed number of bytes.")
            params: dict[str, Any] = json.loads(raw or b"{}")
            if path.endswith("/v1/messages/count_tokens"):
                check_params(params, counting=True, models=self.stub.models)
                with self.stub._lock:
                    self.stub.count_calls += 1
                self._json(200, {"input_tokens": count_input_tokens(params)})
            elif path.endswith("/v1/messages"):
                if self._account_stop(params):
                    return
                check_params(params, models=self.stub.models)
                cid, script, attempt = self.stub.script_for(params)
                if script.get("hang"):  # past the client's timeout: it gives up, nothing is billed
                    time.sleep(float(script["hang"]))
                    return
                failures: list[int] = script.get("fail", [])
                if attempt <= len(failures):
                    self._json(failures[attempt - 1], _error("overloaded_error", "Overloaded"),
                               {"retry-after-ms": "20", "x-should-retry": "true"})
                    return
                self._json(200, self.stub.message(params, script))
            elif path.endswith("/v1/messages/batches"):
                self._json(200, self._create_batch(params, length))
            else:
                self._json(404, _error("not_found_error", self.path))
        except Refused as refused:
            self._refuse(refused)

    def _create_batch(self, body: dict[str, Any], length: int) -> dict[str, Any]:
        requests = body.get("requests") or []
        if not 1 <= len(requests) <= self.stub.batch_max_requests:
            raise Refused(400, "invalid_request_error", f"requests: 1 to {self.stub.batch_max_requests} requests")
        ids = [r.get("custom_id", "") for r in requests]
        bad = next((i for i in ids if not isinstance(i, str) or not CUSTOM_ID.fullmatch(i)), None)
        if bad is not None:
            raise Refused(400, "invalid_request_error", f"custom_id {bad!r}: must match ^[a-zA-Z0-9_-]{{1,64}}$")
        if len(set(ids)) != len(ids):
            raise Refused(400, "invalid_request_error", "custom_id: must be unique within the batch")
        batch_id = self.stub.next_id("msgbatch")
        results = [{"custom_id": r["custom_id"], "result": self._result(r["params"])} for r in requests]
        self.stub.batches[batch_id] = {"polls": 0, "results": results, "created_at": _now(), "bytes": length}
        return self._batch_view(batch_id)

    def _result(self, params: dict[str, Any]) -> dict[str, Any]:
        try:
            check_params(params, models=self.stub.models)
            cid, script, attempt = self.stub.script_for(params)
            failing = script.get("batch_fail")
            if failing and attempt <= script.get("batch_fail_times", 1):
                if failing in ("expired", "canceled"):
                    return {"type": failing}
                raise Refused(500, script.get("batch_error", "api_error"), "stub failure")
            return {"type": "succeeded", "message": self.stub.message(params, script, batch=True)}
        except Refused as refused:
            with self.stub._lock:
                self.stub.refusals.append((refused.status, refused.message))
            return {"type": "errored", "error": _error(refused.etype, refused.message)}

    def _batch_view(self, batch_id: str) -> dict[str, Any]:
        batch = self.stub.batches[batch_id]
        ended = batch["polls"] >= self.stub.polls_before_end
        counts = {"processing": 0 if ended else len(batch["results"]), "succeeded": 0, "errored": 0,
                  "canceled": 0, "expired": 0}
        if ended:
            for r in batch["results"]:
                counts[r["result"]["type"]] += 1
        expires = (datetime.now(UTC) + timedelta(hours=24)).isoformat().replace("+00:00", "Z")
        return {"id": batch_id, "type": "message_batch", "processing_status": "ended" if ended else "in_progress",
                "request_counts": counts, "ended_at": _now() if ended else None, "created_at": batch["created_at"],
                "expires_at": expires, "cancel_initiated_at": None, "archived_at": None,
                "results_url": f"{self.stub.base_url}/v1/messages/batches/{batch_id}/results" if ended else None}

    def do_DELETE(self) -> None:  # noqa: N802
        path = self.path.split("?")[0].rstrip("/")
        if not self._authorized(path, "DELETE"):
            return
        file_id = path.rsplit("/", 1)[-1]
        if not path.startswith("/v1/files/") or file_id not in FILES:
            self._json(404, _error("not_found_error", path))
            return
        with self.stub._lock:
            del FILES[file_id]
            self.stub.deleted.append(file_id)
        self._json(200, {"id": file_id, "type": "file_deleted"})

    def do_GET(self) -> None:  # noqa: N802
        path = self.path.split("?")[0].rstrip("/")
        if not self._authorized(path, "GET"):
            return
        if path == "/v1/models":
            infos = [model_info(k, v) for k, v in self.stub.models.items()]
            self._json(200, {"data": infos, "has_more": False, "first_id": infos[0]["id"] if infos else None,
                             "last_id": infos[-1]["id"] if infos else None})
            return
        if path.startswith("/v1/models/"):
            model_id = path[len("/v1/models/"):]
            if model_id in self.stub.models:
                self._json(200, model_info(model_id, self.stub.models[model_id]))
            else:
                self._json(404, _error("not_found_error", f"model: {model_id}"), {"x-should-retry": "false"})
            return
        m = re.match(r"^/v1/messages/batches/([^/]+)(/results)?$", self.path.split("?")[0])
        if not m or m.group(1) not in self.stub.batches:
            self._json(404, _error("not_found_error", self.path))
            return
        batch_id = m.group(1)
        if m.group(2):
            data = "".join(json.dumps(r) + "\n" for r in self.stub.batches[batch_id]["results"]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/binary")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        self.stub.batches[batch_id]["polls"] += 1
        self._json(200, self._batch_view(batch_id))
