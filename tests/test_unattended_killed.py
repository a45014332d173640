"""The monthly job killed halfway and run beside another: a killed audit's rerun equals an
uninterrupted one, a killed verify batch resumes its batch, a review while an audit runs waits its
turn (exit 75); and the console a timer's log reads. The rest of the unattended job (one writer,
exit statuses, the store that heals) is tests/test_unattended.py's, a module of its own so that the
slow pass's workers take the two side by side."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from testing.crawl import FAST_LIVENESS, crawl, make_config, write_corpus
from testing.env import clean_env
from testing.mockweb import MockWeb, Route
from testing.mockweb.anthropic_stub import AnthropicStub

from .conftest import PROJECT_DIR, SCRAPY
from .test_review_command import FILE, one_line, review, review_workspace
from .test_spider_audit import body
from .test_unattended import normalised
from .test_verify import CASES, make_workspace, report, verify

pytestmark = pytest.mark.subprocess  # drives a process: make test-fast leaves it out


# -- a run killed halfway; the console (moved from test_spider_audit: they need a process) --

def test_kill_9_mid_audit_then_rerun_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    urls = [f"https://resume.audit.gouv.fr/p{i}" for i in range(20)]
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": "# R\n" + "\n".join(
        f"- fee €{100 + i} ([p]({u}))" for i, u in enumerate(urls)) + "\n"})
    config = make_config(tmp_path / "config", liveness={**FAST_LIVENESS,
                                                         "gov_suffix_default": {"concurrency": 1, "interval_ms": 250}})
    with MockWeb() as web:
        for i, u in enumerate(urls):
            web.route(u, body=body(f"Fee €{100 + i}." if i % 3 else "No figure here."))
        reference = crawl("audit", corpus=corpus, config=config, output=tmp_path / "ref", proxy_env=web.env(),
                          settings={"SV_PROGRESS_INTERVAL": "1"})
        assert reference.returncode == 0, reference.stderr[-2000:]
        progress = [line for line in reference.stderr.splitlines() if "progress: " in line]
        assert progress and "/20 pages (" in progress[-1] and "pages/s, ETA" in progress[-1]
        web.clear_log()

        env = clean_env()
        env.update(web.env(), SV_CORPUS_ROOT=str(corpus), SV_CONFIG_DIR=str(config),
                   SV_OUTPUT_DIR=str(tmp_path / "killed"), SV_IGNORE_HTTPS_ERRORS="1")
        proc = subprocess.Popen([SCRAPY, "crawl", "audit"], cwd=PROJECT_DIR, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        pages = tmp_path / "killed" / "store" / "pages"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(list(pages.glob("*.json")) if pages.is_dir() else []) < 6:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        done_before_kill = len(list(pages.glob("*.json")))
        assert 6 <= done_before_kill < len(urls)
        assert not (tmp_path / "killed" / "audit" / "audit.json").exists()

        resumed = crawl("audit", corpus=corpus, config=config, output=tmp_path / "killed", proxy_env=web.env())
        assert resumed.returncode == 0, resumed.stderr[-2000:]
        fetched = [e.url for e in web.log if e.method == "GET" and "/p" in e.url]
    assert len(fetched) == len(set(fetched))  # nothing fetched twice in one run
    assert len(fetched) <= len(urls) + 1 and len(set(fetched) & {u for u in urls}) == len(set(fetched))
    assert normalised(tmp_path / "killed" / "audit" / "audit.json") == normalised(reference.output_dir / "audit" / "audit.json")
    assert not list((tmp_path / "killed").rglob("*.tmp"))


def test_quiet_by_default_and_chatty_with_L_INFO(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": "# Q\n- 5.81 % ([a](https://q.audit.gouv.fr/r))\n"})
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS)
    with MockWeb() as web:
        web.route("https://q.audit.gouv.fr/r", body=body("Taux 5,81 %."))
        quiet = crawl("audit", corpus=corpus, config=config, output=tmp_path / "quiet", proxy_env=web.env())
        chatty = crawl("audit", corpus=corpus, config=config, output=tmp_path / "chatty", proxy_env=web.env(),
                       options=["-L", "INFO"])
    assert quiet.returncode == chatty.returncode == 0, quiet.stderr[-2000:]
    summary, *paths = quiet.stdout.strip().splitlines()
    assert summary.startswith("audit: 1 claim(s) over 1 URL(s); first audit (baseline);")
    names = [p.split()[-1].rsplit("/", 1)[-1] for p in paths]
    assert names[:3] == ["report.md", "report.html", "issue.md"] and paths[3].startswith("log:") and len(paths) == 4
    assert "[scrapy." not in quiet.stderr and "[scrapy.core.engine] INFO" in chatty.stderr
    (log,) = (tmp_path / "quiet" / "logs").glob("audit-*.log")
    assert "[scrapy.core.engine] INFO: Spider opened" in log.read_text(encoding="utf-8") and str(log) in paths[-1]
    assert not (tmp_path / "chatty" / "logs").exists()


# -- beside another run, killed halfway: a verify batch, a review (moved from test_verify and
# test_review_command: they need a process running beside the test) --

def test_a_verify_batch_killed_halfway_resumes_its_batch(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path / "out", CASES)
    scripts = {cid: script for cid, (_, script, _) in CASES.items()}
    with AnthropicStub(scripts, polls_before_end=10**9) as stub:
        full = clean_env()
        full.update(stub.env(), SV_OUTPUT_DIR=str(workspace), SV_LLM_POLL_SECONDS="0.05")
        proc = subprocess.Popen([SCRAPY, "verify", "--mode", "batch"], cwd=PROJECT_DIR, env=full,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        states: list[Path] = []
        while time.monotonic() < deadline and not states:
            states = list((workspace.parent / "reports").glob("verify-batch-*.json"))
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert states, "the batch state was never saved"
        batch_id = json.loads(states[0].read_text(encoding="utf-8"))["batch_id"]
        stub.polls_before_end = 0
        result = verify(workspace, stub, "--resume", batch_id, env={"SV_LLM_POLL_SECONDS": "0.05"})
        assert len(stub.batches) == 1  # resumed, not resubmitted
    assert result.returncode == 0, result.stderr[-3000:]
    doc, _ = report(workspace)
    assert {v["id"]: v["verdict"] for v in doc["verdicts"]}["xx:1:honest"] == "MATCH"


def test_a_review_while_an_audit_runs_exits_75_and_writes_nothing(tmp_path: Path) -> None:
    workspace = review_workspace(tmp_path)
    slow = "https://www.impots.gouv.fr/lent"
    write_corpus(workspace["corpus"], {"countries/fr/p.md": f"# France\n\n- Duty 5.81 % ([t]({slow}))\n"})
    with MockWeb() as web:
        web.route(slow, Route(body="<html><body>" + "Le taux est de 5,81 %. " * 20 + "</body></html>", delay=6))
        env = {**workspace["env"], **web.env(), "SV_IGNORE_HTTPS_ERRORS": "1"}
        env = {k: v for k, v in env.items() if k != "SV_NOW"}
        audit = subprocess.Popen([SCRAPY, "crawl", "audit"], cwd=PROJECT_DIR, env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        try:
            lock, deadline = workspace["out"] / ".lock", time.monotonic() + 60
            while time.monotonic() < deadline and not (lock.is_file() and lock.read_text(encoding="utf-8").strip()):
                time.sleep(0.05)  # the audit names itself in the lock once it holds it
            result = review(workspace, "hk:3:dddd0004", "--as", "wont_fix", "--reason", "checked by hand")
            assert audit.poll() is None  # the audit was still running
        finally:
            audit.wait(timeout=120)
    line = one_line(result)
    assert result.returncode == 75 and "another run holds" in line and "scrapy crawl audit" in line
    assert not (workspace["config"] / FILE).exists()
    assert audit.returncode == 0
