"""Signs of life for whoever watches the timer: the healthchecks-style heartbeat
(SV_HEALTHCHECK_URL) and <SV_OUTPUT_DIR>/metrics.prom, judged from a loopback ping server
(tests/conftest.py's `pings`) and from the textfile parsed by prometheus_client's own parser,
all in-process; `scrapy crawl audit` and a CrawlerProcess script side by side, as
subprocesses, are in tests/test_cli.py."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from testing.crawl import FAST_LIVENESS, make_config, write_corpus
from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb, Route

from .test_scrapyd import free_port

FILLER = "<p>" + "How the duty is assessed and collected, and by whom. " * 6 + "</p>"
URLS = [f"https://www.douane.gouv.fr/t{i}" for i in range(4)]
CORPUS = "# T\n\n**Last verified**: 2026-11-01\n\n" + "\n".join(
    f"- duty {i + 1}.5 % ([t]({u}))" for i, u in enumerate(URLS)) + "\n"
NOW = "2027-02-01T03:17:00Z"


def audit(tmp_path: Path, web: MockWeb, ping_url: str, out: str = "out") -> Any:
    corpus = write_corpus(tmp_path / "corpus", {"countries/fr/playbook.md": CORPUS})
    config = tmp_path / "config"
    if not config.exists():
        make_config(config, liveness=FAST_LIVENESS)
    # the ping honours the proxy variables: loopback is exempted by NO_PROXY, as a real setup would
    return crawl_in_process("audit", corpus=corpus, config=config, output=tmp_path / out, proxy_env=web.env(),
                            extra_env={"SV_HEALTHCHECK_URL": ping_url, "SV_NOW": NOW, "NO_PROXY": "127.0.0.1,localhost"})


def serve(web: MockWeb, up: bool = True) -> None:
    for i, url in enumerate(URLS):
        web.route(url, Route(body=f"<html><body><p>Taux {i + 1},5 %.</p>{FILLER}</body></html>") if up
                  else Route(reset_after=0))
        web.route(url.rsplit("/", 1)[0] + "/robots.txt", Route(status=404) if up else Route(reset_after=0))


def metrics(path: Path) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(path.read_text(encoding="utf-8")):
        assert family.type == "gauge"
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def test_a_good_audit_pings_start_then_success_and_its_metrics_equal_audit_json(tmp_path: Path, pings) -> None:
    record, url = pings
    with MockWeb() as web:
        serve(web)
        assert audit(tmp_path, web, url).exit_status == 0
        serve(web)
        result = audit(tmp_path, web, url)  # a second month: 304s
    assert result.exit_status == 0 and "warning" not in result.stderr
    assert [p for p, _ in record.seen] == ["/ping/5e1c-check/start", "/ping/5e1c-check"] * 2
    doc = json.loads((tmp_path / "out" / "audit" / "audit.json").read_text(encoding="utf-8"))
    m = metrics(tmp_path / "out" / "metrics.prom")
    stats = doc["stats"]
    assert m[("sv_audit_last_run_success", ())] == 1
    ended = m[("sv_audit_last_run_end_timestamp_seconds", ())]
    assert 0 <= ended - datetime.fromisoformat(NOW).timestamp() < 120  # the run's own clock
    assert m[("sv_audit_last_success_timestamp_seconds", ())] == ended
    assert {k[1][0][1]: v for k, v in m.items() if k[0] == "sv_audit_claims"} == stats["by_prior"]
    assert {k[1][0][1]: v for k, v in m.items() if k[0] == "sv_audit_pages"} == stats["pages_by_fetch_status"]
    assert m[("sv_audit_new_findings", ())] == stats["new_findings"]
    assert m[("sv_audit_not_modified_ratio", ())] == pytest.approx(stats["not_modified_pct"] / 100) == 1.0
    assert m[("sv_audit_last_run_duration_seconds", ())] > 0


def test_a_failing_audit_pings_fail_with_its_line_and_keeps_the_last_success(tmp_path: Path, pings) -> None:
    record, url = pings
    with MockWeb() as web:
        serve(web)
        assert audit(tmp_path, web, url).exit_status == 0
        good = metrics(tmp_path / "out" / "metrics.prom")[("sv_audit_last_success_timestamp_seconds", ())]
        serve(web, up=False)
        result = audit(tmp_path, web, url)
    assert result.exit_status == 1
    assert [p for p, _ in record.seen][-2:] == ["/ping/5e1c-check/start", "/ping/5e1c-check/fail"]
    assert "got an answer" in record.seen[-1][1]  # the run's one line is the ping's log
    m = metrics(tmp_path / "out" / "metrics.prom")
    assert m[("sv_audit_last_run_success", ())] == 0 and m[("sv_audit_last_success_timestamp_seconds", ())] == good


def test_a_user_mistake_pings_fail_and_a_locked_folder_does_not_ping(tmp_path: Path, pings) -> None:
    record, url = pings
    with MockWeb() as web:
        serve(web)
        corpus = write_corpus(tmp_path / "corpus", {"countries/fr/playbook.md": CORPUS})
        bad = crawl_in_process("audit", corpus=corpus, config=make_config(tmp_path / "config", liveness=FAST_LIVENESS),
                               output=tmp_path / "out", proxy_env=web.env(), args={"country": "zz"},
                               extra_env={"SV_HEALTHCHECK_URL": url, "NO_PROXY": "127.0.0.1"})
    assert bad.returncode == 2 and record.seen == [("/ping/5e1c-check/fail", bad.stderr.strip().split("error: ", 1)[1])]


def test_an_unreachable_ping_url_changes_nothing_but_one_warning(tmp_path: Path) -> None:
    with MockWeb() as web:
        serve(web)
        result = audit(tmp_path, web, f"http://127.0.0.1:{free_port()}/ping/x")
    assert result.exit_status == 0, result.line
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "healthcheck ping to http://127.0.0.1/…" in warnings[0]
    assert (tmp_path / "out" / "metrics.prom").is_file()


