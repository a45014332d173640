"""Atomic file writes: a crash never leaves half a file behind."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` to ``path`` through a temp file in the same folder, then rename.

    ``os.replace`` is atomic on POSIX when both names are on one filesystem, which the
    same-folder temp file guarantees.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def write_json(path: str | os.PathLike[str], data: Any) -> Path:
    """Serialise ``data`` as indented UTF-8 JSON and write it atomically."""
    return write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
