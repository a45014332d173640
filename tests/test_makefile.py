"""The Makefile's two loops: ``make test-fast`` (the inner loop: no install, no lint, nothing that
drives a process) and ``make test`` (what CI runs: install, lint, the whole suite)."""

from __future__ import annotations

import os
import time

import pytest

from testing.commands import run_command

pytestmark = pytest.mark.subprocess  # drives a process: make test-fast leaves it out

FAST_LIMIT_S = 60.0


def dry_run(target: str) -> str:
    return run_command(["make", "-n", target], timeout=60).stdout


def test_make_test_fast_installs_and_lints_nothing_and_make_test_does_both() -> None:
    fast, full = dry_run("test-fast"), dry_run("test")
    assert "pytest" in fast and "pip install" not in fast and "ruff" not in fast and "mypy" not in fast
    for marker in ("subprocess", "pacing", "browser", "ocr", "scrapyd"):
        assert f"not {marker}" in fast
    assert "ruff" in full and "mypy" in full and full.count("pytest") == 2


@pytest.mark.pacing  # a wall time: alone on the machine (make test's second pass)
def test_make_test_fast_takes_under_a_minute(capsys: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    done = run_command(["make", "test-fast"], timeout=600)
    took = time.monotonic() - started
    load = os.getloadavg()[0]
    with capsys.disabled():  # into make test's own output, pass or fail: CI's log keeps the figure
        print(f"\nmake test-fast: {took:.1f} s wall (load average {load:.1f} on {os.cpu_count()} cores); "
              f"{next((line for line in reversed(done.stdout.splitlines()) if ' passed' in line), '')}")
    assert done.returncode == 0, done.stdout[-3000:]
    assert took < FAST_LIMIT_S, f"make test-fast took {took:.1f} s (load {load:.1f})"
