"""What the benches divide a run's wall by: the politeness lower bound of the requests in the
mock web's log, and the span from their first start to their last."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from sv_scrapy.core.politeness import floor_seconds, policy_for
from sv_scrapy.run.config import load_config
from testing.mockweb.server import LogEntry


def politeness_bound(log: list[LogEntry], config_dir: Path, share: float = 1.0) -> float:
    """The time the rules alone force on the log's GETs, every answer instant: the larger of, over
    hosts, (requests − 1) × the host's floor (robots.txt counted, overrides included), and (all
    requests − 1) ÷ the global cap (times ``share``, a part's Nth of it)."""
    cfg = load_config(config_dir)
    per_host = Counter(e.url.split("/")[2] for e in log if e.method == "GET")
    host_bound = max((n - 1) * floor_seconds(policy_for(h, cfg.liveness, cfg.hosts)) for h, n in per_host.items())
    return max(host_bound, (sum(per_host.values()) - 1) / (cfg.liveness.req_per_sec * share))


def span(log: list[LogEntry]) -> float:
    """Seconds from the log's first GET to its last (when a handler read each request line)."""
    starts = sorted(e.t for e in log if e.method == "GET")
    return starts[-1] - starts[0]
