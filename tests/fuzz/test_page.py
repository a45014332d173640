"""The page reader (``core/page/reader.py``) on generated HTML, XHTML and text bodies in every
charset, declared truthfully or not.

Documented: ``read_body`` returns a :class:`Reading` and never raises; the kind is
``classify``'s; HTML gives one ``LineShape`` per line of its text and never keeps the NUL the walk
marks lines with; the charset is a Python codec named with its source; a declared charset the
bytes do not decode in is not believed, so a U+FFFD in the text was in the page itself. The
page's frames and links (``core/page/outlinks.py``) are same-site http(s) URLs without a fragment;
its title and language are one line.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from hypothesis import example, given
from hypothesis import strategies as st

from sv_scrapy.core.page.charset import decode_page
from sv_scrapy.core.page.outlinks import frame_urls, page_links, same_site
from sv_scrapy.core.page.reader import ReadLimits, classify, read_body
from sv_scrapy.core.page.text import html_lang, html_title
from tests.fuzz.profiles import fuzz_settings, within
from tests.fuzz.strategies import PAGE, known_codec

BOUND = 5.0  # s of CPU for one body (the largest generated is ~1 MB: a 300,000-character attribute, re-encoded)
SOURCES = {"bom", "header", "meta", "detected", "default", "fallback:meta", "fallback:detected", "fallback:cp1252"}
LIMITS = ReadLimits()


@fuzz_settings()
@given(PAGE, st.booleans())
@example((b'<table><tr><th colspan="\xc2\xb2">a</th></tr><tr><td>1</td></tr></table>', "text/html; charset=utf-8"),
         False)  # found: "²".isdigit() is True, int("²") raises ValueError
@example((b"<meta charset=utf-8>", "text/html; charset=zlib"), False)  # found: w3lib raised LookupError
@example((b"<meta charset=utf-8>", "text/html; charset=idna"), False)  # found: UnicodeError (no "replace")
@example((b'<p colspan="\xc2\xb2">', "text/html; charset=punycode"), False)  # found: UnicodeDecodeError
@example((b"<meta charset=undefined>", "text/html"), False)  # the same through the <meta> charset
@example((b"\\400", "text/html; charset=unicode_escape"), False)  # found: an escape codec (DeprecationWarning)
def test_read_body_reads_any_page(page: tuple[bytes, str], truncated: bool) -> None:
    body, ctype = page
    with within(BOUND, "read_body"):
        reading = read_body(body, ctype, LIMITS, truncated=truncated)
    assert reading.kind == classify(body, ctype)
    if reading.kind not in ("html", "text"):
        return
    assert known_codec(reading.charset), reading.charset
    assert reading.charset_source in SOURCES
    assert reading.text_method == reading.kind
    if reading.kind == "html":
        assert "\x00" not in reading.text
        lines = reading.text.split("\n") if reading.text else []
        assert len(reading.shapes) == len(lines)
        assert all(line and line == line.strip() for line in lines)
    else:
        assert not reading.shapes


@fuzz_settings()
@given(PAGE)
def test_a_replacement_character_was_in_the_page(page: tuple[bytes, str]) -> None:
    body, ctype = page
    with within(BOUND, "decode_page"):
        decoded = decode_page(body, ctype)
    if "\ufffd" in decoded.text:
        body.decode(decoded.encoding)  # the bytes hold it in the charset chosen: nothing was replaced


BASE = "https://a.gov/taxes/rates"


@fuzz_settings()
@given(PAGE)
@example((b'<a href="http://[x">rates</a><iframe src="//[::1"></iframe>', "text/html"))  # found: urljoin raised
def test_links_frames_title_of_any_page(page: tuple[bytes, str]) -> None:
    body, ctype = page
    html = decode_page(body, ctype).text
    with within(BOUND, "outlinks and title"):
        frames, links = frame_urls(html, BASE), page_links(html, BASE)
        title, lang = html_title(html), html_lang(html)
    for url in [*frames, *(url for url, _ in links)]:
        parts = urlsplit(url)
        assert parts.scheme in ("http", "https") and not parts.fragment
        assert same_site(parts.hostname or "", "a.gov")
    assert BASE not in frames
    assert "\n" not in title and title == title.strip()
    assert "\n" not in lang
