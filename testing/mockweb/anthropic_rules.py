"""The Messages, Models, Files and Batches APIs' rules as the stub holds them (from the API's
documentation), apart from the server that answers with them (``anthropic_stub``): each model's
capabilities and caching minimum (``MODELS``), token counting at 2.5 characters a token and
1,500 a PDF page, the checks a request must pass (``check_params``: ``max_tokens`` required, a
forced tool refused next to thinking, thinking budgets, PDFs over 100 pages, citations into a PDF
without a text layer, strict tools where the model has structured outputs), and a refusal as the
API words it (``Refused``)."""

from __future__ import annotations

import base64
import json
import re
from typing import Any

_CLAIM_ID = re.compile(r'"claim_id":\s*"([^"]+)"')
CUSTOM_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")
PAGE_TOKENS = 1500
MAX_REQUEST_BYTES = 32_000_000
TTL_SECONDS = {"5m": 300.0, "1h": 3600.0}
# id -> what the model takes: thinking disabled / adaptive, a forced tool, strict tools; its caching minimum
MODELS: dict[str, dict[str, Any]] = {
    "claude-haiku-5-5": {"disabled": True, "adaptive": True, "forced_tool": True, "structured": True,
                         "cache_min": 512, "display_name": "Claude Haiku 5.5"},
    "claude-sonnet-5-5": {"disabled": False, "adaptive": True, "forced_tool": False, "structured": True,
                          "cache_min": 1024, "display_name": "Claude Sonnet 5.5"},
}
SPEND_LIMIT_MESSAGE = ("You have reached your specified API usage limits. You will regain access on "
                       "2027-01-01 at 00:00 UTC.")


def model_info(model_id: str, rules: dict[str, Any]) -> dict[str, Any]:
    def yes(flag: bool) -> dict[str, bool]:
        return {"supported": flag}

    return {"type": "model", "id": model_id, "display_name": rules.get("display_name", model_id),
            "created_at": "2026-10-07T00:00:00Z", "lifecycle": rules.get("lifecycle", "active"),
            "max_input_tokens": 200_000, "max_tokens": rules.get("max_tokens", 64_000),
            "capabilities": {
                "batch": yes(True), "citations": yes(True), "code_execution": yes(False),
                "context_management": {"supported": False, "clear_thinking_20251015": None,
                                       "clear_tool_uses_20250919": None, "compact_20260112": None},
                "effort": {"supported": False, "low": None, "medium": None, "high": None, "max": None},
                "image_input": yes(True), "pdf_input": yes(True),
                "server_tools": {"supported": False},
                "structured_outputs": yes(bool(rules.get("structured", True))),
                "thinking": {"supported": True, "types": {
                    "adaptive": yes(bool(rules.get("adaptive", True))), "between_tools": yes(False),
                    "disabled": yes(bool(rules.get("disabled", True))), "enabled": yes(False)}}}}


class Refused(Exception):  # noqa: N818
    def __init__(self, status: int, etype: str, message: str) -> None:
        super().__init__(message)
        self.status, self.etype, self.message = status, etype, message


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])


FILES: dict[str, bytes] = {}  # Files API uploads (ids are unique across stubs), file_id -> bytes


def documents(params: dict[str, Any]) -> list[tuple[dict[str, Any], bytes]]:
    out = []
    for message in params.get("messages", []):
        for block in _blocks(message):
            source = block.get("source", {}) if block.get("type") == "document" else {}
            if source.get("type") == "base64":
                out.append((block, base64.b64decode(source.get("data", ""))))
            elif source.get("type") == "file":
                if source.get("file_id") not in FILES:
                    raise Refused(404, "not_found_error", f"file_id {source.get('file_id')!r}: no such file")
                out.append((block, FILES[source["file_id"]]))
    return out


def multipart_file(content_type: str, raw: bytes) -> bytes | None:
    """The ``file`` part of a multipart/form-data body."""
    from email.parser import BytesParser
    from email.policy import HTTP

    message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
    for part in message.iter_parts():
        if part.get_param("name", header="content-disposition") == "file":
            payload = part.get_payload(decode=True)
            return payload if isinstance(payload, bytes) else None
    return None


def pdf_pages(data: bytes) -> int:
    return max(1, len(_PAGE.findall(data)))


def pdf_has_text(data: bytes) -> bool:
    from sv_scrapy.core.page.pdf import pdf_to_text

    return pdf_to_text(data).has_text


def prefix_chars(params: dict[str, Any]) -> int:
    return len(json.dumps(params.get("tools", []))) + sum(len(b.get("text", "")) for b in params.get("system") or []
                                                          if isinstance(b, dict))


def tokens_of_chars(chars: int) -> int:
    return chars * 2 // 5


def count_input_tokens(params: dict[str, Any]) -> int:
    system = params.get("system") or []
    chars = prefix_chars(params) + (len(system) if isinstance(system, str) else 0)
    tokens = 0
    for message in params.get("messages", []):
        for block in _blocks(message):
            if block.get("type") == "text":
                chars += len(block.get("text", ""))
    for _, data in documents(params):
        tokens += pdf_pages(data) * PAGE_TOKENS
    return tokens_of_chars(chars) + tokens


def claim_id_of(params: dict[str, Any]) -> str:
    for message in params.get("messages", []):
        for block in _blocks(message):
            m = _CLAIM_ID.search(block.get("text", "")) if block.get("type") == "text" else None
            if m:
                return m.group(1)
    return ""


def check_params(params: dict[str, Any], counting: bool = False, models: dict[str, dict[str, Any]] | None = None
                 ) -> None:
    """The API's request rules the client must keep; raise ``Refused`` like the API answers."""
    if not params.get("model"):
        raise Refused(400, "invalid_request_error", "model: Field required")
    rules = (models if models is not None else MODELS).get(params["model"])
    if rules is None or rules.get("lifecycle") == "retired":
        raise Refused(404, "not_found_error", f"model: {params['model']}")
    if not counting and params["max_tokens"] > int(rules.get("max_tokens", 64_000)):
        raise Refused(400, "invalid_request_error", f"max_tokens: at most {rules.get('max_tokens', 64_000)} "
                                                    f"for this model")
    thinking_type = (params.get("thinking") or {}).get("type")
    if thinking_type == "disabled" and not rules.get("disabled", True):
        raise Refused(400, "invalid_request_error", "thinking.type: 'disabled' is not supported for this model")
    if thinking_type == "adaptive" and not rules.get("adaptive", True):
        raise Refused(400, "invalid_request_error", "thinking.type: 'adaptive' is not supported for this model")
    if (params.get("tool_choice") or {}).get("type") in ("tool", "any") and not rules.get("forced_tool", True):
        raise Refused(400, "invalid_request_error", "tool_choice: forcing tool use is not supported for this model")
    output_format = (params.get("output_config") or {}).get("format")
    if output_format is not None and not rules.get("structured", True):
        raise Refused(400, "invalid_request_error", "output_config.format: not supported for this model")
    if output_format is not None and output_format.get("type") != "json_schema":
        raise Refused(400, "invalid_request_error", "output_config.format.type: must be json_schema")
    if output_format is not None and any((d.get("citations") or {}).get("enabled") for d, _ in documents(params)):
        raise Refused(400, "invalid_request_error", "citations are not supported with output_config.format")
    if any(t.get("strict") for t in params.get("tools", [])) and not rules.get("structured", True):
        raise Refused(400, "invalid_request_error", "tools.0.strict: not supported for this model")
    if not counting and (not isinstance(params.get("max_tokens"), int) or params["max_tokens"] < 1):
        raise Refused(400, "invalid_request_error", "max_tokens: Field required")
    if not params.get("messages"):
        raise Refused(400, "invalid_request_error", "messages: at least one message is required")
    thinking = params.get("thinking") or {}
    kind = (params.get("tool_choice") or {}).get("type")
    if thinking.get("type") == "enabled":
        budget = thinking.get("budget_tokens", 0)
        if budget < 1024 or (not counting and budget >= params["max_tokens"]):
            raise Refused(400, "invalid_request_error", "thinking.budget_tokens: must be >= 1024 and < max_tokens")
    if thinking.get("type") in ("enabled", "adaptive") and kind in ("tool", "any"):
        raise Refused(400, "invalid_request_error", "Thinking may not be enabled when tool_choice forces tool use.")
    if kind == "tool" and params["tool_choice"].get("name") not in {t.get("name") for t in params.get("tools", [])}:
        raise Refused(400, "invalid_request_error", "tool_choice.name: no tool of that name")
    for block in params.get("system") or []:
        ttl = (block.get("cache_control") or {}).get("ttl", "5m") if isinstance(block, dict) else "5m"
        if ttl not in TTL_SECONDS:
            raise Refused(400, "invalid_request_error", "cache_control.ttl: must be 5m or 1h")
    for _, data in documents(params):
        if pdf_pages(data) > 100:
            raise Refused(400, "invalid_request_error", "A maximum of 100 PDF pages may be provided.")
