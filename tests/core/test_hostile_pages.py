"""Pure parts of issue #19: Retry-After forms, RFC 9309 readings, charset fallback, soft 404s,
frames and one-hop candidates, context ranking, script navigation, official-body words."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sv_scrapy.core.claims.officialwords import official_word
from sv_scrapy.core.page.charset import decode_page
from sv_scrapy.core.page.outlinks import frame_urls, linked_candidates, same_site
from sv_scrapy.core.page.robotsrule import DISALLOW_ALL, reading_for
from sv_scrapy.core.page.shell import navigates
from sv_scrapy.core.page.soft404 import soft_404
from sv_scrapy.core.politeness import parse_retry_after

NOW = datetime(2026, 12, 2, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(("header", "seconds"), [
    ("7", 7.0), (" 7200 ", 7200.0), ("0", 0.0),
    ("Wed, 02 Dec 2026 12:00:30 GMT", 30.0),  # an HTTP date ahead
    ("Wed, 02 Dec 2026 11:00:00 GMT", 0.0),  # a date in the past: at once
    ("Sunday, 06-Nov-94 08:49:37 GMT", 0.0), ("Sun Nov  6 08:49:37 1994", 0.0),  # the obsolete date forms
    ("9" * 400, float("inf")),  # huge: above any limit
    ("Fri, 31 Dec 9999 23:59:59 GMT", pytest.approx(2.5e11, rel=0.01)),
    ("soon", None), ("", None), ("-5", None), ("3.5", None), ("²", None), ("٣", None),
    ("Wed, 02 Dec 99999 12:00:00 GMT", None), ("Wed, 99 Dec 2026 12:00:00 GMT", None), (b"\xff\xfe", None),
])
def test_retry_after_in_every_form(header: str | bytes, seconds: float | None) -> None:
    assert parse_retry_after(header, NOW) == seconds


@pytest.mark.parametrize(("status", "body", "rules", "unreachable"), [
    (200, b"User-agent: *\nDisallow: /x\n", b"User-agent: *\nDisallow: /x\n", ""),
    (404, b"<html>Disallow: /</html>", b"", ""), (410, b"", b"", ""), (301, b"", b"", ""),
    (500, b"", DISALLOW_ALL, "500"), (503, b"busy", DISALLOW_ALL, "503"), (429, b"", DISALLOW_ALL, "429"),
])
def test_robots_rfc9309(status: int, body: bytes, rules: bytes, unreachable: str) -> None:
    reading = reading_for(status, body, None)
    assert (reading.body, reading.unreachable) == (rules, unreachable)


def test_a_stored_robots_stands_in() -> None:
    reading = reading_for(503, b"", (b"User-agent: *\nDisallow: /p/\n", "2026-11-01T03:00:00+00:00"))
    assert reading.body.startswith(b"User-agent") and reading.stored_at.startswith("2026-11-01")
    assert "the copy stored 2026-11-01" in reading.refusal()


def test_a_lying_charset_is_not_believed() -> None:
    decoded = decode_page("<p>1er février : € 1.250</p>".encode("cp1252"), "text/html; charset=utf-8")
    assert "\ufffd" not in decoded.text and "février" in decoded.text and "€ 1.250" in decoded.text
    assert decoded.source.startswith("fallback:")
    meta = decode_page('<meta charset="windows-1252"><p>f\xe9vrier</p>'.encode("latin-1"), "text/html; charset=utf-8")
    assert (meta.text.endswith("février</p>"), meta.source) == (True, "fallback:meta")
    honest = decode_page("février".encode(), "text/html; charset=utf-8")
    assert (honest.encoding, honest.source) == ("utf-8", "header")


@pytest.mark.parametrize(("title", "text", "lang", "host", "gone"), [
    ("Page not found | Ministry of Finance", "Home\nSorry", "", "", True),
    ("Finance", "Página no encontrada\nVuelva al inicio", "es", "", True),
    ("Seite nicht gefunden", "", "", "www.bund.de", True),
    ("Strona nie istnieje", "", "", "www.gov.pl", True),
    ("Fees", "Fees\nLost items not found at the office are kept for a year.", "", "", False),
    ("404", "Error", "", "", False),  # "404" alone says nothing
])
def test_soft_404(title: str, text: str, lang: str, host: str, gone: bool) -> None:
    assert soft_404(title, text, lang, host) is gone


def test_frames_same_site_only() -> None:
    html = ('<iframe src="/a.html"></iframe><frame src="https://data.impots.gouv.fr/b"><iframe src="//evil.example/c">'
            '<iframe src="javascript:alert(1)"></iframe><iframe src="/a.html"></iframe>')
    assert frame_urls(html, "https://www.impots.gouv.fr/p") == ["https://www.impots.gouv.fr/a.html",
                                                                 "https://data.impots.gouv.fr/b"]
    assert same_site("a.example.co.uk", "b.example.co.uk") and not same_site("a.co.uk", "b.co.uk")


def test_linked_candidates_share_words_or_year() -> None:
    links = [("https://x.gov/docs/report.pdf", "Annual report"), ("https://x.gov/docs/fees-2025.xlsx", "Fees 2025"),
             ("https://x.gov/about", "About")]
    claim = {"claim_text": "Registration fees 2025: $45 ([a](https://x.gov/fees))", "values": [{"raw": "$45"}]}
    assert linked_candidates(links, claim, 2) == ["https://x.gov/docs/fees-2025.xlsx"]


@pytest.mark.parametrize(("html", "moves"), [
    ("<script>location.replace('/moved/page')</script>", True),
    ("<script>window.location = '/x';</script>", True),
    ("<script>location.assign(\"https://www.example.gouv.fr/y\")</script>", True),
    ("<script>window.open('/doc.html')</script>", True),
    ('<noscript><meta http-equiv="refresh" content="0; url=/moved"></noscript>', True),
    ("<script>location.href = 'https://tracker.example.com/'</script>", False),
    ("<script>var x = 1;</script>", False),
])
def test_script_navigation(html: str, moves: bool) -> None:
    assert navigates(html, "https://example.gouv.fr/old") is moves


@pytest.mark.parametrize(("text", "host", "word"), [
    ("Rijksoverheid", "www.rijksoverheid.nl", "rijksoverheid"),
    ("Gemeente Amsterdam", "www.amsterdam.nl", "gemeente"),
    ("Pune Municipal Corporation", "propertytax.punecorporation.org", "municipal corporation"),
    ("Rijksoverheid", "www.example.com", ""),  # Dutch words for a .com host: not its language
])
def test_official_words_in_the_host_languages(text: str, host: str, word: str) -> None:
    assert official_word(text, host) == word


@pytest.mark.parametrize(("locale", "currency", "amount"), [
    ("en_US", "USD", 7), ("en_US", "USD", 0.5), ("en_CA", "CAD", 20), ("de_DE", "EUR", 20), ("fr_FR", "EUR", 7),
    ("pl_PL", "PLN", 7), ("pt_BR", "BRL", 7), ("en_IN", "INR", 20), ("ja_JP", "JPY", 70), ("es_MX", "MXN", 7),
    ("fil_PH", "PHP", 20), ("en_SG", "SGD", 7),
])
def test_small_money_with_its_symbol_is_strong(locale: str, currency: str, amount: float) -> None:
    """A one- or two-digit amount is strong when a currency symbol stands beside it, as each
    locale writes it (Babel's CLDR formats: "$7.00", "20,00 €", "7,00 zł", "R$ 7,00", "₹20.00")."""
    from dataclasses import asdict

    from babel.numbers import format_currency

    from sv_scrapy.core.figures.values import extract_values
    from sv_scrapy.core.page.prefilter import PrefilterSettings, prior_for_text

    written = format_currency(amount, currency, locale=locale)
    values = [asdict(v) for v in extract_values(f"Filing fee {currency} {amount:g} per form")]
    prior = prior_for_text(values, f"The filing fee is {written} per form.", (), PrefilterSettings(min_text_chars=0))
    assert (prior.prior, prior.strong_matched) == ("TOKENS_PRESENT", [values[0]["raw"]]), written
