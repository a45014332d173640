"""A real scrapyd on a free loopback port: deploy with scrapyd-deploy, schedule the audit
through the entry point the monthly cron/timer uses, wait for it, find its report."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from testing.crawl import FAST_LIVENESS, make_config, write_corpus
from testing.mockweb import MockWeb

from .conftest import PROJECT_DIR

pytestmark = pytest.mark.subprocess  # drives a process: make test-fast leaves it out

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def project_copy(folder: Path) -> Path:
    """What ``scrapyd-deploy`` builds the egg from, copied: each deploy builds in its own ``build/``
    (two tests deploying at once from the checkout raced there), and the checkout stays clean."""
    copy = folder / "project"
    copy.mkdir(exist_ok=True)
    for name in ("setup.py", "scrapy.cfg"):
        shutil.copy2(PROJECT_DIR / name, copy / name)
    shutil.copytree(PROJECT_DIR / "sv_scrapy", copy / "sv_scrapy", ignore=shutil.ignore_patterns("__pycache__"),
                    dirs_exist_ok=True)
    return copy


def start_scrapyd(folder: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    """A scrapyd of its own in ``folder`` on a free loopback port, the project deployed to it."""
    folder.mkdir(exist_ok=True)
    port = free_port()
    (folder / "scrapyd.conf").write_text(
        f"[scrapyd]\nbind_address = 127.0.0.1\nhttp_port = {port}\neggs_dir = {folder}/eggs\nlogs_dir = {folder}/logs\n"
        f"dbs_dir = {folder}/dbs\nitems_dir =\npoll_interval = 0.5\nmax_proc = 1\n", encoding="utf-8")
    proc = subprocess.Popen([str(BIN / "scrapyd"), "--pidfile="], cwd=folder, env=env,
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
    deploy = subprocess.run([str(BIN / "scrapyd-deploy"), "env", "-p", "sv_scrapy"], cwd=project_copy(folder),
                            env={**env, "SCRAPYD_URL": base + "/"}, capture_output=True, text=True, timeout=180)
    assert deploy.returncode == 0 and '"status": "ok"' in deploy.stdout, deploy.stderr[-2000:] + deploy.stdout
    return proc, base


@pytest.fixture(scope="module")
def scrapyd(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("scrapyd")
    with MockWeb() as web:
        web.route("https://tax.scrapyd.gouv.fr/dmto", body="<p>Le taux de 5,81 % s'applique. " + "Texte. " * 40 + "</p>")
        for url in DOWN:  # the connection is reset before any answer: no request gets one
            web.route(url, reset_after=0)
            web.route(url.replace("/taux", "/robots.txt"), reset_after=0)
        env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and not k.startswith("SV_")}
        env.update(web.env(), SV_IGNORE_HTTPS_ERRORS="1", NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
        proc, base = start_scrapyd(tmp, env)
        yield base, tmp, env
        proc.terminate()
        proc.wait(timeout=20)


DOWN = [f"https://down{i}.scrapyd.gouv.fr/taux" for i in range(3)]


def schedule(base: str, tmp: Path, env: dict[str, str], *extra: str, playbook: str = "",
             output: str = "out") -> subprocess.CompletedProcess[str]:
    name = "corpus-down" if playbook else "corpus"
    corpus = write_corpus(tmp / name, {"countries/fr/playbook.md": playbook or
                                       "# T\n- DMTO 5.81 % ([a](https://tax.scrapyd.gouv.fr/dmto))\n"})
    config = tmp / "config"
    if not config.exists():
        make_config(config, liveness=FAST_LIVENESS)
    return subprocess.run(
        [sys.executable, "-m", "sv_scrapy.ops.schedule", "--url", base, "--corpus", str(corpus), "--config", str(config),
         "--output", str(tmp / output), "--timeout", "150", "--poll", "0.5", *extra],
        cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=200)


def test_monthly_job_runs_on_scrapyd_and_leaves_its_report(scrapyd) -> None:
    base, tmp, env = scrapyd
    result = schedule(base, tmp, env)
    assert result.returncode == 0, result.stderr + result.stdout
    report = tmp / "out" / "audit" / "report.md"
    assert report.is_file() and f"report: {report}" in result.stdout
    assert "Claims checked: **1**" in report.read_text(encoding="utf-8")


def test_a_bad_argument_is_the_audits_own_exit_2_with_its_line(scrapyd) -> None:
    base, tmp, env = scrapyd
    result = schedule(base, tmp, env, "--arg", "country=zz")
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "-a country=" in result.stderr and "zz" in result.stderr


def test_an_audit_in_which_no_request_got_an_answer_fails_the_scheduler(scrapyd) -> None:
    base, tmp, env = scrapyd
    lines = "".join(f"- fee {i + 2}.5 % ([t]({url}))\n" for i, url in enumerate(DOWN))
    result = schedule(base, tmp, env, playbook=f"# T\n{lines}", output="out-down")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1 and "request(s) got an answer" in result.stderr
    doc = json.loads((tmp / "out-down" / "audit" / "audit.json").read_text(encoding="utf-8"))
    assert doc["complete"] is False  # what the run recorded is what the scheduler says


def test_an_audit_that_finds_the_output_folder_locked_is_exit_75(scrapyd) -> None:
    base, tmp, env = scrapyd
    out = tmp / "out-locked"
    out.mkdir()
    with open(out / ".lock", "w") as held:  # another run holds the folder's lock
        fcntl.flock(held, fcntl.LOCK_EX)
        result = schedule(base, tmp, env, output="out-locked")
    assert result.returncode == 75, result.stdout + result.stderr
    assert "another run holds" in result.stderr


def test_unreachable_scrapyd_is_one_line() -> None:
    result = subprocess.run([sys.executable, "-m", "sv_scrapy.ops.schedule", "--url", f"http://127.0.0.1:{free_port()}"],
                            cwd=PROJECT_DIR, capture_output=True, text=True, timeout=60,
                            env={**os.environ, "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"})
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "not reachable" in result.stderr
