"""HTML/PDF -> text: encodings, visible text, hashing."""

from __future__ import annotations

import pytest

from sv_scrapy.core.page.pdf import is_pdf, pdf_to_text
from sv_scrapy.core.page.text import content_hash, decode_html, html_to_text
from testing.mockweb.pdfgen import scanned_pdf, text_pdf


@pytest.mark.parametrize(
    ("body", "ctype", "expected"),
    [
        ("Droit € 1 500".encode("cp1252"), "text/html", "Droit € 1 500"),
        ("Droit € 1 500".encode(), "text/html", "Droit € 1 500"),
        ('<meta charset="iso-8859-15">Droit \xa4'.encode("latin-1"), "text/html", "Droit €"),
        ("\ufeffDroit €".encode("utf-8"), None, "Droit €"),
        ("Droit €".encode("utf-16"), "text/html; charset=utf-16", "Droit €"),
    ],
)
def test_decoding(body: bytes, ctype: str | None, expected: str) -> None:
    assert decode_html(body, ctype)[1].endswith(expected)


def test_truncated_utf8_loses_only_its_last_character() -> None:
    body = "Taux 5,81 % — €".encode()[:-1]  # cut inside the euro sign
    assert decode_html(body, "text/html", truncated=True)[1] == "Taux 5,81 % — "


def test_visible_text_keeps_tables_lists_and_definitions() -> None:
    html = """<html><body><table><tr><th>Rate</th><td>5,81 %</td></tr></table>
    <ol><li>first</li><li>second</li></ol><dl><dt>Cap</dt><dd>€ 1 500</dd></dl></body></html>"""
    assert html_to_text(html).splitlines() == ["Rate | 5,81 %", "first", "second", "Cap", "€ 1 500"]


@pytest.mark.parametrize(
    "hidden",
    [
        "<script>var rate = '9.99 %';</script>",
        "<style>.x{content:'9.99 %'}</style>",
        "<template><p>9.99 %</p></template>",
        "<div hidden>9.99 %</div>",
        "<div aria-hidden=\"true\">9.99 %</div>",
        "<p style=\"color:red; display: none\">9.99 %</p>",
        "<span style=\"visibility:hidden\">9.99 %</span>",
        "<input type=\"hidden\" value=\"9.99 %\">",
        "<!-- 9.99 % -->",
        "<noscript>9.99 %</noscript>",
    ],
)
def test_hidden_content_is_dropped(hidden: str) -> None:
    assert "9.99" not in html_to_text(f"<html><body><p>visible</p>{hidden}</body></html>")


def test_hash_ignores_reflowed_whitespace_but_not_figures() -> None:
    a = content_hash(html_to_text("<p>Taux   5,81 %</p>\n\n<p>fin</p>"))
    b = content_hash(html_to_text("<div><p>Taux 5,81 %</p><p>fin</p></div>"))
    c = content_hash(html_to_text("<p>Taux 5,82 %</p><p>fin</p>"))
    assert a == b != c


def test_pdf_text_in_reading_order() -> None:
    data = text_pdf([[["Band", "Rate"], ["A", "5,81 %"]], ["page two €1 500"]])
    result = pdf_to_text(data)
    assert result.method == "pypdfium2" and result.pages == 2
    assert result.text.index("Band") < result.text.index("5,81 %") < result.text.index("page two")


def test_scanned_pdf_has_no_text_layer() -> None:
    result = pdf_to_text(scanned_pdf(2))
    assert not result.has_text and result.pages == 2 and not result.error


def test_broken_pdf_never_raises() -> None:
    result = pdf_to_text(b"%PDF-1.4\n garbage without objects")
    assert not result.has_text and result.error


def test_pdf_by_magic_bytes() -> None:
    assert is_pdf(b"\n\n%PDF-1.7 ...") and not is_pdf(b"<html>%PDF-</html>"[:4])
