"""The finished audit's claim records, kept on disk while the finish goes on: ``audit.json``'s
``items`` as a list that holds none of them in memory (``SpooledItems``). Each record is written
to an anonymous temp file as one line of JSON once the finish is done with it, and read back one
at a time when the document is written; a large audit's finish never holds every claim's record
at once (issue #42)."""

from __future__ import annotations

import json
import os
import tempfile
import weakref
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import overload

from sv_scrapy.core.claims.record import ClaimRecord, records_of


class SpooledItems(list[ClaimRecord]):
    """A list subclass so ``json.dump`` writes it as the list it stands for: the indenting
    encoder (``core.atomic.write_json``'s) asks only its length and iterates it. Its own list
    storage stays empty; ``spool`` adds a finished record, ``hold`` one kept in memory (a claim
    finished last, in its place)."""

    def __init__(self, spool_dir: Path | None = None) -> None:
        super().__init__()
        # unlinked at once where the OS allows: a killed run leaves nothing behind; open as long
        # as the list lives (closed when it is collected), so no `with`
        self._file = tempfile.TemporaryFile(dir=spool_dir, prefix=".items.")  # noqa: SIM115
        weakref.finalize(self, self._file.close)
        self._ends = array("q", [0])  # byte offsets: item k is ends[k]..ends[k+1], or held
        self._held: dict[int, ClaimRecord] = {}

    def spool(self, item: ClaimRecord) -> None:
        line = json.dumps(item, ensure_ascii=False).encode("utf-8") + b"\n"
        self._file.write(line)
        self._ends.append(self._ends[-1] + len(line))

    def hold(self, item: ClaimRecord) -> None:
        self._held[len(self)] = item
        self._ends.append(self._ends[-1])

    def _read(self, k: int) -> ClaimRecord:
        if k in self._held:
            return self._held[k]
        start = self._ends[k]
        return records_of([json.loads(os.pread(self._file.fileno(), self._ends[k + 1] - start, start))])[0]

    def __len__(self) -> int:
        return len(self._ends) - 1

    def __bool__(self) -> bool:
        return len(self) > 0

    def __iter__(self) -> Iterator[ClaimRecord]:
        self._file.flush()
        return (self._read(k) for k in range(len(self)))

    @overload
    def __getitem__(self, index: int) -> ClaimRecord: ...

    @overload
    def __getitem__(self, index: slice) -> list[ClaimRecord]: ...

    def __getitem__(self, index: int | slice) -> ClaimRecord | list[ClaimRecord]:
        self._file.flush()
        if isinstance(index, slice):
            return [self._read(k) for k in range(len(self))[index]]
        return self._read(range(len(self))[index])

    def __repr__(self) -> str:
        return f"<{len(self)} claim records spooled>"
