"""Tokens and dollars as the API bills them. Pure: no SDK, no network.

The Messages API's ``usage.input_tokens`` already *excludes* the prompt-cache lines: a
request's input is ``input_tokens + cache_creation_input_tokens + cache_read_input_tokens``,
each billed at its own rate (writes by TTL, from ``usage.cache_creation``). Every attempt
is billed, including an answer cut off at ``max_tokens`` that had to be asked again.

Each request is priced on its own: one whose prompt (input + cache reads + cache writes) is over
the ``long_context`` threshold is billed at that tier on every line, output included. The
estimate gives an expected figure (the prefix read from the cache, a typical answer) and a
worst case (no cache, every call using its whole output budget) side by side.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

PDF_PAGE_TOKENS = 3000  # generous: a page is sent as an image and its text (~1,500–3,000 tokens)
CHARS_PER_TOKEN = 2.5  # the current tokenizer's ~2.5 characters a token; the API's count replaces it when reachable


def tokens_of(chars: int) -> int:
    """Characters to tokens by the fallback ratio (rounded up)."""
    return -(-int(chars * 2) // int(CHARS_PER_TOKEN * 2))


@dataclass
class Usage:
    """One or more calls' usage, field by field as the API reports it."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_write_5m_tokens: int = 0
    cache_write_1h_tokens: int = 0
    calls: int = 0

    @classmethod
    def from_api(cls, usage: Any) -> Usage:
        """From an SDK ``Usage`` (or its dict): a write without a TTL breakdown counts as 5-minute."""

        def get(obj: Any, name: str) -> int:
            value = obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)
            return int(value or 0)

        if usage is None:
            return cls()
        created = get(usage, "cache_creation_input_tokens")
        detail = usage.get("cache_creation") if isinstance(usage, Mapping) else getattr(usage, "cache_creation", None)
        one_hour, five_min = 0, created
        if detail is not None:
            one_hour = get(detail, "ephemeral_1h_input_tokens")
            five_min = max(get(detail, "ephemeral_5m_input_tokens"), created - one_hour)
        return cls(get(usage, "input_tokens"), get(usage, "output_tokens"), get(usage, "cache_read_input_tokens"),
                   five_min, one_hour, 1)

    def add(self, other: Usage) -> None:
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)

    @property
    def prompt_tokens(self) -> int:
        """Every input token sent, whatever its billing line."""
        return self.input_tokens + self.cache_read_input_tokens + self.cache_write_5m_tokens + self.cache_write_1h_tokens

    def as_dict(self) -> dict[str, int]:
        return {**asdict(self), "prompt_tokens": self.prompt_tokens}


def tier(prices: Mapping[str, Any], prompt_tokens: int) -> Mapping[str, Any]:
    """The price lines a request of ``prompt_tokens`` is billed at (the long-context tier above its threshold).

    >>> p = {"input": 0.1, "output": 0.5, "long_context": {"threshold_tokens": 100, "input": 0.5, "output": 2.5}}
    >>> tier(p, 100)["input"], tier(p, 101)["input"]
    (0.1, 0.5)
    """
    long = prices.get("long_context")
    if long and prompt_tokens > int(long["threshold_tokens"]):
        return {**prices, **long}
    return prices


def call_cost(usage: Usage, prices: Mapping[str, Any], batch: bool) -> float:
    """USD for one request's usage, at the tier its prompt length selects."""
    return cost_usd(usage, tier(prices, usage.prompt_tokens), batch)


def billed(calls: Iterable[Usage], prices: Mapping[str, Any] | None, batch: bool) -> float | None:
    """USD for every request, each at its own tier; None when the model has no prices."""
    if prices is None:
        return None
    return sum(call_cost(u, prices, batch) for u in calls)


def worst_cost(input_tokens: int, max_tokens: int, prices: Mapping[str, Any], batch: bool) -> float:
    """The most one request can cost: every input token at the dearest input line (a cache write
    costs more than plain input), the whole output budget, at the tier its length selects."""
    lines = tier(prices, input_tokens)
    per_input = max(lines["input"], lines.get("cache_write_5m", 0.0), lines.get("cache_write_1h", 0.0))
    dollars = float(input_tokens * per_input + max_tokens * lines["output"]) / 1_000_000
    return dollars * (float(prices["batch_discount"]) if batch else 1.0)


def expected_cost(inputs: Iterable[int], prefix_tokens: int, output_tokens: int, prices: Mapping[str, Any],
                  batch: bool, cache_ttl: str | None) -> float:
    """The expected cost: the prefix written once and read by every other request when cached,
    a typical answer of ``output_tokens``."""
    total_usd = 0.0
    for n, tokens in enumerate(inputs):
        read = written = 0
        if cache_ttl and n == 0:
            written = prefix_tokens
        elif cache_ttl:
            read = prefix_tokens
        usage = Usage(max(0, tokens - read - written), output_tokens, read,
                      written if cache_ttl == "5m" else 0, written if cache_ttl == "1h" else 0, 1)
        total_usd += call_cost(usage, prices, batch)
    return total_usd


def total(usages: Iterable[Usage]) -> Usage:
    out = Usage()
    for usage in usages:
        out.add(usage)
    return out


def cost_usd(usage: Usage, prices: Mapping[str, Any], batch: bool) -> float:
    """USD for ``usage`` at ``prices`` (per million tokens); a batch gets ``batch_discount`` on every line.

    >>> p = {"input": 1.0, "output": 5.0, "cache_read": 0.1, "cache_write_5m": 1.25, "cache_write_1h": 2.0,
    ...      "batch_discount": 0.5}
    >>> round(cost_usd(Usage(1000, 100, 4000, 0, 0, 1), p, batch=False), 6)
    0.0019
    >>> round(cost_usd(Usage(1000, 100, 0, 0, 4000, 1), p, batch=True), 6)
    0.00475
    """
    dollars: float = (usage.input_tokens * prices["input"] + usage.output_tokens * prices["output"]
               + usage.cache_read_input_tokens * prices["cache_read"]
               + usage.cache_write_5m_tokens * prices["cache_write_5m"]
               + usage.cache_write_1h_tokens * prices["cache_write_1h"]) / 1_000_000
    return dollars * (float(prices["batch_discount"]) if batch else 1.0)


def cache_hit_share(usage: Usage) -> float:
    """Share of the prompt tokens read from the cache."""
    return usage.cache_read_input_tokens / usage.prompt_tokens if usage.prompt_tokens else 0.0
