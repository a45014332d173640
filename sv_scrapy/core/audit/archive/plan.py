"""When a flagged claim's archive lookup may start, during the crawl.

The archive is asked about at most ``max_lookups`` flagged claims, the most urgent first
(``thennow.select``: the sampling priority, then the id). A lookup starts as soon as its claim is
sure to be among them: fewer than ``max_lookups`` claims could still outrank it — the lookups
already started plus the claims whose page is not judged yet and whose priority is higher (a
claim's priority is known before its page is fetched: it is the claim's, not the page's). With
fewer flagged claims than the bound, that is each claim as soon as its page is judged; at the
end of the crawl it is exactly the ``max_lookups`` most urgent, as if chosen after the crawl.

>>> claims = [{"id": "a", "p": 3.0}, {"id": "b", "p": 2.0}, {"id": "c", "p": 1.0}]
>>> plan = LookupPlan({c["id"]: c["p"] for c in claims}, max_lookups=1)
>>> plan.judged([{"id": "c"}], [{"id": "c"}])  # flagged, but a and b may outrank it
[]
>>> [r["id"] for r in plan.judged([{"id": "a"}], [{"id": "a"}])]  # nothing can outrank a
['a']
>>> plan.judged([{"id": "b"}], []), plan.skipped
([], 1)
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections.abc import Iterable, Mapping

from sv_scrapy.core.claims.record import ClaimRecord

Rank = tuple[float, str]  # (-priority, id): the smaller, the more urgent


class LookupPlan:
    def __init__(self, priorities: Mapping[str, float], max_lookups: int) -> None:
        self.max_lookups = max(0, max_lookups)
        self._ranks = {cid: (-p, cid) for cid, p in priorities.items()}
        self._unjudged: list[Rank] = sorted(self._ranks.values())  # claims whose page is not judged yet
        self._waiting: list[tuple[Rank, int, ClaimRecord]] = []  # flagged, not yet sure to be looked up
        self._seq = 0
        self.started = 0
        self.skipped = 0

    def rank(self, record: ClaimRecord) -> Rank:
        cid = str(record["id"])
        return self._ranks.get(cid, (0.0, cid))

    def judged(self, records: Iterable[ClaimRecord], flagged: Iterable[ClaimRecord]) -> list[ClaimRecord]:
        """A page's claim records are made (``flagged``: those the archive is asked about):
        the flagged claims whose lookup may start now, most urgent first."""
        for record in records:
            rank = self.rank(record)
            at = bisect_left(self._unjudged, rank)
            if at < len(self._unjudged) and self._unjudged[at] == rank:
                del self._unjudged[at]
        for record in flagged:
            self._seq += 1
            heapq.heappush(self._waiting, (self.rank(record), self._seq, record))
        return self._ready()

    def all_judged(self) -> list[ClaimRecord]:
        """The crawl is done (a page that made no item counts as judged): what may start now."""
        self._unjudged.clear()
        return self._ready()

    def _ready(self) -> list[ClaimRecord]:
        ready = []
        while self._waiting:
            rank, _, record = self._waiting[0]
            if self.started >= self.max_lookups:
                if self._unjudged:
                    break  # the rest is counted as skipped once every page is judged
                heapq.heappop(self._waiting)
                self.skipped += 1
                continue
            if self.started + bisect_left(self._unjudged, rank) >= self.max_lookups:
                break  # claims not judged yet may still outrank it
            heapq.heappop(self._waiting)
            self.started += 1
            ready.append(record)
        return ready
