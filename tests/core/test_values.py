"""Salient figure tokens: string in, tokens out."""

from __future__ import annotations

import pytest

from sv_scrapy.core.figures.values import canonical_number, extract_values


def salient(text: str) -> list[tuple[str, str]]:
    return [(v.type, v.norm) for v in extract_values(text) if v.salient]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("DMTO 5.81 % since", [("pct", "5.81")]),
        ("rate 5,81% here", [("pct", "5.81")]),
        ("up 2pp on the year", [("pct", "2")]),
        ("a 1.5 percentage points rise", [("pct", "1.5")]),
        ("2.5 per cent levy", [("pct", "2.5")]),
        ("costs €1,500", [("money", "1500 €")]),
        ("HK$1,000 or under", [("money", "1000 HK$")]),
        ("CI$2M or more", [("money", "2000000 CI$")]),
        ("EUR 300,000 cap", [("money", "300000 EUR")]),
        ("300,000 EUR cap", [("money", "300000 EUR")]),
        ("AED 25 bn programme", [("money", "25000000000 AED")]),
        ("€24k allowance", [("money", "24000 €")]),
        ("Law 7464 applies", [("statute", "7464")]),
        ("Loi n° 2024-1039", [("statute", "2024-1039")]),
        ("Royal Decree M/9", [("statute", "M/9")]),
        ("Cap. 117 governs", [("statute", "117")]),
        ("§ 23 EStG", [("statute", "23")]),
        ("from 2025-04-01", [("date", "2025-04-01")]),
        ("from 1 April 2025", [("date", "2025-04-01")]),
        ("from April 1, 2025", [("date", "2025-04-01")]),
        ("depuis le 1er avril 2025", [("date", "2025-04-01")]),
        ("ab 1. April 2025", [("date", "2025-04-01")]),
        ("desde 1 de abril de 2025", [("date", "2025-04-01")]),
        ("since Sep 2019", [("date", "2019-09")]),
    ],
)
def test_salient_values(text: str, expected: list[tuple[str, str]]) -> None:
    assert salient(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "the 2022 census",  # a bare year
        "International Persons Landholding Act 1993",  # the year names the statute
        "ranked No. 1 in Asia",  # an ordinal outside an instrument's title
        "about 412,000 residents",  # a count, not money
    ],
)
def test_not_salient(text: str) -> None:
    assert salient(text) == []


def test_money_beats_year_for_the_same_digits() -> None:
    values = extract_values("budget of €2025 per year")
    assert [(v.type, v.raw) for v in values] == [("money", "€2025")]


def test_values_keep_their_span() -> None:
    text = "VAT 10% and duty €500"
    spans = [text[v.pos : v.end] for v in extract_values(text)]
    assert spans == ["10%", "€500"]


def test_type_outside_salient_types_is_kept_but_not_salient() -> None:
    values = extract_values("10% since 1 Jan 2022", salient_types=("pct",))
    assert [(v.type, v.salient) for v in values] == [("pct", True), ("date", False)]


@pytest.mark.parametrize(
    ("written", "canonical"),
    [("1,500,000", "1500000"), ("1.500.000", "1500000"), ("1 500 000", "1500000"),
     ("1\u202f500", "1500"), ("1'500", "1500"), ("6,32", "6.32"), ("6.30", "6.3"), ("0.125", "0.125")],
)
def test_canonical_number(written: str, canonical: str) -> None:
    assert canonical_number(written) == canonical


def test_seed_needles_cover_both_separators() -> None:
    (value,) = extract_values("rate 6.32 %")
    assert {"6.32", "6,32"} <= set(value.needles)


def test_extraction_grows_linearly_with_line_length() -> None:
    """Issue #10: a line dense with figures; the quadratic span check took 13 s at 0.2 MB.

    Generous bounds, in CPU time (a shared machine): 5x the text may take at most 12x the
    time, and 1 MB at most 10 s. bench/extract.py prints the 1 MB / 5 MB figures.
    """
    import time

    unit = "rate 5.81 % and €1,500 since 1 April 2025 (Law 7464) in 2024; "
    timings = []
    for size in (200_000, 1_000_000):
        line = unit * (size // len(unit))
        t0 = time.process_time()
        values = extract_values(line)
        timings.append(time.process_time() - t0)
        assert len(values) == 5 * (size // len(unit))
    assert timings[1] < 10
    assert timings[1] / timings[0] < 12
