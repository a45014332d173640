"""Disk full is disk full: a 1 MB tmpfs under SV_OUTPUT_DIR fills mid-audit. The first failed
write stops the crawl (judged from the mock web's log), the run exits 1 with one line naming
the path, nothing prints a traceback, and a rerun with space resumes to the same result as an
undisturbed run."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from testing.crawl import FAST_LIVENESS

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



@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_a_log_file_on_a_full_disk_goes_quiet_instead_of_printing_tracebacks(capsys: pytest.CaptureFixture[str]) -> None:
    import logging

    from sv_scrapy.extensions.quietlog import guard_log_files

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

    from scrapy.utils.test import get_crawler

    from sv_scrapy.extensions.monitor import MonitorExtension

    crawler = get_crawler(settings_dict={"SV_JOB": "worklist", "LOG_FILE": "/dev/full"})
    monitor = MonitorExtension.from_crawler(crawler)
    # what Crawler.crawl does at its start, after the extensions are built: its own LOG_FILE handler
    # (Scrapy's install_scrapy_root_handler; a plain one here, leaving Scrapy's global state alone)
    handler, level = logging.FileHandler("/dev/full"), logging.root.level
    logging.root.addHandler(handler)
    logging.root.setLevel(logging.INFO)  # the crawl's LOG_LEVEL: INFO reaches its log file
    try:
        monitor.engine_started()  # the engine_started signal's receiver
        for n in range(3):
            logging.getLogger("scrapy-playwright").info("Closing browser %d", n)
    finally:
        logging.root.setLevel(level)
        logging.root.removeHandler(handler)
        handler.close()
    err = capsys.readouterr().err
    assert "Logging error" not in err and "Traceback" not in err and handler not in logging.root.handlers
