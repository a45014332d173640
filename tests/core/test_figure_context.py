"""A figure's context as the page structures it (issue 31): government page shapes where the figure
stands exactly where the page states the claimed thing (never ``False``), and real decoys (``False``).

Each page goes through the same reading the crawl uses (``html_reading`` keeps each line's shape;
a PDF is written and read back by pypdfium2) and the same judgement (``order_by_context``).
"""

from __future__ import annotations

from typing import Any

import pytest

from sv_scrapy.core.figures.values import extract_values
from sv_scrapy.core.page.context import claim_words, in_claims_language, order_by_context
from sv_scrapy.core.page.pagescan import PageIndex
from sv_scrapy.core.page.pdf import pdf_to_text
from sv_scrapy.core.page.prefilter import TOKENS_PRESENT, PrefilterSettings, prior_for_text
from sv_scrapy.core.page.shape import LineShape
from sv_scrapy.core.page.text import html_lang, html_reading, html_title
from testing.mockweb.pdfgen import text_pdf

SETTINGS = PrefilterSettings(min_text_chars=0)
URL = "https://www.tax.example.gov/rates"


def judged(claim_text: str, text: str, shapes: tuple[LineShape, ...] = (), lang: str = "",
           title: str = "") -> tuple[bool | None, list[str]]:
    values = [v.as_dict() for v in extract_values(claim_text)]
    claim: Any = {"claim_text": f"{claim_text} ([source]({URL}))", "values": values, "source_url": URL}
    index = PageIndex(text, lang=lang or None)
    prior = prior_for_text(values, text, (), SETTINGS, index)
    assert prior.prior == TOKENS_PRESENT, (claim_text, prior)
    excerpts, match, _ = order_by_context(claim, text, index, prior, SETTINGS, shapes, lang, title)
    return match, excerpts


def judged_html(claim_text: str, html: str) -> tuple[bool | None, list[str]]:
    read = html_reading(html)
    return judged(claim_text, read.text, read.shapes, html_lang(html), html_title(html))


def page(body: str, lang: str = "en", title: str = "Official page") -> str:
    return f'<!doctype html><html lang="{lang}"><head><title>{title}</title></head><body>{body}</body></html>'


# shape name -> (claim, page): the figure stands where the page states the claimed thing
IN_PLACE = {
    "two-column table under a heading": (
        "Non-resident stamp duty surcharge: 2 %",
        page("<h2>Stamp duty surcharge for non-residents</h2><table><tr><th>Property</th><th>Rate</th></tr>"
             "<tr><td>Dwellings</td><td>2 %</td></tr><tr><td>Commercial units</td><td>0.5 %</td></tr></table>"
             "<p>The surcharge is paid with the return.</p>")),
    "multi-column table, row and column headers": (
        "Land transaction tax, higher rates: 8.5 % on the second band",
        page("<table><caption>Land transaction tax bands</caption><thead><tr><th>Band</th><th>Main rates</th>"
             "<th>Higher rates</th></tr></thead><tbody><tr><th>First band</th><td>0 %</td><td>5 %</td></tr>"
             "<tr><th>Second band</th><td>3.5 %</td><td>8.5 %</td></tr></tbody></table>")),
    "definition list": (
        "Minimum wage: ₩10,320 an hour",
        page("<h1>Minimum wage</h1><dl><dt>Hourly</dt><dd>KRW 10,320</dd><dt>Daily (8 hours)</dt>"
             "<dd>KRW 82,560</dd></dl><p>The monthly figure assumes 209 hours.</p>")),
    "list under an h3": (
        "Foreign-buyer surcharge: 3.5 %",
        page("<h2>Purchase taxes</h2><p>Buyers pay these on completion.</p><h3>Foreign-buyer surcharge</h3>"
             "<ul><li>Dwellings: 3.5 % of the price</li><li>Land for building: 4 % of the price</li></ul>")),
    "label only in the page title": (
        "Minimum wage ₩10,320 an hour",
        page("<p>KRW 10,320</p><p>Effective for all workplaces.</p>", title="Minimum wage")),
    "label in the sentence before": (
        "The foreign-buyer surcharge is 3.5 %",
        page("<h1>Guidance</h1><p>The surcharge applies to purchases by foreign nationals. It is charged at "
             "3.5 % of the price. VAT at 7 % applies to the agent's fee.</p>")),
    "French table, English claim": (
        "Transfer duty (DMTO): 5.81 % standard rate",
        page("<h1>Droits de mutation à titre onéreux</h1><table><tr><th>Cas</th><th>Taux</th></tr>"
             "<tr><td>Taux de droit commun</td><td>5,81&nbsp;%</td></tr><tr><td>Taux relevé</td>"
             "<td>6,32&nbsp;%</td></tr></table><p>La taxe additionnelle est de 0,2 %.</p>", lang="fr")),
    "Spanish paragraph, English claim": (
        "Transfer tax (ITP): 6 % general rate",
        page("<h2>Impuesto sobre Transmisiones Patrimoniales</h2><p>El tipo general es del 6 % del valor "
             "del inmueble. Las viviendas de protección oficial tributan al 4 %.</p>", lang="es")),
    "Catalan sentence, English claim": (
        "Transfer tax (ITP): 4 % in total",
        page("<h1>Impost sobre transmissions patrimonials</h1><p>Article 8. El tipus de gravamen és del 4 %, "
             "del qual l'1 % correspon al comú i el 3 % al Govern.</p>", lang="ca")),
    "Korean table, English claim": (
        "Acquisition tax: 8 % for a second home in an adjusted area",
        page("<h1>취득세 세율</h1><table><tr><th>구분</th><th>세율</th></tr><tr><td>1주택</td><td>1~3%</td></tr>"
             "<tr><td>2주택 (조정대상지역)</td><td>8%</td></tr><tr><td>3주택 이상</td><td>12%</td></tr></table>",
             lang="ko")),
    "German paragraph, English claim": (
        "Real estate transfer tax in Berlin: 6.0 %",
        page("<h2>Grunderwerbsteuer</h2><p>Der Steuersatz beträgt in Berlin 6,0 % der Gegenleistung. In "
             "Bayern sind es 3,5 %.</p>", lang="de")),
}

# shape name -> (claim, page): the figure stands in another instrument's context
DECOYS = {
    "another row of the same table": (
        "Foreign-buyer surcharge: 3.5 %",
        page("<h1>Guidance for non-resident buyers</h1><table><caption>Duties on a purchase</caption>"
             "<tr><th>Duty</th><th>Rate</th></tr><tr><td>VAT on the agent's fee</td><td>3.5 %</td></tr>"
             "<tr><td>Foreign-buyer surcharge</td><td>4 %</td></tr></table>")),
    "another labelled sentence": (
        "Foreign-buyer surcharge: 3.5 %",
        page("<h1>Guidance for non-resident buyers</h1><p>VAT 3.5 % on services applies to every supplier.</p>"
             "<p>General information about the fee and how it is collected.</p>"
             "<p>The foreign-buyer surcharge is 4 % of the price.</p>")),
    "a footnote": (
        "Foreign-buyer surcharge: 3.5 %",
        page("<h2>Foreign-buyer surcharge</h2><p>The surcharge is 4 % of the price.¹</p>"
             '<p class="footnote">¹ 3.5 % before the reform.</p>')),
    "another year's column": (
        "Foreign-buyer surcharge in 2026: 3.5 %",
        page("<table><caption>Foreign-buyer surcharge</caption><tr><th>Property</th><th>2025</th><th>2026</th></tr>"
             "<tr><th>Dwellings</th><td>3.5 %</td><td>4 %</td></tr></table>")),
}


@pytest.mark.parametrize("shape", sorted(IN_PLACE))
def test_a_figure_standing_where_the_page_states_the_claim_is_never_other_context(shape: str) -> None:
    claim_text, html = IN_PLACE[shape]
    match, _ = judged_html(claim_text, html)
    assert match is not False, shape


@pytest.mark.parametrize("shape", sorted(DECOYS))
def test_a_real_decoy_is_other_context(shape: str) -> None:
    claim_text, html = DECOYS[shape]
    match, excerpts = judged_html(claim_text, html)
    assert match is False, shape
    assert "urcharge" in excerpts[0]  # the first excerpt is where the page speaks of the claim's subject


def test_a_page_in_the_claims_language_stating_it_in_place_is_true() -> None:
    for shape in ("two-column table under a heading", "multi-column table, row and column headers",
                  "definition list", "list under an h3", "label only in the page title", "label in the sentence before"):
        assert judged_html(*IN_PLACE[shape])[0] is True, shape


def test_a_page_sharing_only_a_name_with_the_claim_gives_no_judgement() -> None:
    """The French page shares only the acronym's page-language cousin: no judgement, never ``False``."""
    claim_text = "Land registration tax (DMTO): 0.715 %"
    html = page("<h1>Taxe de publicité foncière</h1><p>Le taux est fixé à 0,715 %. Les DMTO comprennent "
                "aussi la taxe communale de 1,20 %.</p>", lang="fr")
    assert judged_html(claim_text, html)[0] is None


def test_a_pdf_label_one_line_above_the_figure() -> None:
    pdf = text_pdf([["Registration fees (2026)", "Registration licence tax", "0.2 % of the registered value",
                     "Court filing fee", "KRW 15,000 per filing"]])
    text = pdf_to_text(pdf).text
    assert judged("Registration licence tax 0.2 %", text)[0] is True
    assert judged("Court filing fee KRW 15,000", text)[0] is True
    assert judged("Registration licence tax KRW 15,000", text)[0] is False  # the fee's line, under its own label


def test_a_figure_also_in_the_claims_own_row_is_true_and_leads_the_excerpts() -> None:
    html = page("<table><tr><th>Duty</th><th>Rate</th></tr><tr><td>VAT on the agent's fee</td><td>3.5 %</td></tr>"
                "<tr><td>Foreign-buyer surcharge</td><td>3.5 %</td></tr></table>")
    match, excerpts = judged_html("Foreign-buyer surcharge: 3.5 %", html)
    assert match is True
    read = html_reading(html)
    values = [v.as_dict() for v in extract_values("Foreign-buyer surcharge: 3.5 %")]
    claim: Any = {"claim_text": "Foreign-buyer surcharge: 3.5 %", "values": values, "source_url": URL}
    index = PageIndex(read.text)
    prior = prior_for_text(values, read.text, (), SETTINGS, index)
    best = order_by_context(claim, read.text, index, prior, SETTINGS, read.shapes, "en")[2]
    assert best is not None and read.text[: best.start].endswith("Foreign-buyer surcharge | ")


def test_the_claims_words_leave_out_the_cited_hosts_names() -> None:
    claim = {"claim_text": "Transfer duty 5.81 % ([impots.gouv.fr](https://www.impots.gouv.fr/dmto))",
             "values": [{"raw": "5.81 %", "type": "pct"}], "source_url": "https://www.impots.gouv.fr/dmto"}
    assert claim_words(claim) == ("transfer", "duty")


@pytest.mark.parametrize(("text", "lang", "english"), [
    ("The rate is set by the council and applies from the first of the month.", "", True),
    ("Le taux est fixé par le conseil départemental et s'applique au premier du mois.", "", False),
    ("Whatever the words say", "fr-FR", False),
    ("Quoi qu'il en soit", "en-GB", True),
])
def test_the_pages_language(text: str, lang: str, english: bool) -> None:
    assert in_claims_language(text, lang) is english


@pytest.mark.parametrize("shape", ["another labelled sentence", "another row of the same table", "a footnote"])
def test_a_text_without_its_structure_still_judges_the_decoy(shape: str) -> None:
    """A page restored from the store (a 304) keeps its text, not its shapes: its heading-like line
    above the decoy lends the decoy nothing."""
    claim_text, html = DECOYS[shape]
    assert judged(claim_text, html_reading(html).text, (), "en")[0] is False


@pytest.mark.parametrize("shape", sorted(IN_PLACE))
def test_a_text_without_its_structure_still_finds_the_figure_in_place(shape: str) -> None:
    """The same pages restored from the store: read line by line, still never ``False``."""
    claim_text, html = IN_PLACE[shape]
    read = html_reading(html)
    assert judged(claim_text, read.text, (), html_lang(html), html_title(html))[0] is not False, shape
