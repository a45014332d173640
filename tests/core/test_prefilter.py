"""Priors and excerpts: locale-aware, boundary-safe, honest about unread pages."""

from __future__ import annotations

import pytest

from sv_scrapy.core.figures.values import extract_values
from sv_scrapy.core.page.prefilter import PrefilterSettings, prior_for_text, prior_without_text

SETTINGS = PrefilterSettings(excerpt_window_chars=40, max_excerpts=2, min_text_chars=0, js_spa_hosts=("spa.gov.hk",))
FILLER = " Lorem ipsum dolor sit amet." * 10


def prior(claim: str, page: str, hosts: tuple[str, ...] = ("x.gouv.fr",), settings: PrefilterSettings = SETTINGS):
    return prior_for_text([v.as_dict() for v in extract_values(claim)], page, list(hosts), settings)


@pytest.mark.parametrize(
    ("claim", "page"),
    [
        ("5.81 %", "taux de 5,81 %"),
        ("5.81 %", "taux de 5.81%"),
        ("€1,500", "1 500 €"),
        ("€1,500", "1\u00a0500 €"),
        ("€1,500", "1\u202f500 €"),
        ("€1,500", "1\u2009500 €"),
        ("€1,500", "1.500 €"),
        ("€1,500", "1'500 €"),
        ("€1,500", "EUR 1500"),
        ("CI$2M", "CI$2,000,000"),
        ("CI$2,000,000", "CI$2 million"),
        ("1 April 2025", "le 1er avril 2025"),
        ("1 April 2025", "am 1. April 2025"),
        ("1 April 2025", "el 1 de abril de 2025"),
        ("1 April 2025", "on April 1, 2025"),
        ("1 April 2025", "le 01/04/2025"),
        ("1 April 2025", "2025-04-01"),
        ("Loi n° 2024-1039", "LOI n° 2024\u20111039"),
    ],
)
def test_present_whatever_the_locale(claim: str, page: str) -> None:
    assert prior(claim, page + FILLER).prior == "TOKENS_PRESENT"


@pytest.mark.parametrize("page", ["taux de 15,81 %", "taux de 5,812 %", "taux de 5,8 %", "taux 25.81 %"])
def test_number_boundaries(page: str) -> None:
    assert prior("5.81 %", page + FILLER).prior == "TOKENS_ABSENT"


def test_short_figure_without_unit_is_weak_with_unit_is_strong() -> None:
    assert prior("VAT 10%", "see page 10 of the guide" + FILLER).prior == "WEAK_MATCH"
    assert prior("VAT 10%", "the rate is 10 %" + FILLER).prior == "TOKENS_PRESENT"


def test_month_only_for_a_full_date_is_weak() -> None:
    assert prior("from 1 April 2025", "in April 2025" + FILLER).prior == "WEAK_MATCH"


def test_thin_page_and_js_host_are_not_absent() -> None:
    thin = PrefilterSettings(min_text_chars=200)
    assert prior("5.81 %", "Loading…", settings=thin).prior == "SOURCE_UNAVAILABLE"
    assert prior("5.81 %", "x" * 500, hosts=("www.spa.gov.hk",)).prior == "SOURCE_UNAVAILABLE"
    assert prior("5.81 %", "x" * 500).prior == "TOKENS_ABSENT"


def test_matched_and_missing_tokens_and_excerpts() -> None:
    got = prior("DMTO 5.81 % and duty 2.37 % since 1 April 2025", "x" * 100 + " taux 5,81 % " + "y" * 100)
    assert got.matched_tokens == ["5.81 %"] and got.strong_matched == ["5.81 %"]
    assert got.missing_tokens == ["2.37 %", "1 April 2025"]
    assert got.found_as == {"5.81 %": "5,81"}
    (excerpt,) = got.excerpts
    assert "taux 5,81 %" in excerpt and excerpt.startswith("…") and excerpt.endswith("…")


def test_unread_pages_keep_every_salient_token_missing() -> None:
    got = prior_without_text([v.as_dict() for v in extract_values("5.81 % in 2025")], "PDF_NO_TEXT", "scan")
    assert (got.prior, got.missing_tokens, got.note) == ("PDF_NO_TEXT", ["5.81 %"], "scan")
