"""The one way the tests run a command of the project: ``scrapy <command>``, the demo, a script —
in the project folder, with the clean environment (``testing.env``) plus what the test gives,
output captured as text. Subprocesses are for what only a process shows (the CLI, its exit
status, its console, a process killed halfway); a command that does not crawl (verify, review,
extract) runs in-process through Scrapy's own ``scrapy.cmdline.execute`` with
:func:`scrapy_in_process`, a crawl with ``testing.inprocess``."""

from __future__ import annotations

import contextlib
import gc
import io
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from subprocess import CompletedProcess  # a result, not a process: scrapy_in_process returns one too

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


@contextlib.contextmanager
def environment(env: Mapping[str, str] | None) -> Iterator[None]:
    """The process environment is the clean one plus ``env`` until the block ends, as a new
    process would see it (the settings read ``SV_*`` when a run starts, so nothing is reloaded)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(clean_env(env))
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def scrapy_in_process(*args: str, env: Mapping[str, str] | None = None,
                      cwd: Path = PROJECT_DIR) -> CompletedProcess[str]:
    """``scrapy <args>`` for a command that does not crawl, run by ``scrapy.cmdline.execute`` in
    this process: the same parsing, settings and exit status as :func:`run_scrapy`, without a
    process start."""
    from scrapy.cmdline import execute

    out, err = io.StringIO(), io.StringIO()
    code: int | str | None = 0
    # what the process held before the command is set aside from the collection below, which then walks
    # the command's own objects, not a worker's whole heap (the collected tests, the SDK's models: 0.1-0.3 s
    # of CPU a call, half of what the verify and review tests cost)
    gc.freeze()
    with environment(env), contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            execute(["scrapy", *args])
        except SystemExit as exc:
            code = exc.code
        finally:  # as the command's process would when it ends: the sockets its API client left open are closed
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ResourceWarning)
                gc.collect()
            gc.unfreeze()
    returncode = code if isinstance(code, int) else (0 if code is None else 1)
    return CompletedProcess(["scrapy", *args], returncode, out.getvalue(), err.getvalue())
