"""The ``llm`` section of ``_source-verify.json``: its keys, their defaults, and the prices.

Every key is optional, so a playbook repo's config without the section stays valid. No
Scrapy import; ``sv_scrapy.config`` validates the section with :data:`LLM_SPEC`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sv_scrapy.core.schema import INT, NUM, POS_INT, Bool, MapOf, Obj, Str

THINKING = ("off", "default", "adaptive")

_PRICES = Obj(required={"input": NUM, "output": NUM},
              optional={"cache_read": NUM, "cache_write_5m": NUM, "cache_write_1h": NUM, "batch_discount": NUM})

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
    "models": MapOf(Obj(required={}, optional={"prices_usd_per_mtok": _PRICES, "cache_min_tokens": POS_INT})),
})

# Haiku-class by default, never Opus; prices as published for claude-haiku-5-5 (prompts up to
# 100k tokens) in December 2026 — update them with the model. Cache writes bill 1.25x input
# (5-minute TTL) or 2x (1-hour), reads 0.1x; batch_discount multiplies every line of a batch.
# The batch limits are the Message Batches API's (100,000 requests or 256 MB, whichever comes
# first). cache_min_tokens is the shortest prefix the model caches (Haiku-class: 4,096): below
# it the marker does nothing, so none is sent.
LLM_DEFAULTS: dict[str, Any] = {
    "model": "claude-haiku-5-5",
    "max_tokens": 1024,
    "max_tokens_retry": 4096,
    "thinking": "off",
    "concurrency": 8,
    "max_retries": 4,
    "timeout_seconds": 120.0,
    "evidence_chars": 4000,
    "poll_seconds": 30.0,
    "batch_max_requests": 100_000,
    "batch_max_bytes": 256_000_000,
    "count_tokens": True,
    "cache_min_tokens": 4096,
    "prices_usd_per_mtok": {"input": 0.10, "output": 0.50, "cache_read": 0.01, "cache_write_5m": 0.125,
                            "cache_write_1h": 0.20, "batch_discount": 0.5},
    "models": {},
}


def full_prices(raw: Mapping[str, Any] | None, base: Mapping[str, float]) -> dict[str, float]:
    """Every price line: cache writes 1.25x / 2x input and reads 0.1x unless stated.

    >>> full_prices({"input": 1.0, "output": 5.0}, LLM_DEFAULTS["prices_usd_per_mtok"])["cache_write_1h"]
    2.0
    """
    if not raw:
        return dict(base)
    inp = float(raw["input"])
    return {"input": inp, "output": float(raw["output"]), "cache_read": float(raw.get("cache_read", inp * 0.1)),
            "cache_write_5m": float(raw.get("cache_write_5m", inp * 1.25)),
            "cache_write_1h": float(raw.get("cache_write_1h", inp * 2.0)),
            "batch_discount": float(raw.get("batch_discount", base["batch_discount"]))}


def llm_settings(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The section over its defaults (``max_output_tokens`` still read as ``max_tokens``)."""
    out = {**LLM_DEFAULTS, **{k: v for k, v in raw.items() if not k.startswith("_")}}
    if "max_tokens" not in raw and "max_output_tokens" in raw:
        out["max_tokens"] = raw["max_output_tokens"]
    out.pop("max_output_tokens", None)
    out["max_tokens_retry"] = max(out["max_tokens_retry"], out["max_tokens"])
    out["prices_usd_per_mtok"] = full_prices(raw.get("prices_usd_per_mtok"), LLM_DEFAULTS["prices_usd_per_mtok"])
    out["models"] = dict(raw.get("models", {}))
    return out


def for_model(llm: Mapping[str, Any], model: str) -> tuple[dict[str, float], int, bool]:
    """(prices, cache minimum, known) for ``model``: its ``models`` entry over the defaults."""
    entry = llm["models"].get(model)
    if entry is None:
        return dict(llm["prices_usd_per_mtok"]), int(llm["cache_min_tokens"]), model == llm["model"]
    prices = full_prices(entry.get("prices_usd_per_mtok"), llm["prices_usd_per_mtok"])
    return prices, int(entry.get("cache_min_tokens", llm["cache_min_tokens"])), True
