"""Two audits of one output folder, one after the other in one process (a script, the in-process
tests): each is a run of its own. The second takes the folder the first let go, reads the config
as it is now and starts its own ``SV_NOW`` clock — nothing is kept by the process between them."""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path

import pytest

from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb

from .test_clock_behind import PAGE, one_page, serve_page

NOW = "2027-03-01T03:00:00+00:00"


def test_a_second_crawl_in_the_process_has_its_own_lock_config_and_clock(tmp_path: Path) -> None:
    config, corpus, out = one_page(tmp_path)
    with MockWeb() as web:
        serve_page(web)
        first = crawl_in_process("audit", corpus=corpus, config=config, output=out, proxy_env=web.env(),
                                 extra_env={"SV_NOW": NOW})
        assert first.returncode == 0, first.stderr[-2000:]
        asked_first = len(web.requests_for(PAGE))
        # between the runs: the host is excluded, and time passes on the process's clock
        liveness = config / "_url-liveness.json"
        data = json.loads(liveness.read_text(encoding="utf-8"))
        data["excluded_hosts"].append({"host": "www.impots.gouv.fr", "reason": "excluded between the runs"})
        liveness.write_text(json.dumps(data), encoding="utf-8")
        time.sleep(1.5)  # more than the second the check allows
        started = time.monotonic()
        second = crawl_in_process("audit", corpus=corpus, config=config, output=out, proxy_env=web.env(),
                                  extra_env={"SV_NOW": NOW})
        took = time.monotonic() - started
        asked_second = len(web.requests_for(PAGE)) - asked_first
    assert asked_first >= 1
    assert second.returncode == 0, second.stderr[-2000:]  # the folder was let go: not 75
    assert asked_second == 0  # the config as it is now, not the first run's
    generated = json.loads((out / "audit" / "audit.json").read_text(encoding="utf-8"))["generated_at"]
    # its own clock, started at SV_NOW when it began: not the first run's, run on past the pause
    assert (datetime.fromisoformat(generated) - datetime.fromisoformat(NOW)).total_seconds() <= took + 1


@pytest.mark.pacing  # an upper bound on time (pyproject.toml): ~0.1 s here, 5 s on the engine's heartbeat
def test_an_audit_with_nothing_to_fetch_closes_once_its_items_are_kept(tmp_path: Path) -> None:
    """Every claim's host excluded: ``start()`` yields the claims' items and no request, and no request
    ends after them to make Scrapy ask whether the spider is idle; the journey asks once the items have
    left the pipelines (``extensions/journey.py``), where the engine asked on its 5-s heartbeat."""
    config, corpus, out = one_page(tmp_path)
    liveness = config / "_url-liveness.json"
    data = json.loads(liveness.read_text(encoding="utf-8"))
    data["excluded_hosts"].append({"host": "www.impots.gouv.fr", "reason": "nothing to fetch"})
    liveness.write_text(json.dumps(data), encoding="utf-8")
    with MockWeb() as web:
        result = crawl_in_process("audit", corpus=corpus, config=config, output=out, proxy_env=web.env(),
                                  extra_env={"SV_NOW": NOW})
        asked = list(web.log)
    assert result.returncode == 0, result.stderr[-2000:]
    assert asked == [] and result.stats["item_scraped_count"] == 1
    assert result.stats["elapsed_time_seconds"] < 1.0, result.stats["elapsed_time_seconds"]
