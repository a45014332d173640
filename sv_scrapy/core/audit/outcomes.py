"""Each claim's outcome kept for next month (``core.audit.news.Transitions``), on disk while the
finish goes on (issue #42): 100,000 small dicts held until ``claims.json`` was written were the
finish's largest term (~360 bytes a claim, ~36 MB at 100,000). ``KeptOutcomes`` is the mapping
the store writes (``as_json_object`` hands it to ``json.dump`` as the object it stands for)."""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, Mapping, MutableMapping
from pathlib import Path
from typing import Any

from sv_scrapy.core.audit.spool import Spool

Outcome = dict[str, Any]


class KeptOutcomes(MutableMapping[str, Outcome]):
    """Claim id -> its kept outcome, in the order added, each a line ``[id, outcome]`` of a spool:
    what stays in memory is 8 bytes a claim (the spool's line ends). ``add`` appends a claim not
    yet kept (the finish's one pass); asking by id (a review's note, a country run keeping another
    scope's outcomes) reads the ids once into an index, so a finish that never asks never holds one.
    A value set again is held in memory in its place (a few: expired reviews); outcomes are never removed."""

    def __init__(self, folder: Path | None = None) -> None:
        self._spool = Spool(folder)
        self._index: dict[str, int] | None = None  # id -> its line, once a claim is asked for by id
        self._replaced: dict[int, Outcome] = {}  # line -> the value set again
        self._count = 0

    def add(self, claim_id: str, outcome: Outcome) -> None:
        """Keep the outcome of a claim that has none yet (the caller knows; no index is read)."""
        k = self._spool.add([claim_id, outcome])
        self._count += 1
        if self._index is not None:
            self._index[claim_id] = k

    def _line(self, k: int) -> tuple[str, Outcome]:
        claim_id, outcome = self._spool.get(k)
        return claim_id, self._replaced.get(k, outcome)

    def _lines(self) -> dict[str, int]:
        if self._index is None:
            self._index = {claim_id: k for k, (claim_id, _) in enumerate(self._spool.values())}
        return self._index

    def __getitem__(self, claim_id: str) -> Outcome:
        return self._line(self._lines()[claim_id])[1]

    def __setitem__(self, claim_id: str, outcome: Outcome) -> None:
        k = self._lines().get(claim_id)
        if k is None:
            self.add(claim_id, outcome)
        else:
            self._replaced[k] = outcome

    def __delitem__(self, claim_id: str) -> None:
        raise TypeError("a kept outcome is never removed")

    def __contains__(self, claim_id: object) -> bool:
        return claim_id in self._lines()

    def __iter__(self) -> Iterator[str]:
        return (claim_id for claim_id, _ in self.items())

    def items(self) -> ItemsView[str, Outcome]:
        return _Lines(self)

    def __len__(self) -> int:
        return self._count

    def __repr__(self) -> str:
        return f"<{len(self)} kept outcomes spooled>"


class _Lines(ItemsView[str, Outcome]):
    """(id, outcome) read from the spool in order, a block at a time: not a lookup by id."""

    _mapping: KeptOutcomes

    def __iter__(self) -> Iterator[tuple[str, Outcome]]:
        kept = self._mapping
        for k, (claim_id, outcome) in enumerate(kept._spool.values()):
            yield claim_id, kept._replaced.get(k, outcome)


class _JsonObject(dict[str, Any]):
    """A dict subclass so ``json.dump`` (indented: the Python encoder) writes a mapping as the
    object it stands for, reading its items as it writes them; its own storage stays empty."""

    def __init__(self, mapping: Mapping[str, Any]) -> None:
        super().__init__()
        self._mapping = mapping

    def __len__(self) -> int:
        return len(self._mapping)

    def __bool__(self) -> bool:
        return bool(self._mapping)

    def items(self) -> Any:
        return self._mapping.items()


def as_json_object(mapping: Mapping[str, Any]) -> dict[str, Any]:
    """The mapping as ``core.atomic.write_json`` writes an object: a plain dict as it is, a
    ``KeptOutcomes`` streamed from its spool."""
    return mapping if isinstance(mapping, dict) else _JsonObject(mapping)
