"""The ``llm`` section of ``_source-verify.json``: its keys, their defaults, and the prices.

Every key is optional, so a playbook repo's config without the section stays valid. No
Scrapy import; ``sv_scrapy.config`` validates the section with :data:`LLM_SPEC`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sv_scrapy.core.schema import INT, NUM, POS_INT, Bool, MapOf, Obj, Spec, Str

THINKING = ("off", "default", "adaptive")

_LINES: dict[str, Spec] = {"cache_read": NUM, "cache_write_5m": NUM, "cache_write_1h": NUM}
# long_context: the tier a request is billed at, on every line, when its prompt (input + cache reads and
# writes) is over threshold_tokens (Haiku 5.5: 100,000 tokens, 5x)
_LONG = Obj(required={"threshold_tokens": POS_INT, "input": NUM, "output": NUM}, optional=_LINES)
_PRICES = Obj(required={"input": NUM, "output": NUM},
              optional={**_LINES, "batch_discount": NUM, "long_context": _LONG})
# llm.models.<id>: what the Models API does not say about a model: its prices, its caching minimum, and
# the request shape (thinking off/default/adaptive; whether the verdict tool may be forced; output "json":
# the verdict as structured output through output_config.format instead of the tool)
_MODEL = Obj(required={}, optional={"prices_usd_per_mtok": _PRICES, "cache_min_tokens": POS_INT,
                                    "thinking": Str(choices=THINKING), "forced_tool": Bool(),
                                    "output": Str(choices=("tool", "json"))})

LLM_SPEC = Obj(required={}, optional={
    "model": Str(),
    "max_tokens": POS_INT,
    "max_output_tokens": POS_INT,  # the older name of max_tokens
    "max_tokens_retry": POS_INT,
    "thinking": Str(choices=THINKING),
    "concurrency": POS_INT,
    "max_retries": INT,
    "timeout_seconds": NUM,
    "evidence_chars": POS_INT,
    "poll_seconds": NUM,
    "batch_max_requests": POS_INT,
    "batch_max_bytes": POS_INT,
    "count_tokens": Bool(),
    "cache_min_tokens": POS_INT,
    "prices_usd_per_mtok": _PRICES,
    "expected_output_tokens": POS_INT,
    "files_api": Bool(),
    "models": MapOf(_MODEL),
})

# Haiku-class by default, never Opus; prices as published for claude-haiku-5-5 (prompts up to
# 100k tokens) in December 2026 — update them with the model. Cache writes bill 1.25x input
# (5-minute TTL) or 2x (1-hour), reads 0.1x; batch_discount multiplies every line of a batch.
# The batch limits are the Message Batches API's (100,000 requests or 256 MB, whichever comes
# first). cache_min_tokens is the shortest prefix the model caches (Haiku 5.5: 512, per the model
# overview): below it the marker does nothing, so none is sent. Prompts over 100,000 tokens are billed
# at the long-context tier (5x, every line). expected_output_tokens is the expected (not worst-case)
# answer length of the estimate; the worst case is the whole output budget.
# The ``models`` table holds the other models a run may name: Sonnet 5.5 as published in December 2026
# ($2 / $10, cache reads $0.10 since 2026-10-07); it does not take thinking disabled, so the tool is
# never forced there (the Models API says so too).
LLM_DEFAULTS: dict[str, Any] = {
    "model": "claude-haiku-5-5",
    "max_tokens": 1024,
    "max_tokens_retry": 4096,
    "thinking": "off",
    "concurrency": 8,
    "max_retries": 4,
    "timeout_seconds": 120.0,
    "evidence_chars": 1200,
    "poll_seconds": 30.0,
    "batch_max_requests": 100_000,
    "batch_max_bytes": 256_000_000,
    "count_tokens": True,
    "cache_min_tokens": 512,
    "expected_output_tokens": 150,
    "files_api": True,  # scans uploaded once (Files API), named by file_id in every request
    "prices_usd_per_mtok": {"input": 0.10, "output": 0.50, "cache_read": 0.01, "cache_write_5m": 0.125,
                            "cache_write_1h": 0.20, "batch_discount": 0.5,
                            "long_context": {"threshold_tokens": 100_000, "input": 0.50, "output": 2.50,
                                             "cache_read": 0.05, "cache_write_5m": 0.625, "cache_write_1h": 1.00}},
    "models": {
        "claude-sonnet-5-5": {"prices_usd_per_mtok": {"input": 2.0, "output": 10.0, "cache_read": 0.10,
                                                      "cache_write_5m": 2.50, "cache_write_1h": 4.0},
                              "cache_min_tokens": 1024, "thinking": "adaptive", "forced_tool": False},
    },
}


def _lines(raw: Mapping[str, Any]) -> dict[str, float]:
    inp = float(raw["input"])
    return {"input": inp, "output": float(raw["output"]), "cache_read": float(raw.get("cache_read", inp * 0.1)),
            "cache_write_5m": float(raw.get("cache_write_5m", inp * 1.25)),
            "cache_write_1h": float(raw.get("cache_write_1h", inp * 2.0))}


def full_prices(raw: Mapping[str, Any] | None, base: Mapping[str, Any]) -> dict[str, Any]:
    """Every price line: cache writes 1.25x / 2x input and reads 0.1x unless stated; the
    ``long_context`` tier (if any) completed the same way.

    >>> full_prices({"input": 1.0, "output": 5.0}, LLM_DEFAULTS["prices_usd_per_mtok"])["cache_write_1h"]
    2.0
    >>> full_prices(None, LLM_DEFAULTS["prices_usd_per_mtok"])["long_context"]["cache_write_5m"]
    0.625
    """
    raw = raw or base
    out: dict[str, Any] = {**_lines(raw), "batch_discount": float(raw.get("batch_discount", base["batch_discount"]))}
    long = raw.get("long_context")
    if long:
        out["long_context"] = {"threshold_tokens": int(long["threshold_tokens"]), **_lines(long)}
    return out


@dataclass(frozen=True)
class LlmSettings:
    """The ``llm`` section, typed: each key over its default (``LLM_DEFAULTS``)."""

    model: str = LLM_DEFAULTS["model"]
    max_tokens: int = LLM_DEFAULTS["max_tokens"]
    max_tokens_retry: int = LLM_DEFAULTS["max_tokens_retry"]
    thinking: str = LLM_DEFAULTS["thinking"]  # off | default | adaptive
    concurrency: int = LLM_DEFAULTS["concurrency"]
    max_retries: int = LLM_DEFAULTS["max_retries"]
    timeout_seconds: float = LLM_DEFAULTS["timeout_seconds"]
    evidence_chars: int = LLM_DEFAULTS["evidence_chars"]
    poll_seconds: float = LLM_DEFAULTS["poll_seconds"]
    batch_max_requests: int = LLM_DEFAULTS["batch_max_requests"]
    batch_max_bytes: int = LLM_DEFAULTS["batch_max_bytes"]
    count_tokens: bool = LLM_DEFAULTS["count_tokens"]
    cache_min_tokens: int = LLM_DEFAULTS["cache_min_tokens"]
    expected_output_tokens: int = LLM_DEFAULTS["expected_output_tokens"]
    files_api: bool = LLM_DEFAULTS["files_api"]
    # every price line of llm.model (core: llm/cost.py reads them by name)
    prices_usd_per_mtok: dict[str, Any] = field(default_factory=lambda: full_prices(None, LLM_DEFAULTS["prices_usd_per_mtok"]))
    models: dict[str, dict[str, Any]] = field(default_factory=lambda: dict(LLM_DEFAULTS["models"]))


def llm_settings(raw: Mapping[str, Any]) -> LlmSettings:
    """The section over its defaults (``max_output_tokens`` still read as ``max_tokens``)."""
    out = {**LLM_DEFAULTS, **{k: v for k, v in raw.items() if not k.startswith("_")}}
    if "max_tokens" not in raw and "max_output_tokens" in raw:
        out["max_tokens"] = raw["max_output_tokens"]
    out.pop("max_output_tokens", None)
    out["max_tokens_retry"] = max(out["max_tokens_retry"], out["max_tokens"])
    out["prices_usd_per_mtok"] = full_prices(raw.get("prices_usd_per_mtok"), LLM_DEFAULTS["prices_usd_per_mtok"])
    out["models"] = {**LLM_DEFAULTS["models"], **raw.get("models", {})}
    for key in ("timeout_seconds", "poll_seconds"):
        out[key] = float(out[key])
    return LlmSettings(**out)


def model_entry(llm: LlmSettings, model: str) -> dict[str, Any]:
    """``llm.models.<model>``; for ``llm.model`` itself the section's own keys stand in."""
    entry = dict(llm.models.get(model) or {})
    if model == llm.model:
        entry.setdefault("prices_usd_per_mtok", llm.prices_usd_per_mtok)
    entry.setdefault("cache_min_tokens", llm.cache_min_tokens)
    return entry


def for_model(llm: LlmSettings, model: str) -> tuple[dict[str, Any] | None, int]:
    """(prices or None when the config has none for ``model``, its caching minimum)."""
    entry = model_entry(llm, model)
    raw = entry.get("prices_usd_per_mtok")
    prices = full_prices(raw, llm.prices_usd_per_mtok) if raw else None
    return prices, int(entry["cache_min_tokens"])
