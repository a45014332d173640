"""The politeness policy's types (``_url-liveness.json``): loaded and validated by ``config.py``,
used by the pacer (``core/politeness.py``) and the components; they live in core so that core
imports nothing outside it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HostPolicy:
    """How hard one host may be hit: parallel requests and the gap between request starts."""

    concurrency: int
    interval_ms: int
    reason: str = ""


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
