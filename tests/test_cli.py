"""One subprocess test per command that has no other: what only a process shows — the entry
point, the exit status, stdout and stderr as a user sees them. Everything else about these
commands is tested in-process (testing.commands.scrapy_in_process, testing.inprocess). Here too:
the monthly audit started by `scrapy crawl audit` and by a CrawlerProcess script, side by side
(its monitoring: tests/test_monitoring.py), and `make demo` run as a newcomer does. The runs
killed halfway or beside another are in tests/test_unattended_killed.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from unittest.mock import ANY

import pytest

from sv_scrapy.ops.schedule import job_outcome
from testing.commands import PYTHON, run_command
from testing.crawl import FAST_LIVENESS, crawl, make_config, write_corpus
from testing.mockweb import MockWeb

from .conftest import PROJECT_DIR, run_scrapy
from .test_monitoring import CORPUS, NOW, metrics, serve

pytestmark = pytest.mark.subprocess  # drives a process: make test-fast leaves it out


def test_scrapy_extract_prints_its_stats_and_exits_0() -> None:
    result = run_scrapy("extract")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["total_claims"] > 0


def test_scrapy_check_citations_prints_its_findings_and_exits_0(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": "# X\n- stamp duty 7.5% ([gov.ky](https://www.gov.ky/))\n"})
    result = run_scrapy("check-citations", env={"SV_CORPUS_ROOT": str(tmp_path / "corpus")})
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert "xx:2  7.5%  -> https://www.gov.ky/" in result.stdout and corpus.is_dir()


# -- the audit started by a script with CrawlerProcess, as by scrapy crawl audit ---------------

SCRIPT = [sys.executable, str(PROJECT_DIR / "examples" / "script_audit.py")]


@pytest.mark.parametrize("up", [True, False], ids=["good", "failing"])
def test_a_script_with_crawler_process_is_monitored_as_scrapy_crawl_audit(tmp_path: Path, pings, up: bool) -> None:
    record, url = pings
    corpus = write_corpus(tmp_path / "corpus", {"countries/fr/playbook.md": CORPUS})
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS)
    env = {"SV_HEALTHCHECK_URL": url, "SV_NOW": NOW, "NO_PROXY": "127.0.0.1,localhost"}
    ends = {}
    with MockWeb() as web:
        for how, launcher in (("script", SCRIPT), ("crawl", None)):
            serve(web, up)
            ends[how] = crawl("audit", corpus=corpus, config=config, output=tmp_path / how, proxy_env=web.env(),
                              extra_env=env, launcher=launcher)
            assert (tmp_path / how / "metrics.prom").is_file()
            (log,) = (tmp_path / how / "logs").glob("audit-*.log")  # quiet: Scrapy's chatter in its file
            # what a runner reading only the log (scrapyd's scheduler) takes for the exit status
            assert job_outcome(log.read_text(encoding="utf-8")) == (ends[how].returncode, "" if up else ANY)
    script, by_crawl = ends["script"], ends["crawl"]
    assert script.returncode == by_crawl.returncode == (0 if up else 1), script.stderr[-2000:]
    assert script.stderr.splitlines()[-1:] == by_crawl.stderr.splitlines()[-1:]
    assert "INFO" not in script.stderr and "Traceback" not in script.stderr
    end = "/ping/5e1c-check" + ("" if up else "/fail")
    assert [p for p, _ in record.seen] == ["/ping/5e1c-check/start", end] * 2
    assert metrics(tmp_path / "script" / "metrics.prom")[("sv_audit_last_run_success", ())] == (1 if up else 0)


def test_a_script_refused_by_its_checks_exits_as_scrapy_crawl_audit(tmp_path: Path, pings) -> None:
    record, url = pings
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS)
    env = {"SV_HEALTHCHECK_URL": url, "NO_PROXY": "127.0.0.1"}
    with MockWeb() as web:
        script, by_crawl = (crawl("audit", corpus=tmp_path / "nowhere", config=config, output=tmp_path / "out",
                                  proxy_env=web.env(), extra_env=env, launcher=launcher) for launcher in (SCRIPT, None))
    assert script.returncode == by_crawl.returncode == 2
    assert script.stderr.splitlines()[-1] == by_crawl.stderr.splitlines()[-1]
    assert "Traceback" not in script.stderr
    assert [p for p, _ in record.seen] == ["/ping/5e1c-check/fail"] * 2


# -- make demo, as a newcomer runs it (tools/demo.py) ------------------------------------------
# it ends with the one command line that reviews one of its findings; pasted as printed (the reason
# edited) it works, writes the demo's copy of the config, never the tracked config/ folder, and the
# next demo lists the finding as reviewed. Run twice, the demo warns of nothing and its report shows
# then and now (the sample web's small Wayback).

def demo(base: Path) -> subprocess.CompletedProcess[str]:
    return run_command([PYTHON, str(PROJECT_DIR / "tools" / "demo.py"), str(base)], timeout=300)


def untracked_config() -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", "config"], cwd=PROJECT_DIR,
                          capture_output=True, text=True, check=True).stdout


def test_the_demos_review_line_works_as_printed(tmp_path: Path) -> None:
    """`make demo` twice, then its printed review command pasted: a clean demo warns of nothing,
    the second report shows then and now (the sample web's Wayback: examples/site/_wayback.json),
    and the command records the review where the next demo reads it (that an audit counts a
    recorded review is tests/test_review_memory.py's)."""
    before = untracked_config()
    first, second = demo(tmp_path / "demo"), demo(tmp_path / "demo")
    assert first.returncode == 0 and second.returncode == 0, first.stderr[-2000:]
    assert not [line for run in (first, second) for line in (run.stdout + run.stderr).splitlines() if "WARNING" in line]
    report = (tmp_path / "demo" / "source-verify" / "audit" / "report.md").read_text(encoding="utf-8")
    assert "🕰️ changed since verified: the archived page of 2026-02-15 said 1 300 000, 964" in report
    lines = second.stdout.splitlines()
    hint = lines.index(next(line for line in lines if line.startswith("to review one of its findings")))
    command = lines[hint + 1].strip()
    assert "SV_OUTPUT_DIR=" in command and "SV_CONFIG_DIR=" in command and " review " in command
    assert command.endswith('--reason "…"')
    pasted = run_command(["bash", "-c", command.replace('"…"', '"checked in the demo"')], cwd=tmp_path)
    assert pasted.returncode == 0, pasted.stderr
    assert "recorded: " in pasted.stdout
    reviewed = tmp_path / "demo" / "config" / "source-verify-reviewed.json"
    assert len(json.loads(reviewed.read_text(encoding="utf-8"))["reviews"]) >= 1
    assert untracked_config() == before  # nothing written under the tracked config/
