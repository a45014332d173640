"""A real scrapyd on a free loopback port: deploy with scrapyd-deploy, schedule the audit
through the entry point the monthly cron/timer uses, wait for it, find its report."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from testing.mockweb import MockWeb

from .conftest import PROJECT_DIR
from .crawl import FAST_LIVENESS, make_config, write_corpus

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def scrapyd(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("scrapyd")
    port = free_port()
    (tmp / "scrapyd.conf").write_text(
        f"[scrapyd]\nbind_address = 127.0.0.1\nhttp_port = {port}\neggs_dir = {tmp}/eggs\nlogs_dir = {tmp}/logs\n"
        f"dbs_dir = {tmp}/dbs\nitems_dir =\npoll_interval = 0.5\nmax_proc = 1\n", encoding="utf-8")
    with MockWeb() as web:
        web.route("https://tax.scrapyd.gouv.fr/dmto", body="<p>Le taux de 5,81 % s'applique. " + "Texte. " * 40 + "</p>")
        env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and not k.startswith("SV_")}
        env.update(web.env(), SV_IGNORE_HTTPS_ERRORS="1", NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
        proc = subprocess.Popen([str(BIN / "scrapyd"), "--pidfile="], cwd=tmp, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        for _ in range(100):
            try:
                opener.open(f"{base}/daemonstatus.json", timeout=1).read()
                break
            except OSError:
                time.sleep(0.2)
        else:
            proc.kill()
            pytest.fail("scrapyd did not start")
        deploy = subprocess.run([str(BIN / "scrapyd-deploy"), "env", "-p", "sv_scrapy"], cwd=PROJECT_DIR,
                                env={**env, "SCRAPYD_URL": base + "/"}, capture_output=True, text=True, timeout=180)
        assert deploy.returncode == 0 and '"status": "ok"' in deploy.stdout, deploy.stderr[-2000:] + deploy.stdout
        yield base, tmp, env
        proc.terminate()
        proc.wait(timeout=20)


def schedule(base: str, tmp: Path, env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    corpus = write_corpus(tmp / "corpus", {"countries/fr/playbook.md": "# T\n- DMTO 5.81 % ([a](https://tax.scrapyd.gouv.fr/dmto))\n"})
    config = tmp / "config"
    if not config.exists():
        make_config(config, liveness=FAST_LIVENESS)
    return subprocess.run(
        [sys.executable, "-m", "sv_scrapy.ops.schedule", "--url", base, "--corpus", str(corpus), "--config", str(config),
         "--output", str(tmp / "out"), "--timeout", "150", "--poll", "0.5", *extra],
        cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=200)


def test_monthly_job_runs_on_scrapyd_and_leaves_its_report(scrapyd) -> None:
    base, tmp, env = scrapyd
    result = schedule(base, tmp, env)
    assert result.returncode == 0, result.stderr + result.stdout
    report = tmp / "out" / "audit" / "report.md"
    assert report.is_file() and f"report: {report}" in result.stdout
    assert "Claims checked: **1**" in report.read_text(encoding="utf-8")


def test_a_failing_job_fails_the_entry_point(scrapyd) -> None:
    base, tmp, env = scrapyd
    result = schedule(base, tmp, env, "--arg", "country=zz")
    assert result.returncode == 1
    assert "did not finish cleanly" in result.stderr


def test_unreachable_scrapyd_is_one_line() -> None:
    result = subprocess.run([sys.executable, "-m", "sv_scrapy.ops.schedule", "--url", f"http://127.0.0.1:{free_port()}"],
                            cwd=PROJECT_DIR, capture_output=True, text=True, timeout=60,
                            env={**os.environ, "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"})
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "not reachable" in result.stderr
