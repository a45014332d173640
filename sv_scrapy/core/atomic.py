"""Atomic file writes: a crash never leaves half a file behind; a failed write is one line."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from sv_scrapy.core.errors import OutputError
from sv_scrapy.core.indentjson import iterencode


@contextmanager
def _replacing(path: str | os.PathLike[str], binary: bool = False) -> Iterator[IO[Any]]:
    """A file handle on a temp file in ``path``'s folder that replaces ``path`` when the
    block ends — or vanishes if it raises. ``os.replace`` is atomic on POSIX when both names
    are on one filesystem, which the same-folder temp file guarantees. Any OS failure (no
    such folder, a file where a folder should be, no space, no permission) is an
    :class:`~sv_scrapy.core.errors.OutputError` naming the path."""
    target = Path(path)
    try:
        fd, tmp = _temp_beside(target)
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
    try:
        handle: IO[Any] = os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", newline="")
        with handle as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _temp_beside(target: Path) -> tuple[int, str]:
    """A new temp file in ``target``'s folder, the folder made first only when it is missing: a
    ``mkdir`` tried before every write failed (it exists) three times a page of an audit."""
    try:
        return tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except FileNotFoundError:
        target.parent.mkdir(parents=True, exist_ok=True)
        return tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` to ``path`` atomically: a crash leaves the old file or the new one."""
    with _replacing(path) as fh:
        fh.write(text)
    return Path(path)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Bytes, the same way as :func:`write_text`."""
    with _replacing(path, binary=True) as fh:
        fh.write(data)
    return Path(path)


def write_json(path: str | os.PathLike[str], data: Any) -> Path:
    """Serialise ``data`` as indented UTF-8 JSON and write it atomically.

    Streamed to the temp file (``core.indentjson`` encodes piece by piece, ``json.dump``'s
    bytes): an audit of 10,000 claims never holds its whole JSON text, and that text's bytes, in
    memory at once. A list subclass is written as it iterates itself, or as it holds its members'
    text: an audit's items are copied from disk as they are written
    (``core.audit.spool.SpooledItems``; ``json``'s C encoder, used without ``indent``, would read
    the subclass's empty storage instead).
    """
    with _replacing(path) as fh:
        for piece in iterencode(data):
            fh.write(piece)
        fh.write("\n")
    return Path(path)


def write_chunks(path: str | os.PathLike[str], chunks: Iterable[str]) -> Path:
    """Text made piece by piece (a document too large to hold), the same way as :func:`write_text`."""
    with _replacing(path) as fh:
        for chunk in chunks:
            fh.write(chunk)
    return Path(path)


def append_lines(path: str | os.PathLike[str], lines: list[str], what: str) -> None:
    """Append ``lines`` to a file others also write (``$GITHUB_OUTPUT``); with no lines, only
    prove it can be appended to. A failure is an :class:`~sv_scrapy.core.errors.OutputError` naming ``what``."""
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write("".join(f"{line}\n" for line in lines))
    except OSError as exc:
        raise OutputError(f"cannot append to {what} {path}: {exc.strerror or exc}") from None


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
