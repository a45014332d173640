"""The lookup plan starts a flagged claim's lookup as soon as it is sure to be among the
``max_lookups`` most urgent, and ends with exactly the set ``thennow.select`` chooses after the crawl."""

from __future__ import annotations

import random

import pytest

from sv_scrapy.core.audit.archive.plan import LookupPlan
from sv_scrapy.core.audit.archive.thennow import select
from sv_scrapy.core.claims.record import ClaimRecord


def claims(n: int, rng: random.Random) -> list[ClaimRecord]:
    return [ClaimRecord(id=f"c{i:03d}", priority=float(rng.randint(0, 5)),  # ties: the id decides
                        fetch_status="OK", prior=rng.choice(["TOKENS_ABSENT", "TOKENS_PRESENT"])) for i in range(n)]


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("max_lookups", [0, 1, 3, 10, 100])
def test_the_plan_ends_with_the_most_urgent_as_select_chooses(seed: int, max_lookups: int) -> None:
    rng = random.Random(seed)
    records = claims(40, rng)
    plan = LookupPlan({r["id"]: r["priority"] for r in records}, max_lookups)
    cuts = sorted(rng.sample(range(1, len(records)), 12))  # pages citing one claim or several
    pages = [records[a:b] for a, b in zip([0, *cuts], [*cuts, len(records)], strict=True)]
    rng.shuffle(pages)  # pages are judged in any order
    started = []
    for page in pages:
        started += plan.judged(page, [r for r in page if r["prior"] == "TOKENS_ABSENT"])
    started += plan.all_judged()
    flagged = [r for r in records if r["prior"] == "TOKENS_ABSENT"]
    assert {r["id"] for r in started} == {r["id"] for r in select(flagged, max_lookups)}
    assert len(started) + plan.skipped == len(flagged)


def test_with_fewer_flagged_than_the_bound_each_starts_when_its_page_is_judged() -> None:
    plan = LookupPlan({"a": 1.0, "b": 9.0, "c": 5.0}, max_lookups=3)
    assert [r["id"] for r in plan.judged([{"id": "a"}], [{"id": "a"}])] == ["a"]  # b and c cannot push it out
    assert plan.judged([{"id": "b"}], []) == []
    assert [r["id"] for r in plan.judged([{"id": "c"}], [{"id": "c"}])] == ["c"]


def test_a_claim_waits_while_enough_unjudged_claims_could_outrank_it() -> None:
    plan = LookupPlan({"low": 1.0, "high1": 9.0, "high2": 8.0}, max_lookups=2)
    assert plan.judged([{"id": "low"}], [{"id": "low"}]) == []  # high1 and high2 may both be flagged
    assert [r["id"] for r in plan.judged([{"id": "high1"}], [])] == ["low"]  # only high2 may outrank it now
    assert [r["id"] for r in plan.judged([{"id": "high2"}], [{"id": "high2"}])] == ["high2"]
    assert plan.judged([], []) == [] and plan.started == 2
