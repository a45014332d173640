"""The Makefile's two loops: ``make test-fast`` (the inner loop: no install, no lint, nothing that
drives a process) and ``make test`` (what CI runs: install, lint, and every test once, the docs build
included)."""

from __future__ import annotations

import itertools
import re

import pytest

from testing.commands import run_command

pytestmark = pytest.mark.subprocess  # drives make -n: make test-fast leaves it out

MARKERS = ("subprocess", "pacing", "browser", "ocr", "scrapyd")


def dry_run(target: str) -> str:
    return run_command(["make", "-n", target], timeout=60).stdout


def marker_expressions(command: str) -> list[str]:
    """Each ``-m`` selection of a dry run, quoted or not."""
    bare_marker = "|".join(MARKERS)  # unquoted: one marker word (not ``python -m pytest``)
    return [quoted or bare for quoted, bare in re.findall(rf'-m (?:"([^"]+)"|({bare_marker})\b)', command)]


def selects(expression: str, markers: set[str]) -> bool:
    """Whether pytest's ``-m expression`` selects a test carrying ``markers`` (and, or, not, parentheses)."""
    python = re.sub(r"\b(" + "|".join(MARKERS) + r")\b", lambda m: str(m.group(1) in markers), expression)
    return bool(eval(python, {"__builtins__": {}}))  # noqa: S307 - the Makefile's own marker words, nothing else


def test_make_test_fast_installs_and_lints_nothing_and_make_test_does_both() -> None:
    fast, full = dry_run("test-fast"), dry_run("test")
    assert "pytest" in fast and "pip install" not in fast and "ruff" not in fast and "mypy" not in fast
    for marker in MARKERS:
        assert f"not {marker}" in fast
    assert "ruff" in full and "mypy" in full
    # the docs are built by a test make test runs (tests/test_docs.py runs make docs), not a second time
    assert "sphinx-build" not in full and "sphinx-build" in dry_run("docs")


def test_make_test_runs_every_test_exactly_once_and_test_fast_first() -> None:
    """For every combination of markers a test can carry, exactly one of make test's passes selects
    it; the first pass is make test-fast's own selection (its wall time is the inner loop's figure)."""
    fast_expression = marker_expressions(dry_run("test-fast"))
    passes = marker_expressions(dry_run("test"))
    assert passes[0] == fast_expression[0]
    for carried in itertools.chain.from_iterable(itertools.combinations(MARKERS, n) for n in range(len(MARKERS) + 1)):
        chosen = [expression for expression in passes if selects(expression, set(carried))]
        assert len(chosen) == 1, (carried, chosen)


def test_the_selection_check_sees_a_test_run_twice() -> None:
    overlapping = ["not pacing", "subprocess or pacing"]
    assert [expression for expression in overlapping if selects(expression, {"subprocess"})] == overlapping
