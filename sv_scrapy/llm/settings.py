"""The ``llm`` section of ``_source-verify.json``: its keys, their defaults, and the prices.

Every key is optional, so a playbook repo's config without the section stays valid. No
Scrapy import; ``sv_scrapy.config`` validates the whole file with the registry's spec.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sv_scrapy import registry

THINKING = registry.THINKING
# the section's checker and defaults, declared once in sv_scrapy/registry.py (prices, models and why)
LLM_SPEC = registry.spec_of(registry.SOURCE_VERIFY, "llm")
LLM_DEFAULTS: dict[str, Any] = registry.section_defaults(registry.SOURCE_VERIFY, "llm")


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
