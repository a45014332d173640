"""One writer per output folder: an advisory ``flock`` on ``<output>/.lock``.

The kernel drops the lock when its process dies, however it dies, so a lock left by a
killed run is simply free for the next one; what the file says (pid, command, start) is
only there to name the holder to a run that finds it taken.

The run that took the lock holds it (``run.state.Run.lock``, a command's ``with`` block) and
lets it go when its outputs are written, so a process that runs one crawl after another (a
script, the tests' in-process crawls) hands the folder on. A run asks once: a second ask opens
the file again, and ``flock`` refuses it as it refuses another process.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from sv_scrapy.core.errors import LockHeld, OutputError

LOCK_NAME = ".lock"


@dataclass
class RunLock:
    path: Path
    fd: int
    held: bool = True

    def release(self) -> None:
        """Let the folder go (the run's outputs are written, or it failed); once more is a no-op."""
        if not self.held:
            return
        self.held = False
        try:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
        finally:
            os.close(self.fd)

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.release()


def _holder(fd: int) -> str:
    for _ in range(20):  # the holder writes its name right after taking the lock
        try:
            info = json.loads(os.pread(fd, 4096, 0).decode("utf-8"))
            return f"pid {info['pid']} on {info['host']}, `{info['command']}`, started {info['started_at']}"
        except (OSError, ValueError, KeyError, TypeError):
            time.sleep(0.01)
    return "holder unknown"


def acquire(folder: Path, command: str, started_at: str) -> RunLock:
    """Take the folder's lock or raise :class:`~sv_scrapy.core.errors.LockHeld` naming the holder (never waits);
    ``started_at`` (the run's clock) is what a second run is told."""
    folder = folder.resolve()
    path = folder / LOCK_NAME
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise OutputError(f"cannot create the lock {path}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(fd)
        os.close(fd)
        raise LockHeld(f"another run holds {folder} ({holder}); try again when it has finished") from None
    info = {"pid": os.getpid(), "host": socket.gethostname(), "command": command,
            "started_at": started_at}
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(info).encode("utf-8"), 0)
    return RunLock(path, fd)
