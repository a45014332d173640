"""The one way the tests run a command of the project in a subprocess: ``scrapy <command>``,
the demo, a script — in the project folder, with the clean environment (``testing.env``) plus
what the test gives, output captured as text. Subprocesses are for what only a process shows
(the CLI, its exit status, its console); a crawl's behaviour is tested in-process
(``testing.inprocess``)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from testing.env import clean_env

PROJECT_DIR = Path(__file__).resolve().parent.parent
# the scrapy entry point of the interpreter running this (the project's venv)
SCRAPY = str(Path(sys.executable).with_name("scrapy"))
PYTHON = sys.executable


def run_command(argv: Sequence[str], env: Mapping[str, str] | None = None, cwd: Path = PROJECT_DIR,
                timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``argv`` in a subprocess, clean environment plus ``env``; never raises on a non-zero exit."""
    return subprocess.run(list(argv), cwd=cwd, env=clean_env(env), capture_output=True, text=True, timeout=timeout)


def run_scrapy(*args: str, env: Mapping[str, str] | None = None, cwd: Path = PROJECT_DIR, timeout: float = 120,
               launcher: Sequence[str] | None = None) -> subprocess.CompletedProcess[str]:
    """``scrapy <args>`` (``launcher``: another command line standing in for ``scrapy``)."""
    return run_command([*(launcher or [SCRAPY]), *args], env=env, cwd=cwd, timeout=timeout)
