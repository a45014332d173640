"""A bug in sv_scrapy's own code, met by a command that does not crawl: one line on stderr naming
it and the file that keeps its traceback, exit status 1, never Python's traceback on the console
(the crawl's own code errors: tests/test_hostile_web.py)."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any, NoReturn

import pytest

import sv_scrapy.commands.extract
import sv_scrapy.commands.merge
import sv_scrapy.commands.review
from testing.commands import scrapy_in_process


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
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the traceback is kept
    args = [str(tmp_path / a) if a in ("PART", "OUT") else a for a in args]
    result = scrapy_in_process(*args)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith(f"scrapy {args[0]}: error: a bug in sv_scrapy (AttributeError: ")
    assert "\n::error::" not in result.stderr  # the message's own line breaks do not reach the console
    kept = Path(re.search(r"its traceback is in (\S+)$", result.stderr.strip())[1])  # type: ignore[index]
    assert kept.parent == tmp_path and "Traceback" in kept.read_text(encoding="utf-8")
