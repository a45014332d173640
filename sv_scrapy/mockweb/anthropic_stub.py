"""A local stub of the Messages API (and Message Batches), for tests and benchmarks.

The real anthropic SDK talks to it through ``ANTHROPIC_BASE_URL``. Answers are scripted per
claim id (read from the request's claim block): a tool call with a verdict, a text-only
reply, failures before success, citations of a document, or a batch result that errored or
expired. Every request is kept, with the input tokens the stub counts for it (4 characters
a token, a PDF page 1,500), so a benchmark can report what a worklist costs.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Script = dict[str, Any]
_CLAIM_ID = re.compile(r'"claim_id": "([^"]+)"')


def count_input_tokens(params: dict[str, Any]) -> int:
    chars = len(json.dumps(params.get("system", ""), ensure_ascii=False)) + len(json.dumps(params.get("tools", [])))
    tokens = 0
    for message in params.get("messages", []):
        content = message.get("content")
        blocks: list[dict[str, Any]] = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for block in blocks:
            if block.get("type") == "text":
                chars += len(block.get("text", ""))
            elif block.get("type") == "document":
                tokens += max(1, len(block.get("source", {}).get("data", "")) * 3 // 4 // 3000) * 1500
    return chars // 4 + tokens


def claim_id_of(params: dict[str, Any]) -> str:
    for message in params.get("messages", []):
        for block in message.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "text":
                m = _CLAIM_ID.search(block.get("text", ""))
                if m:
                    return m.group(1)
    return ""


class AnthropicStub:
    def __init__(self, scripts: dict[str, Script] | None = None, default: Script | None = None,
                 polls_before_end: int = 2) -> None:
        self.scripts = scripts or {}
        self.default = default or {"tool": {"verdict": "INDETERMINATE", "claimed": "", "source_says": "",
                                            "confidence": "LOW", "note": "stub default"}}
        self.polls_before_end = polls_before_end
        self.requests: list[dict[str, Any]] = []  # every /v1/messages body, with "_tokens"
        self.batches: dict[str, dict[str, Any]] = {}
        self.calls: dict[str, int] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> AnthropicStub:
        handler = type("StubHandler", (_Handler,), {"stub": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="anthropic-stub", daemon=True).start()
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

    def message(self, params: dict[str, Any], script: Script) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        if "text" in script:
            content.append({"type": "text", "text": script["text"]})
        if "citations" in script:
            content.append({"type": "text", "text": "The document says:", "citations": [
                {"type": "page_location", "cited_text": c, "document_index": 0, "document_title": "doc",
                 "start_page_number": 1, "end_page_number": 2} for c in script["citations"]]})
        if "tool" in script:
            content.append({"type": "tool_use", "id": self.next_id("toolu"), "name": "record_verdict",
                            "input": script["tool"]})
        tokens = count_input_tokens(params)
        with self._lock:
            self.requests.append({**params, "_tokens": tokens})
        return {"id": self.next_id("msg"), "type": "message", "role": "assistant", "model": params.get("model"),
                "content": content, "stop_reason": "tool_use" if "tool" in script else "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": tokens, "output_tokens": 60, "cache_read_input_tokens": 0,
                          "cache_creation_input_tokens": 0}}


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class _Handler(BaseHTTPRequestHandler):
    stub: AnthropicStub
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        body: dict[str, Any] = json.loads(self.rfile.read(length) or b"{}")
        return body

    def do_POST(self) -> None:  # noqa: N802
        params = self._body()  # always read the body: the connection is kept alive
        if not (self.headers.get("x-api-key") or self.headers.get("authorization")):
            self._json(401, {"type": "error", "error": {"type": "authentication_error", "message": "no key"}})
            return
        if self.path.rstrip("/").endswith("/v1/messages"):
            cid, script, attempt = self.stub.script_for(params)
            failures: list[int] = script.get("fail", [])
            if attempt <= len(failures):
                self._json(failures[attempt - 1], {"type": "error", "error": {"type": "overloaded_error",
                                                                              "message": "Overloaded"}},
                           {"retry-after-ms": "20", "x-should-retry": "true"})
                return
            self._json(200, self.stub.message(params, script))
        elif self.path.rstrip("/").endswith("/v1/messages/batches"):
            self._json(200, self._create_batch(params))
        else:
            self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})

    def _create_batch(self, body: dict[str, Any]) -> dict[str, Any]:
        batch_id = self.stub.next_id("msgbatch")
        results = []
        for request in body.get("requests", []):
            params = request["params"]
            cid, script, attempt = self.stub.script_for(params)
            failing = script.get("batch_fail")
            if failing and attempt <= script.get("batch_fail_times", 1):
                result = ({"type": "expired"} if failing == "expired" else
                          {"type": "errored", "error": {"type": "error", "error": {"type": "api_error",
                                                                                  "message": "stub failure"}}})
            else:
                result = {"type": "succeeded", "message": self.stub.message(params, script)}
            results.append({"custom_id": request["custom_id"], "result": result})
        self.stub.batches[batch_id] = {"polls": 0, "results": results, "created_at": _now()}
        return self._batch_view(batch_id)

    def _batch_view(self, batch_id: str) -> dict[str, Any]:
        batch = self.stub.batches[batch_id]
        ended = batch["polls"] >= self.stub.polls_before_end
        counts = {"processing": 0 if ended else len(batch["results"]), "succeeded": 0, "errored": 0,
                  "canceled": 0, "expired": 0}
        if ended:
            for r in batch["results"]:
                counts[r["result"]["type"]] += 1
        created = batch["created_at"]
        expires = (datetime.now(UTC) + timedelta(hours=24)).isoformat().replace("+00:00", "Z")
        return {"id": batch_id, "type": "message_batch", "processing_status": "ended" if ended else "in_progress",
                "request_counts": counts, "ended_at": _now() if ended else None, "created_at": created,
                "expires_at": expires, "cancel_initiated_at": None, "archived_at": None,
                "results_url": f"{self.stub.base_url}/v1/messages/batches/{batch_id}/results" if ended else None}

    def do_GET(self) -> None:  # noqa: N802
        m = re.match(r"^/v1/messages/batches/([^/]+)(/results)?$", self.path.split("?")[0])
        if not m or m.group(1) not in self.stub.batches:
            self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})
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


