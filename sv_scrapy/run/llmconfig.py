"""The ``llm`` section of ``_source-verify.json``: its keys, their defaults, and the prices.

Every key is optional, so a playbook repo's config without the section stays valid. Each key is
declared once, as a field of ``LlmSettings`` (the prices and the per-model table as typed dicts, which
the cost code reads by name). No Scrapy import; ``sv_scrapy.run.config`` validates the whole file.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, NotRequired, cast

from pydantic import AfterValidator, ConfigDict, Field, ValidationInfo, field_validator, model_validator, with_config
from typing_extensions import TypedDict

from sv_scrapy.core.schema import Section, drop_comments

Thinking = Literal["off", "default", "adaptive"]
_TYPED_DICT = ConfigDict(strict=True, extra="forbid")
_Usd = Annotated[float, Field(ge=0, description="USD per million tokens.")]


@with_config(_TYPED_DICT)
class LongContext(TypedDict):
    """``long_context``: the tier a request is billed at, on every line, when its prompt (input + cache
    reads and writes) is over ``threshold_tokens`` (Haiku 5.5: 100,000 tokens, 5x)."""

    threshold_tokens: Annotated[int, Field(ge=1, description="The prompt size above which this tier bills.")]
    input: _Usd
    output: _Usd
    cache_read: NotRequired[_Usd]
    cache_write_5m: NotRequired[_Usd]
    cache_write_1h: NotRequired[_Usd]


@with_config(_TYPED_DICT)
class Prices(TypedDict):
    """A model's prices in USD per million tokens; cache lines default to 0.1x / 1.25x / 2x input."""

    input: _Usd
    output: _Usd
    cache_read: NotRequired[_Usd]
    cache_write_5m: NotRequired[_Usd]
    cache_write_1h: NotRequired[_Usd]
    batch_discount: NotRequired[Annotated[float, Field(ge=0, description="Multiplies every line of a batch.")]]
    long_context: NotRequired[LongContext]


@with_config(_TYPED_DICT)
class ModelEntry(TypedDict, total=False):
    """``llm.models.<id>``: what the Models API does not say about a model: its prices, its caching
    minimum, and the request shape (thinking off/default/adaptive; whether the verdict tool may be forced;
    output "json": the verdict as structured output through output_config.format instead of the tool)."""

    prices_usd_per_mtok: Prices
    cache_min_tokens: Annotated[int, Field(ge=1)]
    thinking: Thinking
    forced_tool: bool
    output: Literal["tool", "json"]


# Prices as published for claude-haiku-5-5 (prompts up to 100k tokens) in December 2026: update them with
# the model. Cache writes bill 1.25x input (5-minute TTL) or 2x (1-hour), reads 0.1x; batch_discount
# multiplies every line of a batch. Sonnet 5.5 ($2 / $10, cache reads $0.10 since 2026-10-07) does not
# take thinking disabled, so the tool is never forced there (the Models API says so too).
HAIKU_PRICES: Prices = {
    "input": 0.10, "output": 0.50, "cache_read": 0.01, "cache_write_5m": 0.125, "cache_write_1h": 0.20,
    "batch_discount": 0.5,
    "long_context": {"threshold_tokens": 100_000, "input": 0.50, "output": 2.50, "cache_read": 0.05,
                     "cache_write_5m": 0.625, "cache_write_1h": 1.00}}
OTHER_MODELS: dict[str, ModelEntry] = {
    "claude-sonnet-5-5": {"prices_usd_per_mtok": {"input": 2.0, "output": 10.0, "cache_read": 0.10,
                                                  "cache_write_5m": 2.50, "cache_write_1h": 4.0},
                          "cache_min_tokens": 1024, "thinking": "adaptive", "forced_tool": False}}


def _lines(raw: Mapping[str, Any]) -> dict[str, float]:
    inp = float(raw["input"])
    return {"input": inp, "output": float(raw["output"]), "cache_read": float(raw.get("cache_read", inp * 0.1)),
            "cache_write_5m": float(raw.get("cache_write_5m", inp * 1.25)),
            "cache_write_1h": float(raw.get("cache_write_1h", inp * 2.0))}


def full_prices(raw: Mapping[str, Any] | None, base: Mapping[str, Any]) -> dict[str, Any]:
    """Every price line: cache writes 1.25x / 2x input and reads 0.1x unless stated; the
    ``long_context`` tier (if any) completed the same way.

    >>> full_prices({"input": 1.0, "output": 5.0}, HAIKU_PRICES)["cache_write_1h"]
    2.0
    >>> full_prices(None, HAIKU_PRICES)["long_context"]["cache_write_5m"]
    0.625
    """
    raw = raw or base
    out: dict[str, Any] = {**_lines(raw), "batch_discount": float(raw.get("batch_discount", base["batch_discount"]))}
    long = raw.get("long_context")
    if long:
        out["long_context"] = {"threshold_tokens": int(long["threshold_tokens"]), **_lines(long)}
    return out


def _completed(prices: Prices) -> Prices:
    return cast(Prices, full_prices(prices, HAIKU_PRICES))


def _with_built_in(models: dict[str, ModelEntry]) -> dict[str, ModelEntry]:
    return {**OTHER_MODELS, **models}


class LlmSettings(Section):
    """``llm``: how `scrapy verify` asks the model, and what it costs."""

    model: str = Field("claude-haiku-5-5",
                       description="The model `scrapy verify` asks (Haiku-class by default, never Opus).")
    max_output_tokens: int | None = Field(
        None, ge=1, description="The older name of max_tokens, read when max_tokens is absent.")
    max_tokens: int = Field(1024, ge=1, description="The output budget of one verdict.")
    max_tokens_retry: int = Field(4096, ge=1, validate_default=True,
                                  description="The output budget of a retry after a cut-off answer (>= max_tokens).")
    thinking: Thinking = Field("off", description="off (the verdict tool forced), default, or adaptive thinking.")
    concurrency: int = Field(8, ge=1, description="Requests in flight at once.")
    max_retries: int = Field(4, ge=0, description="Retries of a failed request.")
    timeout_seconds: float = Field(120.0, ge=0, description="One request's time limit.")
    evidence_chars: int = Field(1200, ge=1, description="Page characters sent as evidence for an absent figure.")
    poll_seconds: float = Field(30.0, ge=0,
                                description="Seconds between polls of a Message Batch (SV_LLM_POLL_SECONDS overrides).")
    batch_max_requests: int = Field(100_000, ge=1, description="Requests per Message Batch (the API's limit).")
    batch_max_bytes: int = Field(256_000_000, ge=1, description="Bytes per Message Batch (the API's limit).")
    count_tokens: bool = Field(True, description="Count a prompt's tokens before sending it (the estimate's source).")
    cache_min_tokens: int = Field(
        512, ge=1, description="The model's shortest cacheable prefix; below it no cache marker is sent.")
    # every price line of llm.model, completed (llm/cost.py reads them by name)
    prices_usd_per_mtok: Annotated[Prices, AfterValidator(_completed)] = Field(
        HAIKU_PRICES, validate_default=True,
        description="llm.model's prices in USD per million tokens; cache lines default to 0.1x / 1.25x / 2x input.")
    expected_output_tokens: int = Field(150, ge=1, description="The expected answer length of the cost estimate.")
    files_api: bool = Field(True, description="Upload scans once (Files API) and name them by file_id.")
    models: Annotated[dict[str, ModelEntry], AfterValidator(_with_built_in)] = Field(
        OTHER_MODELS, validate_default=True,
        description="Other models a run may name (--model): prices, caching minimum, thinking, forced_tool, output.")

    @model_validator(mode="before")
    @classmethod
    def _older_name(cls, data: Any) -> Any:
        """``max_output_tokens`` still read as ``max_tokens`` when that is absent."""
        if isinstance(data, dict) and "max_tokens" not in data and "max_output_tokens" in data:
            return {**data, "max_tokens": data["max_output_tokens"]}
        return data

    @field_validator("max_tokens_retry")
    @classmethod
    def _at_least_one_answer(cls, value: int, info: ValidationInfo) -> int:
        return max(value, int(info.data.get("max_tokens", value)))


def llm_settings(raw: Mapping[str, Any]) -> LlmSettings:
    """The section over its defaults (tests and tools; the loader validates the whole file)."""
    return LlmSettings.model_validate(drop_comments(dict(raw)))


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
