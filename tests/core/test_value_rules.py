"""Issue #12's value rules, pointers with decimals, code URLs and allowlist candidates."""

from __future__ import annotations

import pytest

from sv_scrapy.core.claims.candidates import allowlist_candidates, candidates_markdown
from sv_scrapy.core.claims.claims import Extraction, ExtractOptions, SecondaryCitation, extract_file, extraction_stats
from sv_scrapy.core.claims.links import find_links, pointer_flags
from sv_scrapy.core.figures.values import extract_values
from sv_scrapy.core.hosts import HostRules


def salient(text: str) -> list[tuple[str, str]]:
    return [(v.type, v.norm) for v in extract_values(text) if v.salient]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a statute number is salient unless it is the only number and reads as a year
        ("Transfer of Property Act 1882", []),
        ("Revenue Ordinance 2005", []),
        ("Ley 2068/2020", [("statute", "2068/2020")]),
        ("Law 2090 applies", [("statute", "2090")]),
        ("Decree 2045 sets", [("statute", "2045")]),
        ("Climate Action Plan 2050 (CAP 2050) before 2050", []),  # used as a year nearby
        # currency codes need a number beside them and no hyphenated suffix
        ("Nov 2021 COP-26 pledges", [("date", "2021-11")]),
        ("scenario SSP2-4.5 by 2100", []),
        ("RUB 500,000 cap", [("money", "500000 RUB")]),
        ("UAH 1,500 fee", [("money", "1500 UAH")]),
        ("ACT 2024 rules", []),  # three capitals that are no currency
        # units stay with the amount
        ("INR 10 lakh Cr outlay", [("money", "10000000000000 INR")]),  # 10 x 10^5 x 10^7
        ("₹32L budget", [("money", "3200000 ₹")]),
        ("AED 25 Bn programme", [("money", "25000000000 AED")]),
        ("1,25 mln zł", [("money", "1250000 zł")]),
        ("R$ 1,3 mi", [("money", "1300000 R$")]),
        ("₹24,50,000.00 stamp", [("money", "2450000 ₹")]),
        # YYYY-MM is a month unless it is a fiscal-year range
        ("(effective 2023-12)", [("date", "2023-12")]),
        ("budget 2024-25", []),
        ("FY 2011-12 accounts", []),
        # month names of every CLDR locale, but no short word of one minor language
        ("del 29 desembre 2000", [("date", "2000-12-29")]),
        ("Ley 5 de 2024 and sold out 2024", [("statute", "5 de 2024")]),
        ("depuis le 1 avr. 2025", [("date", "2025-04-01")]),
    ],
)
def test_value_rules(text: str, expected: list[tuple[str, str]]) -> None:
    assert salient(text) == expected


@pytest.mark.parametrize(
    ("text", "raw", "norm"),
    [
        # numbered instruments as the Commonwealth and civil-law corpora write them: the raw as
        # written, the norm as a page is searched for it (a short number keeps its "No.")
        ("under S.I. 2024 No. 57 the fee", "S.I. 2024 No. 57", "2024 No. 57"),
        ("the Registered Land Act, No. 17 of 1975", "No. 17 of 1975", "17 of 1975"),
        ("Stamp Duty (Rates of Duty)(No. 2) Regulations 2025", "No. 2", "No. 2"),
        ("Act No. 10 of 2017", "Act No. 10 of 2017", "10 of 2017"),
        ("Land Surveyors Act, Chap. 70:07", "Chap. 70:07", "70:07"),
        ("see ss. 6–7 of the Ordinance", "ss. 6–7", "6–7"),
        ("duty under s. 12 applies", "s. 12", "12"),
        ("Article 2(1)(e) exempts", "Article 2(1)(e)", "2(1)(e)"),
        ("Law No. 5 sets", "Law No. 5", "No. 5"),
        ("Decree No. 123 sets", "Decree No. 123", "123"),
        ("Arts 6–7 of the Code", "Arts 6–7", "6–7"),
        ("Reg. 12 requires", "Reg. 12", "12"),
        ("Reg 883/2004 coordinates", "Reg 883/2004", "883/2004"),
        ("Llei 10/2012 governs", "Llei 10/2012", "10/2012"),
        ("§§ 23 EStG", "§§ 23", "23"),
        ("Lei n.º 56/2023 sets", "Lei n.º 56/2023", "56/2023"),
        ("artículo 10 de la Ley", "artículo 10", "10"),
        ("under Section 12 of the Act", "Section 12", "12"),
        ("Cabinet Circular No. 5 sets", "No. 5", "No. 5"),
        # civil-law ids: any capitalised instrument word (or its capitals, "DL") before a number/year
        ("o DL 12/2025 altera", "DL 12/2025", "12/2025"),
        ("Portaria n.º 101/2023/1 regula", "Portaria n.º 101/2023/1", "101/2023/1"),
        ("nos termos do Aviso 1234-B/2024/3", "Aviso 1234-B/2024/3", "1234-B/2024/3"),
        ("Real Decreto núm. 12/2024 fija", "Decreto núm. 12/2024", "12/2024"),
        ("la Resolución Nº 77/2022 aprueba", "Resolución Nº 77/2022", "77/2022"),
        ("ai sensi del D.Lgs. 23/2011", "D.Lgs. 23/2011", "23/2011"),  # a dotted abbreviation of the word
        ("la L. 190/2014 prevede", "L. 190/2014", "190/2014"),
        ("σύμφωνα με τον Ν. 4172/2013", "Ν. 4172/2013", "4172/2013"),
        ("Art. 58.º-A do estatuto", "Art. 58.º-A", "58.º-A"),
    ],
)
def test_statute_ids(text: str, raw: str, norm: str) -> None:
    (value,) = [v for v in extract_values(text) if v.salient]
    assert (value.type, value.raw, value.norm) == ("statute", raw, norm)
    assert raw in value.needles and norm in value.needles  # the claim's own spelling is a needle


@pytest.mark.parametrize(
    "text",
    [
        "ranked No. 1 in Asia",  # an ordinal, no instrument
        "arts 3 venues", "U.S. 5 states",  # prose, not "Arts"/"s."
        "the Act (2019 Revision)", "Act 1993", "S.I. 2024",  # a year names it
        "Admin levels: 1 SAR → 3 areas",  # one unit of a currency is an acronym here
        "Budget 2024/2025 figures", "the 12/2025 draft",  # a year range; a number/year with no instrument word
    ],
)
def test_not_statute_ids(text: str) -> None:
    assert salient(text) == []


@pytest.mark.parametrize(
    ("text", "norm"),
    [
        ("del 14-1-2026 (BOPA)", "2026-01-14"),  # day first, as most of the world writes it
        ("on 04/13/2025", "2025-04-13"),  # month first only where day first cannot be a date
        ("from 31.12.2024", "2024-12-31"),
        ("Royal Decree M/9 of 26/03/1426 AH", "1426-03-26"),  # the Hijri date as written: the page finds it verbatim
    ],
)
def test_numeric_dates(text: str, norm: str) -> None:
    assert ("date", norm) in salient(text)


@pytest.mark.parametrize("text", ["version 1.2.3", "v2.10.2024x", "ratio 1/2/3"])
def test_not_numeric_dates(text: str) -> None:
    assert salient(text) == []


def test_pointer_detection_ignores_decimals() -> None:
    line = "verify the current 1.5 % surcharge at [revenue](https://x.gov.in/a)"
    assert pointer_flags(line, find_links(line)) == [True]
    line = "verify the current 7,5 % surcharge at [revenue](https://x.gov.in/a)"
    assert pointer_flags(line, find_links(line)) == [True]


def claims_of(markdown: str, opts: ExtractOptions | None = None) -> Extraction:
    out = Extraction()
    extract_file(markdown, "in", "countries/in/playbook.md", HostRules(), opts or ExtractOptions(scope_dirs=()), out)
    return out


def test_page_number_in_link_text_is_no_statute() -> None:
    assert claims_of("- rules ([NTA No.15001](https://www.nta.go.jp/a))\n").claims == []
    (claim,) = claims_of("- rules under No. 15001 ([NTA](https://www.nta.go.jp/a))\n").claims
    assert [v["norm"] for v in claim.values] == ["15001"]


@pytest.mark.parametrize(
    ("label", "owned"),
    [
        # an instrument's number in link text belongs to the link (link text is part of the line)
        ("Housing (Amendment) Regulations 2023, No. 7 of 2023", ["No. 7 of 2023"]),
        ("Land Registration Act, No. 12 of 1981", ["No. 12 of 1981"]),
        ("Housing Act No. 4 of 2019", ["Act No. 4 of 2019"]),
        ("Decreto-Lei n.º 44/2021", ["Decreto-Lei n.º 44/2021"]),
        ("Cabinet Circular No. 31207", ["No. 31207"]),
        # a date that closes the link text after a source's name labels the page; a law's date does not
        ("Revenue Board press release 3 Mar 2024", []),
        ("Monthly Tax Bulletin (Feb 2025)", []),
        ("Statistics Office 2026-02-12 release", []),
        ("Tax Summaries, last reviewed 2 Jun 2026", []),
        ("Treaty signed 30 Jun 2011", ["30 Jun 2011"]),
        ("Tariff Order of 1 Apr 2024", ["1 Apr 2024"]),
        ("Decree M/4 of 12/02/1437 AH (Mar 2016)", ["Decree M/4", "12/02/1437", "Mar 2016"]),
    ],
)
def test_figures_in_link_text(label: str, owned: list[str]) -> None:
    claims = claims_of(f"- the levy ([{label}](https://www.legal.gov.in/a))\n").claims
    assert [v["raw"] for c in claims for v in c.values if v["salient"]] == owned


def test_code_urls_are_counted_and_cite_only_when_configured() -> None:
    md = "- stamp duty 5 % (`https://igrmaharashtra.gov.in/duty`)\n- no figure `https://a.gov.in/`\n"
    off = claims_of(md)
    assert off.claims == [] and off.code_urls_next_to_figure == 1
    assert extraction_stats(off)["code_urls_next_to_figure"] == 1
    (claim,) = claims_of(md, ExtractOptions(scope_dirs=(), code_urls=True)).claims
    assert claim.source_url == "https://igrmaharashtra.gov.in/duty" and claim.source_tier == "primary-gov"


def test_india_government_namespace_from_the_psl() -> None:
    (claim,) = claims_of("- repo rate 6.5 % ([RBI](https://rbi.nic.in/x))\n").claims
    assert claim.source_tier == "primary-gov"


def test_allowlist_candidates_look_official_and_are_never_promoted() -> None:
    md = (
        "- repo rate 6.5 % ([Reserve Bank of India](https://www.rbi.org.in/x))\n"
        "- property tax 2 % ([Municipal Corporation of Greater Mumbai](https://portal.mcgm.org/tax))\n"
        "- 3 % per [a blog](https://blog.example.com/y)\n"
        "- repo 6.5 % again ([RBI](https://rbi.org.in/z))\n"
    )
    out = claims_of(md)
    assert out.claims == []  # proposals only: nothing becomes primary
    rows = allowlist_candidates(out.secondary_cited)
    assert [(r.host, r.count) for r in rows] == [("rbi.org.in", 2), ("portal.mcgm.org", 1)]
    assert rows[0].why == ["link text: reserve bank"]
    assert rows[0].claim_ids == ["in:1:" + out.secondary_cited[0].claim_id.rsplit(":", 1)[1],
                                 out.secondary_cited[-1].claim_id]
    titled = allowlist_candidates([SecondaryCitation("cbs.nl", "nl:3:aa", "CBS", "Tax")], {"cbs.nl": "CBS Statistics"})
    assert titled[0].why == ["page title: statistic"]
    table = candidates_markdown(rows)
    assert "| `rbi.org.in` | 2 |" in table and "never done automatically" in table


def test_candidate_rendering_escapes_link_text() -> None:
    rows = allowlist_candidates([SecondaryCitation("court.example.org", "x:1:aa", "Court <script>|", "S")])
    assert "<script>" not in candidates_markdown(rows)
