"""Atomic file writes: a crash never leaves half a file behind; a failed write is one line."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from sv_scrapy.core.errors import OutputError


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` to ``path`` through a temp file in the same folder, then rename.

    ``os.replace`` is atomic on POSIX when both names are on one filesystem, which the
    same-folder temp file guarantees. Any failure (no such folder, a file where a folder
    should be, no space, no permission) is an :class:`OutputError` naming the path.
    """
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Bytes, the same way as :func:`write_text`."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
    return target


def write_json(path: str | os.PathLike[str], data: Any) -> Path:
    """Serialise ``data`` as indented UTF-8 JSON and write it atomically."""
    return write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def check_writable(folder: str | os.PathLike[str], what: str) -> Path:
    """Create ``folder`` if needed and prove a file can be written there (and removed);
    checked before a crawl starts, so an unwritable output fails in a second, not after
    an hour of fetching."""
    target = Path(folder)
    try:
        target.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".sv-probe.", dir=target)
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        raise OutputError(f"cannot write to {what} {target}: {exc.strerror or exc}") from None
    return target
