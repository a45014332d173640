"""Links that land on the figure (issue 31): the WICG Text Fragments syntax, its escaping, the page's
own words kept short and unique, a PDF's page, and the report rows that carry them."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

import pytest

from sv_scrapy.core.page.textfragment import encode_text, fragment_link, start_text
from sv_scrapy.core.report.fragment import item_link
from sv_scrapy.core.report.report_html import render_html
from sv_scrapy.core.report.report_md import issue_markdown, render_markdown

# the spec's grammar: text=[prefix-,]textStart[,textEnd][,-suffix]; each part percent-decoded
_DIRECTIVE = re.compile(r"^(?:(?P<prefix>[^,&-]+)-,)?(?P<start>[^,&-]+)(?:,(?P<end>[^,&-]+))?(?:,-(?P<suffix>[^,&-]+))?$")


def parse(url: str) -> dict[str, str]:
    """The text directive of ``url``, as a browser reads it (the spec's grammar, then percent-decoding)."""
    directive = url.split(":~:", 1)[1]
    assert directive.startswith("text=")
    m = _DIRECTIVE.match(directive.removeprefix("text="))
    assert m, directive
    return {k: unquote(v) for k, v in m.groupdict().items() if v}


@pytest.mark.parametrize(("text", "encoded"), [
    # the spec's examples of a text directive's start text
    ("an example text fragment", "an%20example%20text%20fragment"),
    ("this is", "this%20is"),
    ("an example", "an%20example"),
    ("text fragment", "text%20fragment"),
    # the directive's own delimiters inside the text: always encoded
    ("foreign-buyer", "foreign%2Dbuyer"),
    ("5,81 %", "5%2C81%20%25"),
    ("R&D credit", "R%26D%20credit"),
    ("₩10,320", "%E2%82%A910%2C320"),
    ("a#b:~:c", "a%23b%3A~%3Ac"),
])
def test_a_directive_parameter_is_percent_encoded_as_the_spec_requires(text: str, encoded: str) -> None:
    assert encode_text(text) == encoded
    assert unquote(encoded) == text


@pytest.mark.parametrize("figure_line", [
    "Foreign-buyer surcharge, non-residents & trusts: 3.5 %", "Taux de droit commun - 5,81 %", "€ 1,500 - 2,000",
])
def test_a_link_reads_back_as_one_start_text_equal_to_the_pages_words(figure_line: str) -> None:
    text = f"Intro line\n{figure_line}\nOther line"
    figure = figure_line.split()[-2] + " " + figure_line.split()[-1]
    link = fragment_link("https://x.gov/rates", text, figure)
    assert link and link.startswith("https://x.gov/rates#:~:text=")
    parsed = parse(link)
    assert list(parsed) == ["start"] and figure in parsed["start"] and parsed["start"] in figure_line


def test_the_start_text_is_the_fewest_words_that_occur_once() -> None:
    text = "VAT | 3.5 %\nForeign-buyer surcharge | 3.5 % of the price\nStamp duty | 4 %"
    assert start_text(text, "4 %") == "4 %"
    assert start_text(text, "3.5 %", text.index("3.5 % of")) == "3.5 % of"
    # never across a table cell or a line: a browser matches a start text within one block
    assert start_text("VAT | 3.5 %\nVAT | 3.5 %", "3.5 %", 0) == "3.5 %"


def test_a_fragment_directive_is_never_added_twice_and_a_plain_fragment_is_kept() -> None:
    assert fragment_link("https://x.gov/a#:~:text=old", "Rate 5 %", "5 %") is None
    assert fragment_link("https://x.gov/a#sec:~:text=old", "Rate 5 %", "5 %") is None
    assert fragment_link("https://x.gov/a#sec", "Rate 5 %", "5 %") == "https://x.gov/a#sec:~:text=5%20%25"


def test_a_pdf_gets_its_page_where_the_text_marks_pages() -> None:
    text = "Fees (sample)\nFirst page\n\fSecond page\nRegistration licence tax 0.2 %"
    assert fragment_link("https://x.gov/f.pdf", text, "0.2 %", pdf=True) == "https://x.gov/f.pdf#page=2"
    assert fragment_link("https://x.gov/f.pdf", "One page only 0.2 %", "0.2 %", pdf=True) is None
    assert fragment_link("https://x.gov/f.pdf#page=1", text, "0.2 %", pdf=True) is None


def _item(**kw: Any) -> dict[str, Any]:
    item = {"id": "kr:9:a", "scope": "kr", "line_no": 9, "claim_text": "Minimum wage ₩10,320 ([m](https://w.go.kr/r))",
            "values": [{"type": "money", "raw": "₩10,320", "norm": "10320 KRW", "salient": True}],
            "source_url": "https://w.go.kr/r", "final_url": "https://w.go.kr/r", "prior": "TOKENS_PRESENT",
            "fetch_status": "OK", "matched_tokens": ["₩10,320"], "strong_matched": ["₩10,320"],
            "found_as": {"₩10,320": "10,320"}, "context_match": False, "inline_stamp": None,
            "excerpts": ["Minimum wage Hourly KRW 10,320 Effective January 1, 2026"]}
    item.update(kw)
    return item


def _doc(item: dict[str, Any]) -> dict[str, Any]:
    stats = {"claims": 1, "urls": 1, "not_modified_urls": 0, "not_modified_pct": 0.0}
    return {"generated_at": "2026-12-01T03:17:00+00:00", "news_since": "", "stats": stats, "items": [item]}


def test_every_report_row_with_a_page_and_an_excerpt_links_to_the_figure_beside_the_plain_link() -> None:
    link = "https://w.go.kr/r#:~:text=KRW%2010%2C320"
    doc = _doc(_item(figure_link=link))
    for body in (render_markdown(doc), issue_markdown(doc)):
        assert f"<https://w.go.kr/r> · [↪ at the figure]({link})" in body
    html_report = render_html(doc)
    assert 'href="https://w.go.kr/r"' in html_report and f'href="{link}"' in html_report


def test_an_older_record_gets_its_link_from_its_excerpt() -> None:
    assert item_link(_item()) == "https://w.go.kr/r#:~:text=10%2C320"
    assert item_link(_item(excerpts=[])) is None
    assert item_link(_item(text_method="pdf:pypdfium2")) is None  # a PDF viewer reads no text fragment
