"""The audit's heartbeat: ``SV_HEALTHCHECK_URL`` is pinged when the audit starts, ends well or
fails — ``<url>/start``, ``<url>``, ``<url>/fail`` (the healthchecks.io convention that cron
monitors share), so a month that never ran, or ran and failed, is noticed by something that
is not the run itself.

A ping is a POST whose body is the run's one line (healthchecks keeps it as the ping's log),
with a short timeout, through the standard proxy variables (``https_proxy``, ``NO_PROXY``…,
as ``urllib`` reads them). A ping that fails is one warning, never the run's failure.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from dataclasses import dataclass, field
from urllib.parse import urlsplit

TIMEOUT_S = 10.0


def redacted(url: str) -> str:
    """A ping URL for a warning: its path is the check's secret, so only scheme and host.

    >>> redacted("https://hc-ping.com/6f1b0c1e-aaaa-bbbb-cccc-0123456789ab/start")
    'https://hc-ping.com/…'
    """
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname or '?'}/…"


@dataclass
class Heartbeat:
    url: str  # empty: no heartbeat
    timeout_s: float = TIMEOUT_S
    warnings: list[str] = field(default_factory=list)  # at most one: the first ping that failed

    def start(self) -> None:
        self._ping("/start", "")

    def finish(self, exit_status: int, line: str = "") -> None:
        self._ping("" if exit_status == 0 else "/fail", line or f"exit status {exit_status}")

    def _ping(self, suffix: str, body: str) -> None:
        if not self.url:
            return
        target = self.url.rstrip("/") + suffix
        request = urllib.request.Request(target, data=body.encode("utf-8")[:100_000], method="POST",
                                         headers={"Content-Type": "text/plain; charset=utf-8",
                                                  "User-Agent": "sv_scrapy heartbeat"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as answer:  # noqa: S310 - http(s) by config
                answer.read(1024)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            if not self.warnings:
                reason = getattr(exc, "reason", None) or exc
                self.warnings.append(f"healthcheck ping to {redacted(target)} failed ({reason}); the run goes on")
