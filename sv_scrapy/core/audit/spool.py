"""Claim records kept on disk while a finish goes on, so a large audit's finish (and its merge)
never holds every claim's record at once (issue #42): a ``Spool`` (records as JSON text in an
anonymous temp file, read back by their place), and ``audit.json``'s ``items`` as a list that
holds none of them in memory (``SpooledItems``)."""

from __future__ import annotations

import json
import os
import tempfile
import weakref
from array import array
from collections.abc import Iterator, Mapping, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any, SupportsIndex, overload

from sv_scrapy.core.claims.record import ClaimRecord, records_of
from sv_scrapy.core.errors import OutputError
from sv_scrapy.core.indentjson import IndentedMembers, dumps

BUFFER = 1 << 20  # bytes written to the spool's file at once


def spool_dir(near: Path) -> Path:
    """Where a spool of an output folder goes: that folder, or the nearest folder above it that
    exists (on the output's disk, never a memory-backed temp folder)."""
    return next((folder for folder in (near, *near.parents) if folder.is_dir()), Path.cwd())


class Spool:
    """JSON values on disk, each read back by the number ``add`` gave it."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or Path(tempfile.gettempdir())
        # unlinked at once where the OS allows: a killed run leaves nothing behind; open as long
        # as the spool lives (closed when it is collected), so no `with`
        try:
            # a buffer of a megabyte: a value is a few KB, and a write call per value or two
            # (the default 8 KB) was a tenth of a 100,000-claim merge
            self._file = tempfile.TemporaryFile(dir=folder, prefix=".spool.", buffering=BUFFER)  # noqa: SIM115
        except OSError as exc:
            raise self._failed(exc) from None
        weakref.finalize(self, self._file.close)
        self._ends = array("q", [0])  # value k is bytes ends[k]..ends[k+1]
        self._unflushed = False  # written since the last read (a read flushes first)

    def _failed(self, exc: OSError) -> OutputError:
        """A full disk or a folder gone is an output that failed (one line, exit 1), as any write's.
        (A plain ``try`` at each call, not a context manager: a merge spools 400,000 values and
        reads 300,000, and a ``with`` of a generator costs a microsecond each.)"""
        return OutputError(f"cannot spool claim records in {self.folder}: {exc.strerror or exc}")

    def _flush(self) -> None:
        """What was written since the last read, to the file a read asks (``os.pread``)."""
        if self._unflushed:
            self._file.flush()
            self._unflushed = False

    def add(self, value: Any) -> int:
        return self.add_encoded(json.dumps(value, ensure_ascii=False))

    def add_encoded(self, text: str) -> int:
        """A value already encoded as JSON (a part file's member, spooled as it was read rather
        than encoded a second time: ``core.audit.partfile``; a record's indented text:
        ``SpooledItems``)."""
        line = text.encode("utf-8") + b"\n"
        try:
            self._file.write(line)
        except OSError as exc:
            raise self._failed(exc) from None
        self._unflushed = True
        self._ends.append(self._ends[-1] + len(line))
        return len(self._ends) - 2

    def _read(self, k: int) -> bytes:
        start = self._ends[k]
        try:
            self._flush()
            return os.pread(self._file.fileno(), self._ends[k + 1] - start, start)
        except OSError as exc:
            raise self._failed(exc) from None

    def get(self, k: int) -> Any:
        return json.loads(self._read(k))

    def text(self, k: int) -> str:
        """Value ``k``'s JSON text as it was added."""
        return self._read(k)[:-1].decode("utf-8")

    def record(self, k: int) -> ClaimRecord:
        return records_of([self.get(k)])[0]

    def values(self, block: int = 1 << 16) -> Iterator[Any]:
        """Every value in order, a block of them at a time (one read and one parse each, not one a
        value; small, so a block's values are few in memory)."""
        try:
            self._flush()
        except OSError as exc:
            raise self._failed(exc) from None
        k, n = 0, len(self._ends) - 1
        while k < n:
            j = k + 1
            while j < n and self._ends[j + 1] - self._ends[k] <= block:
                j += 1
            try:
                lines = os.pread(self._file.fileno(), self._ends[j] - self._ends[k], self._ends[k])
            except OSError as exc:
                raise self._failed(exc) from None
            # one parse a block: its values cut at their ends, not its lines (a value may span lines)
            base = self._ends[k]
            members = [lines[a - base:b - base - 1] for a, b in pairwise(self._ends[k:j + 1])]  # each less its \n
            yield from json.loads(b"[" + b",".join(members) + b"]")
            k = j


Place = tuple[Spool, int]  # a value in a spool


class SpooledRecords(Mapping[str, ClaimRecord]):
    """Claim id -> its record, read from its spool when asked (``AuditInputs.records``)."""

    def __init__(self, places: Mapping[str, Place]) -> None:
        self.places = places

    def __getitem__(self, claim_id: str) -> ClaimRecord:
        spool, k = self.places[claim_id]
        return spool.record(k)

    def __iter__(self) -> Iterator[str]:
        return iter(self.places)

    def __len__(self) -> int:
        return len(self.places)


class DecodedRecords(Sequence[ClaimRecord]):
    """Records held encoded (on disk, or as JSON in memory: ``run.heldclaims``), record ``i``
    decoded when it is asked for (``_decode``), a new dict each time. A subclass gives
    ``_decode`` and ``__len__``; indexing, slices and iteration are this class's."""

    def _decode(self, i: int) -> ClaimRecord:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> ClaimRecord: ...

    @overload
    def __getitem__(self, index: slice) -> list[ClaimRecord]: ...

    def __getitem__(self, index: int | slice) -> ClaimRecord | list[ClaimRecord]:
        numbers = range(len(self))  # its indexing is a list's: negative from the end, IndexError past it
        if isinstance(index, slice):
            return [self._decode(i) for i in numbers[index]]
        return self._decode(numbers[index])

    def __iter__(self) -> Iterator[ClaimRecord]:
        return (self._decode(i) for i in range(len(self)))


class SpooledList(DecodedRecords):
    """Claims read from their spools, in the order of ``places``, as the finish iterates them."""

    def __init__(self, places: list[Place]) -> None:
        self.places = places

    def _decode(self, i: int) -> ClaimRecord:
        spool, k = self.places[i]
        return spool.record(k)

    def __len__(self) -> int:
        return len(self.places)


class SpooledItems(IndentedMembers):
    """A list subclass so ``json.dump`` writes it as the list it stands for. Its own list storage
    stays empty; ``spool`` adds a finished record, ``hold`` one kept in memory (a claim finished
    last, in its place). A record is spooled as its indented text, which ``core.atomic.write_json``
    copies into ``audit.json`` (``IndentedMembers``): encoded once, never decoded to be written."""

    def __init__(self, folder: Path | None = None) -> None:
        super().__init__()
        self._spool = Spool(folder)
        # a spooled record's number, or -1 - i for the i-th held record: 8 bytes a claim, where a
        # list of ints was ~40 (an int object each)
        self._places = array("q")
        self._held: list[ClaimRecord] = []

    def spool(self, item: ClaimRecord) -> None:
        self._places.append(self._spool.add_encoded(dumps(item)))

    def hold(self, item: ClaimRecord) -> None:
        self._places.append(-1 - len(self._held))
        self._held.append(item)

    def _read(self, k: int) -> ClaimRecord:
        place = self._places[k]
        return self._spool.record(place) if place >= 0 else self._held[-1 - place]

    def __len__(self) -> int:
        return len(self._places)

    def __bool__(self) -> bool:
        return bool(self._places)

    def __iter__(self) -> Iterator[ClaimRecord]:
        return (self._read(k) for k in range(len(self)))

    def indented_members(self) -> Iterator[str]:
        for place in self._places:
            yield self._spool.text(place) if place >= 0 else dumps(self._held[-1 - place])

    @overload
    def __getitem__(self, index: SupportsIndex) -> ClaimRecord: ...

    @overload
    def __getitem__(self, index: slice) -> list[ClaimRecord]: ...

    def __getitem__(self, index: SupportsIndex | slice) -> ClaimRecord | list[ClaimRecord]:
        if isinstance(index, slice):
            return [self._read(k) for k in range(len(self))[index]]
        return self._read(range(len(self))[index])

    def __repr__(self) -> str:
        return f"<{len(self)} claim records spooled>"
