"""A claim against a page that states it: never absent as written, never present once removed.

Properties (Hypothesis, 1,000 examples each), for claim lines generated from every figure form
the extractor reads, and for the claims of the corpus slice (../shared, skipped when absent):

* a page whose text holds the claim's line verbatim — in any language CLDR gives the project
  (``cldr.tables()["languages"]``, as the page's ``lang``), as HTML and as a PDF — is never
  ``TOKENS_ABSENT``: every salient figure is found;
* the same page with the line's figures removed is never ``TOKENS_PRESENT``.

Each page goes the audit's way: HTML through ``html_reading``, a PDF through ``pdf_to_text``,
then ``PageIndex`` with the page's language and host, then ``prior_for_text``. Both pages of
one example are one two-page PDF: a PDF is opened once an example.
"""

from __future__ import annotations

import functools
import html
from pathlib import Path

import pytest
from babel.dates import get_month_names
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sv_scrapy.core.claims.claims import Claim, Extraction, ExtractOptions, extract_file
from sv_scrapy.core.claims.links import mask_urls
from sv_scrapy.core.claims.stamps import mask_stamp_dates
from sv_scrapy.core.figures.cldr import tables
from sv_scrapy.core.figures.values import extract_values
from sv_scrapy.core.hosts import HostRules
from sv_scrapy.core.page.pagescan import PageIndex
from sv_scrapy.core.page.pdf import pdf_to_text
from sv_scrapy.core.page.prefilter import (
    TOKENS_ABSENT,
    TOKENS_PRESENT,
    WEAK_MATCH,
    PrefilterSettings,
    Prior,
    prior_for_text,
)
from sv_scrapy.core.page.text import html_reading
from testing.mockweb.pdfgen import text_pdf

LANGUAGES = sorted(tables()["languages"])
SETTINGS = PrefilterSettings()
# prose around the line: letters only, so it can hold no figure, and long enough that the page
# is read (a thin page is SOURCE_UNAVAILABLE whatever it says)
FILLER = "The department publishes the schedule below for residents and for buyers from abroad. " * 3
# derandomized: the suite's 1,000 examples are the same on every run, so CI never fails on a draw
# (a longer randomized search is `make fuzz`'s job)
PROPERTY = settings(max_examples=1000, deadline=None, database=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def page_prior(line: str, claim: Claim, lang: str, host: str, kind: str, text: str | None = None) -> Prior:
    """The prior of ``claim`` on a page holding ``line`` (``text``: that page as read already)."""
    if text is None:
        text = html_reading(
            f'<!doctype html><html lang="{lang}"><body><p>{FILLER}</p><p>{html.escape(line)}</p></body></html>'
        ).text
    return prior_for_text(claim.values, text, [host], SETTINGS, PageIndex(text, lang=lang, host=host))


def pdf_pages(*lines: str) -> list[str]:
    """Each line on its own PDF page, read back the audit's way: one text per page."""
    read = pdf_to_text(text_pdf([[FILLER, line] for line in lines], column_width=600))
    return read.text.split("\n\f")


def without_figures(line: str) -> str:
    """The line with every figure the extractor reads on it cut out, and its URLs (a page shows
    a link's text, not its target: a URL's digits are no figure of the page's)."""
    masked = mask_urls(line)
    keep = [*masked]
    for value in extract_values(mask_stamp_dates(masked)):
        keep[value.pos : value.end] = " " * (value.end - value.pos)
    return "".join(keep)


def claims_of_line(line: str, scope: str = "xx") -> list[Claim]:
    out = Extraction()
    extract_file(f"# Taxes\n{line}\n", scope, f"countries/{scope}/playbook.md", HostRules(),
                 ExtractOptions(scope_dirs=()), out)
    return out.claims


def check(line: str, claim: Claim, lang: str, host: str, kind: str) -> None:
    removed = without_figures(line)
    if kind == "pdf":
        with_text, without_text = pdf_pages(line, removed)
        assert line in with_text, "the PDF holds the line as written"
        found = page_prior(line, claim, lang, host, kind, with_text)
        gone = page_prior(removed, claim, lang, host, kind, without_text)
    else:
        found, gone = page_prior(line, claim, lang, host, kind), page_prior(removed, claim, lang, host, kind)
    assert found.prior != TOKENS_ABSENT and found.missing_tokens == [], (found.prior, found.missing_tokens)
    assert gone.prior != TOKENS_PRESENT, (gone.prior, gone.strong_matched, removed)


def test_an_iso_year_month_stated_verbatim_is_found_in_japanese() -> None:
    """Regression: "(effective 2023-12)" on a page read as Japanese was TOKENS_ABSENT — the page
    side never read an ISO year-month."""
    line = "- Fixed asset tax standard rate 1.4% (effective 2023-12) ([MIC](https://www.soumu.go.jp/tax))"
    (claim,) = claims_of_line(line, "jp")
    assert [v["norm"] for v in claim.values if v["salient"]] == ["1.4", "2023-12"]
    date_only = Claim(**{**claim.__dict__, "values": [v for v in claim.values if v["type"] == "date"]})
    page = f"{FILLER}固定資産税の標準税率 1.4% (effective 2023-12)"
    prior = prior_for_text(date_only.values, page, ["www.soumu.go.jp"], SETTINGS,
                           PageIndex(page, lang="ja", host="www.soumu.go.jp"))
    assert prior.prior == TOKENS_PRESENT and prior.found_as == {"2023-12": "2023-12"}
    assert page_prior(line, date_only, "ja", "www.soumu.go.jp", "html").prior == TOKENS_PRESENT


def test_a_short_id_found_as_written_stays_a_weak_match() -> None:
    """The spec's "4" of "Art. 4 B": found as the claim writes it, still only 1–2 digits of id."""
    (claim,) = claims_of_line("- residence test of CGI Art. 4 B ([impots](https://www.impots.gouv.fr/x))", "fr")
    page = f"{FILLER} Article 4 B du CGI : Art. 4 B."
    prior = prior_for_text(claim.values, page, ["www.impots.gouv.fr"], SETTINGS, PageIndex(page, host="www.impots.gouv.fr"))
    assert prior.prior == WEAK_MATCH


# --- generated claim lines: every figure form the extractor reads ------------------------------

# month names as CLDR writes them, wide and abbreviated; a non-English abbreviation of three
# ASCII letters or fewer with no dot is a word to the extractor ("mag"), so its wide name stands in
MONTHS = sorted({
    (month, name if locale == "en" or len(name) > 3 or not name.isascii() else get_month_names("wide", locale=locale)[month])
    for locale in ("en", "fr", "es", "de", "pt", "it", "nl", "ca")
    for width in ("wide", "abbreviated")
    for month, name in get_month_names(width, locale=locale).items()
})
PERCENT = ["{a}%", "{a} %", "{a},{c} %", "{a}.{c}%", "{a} per cent"]
MONEY = ["€{n:,}", "£{n:,}", "HK${n:,}", "CI${n:,}", "US${n}", "₩{n:,}", "SAR {n:,}", "AED {n}", "EUR {n:,}",
         "{n:,} EUR", "{n} €", "{n:,} zł", "{n:,} KRW"]
DATES = ["{d} {mon} {y}", "{mon} {y}", "{y}-{m:02d}-{d:02d}", "(effective {y}-{m:02d})", "{mon} {d}, {y}",
         "{d}-{m}-{y}", "{d:02d}/{m:02d}/{y}", "{d}.{m}.{y}"]
STATUTES = ["S.I. {y} No. {n}", "Act No. {n} of {y}", "(No. {c}) Regulations", "Chap. {a}:{c:02d}", "ss. {a}–{b}",
            "s. {n}", "Article {a}(1)(e)", "Law No. {n}", "Decree No. {n}/{y}", "Cap. {n}", "§ {n}", "Art. {n}",
            "Reg {n}/{y}", "Llei {a}/{y}", "Lei n.º {n}/{y}", "Section {n}", "Circular No. {c}", "artículo {a}",
            "DL {n}/{y}", "Portaria n.º {n}/{y}/1", "Aviso {n}-A/{y}/2", "Resolución Nº {n}/{y}", "Decreto núm. {n}/{y}",
            "D.Lgs. {n}/{y}"]
PHRASES = ["", "stamp duty", "the buyer pays", "annual fee under", "rate levied", "the levy is"]
HOSTS = ["www.ird.gov.hk", "www.gov.ky", "www.impots.gouv.fr", "www.nts.go.kr", "zatca.gov.sa", "www.sat.gob.mx",
         "www.soumu.go.jp", "www.bopa.ad"]


@st.composite
def claim_lines(draw: st.DrawFn) -> tuple[str, str]:
    """A bullet with one figure of any form the extractor reads, cited to a government page."""
    template = draw(st.sampled_from(PERCENT + MONEY + DATES + STATUTES))
    month, name = draw(st.sampled_from(MONTHS))
    a, year = draw(st.integers(1, 98)), draw(st.integers(1990, 2030))
    if month == (year + 1) % 100:  # "2000-01" is the fiscal year 2000/01 on both sides, never January
        year += 1
    figure = template.format(a=a, b=a + 1, c=a % 9 + 1, n=draw(st.integers(2, 9_999_999)) if template in MONEY
                             else a * 7 + 100, d=a % 28 + 1, m=month, mon=name, y=year)
    host = draw(st.sampled_from(HOSTS))
    line = f"- **Duty**: {draw(st.sampled_from(PHRASES))} {figure} {draw(st.sampled_from(PHRASES))} " \
           f"([Schedule](https://{host}/schedule))"
    return " ".join(line.split()), host


@PROPERTY
@given(claim_lines(), st.sampled_from(LANGUAGES), st.sampled_from(["html", "pdf"]))
def test_a_generated_claim_line_on_its_page(generated: tuple[str, str], lang: str, kind: str) -> None:
    line, host = generated
    (claim,) = claims_of_line(line)  # every generated figure is salient: the line is a claim
    if kind == "pdf" and not line.isascii():
        line = line.encode("cp1252", "replace").decode("cp1252")  # the PDF writer's WinAnsi
        if "?" in line:  # a figure the PDF writer cannot encode ("₩"): the HTML page covers it
            kind = "html"
            line = claim.claim_text
    check(line, claim, lang, host, kind)


# --- the corpus slice's claims ---------------------------------------------------------------

SHARED_CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "property-deep-dive"


@functools.cache  # read when the test runs, not at import: every worker of the suite imports this module
def _slice_lines() -> list[tuple[str, Claim]]:
    from sv_scrapy.core.claims.claims import extract_corpus
    from sv_scrapy.run.config import load_config  # the config loader reads files: only with the slice
    from sv_scrapy.run.runtime import Runtime

    cfg = load_config(SHARED_CORPUS / "config")
    opts = Runtime(config=cfg, corpus_root=SHARED_CORPUS, output_dir=SHARED_CORPUS).extract_options()
    texts: dict[str, str] = {}
    claims = extract_corpus(SHARED_CORPUS, cfg.hosts, opts, texts).claims
    return [(texts[c.file].splitlines()[c.line_no - 1].strip(), c) for c in claims]


@functools.cache  # one pool per kind, not one per example
def _slice_pool(kind: str) -> list[tuple[str, Claim]]:
    lines = _slice_lines()
    return lines if kind == "html" else [(line, c) for line, c in lines if _winansi(line)]


@pytest.mark.skipif(not (SHARED_CORPUS / "config").is_dir(),
                    reason=f"corpus slice not found at {SHARED_CORPUS} (../shared is absent)")
@PROPERTY
@given(st.data(), st.sampled_from(LANGUAGES), st.sampled_from(["html", "pdf"]))
def test_a_slice_claim_on_its_page(data: st.DataObject, lang: str, kind: str) -> None:
    line, claim = data.draw(st.sampled_from(_slice_pool(kind)))
    check(line, claim, lang, claim.source_host, kind)


def _winansi(line: str) -> bool:
    try:
        line.encode("cp1252")
    except UnicodeEncodeError:
        return False
    return True
