"""Fetch-free sampling: weights, determinism, stability."""

from __future__ import annotations

from datetime import date

from sv_scrapy.core.claims.claims import Claim
from sv_scrapy.core.claims.sampling import score, select_sample, stamp_age_days

WEIGHTS = {"stale_marker": 100, "never_verified": 50, "stamp_age_per_30d": 8, "salient_statute_or_money": 10}
AS_OF = date(2026, 12, 1)


def claim(cid: str, stamp: dict[str, str] | None = None, value_type: str = "pct") -> Claim:
    return Claim(cid, "xx", "s", 1, "t", [{"type": value_type, "salient": True}], "https://a.gov/", "a.gov",
                 "primary-gov", stamp, "f.md")


def test_priority_order() -> None:
    stale = claim("stale", {"date": "2026-11-01", "kind": "stale-marker", "origin": "line"})
    never = claim("never")
    old = claim("old", {"date": "2025-12-01", "kind": "verified", "origin": "line"})
    fresh = claim("fresh", {"date": "2026-11-30", "kind": "verified", "origin": "line"})
    money = claim("money", {"date": "2026-11-30", "kind": "verified", "origin": "line"}, "money")
    ranked = select_sample([fresh, money, old, never, stale], 5, WEIGHTS, AS_OF)
    assert [c.id for c in ranked] == ["stale", "old", "never", "money", "fresh"]


def test_same_seed_same_sample_and_seed_matters() -> None:
    claims = [claim(f"c{i}") for i in range(40)]
    first = [c.id for c in select_sample(claims, 10, WEIGHTS, AS_OF, seed=7)]
    assert first == [c.id for c in select_sample(list(reversed(claims)), 10, WEIGHTS, AS_OF, seed=7)]
    assert first != [c.id for c in select_sample(claims, 10, WEIGHTS, AS_OF, seed=8)]


def test_adding_a_claim_does_not_reshuffle_the_rest() -> None:
    claims = [claim(f"c{i}") for i in range(20)]
    before = [c.id for c in select_sample(claims, 20, WEIGHTS, AS_OF)]
    after = [c.id for c in select_sample([*claims, claim("new")], 21, WEIGHTS, AS_OF) if c.id != "new"]
    assert before == after


def test_as_of_drives_the_age_term() -> None:
    stamped = claim("s", {"date": "2026-01-01", "kind": "verified", "origin": "file"})
    assert stamp_age_days(stamped.inline_stamp, date(2026, 1, 31)) == 30
    assert score(stamped, WEIGHTS, date(2026, 7, 1), 1) > score(stamped, WEIGHTS, date(2026, 2, 1), 1)


def test_sample_size_bounds() -> None:
    claims = [claim(f"c{i}") for i in range(3)]
    assert len(select_sample(claims, 10, WEIGHTS, AS_OF)) == 3
    assert select_sample(claims, 0, WEIGHTS, AS_OF) == []
