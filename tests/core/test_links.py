"""Links on a line: URL masking, pointer clauses, nearest-link attribution."""

from __future__ import annotations

import pytest

from sv_scrapy.core.claims.links import attribute, find_links, mask_urls, pointer_flags
from sv_scrapy.core.figures.values import extract_values


def owned(line: str) -> list[list[str]]:
    links = find_links(line)
    return [[v.raw for v in vs] for vs in attribute(extract_values(mask_urls(line)), links)]


def test_balanced_parentheses_stay_in_the_url() -> None:
    (link,) = find_links("see [CGT](https://x.gov.hk/Capital%20Gain%20Tax%20(CGT).aspx).")
    assert link.url == "https://x.gov.hk/Capital%20Gain%20Tax%20(CGT).aspx"




def test_url_digits_are_masked() -> None:
    line = "rate 3% ([doc](https://x.gouv.fr/loi-2024-1039/2025-04-01))"
    assert [v.raw for v in extract_values(mask_urls(line))] == ["3%"]


@pytest.mark.parametrize(
    ("line", "flags"),
    [
        ("~412,000 (2022 Census — verify at [NSI](https://a.gov.bs/s)).", [True]),
        ("VAT 10% since 1 Jan 2022. Verify at [DIR](https://a.gov.bs/v).", [True]),
        ("may be exempt — confirm via [Lands](https://a.gov.hk/l).", [True]),
        ("(Verify at [leg](https://legislation.gov.ky/).)", [True]),
        ("re-verify each at [leg](https://legislation.gov.ky/) / [gov](https://www.gov.ky/).", [True, True]),
        ("**Verify exact statutory text + threshold at [leg](https://legislation.gov.ky/) before use.**", [True]),
        ("SAR 4,000/month (2024 update; verify [MHRSD](https://www.mhrsd.gov.sa/))", [True]),
        ("rate 10% (verified primary at [gov.ky](https://www.gov.ky/))", [False]),
        ("VAT 10% ([DIR](https://a.gov.bs/v)); cross-rates — verify at [INEC](https://b.gob.ar/)", [False, True]),
        ("see [impots](https://www.impots.gouv.fr/x) for the 5.81 % rate", [False]),
        # a verify label, a plain-text target with a link alternative, a roster a verify sentence announces
        ("VAT 16%. **Verify:** [SAT](https://www.sat.gob.mx/)", [True]),
        ("| IVA | 16% | Verify: [SAT](https://www.sat.gob.mx/) |", [True]),
        ("rate 2% — confirm the current band at the tax office / [AEAT](https://sede.agenciatributaria.gob.es/)",
         [True]),
        ("Confirm the 1 Jan 2026 band at primary sources before any binding step. Authoritative primary sources: "
         "**[gov](https://www.gov.ky/)**, **[CIMA](https://www.cima.ky/)** · [ESO](https://www.eso.ky/).",
         [True, True, True]),
        ("**Confirm** the 3% levy at primary sources first. Authoritative primaries: [Lands](https://l.gov.xx/) · "
         "[IRD](https://i.gov.xx/)", [True, True]),
        # not pointers: a roster no verify sentence announces, a target named in plain text, a label that is a source
        ("VAT 10% since 2022. Primary sources: [DIR](https://a.gov.bs/v), [BIA](https://b.gov.bs/)", [False, False]),
        ("in force 1 Jan 2026 — verify current amount at BOPA ([circular](https://www.govern.ad/c))", [False]),
        ("rate 7% (Source: [RCIPS](https://www.rcips.ky/crime-statistics) — primary)", [False]),
    ],
)
def test_pointer_flags(line: str, flags: list[bool]) -> None:
    assert pointer_flags(line, find_links(line)) == flags


def test_figures_go_to_the_nearest_link() -> None:
    line = "VAT 10% ([a](https://a.gov/)) and stamp duty 2% ([b](https://b.gov/))"
    assert owned(line) == [["10%"], ["2%"]]


def test_tie_goes_to_the_following_link() -> None:
    line = "[a](https://a.gov/) 5% [b](https://b.gov/)"
    assert owned(line) == [[], ["5%"]]


def test_single_link_owns_everything() -> None:
    assert owned("5% and 7% ([a](https://a.gov/))") == [["5%", "7%"]]


def test_images_are_not_citations() -> None:
    links = find_links("![chart](https://x.gov/c.png) and [a](https://x.gov/a)")
    assert [link.url for link in links] == ["https://x.gov/a"]
