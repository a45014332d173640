"""What the monthly audit tells whoever watches the timer, whatever runs it (cron, systemd,
scrapyd, Actions): the heartbeat pings (``ops.heartbeat``) and ``<SV_OUTPUT_DIR>/metrics.prom``
(``core.audit.metrics``), both at the end of every audit that got past its checks."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sv_scrapy.core.atomic import write_text
from sv_scrapy.core.audit.metrics import RunMetrics, last_success, prometheus_text
from sv_scrapy.core.clock import Clock
from sv_scrapy.core.errors import OutputError
from sv_scrapy.ops.heartbeat import Heartbeat
from sv_scrapy.run.registry import env

METRICS_FILE = "metrics.prom"


def healthcheck_url() -> str:
    """``SV_HEALTHCHECK_URL``: where the heartbeat pings; empty, none."""
    return env("SV_HEALTHCHECK_URL").strip()


class AuditMonitor:
    def __init__(self, output_dir: Path, clock: Clock, heartbeat: Heartbeat) -> None:
        self.output_dir = output_dir
        self.clock = clock
        self.heartbeat = heartbeat
        self.began = time.monotonic()

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any], clock: Clock) -> AuditMonitor:
        return cls(Path(settings["SV_OUTPUT_DIR"]), clock, Heartbeat(healthcheck_url()))

    def start(self) -> None:
        self.heartbeat.start()

    def finish(self, exit_status: int, line: str, stats: Mapping[str, Any] | None) -> tuple[int, str]:
        """Write ``metrics.prom`` and ping; returns the run's final (exit status, one line): a
        metrics file that cannot be written is a promised output missing, so a good run fails."""
        path = self.output_dir / METRICS_FILE
        try:
            previous = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            previous = ""
        ended = self.clock.now().timestamp()
        ok = exit_status == 0
        metrics = RunMetrics(ended_at=ended, success=ok, duration_s=time.monotonic() - self.began,
                             last_success_at=ended if ok else last_success(previous), stats=stats)
        try:
            write_text(path, prometheus_text(metrics))
        except OutputError as exc:
            if ok:
                exit_status, line = 1, str(exc)
        self.heartbeat.finish(exit_status, line)
        return exit_status, line
