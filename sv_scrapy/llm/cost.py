"""Tokens and dollars as the API bills them. Pure: no SDK, no network.

The Messages API's ``usage.input_tokens`` already *excludes* the prompt-cache lines: a
request's input is ``input_tokens + cache_creation_input_tokens + cache_read_input_tokens``,
each billed at its own rate (writes by TTL, from ``usage.cache_creation``). Every attempt
is billed, including an answer cut off at ``max_tokens`` that had to be asked again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

PDF_PAGE_TOKENS = 3000  # generous: a page is sent as an image and its text (~1,500–3,000 tokens)
CHARS_PER_TOKEN = 3  # deliberately high for an estimate; the API's own count replaces it when reachable


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
        one_hour = get(detail, "ephemeral_1h_input_tokens") if detail is not None else 0
        five_min = get(detail, "ephemeral_5m_input_tokens") if detail is not None else created
        if detail is not None and five_min + one_hour < created:
            five_min = created - one_hour
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


def total(usages: Iterable[Usage]) -> Usage:
    out = Usage()
    for usage in usages:
        out.add(usage)
    return out


def cost_usd(usage: Usage, prices: Mapping[str, float], batch: bool) -> float:
    """USD for ``usage`` at ``prices`` (per million tokens); a batch gets ``batch_discount`` on every line.

    >>> p = {"input": 1.0, "output": 5.0, "cache_read": 0.1, "cache_write_5m": 1.25, "cache_write_1h": 2.0,
    ...      "batch_discount": 0.5}
    >>> round(cost_usd(Usage(1000, 100, 4000, 0, 0, 1), p, batch=False), 6)
    0.0019
    >>> round(cost_usd(Usage(1000, 100, 0, 0, 4000, 1), p, batch=True), 6)
    0.00475
    """
    dollars = (usage.input_tokens * prices["input"] + usage.output_tokens * prices["output"]
               + usage.cache_read_input_tokens * prices["cache_read"]
               + usage.cache_write_5m_tokens * prices["cache_write_5m"]
               + usage.cache_write_1h_tokens * prices["cache_write_1h"]) / 1_000_000
    return dollars * (prices["batch_discount"] if batch else 1.0)


def estimate_cost(input_tokens: int, output_tokens: int, prices: Mapping[str, float], batch: bool) -> float:
    """An upper bound: every input token at the full input price, every call using its whole budget."""
    return cost_usd(Usage(input_tokens, output_tokens), prices, batch)


def cache_hit_share(usage: Usage) -> float:
    """Share of the prompt tokens read from the cache."""
    return usage.cache_read_input_tokens / usage.prompt_tokens if usage.prompt_tokens else 0.0
