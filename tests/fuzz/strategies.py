"""Generators of hostile outside bytes, shared by the fuzz tests.

Everything is generated (no third-party corpus is kept): Markdown lines built from the pieces a
playbook line is made of, HTML nested and left unclosed with huge or odd attributes, bodies in
one charset declared as another (BOMs, ``<meta>``, XML declarations), PDFs written by
``testing/mockweb/pdfgen.py`` then truncated, bit-flipped and spliced, robots.txt groups with
wildcards and bad escapes, and CDX answers from well-formed tables to deep nesting.

Each generator mixes a small dictionary of tokens that readers treat specially (as AFL's
dictionaries do) with free text, so Hypothesis reaches the odd corners without luck: a
superscript digit is a digit to ``str.isdigit`` but not to ``int``, a fullwidth date matches
``\\d``, a 5,000-digit number is valid JSON that ``json.loads`` refuses.
"""

from __future__ import annotations

import codecs
import json

from hypothesis import strategies as st

from testing.mockweb import pdfgen

# -- shared pieces ------------------------------------------------------------------------------

# numbers as the readers meet them in attributes, dates and tables: digits that are not ASCII
# (superscript, Arabic-Indic, fullwidth), signs, exponents, a number past int's digit limit
ODD_NUMBERS = ("0", "1", "-1", "+2", "1e3", "²", "12²", "٣", "１２", "⁵⁰", "Ⅻ", "99999999999999999999", "0x10", " 3 ", "",
               "3.5", "1_000", "9" * 5000)
WORDS = ("Rate", "VAT", "Taux", "Droit", "minimum wage", "hourly", "per cent", "tax", "fee", "art.", "No.", "§",
         "verified", "stale-marker", "as of", "Last verified", "see", "verify at", "source", "€", "USD", "KRW")
FIGURES = ("5.81 %", "10%", "€ 1 500", "1,500 €", "USD 10,320", "KRW 10,320", "1 500,50 zł", "art. 1594",
           "§ 12", "No. 15001", "2026-05-27", "27 May 2026", "1.5 million", "3/4", "½ %", "٥٪", "１０％", "-0 %",
           "1e309 %", "9" * 400 + " %")
HOSTS = ("a.gov", "www.nts.go.kr", "x.gouv.fr", "example.com", "gov.uk", "[::1]", "[::1", "[v1.x]", "127.0.0.1",
         "xn--80ak6aa92e.com", "ﬁ.gov", "host:99999", "user@h.gov", "a..gov", "-.gov", "ドメイン.jp", "", ".")
NASTY_TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=40)


def _url() -> st.SearchStrategy[str]:
    path = st.text(alphabet=st.sampled_from("abc/._-%()?#=&0123456789 é\\[]"), max_size=30)
    return st.builds(lambda scheme, host, p: f"{scheme}://{host}/{p}", st.sampled_from(("http", "https", "HTTPS")),
                     st.sampled_from(HOSTS), path)


# -- Markdown playbooks --------------------------------------------------------------------------

def _markdown_piece() -> st.SearchStrategy[str]:
    url = _url()
    return st.one_of(
        st.sampled_from(WORDS), st.sampled_from(FIGURES), st.sampled_from(ODD_NUMBERS), NASTY_TEXT,
        st.builds(lambda t, u: f"[{t}]({u})", st.sampled_from(WORDS + ("", "x]", "[")), url),
        st.builds(lambda t, u: f"[{t}]({u} \"title\")", st.sampled_from(WORDS), url),
        st.builds(lambda u: f"`{u}`", url), url,
        st.builds(lambda t, u: f"![{t}]({u})", st.sampled_from(WORDS), url),
        st.builds(lambda d, k: f"({d} {k})", st.sampled_from(("2026-05-27", "2026-13-45", "2026-02-30", "٢٠٢٦-٠٥-٢٧",
                                                                "0000-00-00", "9999-99-99", "２０２６-０５-２７")),
                  st.sampled_from(("verified", "re-verified", "stale-marker", "stale", "updated"))),
        st.builds(lambda d: f"verified {d}", st.sampled_from(("2026-06-13", "2026-00-10", "١٢٣٤-١٢-١٢"))),
        st.sampled_from(("**", "*", "_", "__", "~~", "`", "```", "<br>", "</p>", "<a href='", "|", " - ", "> ", "1. ",
                         "\t", "\u00a0", "\u2028", "\r", "\x00", "\ufeff", "(", ")", "[", "]", "\\", "—", ";", ".")),
    )


def _markdown_line() -> st.SearchStrategy[str]:
    body = st.lists(_markdown_piece(), max_size=12).map(" ".join)
    return st.one_of(
        body,
        st.builds(lambda n, t: "#" * n + " " + t, st.integers(1, 8), body),
        st.sampled_from(("```", "~~~", "```python", "**Last verified**: 2026-05-27", "**Last verified**: 2026-99-99",
                         "- Last verified: ٢٠٢٦-٠٥-٢٧", "", "---", "| a | b |")),
        st.builds(lambda n, t: " " * n + t, st.integers(0, 8), body),
    )


MARKDOWN = st.lists(_markdown_line(), max_size=25).map("\n".join)
# a playbook as the corpus walk reads it: the bytes of a document, sometimes not UTF-8 at all
MARKDOWN_BYTES = st.one_of(
    MARKDOWN.map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.tuples(MARKDOWN, st.binary(max_size=8), st.integers(0, 10_000)).map(
        lambda a: (lambda b: b[: a[2] % (len(b) + 1)] + a[1] + b[a[2] % (len(b) + 1):])(a[0].encode("utf-8"))),
    st.binary(max_size=200),
)


# -- HTML, XHTML, text and charsets ---------------------------------------------------------------

# links and frames as a page may write them: relative, protocol-relative, other schemes, broken
HREFS = ("/x", "x.html", "../../../a", "//a.gov/y", "//[::1", "http://[", "#top", "?q=1", "javascript:alert(1)",
         "mailto:a@a.gov", "data:text/html,x", "file:///etc/passwd", "https://a.gov:99999/", "http://a.gov/\x00",
         "https://a.gov/%zz", "HTTPS://A.GOV/X", "https://ﬁ@a.gov/", " https://a.gov/ ", "")
TAGS = ("p", "div", "frame", "frameset", "span", "table", "tr", "td", "th", "thead", "caption", "dl", "dt", "dd", "li",
        "ul", "h1", "h3",
        "br", "b", "a", "script", "style", "template", "noscript", "svg", "iframe", "math", "head", "body", "html",
        "footer", "aside", "meta", "title", "pre", "option", "select", "input", "img", "xmp", "plaintext", "textarea",
        "foo:bar", "x-y", "?xml", "!DOCTYPE")
ATTRS = ("colspan", "rowspan", "hidden", "aria-hidden", "style", "class", "id", "role", "type", "lang", "charset",
         "http-equiv", "content", "href", "src", "xmlns", "xml:lang")
ATTR_VALUES = ODD_NUMBERS + ("true", "display:none", "visibility: hidden", "hidden", "footnote", "fn", "notes",
                             "text/html; charset=shift_jis", "Content-Type", "utf-8", "x-user-defined", "&amp;",
                             "&#0;", "&#xD800;", "&#1114112;", "\"", "'", "<", ">")


def _attribute() -> st.SearchStrategy[str]:
    return st.builds(lambda name, value, quote: f" {name}={quote}{value}{quote}", st.sampled_from(ATTRS),
                     st.one_of(st.sampled_from(ATTR_VALUES), NASTY_TEXT, _url(), st.sampled_from(HREFS)),
                     st.sampled_from(("\"", "'", "")))


def _html_piece() -> st.SearchStrategy[str]:
    tag = st.sampled_from(TAGS)
    return st.one_of(
        st.builds(lambda t, attrs: f"<{t}{''.join(attrs)}>", tag, st.lists(_attribute(), max_size=3)),
        st.builds(lambda t: f"</{t}>", tag),
        st.sampled_from(FIGURES), st.sampled_from(WORDS), NASTY_TEXT,
        st.sampled_from(("<!--", "-->", "<![CDATA[", "]]>", "&nbsp;", "&#8364;", "&euro", "&#x0;", "&#9999999999;",
                         "<", ">", "&", "\x00", "\ufeff", "\r\n", "<?php ?>", "<!DOCTYPE html>", "\x0c", "\u2028")),
        # deep nesting and a huge attribute, built from a drawn size (not drawn byte by byte)
        st.builds(lambda t, n: f"<{t}>" * n, tag, st.integers(1, 3000)),
        st.builds(lambda a, n: f"<p {a}=\"{'x' * n}\">", st.sampled_from(ATTRS), st.integers(1, 300_000)),
    )


HTML = st.lists(_html_piece(), max_size=30).map("".join)
ENCODINGS = ("utf-8", "cp1252", "latin-1", "iso-8859-2", "shift_jis", "euc-jp", "euc-kr", "gb18030", "big5", "koi8-r",
             "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-7", "cp1250", "iso-8859-7", "mac-roman", "ascii")
DECLARED = ENCODINGS + ("", "bogus", "x-user-defined", "UTF8", "unicode-1-1-utf-8", "utf-8\x00", "\"utf-8\"", "'",
                        "utf-8; foo", "9" * 300,
                        # names Python's codecs know that decode no text, or not with errors="replace"
                        "zlib", "undefined", "unicode_escape", "base64", "rot13", "idna", "punycode", "hex", "uu")
BOMS = (b"", b"", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
CONTENT_TYPES = ("text/html", "application/xhtml+xml", "application/xml", "text/xml", "text/plain", "text/csv",
                 "application/json", "", "TEXT/HTML", "text/html;", "application/octet-stream", "image/svg+xml")


def _encoded(text: str, encoding: str) -> bytes:
    try:
        return text.encode(encoding, "replace")
    except (LookupError, UnicodeError):
        return text.encode("utf-8", "surrogatepass")


def _page(draw: st.DrawFn) -> tuple[bytes, str]:
    markup = draw(st.one_of(HTML, NASTY_TEXT))
    actual = draw(st.sampled_from(ENCODINGS))
    meta = draw(st.sampled_from(("", "<meta charset={}>", "<meta http-equiv='Content-Type' content='text/html; "
                                                          "charset={}'>", "<?xml version='1.0' encoding='{}'?>")))
    head = meta.format(draw(st.sampled_from(DECLARED))) if meta else ""
    body = draw(st.sampled_from(BOMS)) + _encoded(head + markup, actual)
    if draw(st.booleans()):  # damage: cut anywhere (a body at the size cap) or flip a byte
        at = draw(st.integers(0, max(0, len(body))))
        body = body[:at] if draw(st.booleans()) else body[:at] + bytes([draw(st.integers(0, 255))]) + body[at + 1:]
    ctype = draw(st.sampled_from(CONTENT_TYPES))
    declared = draw(st.sampled_from(DECLARED))
    if ctype and draw(st.booleans()):
        ctype = f"{ctype}; charset={declared}"
    return body, ctype


PAGE = st.composite(_page)()


def known_codec(name: str) -> bool:
    try:
        return codecs.lookup(name).name == name
    except LookupError:
        return False


# -- PDFs ------------------------------------------------------------------------------------------

def _pdf_seed(draw: st.DrawFn) -> bytes:
    rows = draw(st.lists(st.one_of(st.sampled_from(FIGURES + WORDS), st.lists(st.sampled_from(FIGURES), max_size=4)),
                         min_size=0, max_size=6))
    pages = draw(st.integers(1, 3))
    kind = draw(st.sampled_from(("text", "text", "scanned")))
    if kind == "scanned":
        return pdfgen.scanned_pdf(pages)
    return pdfgen.text_pdf([rows] * pages)


# structural lies a PDF can tell: loops, counts, lengths and offsets that do not hold
_PDF_SWAPS = ((b"/Count 1", b"/Count 2147483647"), (b"/Count 1", b"/Count -1"), (b"/Kids [3 0 R]", b"/Kids [2 0 R]"),
              (b"/Parent 2 0 R", b"/Parent 3 0 R"), (b"/Root 1 0 R", b"/Root 2 0 R"), (b"/Pages 2 0 R", b"/Pages 1 0 R"),
              (b"/FlateDecode", b"/LZWDecode"), (b"/FlateDecode", b"/JBIG2Decode"), (b"/Length ", b"/Length -"),
              (b"/Length ", b"/Length 9"), (b"startxref\n", b"startxref\n9"), (b"%PDF-1.4", b"%PDF-9.9"),
              (b"/MediaBox [0 0 612 792]", b"/MediaBox [0 0 1e30 -1e30]"), (b"obj", b"obj obj"), (b"R", b"R R"),
              (b"/Helvetica", b"/" + b"A" * 5000), (b"Tf", b"Tf " + b"[" * 2000), (b"xref", b"xref\n" + b"0" * 50))


def _pdf(draw: st.DrawFn) -> bytes:
    data = bytearray(_pdf_seed(draw))
    for _ in range(draw(st.integers(0, 6))):
        op = draw(st.sampled_from(("truncate", "flip", "byte", "delete", "duplicate", "swap", "junk")))
        at = draw(st.integers(0, 1 << 20)) % (len(data) + 1)
        if op == "truncate":
            del data[max(at, 8):]
        elif op == "flip" and at < len(data):
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif op == "byte" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif op == "delete":
            del data[at:at + draw(st.integers(1, 200))]
        elif op == "duplicate":
            data[at:at] = data[at:at + draw(st.integers(1, 2000))]
        elif op == "swap":
            old, new = draw(st.sampled_from(_PDF_SWAPS))
            data = bytearray(bytes(data).replace(old, new, draw(st.integers(1, 3))))
        else:
            data[at:at] = draw(st.binary(max_size=64))
    if draw(st.booleans()):  # junk before the header, as readers tolerate
        data[0:0] = draw(st.binary(max_size=40)).replace(b"%PDF-", b"")
    body = bytes(data)
    return body if b"%PDF-" in body[:1024] else b"%PDF-" + body


PDF = st.composite(_pdf)()


# -- robots.txt --------------------------------------------------------------------------------------

_ROBOTS_KEYS = ("User-agent", "user-agent", "USER-AGENT", "Allow", "Disallow", "disallow", "Crawl-delay", "Sitemap",
                "Request-rate", "Host", "Visit-time", "Noindex", "Clean-param", "", "#", "User agent", "Dissallow")
_ROBOTS_VALUES = ("*", "/", "", "sv-scrapy", "sv_scrapy", "Scrapy", "/*", "/*.pdf$", "/a*b*c*d*e*f*g*h*i*j*$", "/$",
                  "/%", "/%zz", "/%E2%82", "/%2F", "/é", "/%C3%A9", "/?q=*", "/*" * 60 + "$", "1.5", "-1", "1e999",
                  "nan", "10/1m", "/" + "a" * 3000, "https://a.gov/sitemap.xml", "\x00", "\ufeff/")


def _robots_line() -> st.SearchStrategy[str]:
    value = st.one_of(st.sampled_from(_ROBOTS_VALUES), NASTY_TEXT)
    return st.builds(lambda k, sep, v: f"{k}{sep}{v}", st.sampled_from(_ROBOTS_KEYS),
                     st.sampled_from((":", ": ", " : ", "", "\t:")), value)


ROBOTS_BODY = st.one_of(
    st.lists(_robots_line(), max_size=40).flatmap(
        lambda lines: st.sampled_from(("\n", "\r\n", "\r")).map(lambda eol: eol.join(lines))).flatmap(
        lambda text: st.sampled_from(("utf-8", "utf-16", "cp1252", "utf-8-sig")).map(lambda enc: _encoded(text, enc))),
    st.binary(max_size=300),
)
ROBOTS_PATH = st.one_of(
    st.sampled_from(("/", "/a/b.pdf", "/%", "/%zz", "/é", "/%C3%A9", "/a" * 2000, "/" + "a" * 5000 + "b", "/?q=1",
                     "/abcdefghij", "/a/../b", "//x")),
    st.text(alphabet=st.sampled_from("/abc*$%?=#é.:;@!~+"), max_size=60).map(lambda p: "/" + p),
)


# -- CDX answers ---------------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), NASTY_TEXT,
              st.sampled_from(("20260515000000", "２０２６０５１５０００００٠", "2026051500000", "20261399999999",
                               "https://a.gov/x", "timestamp", "original", "digest", "mimetype"))),
    lambda inner: st.one_of(st.lists(inner, max_size=6), st.dictionaries(NASTY_TEXT, inner, max_size=3)),
    max_leaves=30,
)
# a timestamp is 14 digits: some of these are digits only to str.isdigit
_TIMESTAMPS = st.text(alphabet=st.sampled_from("0123456789٠١٢٣４５⁵²"), min_size=13, max_size=15)
_CDX_ROW = st.lists(st.one_of(_TIMESTAMPS, JSON_VALUES), max_size=8)
_CDX_HEADS = st.one_of(
    st.just(["urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length"]),
    st.permutations(["urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length"]),
    st.lists(st.sampled_from(("timestamp", "original", "digest", "x", "", "timestamp")), max_size=6),
)
CDX_BODY = st.one_of(
    st.tuples(_CDX_HEADS, st.lists(_CDX_ROW, max_size=6)).map(lambda t: json.dumps([t[0], *t[1]]).encode()),
    JSON_VALUES.map(lambda v: json.dumps(v).encode()),
    st.builds(lambda n, c: (c[0] * n + c[1] * n).encode(), st.integers(1, 100_000), st.sampled_from(("[]", "{}"))),
    st.builds(lambda n: b"[[\"timestamp\",\"original\"],[" + b"1" * n + b",\"u\"]]", st.integers(1, 10_000)),
    st.binary(max_size=200),
    st.sampled_from((b"", b"[]", b"[[]]", b"null", b"\xef\xbb\xbf[]", b"[\"timestamp\"]", b"NaN", b"[1e999]",
                     b"<html>429 Too Many Requests</html>")),
)


# -- sitemaps (for the sitemap reader when it lands: test_sitemap.py) ------------------------------------

_SITEMAP_ENTRY = st.builds(
    lambda tag, loc, lastmod: f"<{tag}><loc>{loc}</loc><lastmod>{lastmod}</lastmod></{tag}>",
    st.sampled_from(("url", "sitemap", "URL", "x:url")), st.one_of(_url(), NASTY_TEXT, st.sampled_from(("", "&amp;"))),
    st.sampled_from(("2026-05-27", "2026-13-45", "", "٢٠٢٦-٠٥-٢٧", "2026-05-27T10:00:00+25:00", "yesterday")))


def _sitemap(draw: st.DrawFn) -> bytes:
    root = draw(st.sampled_from(("urlset", "sitemapindex", "rss", "html")))
    ns = draw(st.sampled_from((' xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"', "", ' xmlns="urn:x"')))
    entries = "".join(draw(st.lists(_SITEMAP_ENTRY, max_size=20)))
    head = draw(st.sampled_from(("", "<?xml version='1.0' encoding='UTF-8'?>",
                                 "<!DOCTYPE x [<!ENTITY e SYSTEM 'file:///etc/passwd'>]>",  # an external entity
                                 "<!DOCTYPE x [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;'>]>")))
    text = f"{head}<{root}{ns}>{entries}&e;</{root}>" if "ENTITY e" in head else f"{head}<{root}{ns}>{entries}</{root}>"
    body = _encoded(text, draw(st.sampled_from(("utf-8", "utf-16", "cp1252"))))
    if draw(st.booleans()):
        body = body[: draw(st.integers(0, len(body)))]
    return body


SITEMAP_BODY = st.composite(_sitemap)()
