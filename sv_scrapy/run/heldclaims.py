"""The run's claims for as long as it runs: each claim's record as compact JSON, all of them in
one buffer, decoded when a page or the finish asks.

As dicts, a claim's first fields (its id, text, figures and their needles, URL, host, file) held
1.0–1.6 KB of small Python objects, for every claim of the corpus from the first request to the
last: 150 MB at 100,000 URLs, however few pages were in flight. As JSON in one buffer the
same claim is its ~450 bytes of text and 16 bytes of offsets; a URL adds its key and the index of
its first claim (``tests/test_held_claims.py`` holds the bound). Decoding costs ~25
microseconds a claim: once when its page's item is built, once more when the audit finishes.

Every read gives new dicts: a caller may change what it was given without changing the run's
claims.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar, cast

from sv_scrapy.core.audit.spool import DecodedRecords
from sv_scrapy.core.claims.record import ClaimRecord

T = TypeVar("T")

_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode


class HeldClaims(DecodedRecords):
    """The claims in corpus order (a ``Sequence``), and by the URL they cite (``of``)."""

    def __init__(self, claims: Iterable[ClaimRecord]) -> None:
        text = bytearray()
        self._ends = array("Q")  # claim i's JSON is text[ends[i - 1]:ends[i]]
        self._next = array("q")  # the next claim citing the same URL, or -1
        self._first: dict[str, int] = {}  # URL -> its first claim, in the order URLs are first cited
        last: dict[str, int] = {}
        for i, claim in enumerate(claims):
            text += _ENCODE(claim).encode()
            self._ends.append(len(text))
            self._next.append(-1)
            url = claim["source_url"]
            if url in last:
                self._next[last[url]] = i
            else:
                self._first[url] = i
            last[url] = i
        self._text = text  # not copied to bytes: at 100,000 claims that was 45 MB more at the start

    def _decode(self, i: int) -> ClaimRecord:
        start = self._ends[i - 1] if i else 0
        return cast("ClaimRecord", json.loads(self._text[start:self._ends[i]]))

    def __len__(self) -> int:
        return len(self._ends)

    def urls(self) -> Iterator[str]:
        """The cited URLs, each once, in the order they are first cited."""
        return iter(self._first)

    def url_count(self) -> int:
        return len(self._first)

    def of(self, url: str) -> list[ClaimRecord]:
        """The claims citing ``url``, in corpus order (none for a URL no claim cites)."""
        found = []
        i = self._first.get(url, -1)
        while i >= 0:
            found.append(self._decode(i))
            i = self._next[i]
        return found

    def citing(self, wanted: Callable[[str], bool]) -> list[ClaimRecord]:
        """The claims whose cited URL is ``wanted``: only theirs are decoded."""
        return [claim for url in self._first if wanted(url) for claim in self.of(url)]


def held(claims: Sequence[ClaimRecord]) -> HeldClaims:
    """``claims`` as held claims (as they are if they already are)."""
    return claims if isinstance(claims, HeldClaims) else HeldClaims(claims)


def drained(items: list[T]) -> Iterator[T]:
    """Each of ``items`` in order, taken out of the list as it is handed out (it is empty at the
    end): encoded one at a time, the objects of a large corpus are let go as they go."""
    items.reverse()
    while items:
        yield items.pop()
