"""A bug in sv_scrapy's own code, met by a command that does not crawl or by ``scrapy crawl``'s
checks before the crawl: one line on stderr naming it and the file that keeps its traceback, exit
status 1, never Python's traceback on the console (the crawl's own code errors:
tests/test_hostile_web.py)."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any, NoReturn

import pytest

import sv_scrapy.commands.extract
import sv_scrapy.commands.merge
import sv_scrapy.commands.review
from sv_scrapy.extensions.monitor import outcome_line
from sv_scrapy.spiders.base import ClaimSpider
from testing.commands import scrapy_in_process


@pytest.fixture(autouse=True)
def kept_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the traceback is kept


def broken(*_: Any, **__: Any) -> NoReturn:
    raise AttributeError("'Spool' object has no attribute '_x'\n::error::forged line")


@pytest.mark.parametrize(("module", "name", "args"), [
    (sv_scrapy.commands.extract, "execute", ["extract"]),
    (sv_scrapy.commands.review, "execute", ["review", "--list"]),
    (sv_scrapy.commands.merge, "read_part", ["merge", "PART", "--into", "OUT"]),
])
def test_a_bug_is_one_line_and_exit_1(module: Any, name: str, args: list[str], tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    target = module.Command if name == "execute" else module
    monkeypatch.setattr(target, name, broken)
    args = [str(tmp_path / a) if a in ("PART", "OUT") else a for a in args]
    assert_one_line(scrapy_in_process(*args), f"scrapy {args[0]}", tmp_path)


def test_a_bug_in_the_crawls_checks_is_one_line_exit_1_and_the_outcome(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # the checks run in the command's process_options, before any crawler: in-process is the real path
    monkeypatch.setattr(ClaimSpider, "preflight", broken)
    log = tmp_path / "audit.log"
    result = scrapy_in_process("crawl", "audit", "-s", f"LOG_FILE={log}")
    line = assert_one_line(result, "scrapy crawl audit", tmp_path)
    # a runner reading only the log (scrapyd) is told the same line and status
    assert log.read_text(encoding="utf-8").splitlines()[-1] == outcome_line(1, line)


def assert_one_line(result: Any, who: str, tmp_path: Path) -> str:
    """The failure's one line (after "error: "), with its traceback kept in ``tmp_path``."""
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith(f"{who}: error: a bug in sv_scrapy (AttributeError: ")
    assert "\n::error::" not in result.stderr  # the message's own line breaks do not reach the console
    kept = Path(re.search(r"its traceback is in (\S+)$", result.stderr.strip())[1])  # type: ignore[index]
    assert kept.parent == tmp_path and "Traceback" in kept.read_text(encoding="utf-8")
    return result.stderr.strip().split(": error: ", 1)[1]
