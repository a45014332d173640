"""Disk full is disk full: a 1 MB tmpfs under SV_OUTPUT_DIR fills mid-audit. The first failed
write stops the crawl (judged from the mock web's log), the run exits 1 with one line naming
the path, nothing prints a traceback, and a rerun with space resumes to the same result as an
undisturbed run."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from sv_scrapy.core.audit.store import url_key
from testing.crawl import FAST_LIVENESS, crawl, make_config, write_corpus
from testing.mockweb import MockWeb, Route

URLS = [f"https://www.douane.gouv.fr/tarif/{i}" for i in range(24)]
CORPUS = "# T\n\n" + "\n".join(f"- duty {i + 1}.25 % ([t]({u}))" for i, u in enumerate(URLS)) + "\n"
# ~70 KB of text a page: its text and its baseline text fill a 1 MB disk after a few pages
BULK = "<p>" + "Les droits sont liquidés sur la valeur en douane déclarée par l'importateur. " * 900 + "</p>"
ONE_HOST_SLOW = {**FAST_LIVENESS, "gov_suffix_default": {"concurrency": 1, "interval_ms": 400}}


def page(i: int) -> str:
    return f"<html><body><p>Taux {i + 1},25 %.</p>{BULK}</body></html>"


def mount_tmpfs(path: Path, size: str) -> None:
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.decode().strip()[:120]}): needs root")


def items(out: Path) -> list[dict[str, Any]]:
    doc = json.loads((out / "audit" / "audit.json").read_text(encoding="utf-8"))
    assert doc["complete"], doc["problems"]
    return [{k: i[k] for k in ("id", "prior", "fetch_status", "matched_tokens", "excerpts")} for i in doc["items"]]


@pytest.mark.pacing  # judges when requests stopped from the mock web's log
@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a 1 MB tmpfs needs root")
def test_a_full_disk_stops_the_crawl_in_one_line_and_the_rerun_resumes(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", {"countries/fr/playbook.md": CORPUS})
    config = make_config(tmp_path / "config", liveness=ONE_HOST_SLOW)
    out = tmp_path / "out"
    mount_tmpfs(out, "1m")
    try:
        with MockWeb() as web:
            for i, url in enumerate(URLS):
                web.route(url, Route(body=page(i)))
            full = crawl("audit", corpus=corpus, config=config, output=out, proxy_env=web.env())
            ended = time.time()
            requested = [e for e in web.log if e.url in URLS]
            stored = {u for u in URLS if (out / "store" / "pages" / f"{url_key(u)}.json").exists()}
            assert full.returncode == 1, full.stderr[-2000:]
            for stream in (full.stdout, full.stderr):
                assert "Traceback" not in stream and "Logging error" not in stream
            # the audit's progress lines, then its one line
            (line,) = [line for line in full.stderr.splitlines() if line.strip() and "progress:" not in line]
            assert line.startswith("scrapy crawl audit: error: cannot write ") and str(out) in line
            assert "no space left" in line.lower()
            # requests stop at the first failed write: the page that could not be kept is the
            # last, or one of the last in flight, to be requested (floor 0.4 s: 24 pages take ~10 s)
            first_lost = next(e for e in requested if e.url not in stored)
            assert stored and len(requested) < len(URLS)
            assert all(e.t - first_lost.t < 3.0 for e in requested)
            # and the crawl ends soon after: the requests queued behind the host are refused at
            # once, not each after waiting for its 0.4 s turn (~7 s more, before)
            assert ended - requested[-1].t < 3.0, ended - requested[-1].t
            subprocess.run(["mount", "-o", "remount,size=64m", str(out)], check=True)
            web.clear_log()
            again = crawl("audit", corpus=corpus, config=config, output=out, proxy_env=web.env())
            assert again.returncode == 0, again.stderr[-2000:]
            refetched = [e.url for e in web.log if e.url in URLS]
            assert not set(refetched) & stored  # what was journalled is not fetched again
            # the undisturbed run to compare with: the floor above only paces the run that fills the disk
            fast = make_config(tmp_path / "config-fast", liveness=FAST_LIVENESS)
            clean = crawl("audit", corpus=corpus, config=fast, output=tmp_path / "clean", proxy_env=web.env())
            assert clean.returncode == 0
        assert items(out) == items(tmp_path / "clean")
    finally:
        subprocess.run(["umount", "-l", str(out)], capture_output=True)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_a_log_file_on_a_full_disk_goes_quiet_instead_of_printing_tracebacks(capsys: pytest.CaptureFixture[str]) -> None:
    import logging

    from sv_scrapy.quietlog import guard_log_files

    handler = logging.FileHandler("/dev/full")  # every write: ENOSPC
    logging.root.addHandler(handler)
    try:
        guard_log_files()
        for n in range(3):
            logging.getLogger("sv_scrapy.test").warning("line %d", n)
    finally:
        logging.root.removeHandler(handler)
    assert capsys.readouterr().err == "" and handler not in logging.root.handlers


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_the_log_file_a_crawl_installs_goes_quiet_on_a_full_disk(capsys: pytest.CaptureFixture[str]) -> None:
    """Scrapy replaces the process's log handler with the crawler's own when the crawl starts;
    that one must go quiet too (scrapy-playwright's "Closing browser", logged after the disk
    filled, printed logging's own traceback)."""
    import logging

    from scrapy.settings import Settings
    from scrapy.utils.log import get_scrapy_root_handler, install_scrapy_root_handler
    from scrapy.utils.test import get_crawler

    from sv_scrapy.extensions.monitor import MonitorExtension

    crawler = get_crawler(settings_dict={"SV_JOB": "worklist", "LOG_FILE": "/dev/full"})
    monitor = MonitorExtension.from_crawler(crawler)
    install_scrapy_root_handler(Settings({"LOG_FILE": "/dev/full"}))  # what Crawler.crawl does at its start
    handler = get_scrapy_root_handler()
    try:
        monitor.engine_started()  # the engine_started signal's receiver
        for n in range(3):
            logging.getLogger("scrapy-playwright").info("Closing browser %d", n)
    finally:
        logging.root.removeHandler(handler)
    err = capsys.readouterr().err
    assert "Logging error" not in err and "Traceback" not in err and handler not in logging.root.handlers
