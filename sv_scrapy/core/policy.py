"""The politeness policy's types (``_url-liveness.json``): loaded and validated by ``config.py``,
used by the pacer (``core/politeness.py``) and the components; they live in core so that core
imports nothing outside it."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field
from pydantic.dataclasses import dataclass as model_dataclass

from sv_scrapy.core.schema import DATACLASS_CONFIG


@model_dataclass(frozen=True, config=DATACLASS_CONFIG)
class HostPolicy:
    """How hard one host may be hit: parallel requests and the gap between request starts (a pydantic
    dataclass: ``gov_suffix_default`` and each ``per_host_overrides`` entry are validated as one, and the
    core still builds it by position)."""

    concurrency: int = Field(ge=1, description="Requests in flight to the host at once.")
    interval_ms: int = Field(ge=0, description="The floor between two request starts, in milliseconds.")
    reason: str = Field("", description="Why the host has its own policy.")


@dataclass(frozen=True)
class Liveness:
    """The politeness policy of ``_url-liveness.json``; never redefined elsewhere."""

    concurrency: int
    req_per_sec: float
    default_policy: HostPolicy
    gov_policy: HostPolicy
    per_host: dict[str, HostPolicy]
    request_timeout_seconds: float
    max_retries: int
    retry_backoff_seconds: tuple[float, ...]
    retry_jitter_pct: float
    fail_streak_for_dead: int
    user_agent_template: str
    follow_redirects_max: int
    excluded_hosts: dict[str, str]
    indeterminate_status_codes: frozenset[int]
    cloudflare_headers: tuple[str, ...]
    cloudflare_titles: tuple[str, ...]

    def user_agent(self, version: str) -> str:
        return self.user_agent_template.replace("{version}", version)
