"""Run the docs' runnable examples in the suite, the way Scrapy's docs/conftest.py does (Sybil).

A page opts in with the comment line ``RUNNABLE`` below; in such a page a ```console block runs
(``$ `` lines are commands, the lines after one must each appear in its output) and so does a
```pycon block (a Python session, checked as a doctest). Pages without the line, and blocks in
bash, shell, python or text, are shown, not run. Each page runs in a fresh
copy of this checkout (the virtualenv linked, not copied), so the tutorial's `make demo` writes
under the copy's `_local/`, never this checkout's.
"""

from __future__ import annotations

import doctest
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from sybil import Example, Sybil
from sybil.parsers.myst import CodeBlockParser

DOCS_DIR = Path(__file__).resolve().parent
PROJECT_DIR = DOCS_DIR.parent
collect_ignore = ["conf.py", "_ext"]  # Sphinx's, not examples (pytest runs --doctest-modules)
RUNNABLE = "% runnable: docs/conftest.py runs this page's console and pycon blocks"
_NOT_RUNNABLE = [p.relative_to(DOCS_DIR).as_posix() for p in sorted(DOCS_DIR.rglob("*.md"))
                 if RUNNABLE not in p.read_text(encoding="utf-8")]
_LEFT_OUT = shutil.ignore_patterns(".git", ".venv", "_local", "_ci", ".mypy_cache", ".ruff_cache", ".pytest_cache",
                                   "__pycache__", "docs")


def _setup(namespace: dict[str, Any]) -> None:
    work = Path(tempfile.mkdtemp(prefix="sv-docs-"))
    copy = work / "checkout"
    shutil.copytree(PROJECT_DIR, copy, ignore=_LEFT_OUT)
    (copy / ".venv").symlink_to(PROJECT_DIR / ".venv")
    namespace["workdir"] = copy


def _teardown(namespace: dict[str, Any]) -> None:
    shutil.rmtree(namespace["workdir"].parent, ignore_errors=True)


def _environment() -> dict[str, str]:
    """The suite's environment without what would point a command elsewhere (as tests/test_demo_review.py)."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("SV_", "GITHUB_", "MAKE")) and "proxy" not in k.lower()}


def _sessions(source: str) -> list[tuple[str, list[str]]]:
    """``[(command, expected lines)]`` of a console block."""
    out: list[tuple[str, list[str]]] = []
    for line in source.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out and line.strip():
            out[-1][1].append(line.strip())
    return out


def run_console(example: Example) -> str | None:
    for command, expected in _sessions(example.parsed):
        proc = subprocess.run(["bash", "-c", command], cwd=example.namespace["workdir"], env=_environment(),
                              capture_output=True, text=True, timeout=600, check=False)
        output = proc.stdout + proc.stderr
        if proc.returncode != 0:
            return f"$ {command}\nexited {proc.returncode}:\n{output[-3000:]}"
        missing = [line for line in expected if line not in output]
        if missing:
            return f"$ {command}\nthe output lacks {missing!r}:\n{output[-3000:]}"
    return None


def run_pycon(example: Example) -> str | None:
    test = doctest.DocTestParser().get_doctest(example.parsed, example.namespace, str(example.path),
                                               str(example.path), example.line)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    cwd = Path.cwd()
    os.chdir(example.namespace["workdir"])
    try:
        runner.run(test, out=report.append, clear_globs=False)
    finally:
        os.chdir(cwd)
    return "".join(report) if runner.failures else None


pytest_collect_file = Sybil(
    parsers=[CodeBlockParser("console", run_console), CodeBlockParser("pycon", run_pycon)],
    path=str(DOCS_DIR),
    patterns=["*.md", "**/*.md"],
    excludes=_NOT_RUNNABLE,
    setup=_setup,
    teardown=_teardown,
).pytest()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A runnable page's examples run commands (``make demo``, ``scrapy``) one after another in one
    copy of the checkout: they are ``subprocess`` tests, which ``make test-fast`` leaves out (its
    workers would split a page's examples; ``make test`` keeps a file on one worker)."""
    for item in items:
        if item.path.suffix == ".md" and item.path.is_relative_to(DOCS_DIR):
            item.add_marker(pytest.mark.subprocess)
