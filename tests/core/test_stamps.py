"""Verification stamps: every corpus form parsed, their dates masked."""

from __future__ import annotations

import pytest

from sv_scrapy.core.claims.stamps import mask_stamp_dates, parse_file_stamp, parse_line_stamp
from sv_scrapy.core.figures.values import extract_values


@pytest.mark.parametrize(
    ("line", "date", "kind"),
    [
        ("VAT 10% (2026-05-27 verified, source DIR)", "2026-05-27", "verified"),
        ("VAT 10% (2026-05-27 verified; source DIR)", "2026-05-27", "verified"),
        ("duty 2% (2026-05-27 stale-marker)", "2026-05-27", "stale-marker"),
        ("### Dubai benchmarks (verified 2026-07-03)", "2026-07-03", "verified"),
        ("portal ❌ link dead (verified 2026-06-13); verify elsewhere", "2026-06-13", "verified"),
        ("fee (2026-01-02 re-verified)", "2026-01-02", "verified"),
    ],
)
def test_line_stamps(line: str, date: str, kind: str) -> None:
    stamp = parse_line_stamp(line)
    assert stamp is not None and (stamp.date, stamp.kind) == (date, kind)


def test_stale_marker_wins_over_verified_on_one_line() -> None:
    stamp = parse_line_stamp("a (2026-05-01 verified) b (2026-04-01 stale-marker)")
    assert stamp is not None and stamp.kind == "stale-marker"


@pytest.mark.parametrize(
    "line", ["**Last verified**: 2026-05-27", "**Last verified**: 2026-05-27 (validation sweep)", "Last verified: 2026-05-27"]
)
def test_file_stamp(line: str) -> None:
    stamp = parse_file_stamp(line)
    assert stamp is not None and (stamp.date, stamp.origin) == ("2026-05-27", "file")


@pytest.mark.parametrize(
    "line",
    [
        "rate 10% (2026-05-27 verified)",
        "rate 10% (verified 2026-07-03)",
        "figures as researched 2026-05-28",
        "status as of 2026-05-28",
        "**Last verified**: 2026-05-27",
        # when the tracker read or saw a page: fetch and observation notes, a site's maintenance
        "(Source: [X](https://x.gov.xx/) primary, fetched 2026-05-28)",
        "(certificate error observed 2026-05-28, cite with care)",
        "the portal was in **maintenance mode** on 2026-09-18",
        "the consolidated text was not re-read on 17 Sep 2026",
    ],
)
def test_stamp_dates_are_never_claim_values(line: str) -> None:
    masked = mask_stamp_dates(line)
    assert len(masked) == len(line)
    assert [v for v in extract_values(masked) if v.type == "date"] == []


def test_real_dates_survive_masking() -> None:
    masked = mask_stamp_dates("in force 2025-04-01 (2026-05-27 verified)")
    assert [v.norm for v in extract_values(masked) if v.type == "date"] == ["2025-04-01"]
