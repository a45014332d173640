"""Which encoding a page's bytes are in, and who said so — including when the server lies.

The order is the usual one (a BOM, the ``Content-Type`` charset, ``<meta charset>``, a strict
UTF-8 attempt, cp1252; ``w3lib.encoding.html_to_unicode``'s), with one addition: a declared
charset the bytes do not decode in (a page served ``charset=utf-8`` whose bytes are
windows-1252 reads ``f�vrier``) is not believed. The next candidate that decodes the bytes
without a replacement character is used: the ``<meta>`` charset, then what
``charset-normalizer`` detects, then cp1252 (latin-1 for its five unassigned bytes). The
record says which (``charset``, ``charset_source``), so a reviewer sees that the text was
re-read, and the LLM layer's verbatim quotes are checked against correctly decoded text.
A declared "charset" that is no text codec at all (``zlib``, ``base64``, ``idna``, ``undefined``:
Python names them all codecs, and a server or a ``<meta>`` may name any) is not believed either.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from w3lib.encoding import html_body_declared_encoding, http_content_type_encoding, read_bom, to_unicode

DETECT_BYTES = 200_000  # charset-normalizer reads this much of a large page


@dataclass(frozen=True)
class Decoded:
    encoding: str  # Python's codec name
    text: str
    source: str  # bom | header | meta | detected | default | fallback:meta | fallback:detected | fallback:cp1252


def _codec(name: str | None) -> str:
    if not name:
        return ""
    try:
        return codecs.lookup(name).name
    except LookupError:
        return ""


def _strict(body: bytes, encoding: str) -> str | None:
    try:
        return body.decode(encoding)
    except (UnicodeError, LookupError):  # idna and punycode raise UnicodeError itself; zlib, hex: LookupError
        return None


def _auto_detect(body: bytes) -> str:
    return "utf-8" if _strict(body, "utf-8") is not None else "cp1252"


def _detected(body: bytes) -> str:
    """charset-normalizer's pick; among equally good picks, cp1252 (on short Western pages
    cp1250, cp1252 and cp1257 often tie, and cp1252 is the web's usual single-byte encoding)."""
    from charset_normalizer import from_bytes  # imported on the rare lying page only

    results = from_bytes(body[:DETECT_BYTES])
    best = results.best()
    if best is None:
        return ""
    tied = {_codec(m.encoding) for m in results if (m.chaos, m.coherence) == (best.chaos, best.coherence)}
    return "cp1252" if "cp1252" in tied else _codec(best.encoding)


_CP1252_UNASSIGNED = frozenset(b"\x81\x8d\x8f\x90\x9d")


def _cp1252(body: bytes) -> str:
    """cp1252, its five unassigned bytes read as latin-1 (never a replacement character)."""
    strict = _strict(body, "cp1252")
    if strict is not None:
        return strict
    return "".join(chr(b) if b in _CP1252_UNASSIGNED else bytes((b,)).decode("cp1252") for b in body)


# Python codecs that turn ASCII escapes into other characters ("\\u003c" -> "<"): no page is written in
# one, and, like UTF-7 (which w3lib refuses for this reason), they would smuggle markup past the bytes
_ESCAPE_CODECS = frozenset({"unicode-escape", "raw-unicode-escape"})


def _usable(name: str | None) -> bool:
    """A declared charset a page can be in: a codec that decodes bytes to text with replacements
    (``zlib`` and ``hex`` decode no text; ``idna``, ``punycode`` and ``undefined`` raise whatever
    the errors handler), and not an escape codec."""
    if not name:
        return False
    try:
        info = codecs.lookup(name)
        b"\x80<p>".decode(info.name, "replace")
    except (LookupError, UnicodeError):
        return False
    return info.name not in _ESCAPE_CODECS


def _w3lib(body: bytes, content_type: str | None) -> tuple[str, str]:
    """``w3lib.encoding.html_to_unicode``'s order — a BOM, the header's charset, the ``<meta>``
    charset, then ``_auto_detect`` — where a declared name is believed only when it is
    ``_usable`` (w3lib raises on the others, or decodes the page in an escape codec)."""
    bom_encoding, bom = read_bom(body)
    if bom_encoding is not None and bom is not None:
        return bom_encoding, to_unicode(body[len(bom):], bom_encoding)
    header = http_content_type_encoding(content_type)
    for declared in (header, html_body_declared_encoding(body) if header is None or not _usable(header) else None):
        if declared is not None and _usable(declared):
            encoding = f"{declared}-be" if declared in ("utf-16", "utf-32") else declared  # as w3lib reads them
            return encoding, to_unicode(body, encoding)
    encoding = _auto_detect(body)
    return encoding, to_unicode(body, encoding)


def decode_page(body: bytes, content_type: str | None) -> Decoded:
    """The text of an HTML or plain-text body, its encoding and where the encoding came from.

    >>> d = decode_page("F\\u00e9vrier: \\u20ac 1.250".encode("cp1252"), "text/html; charset=utf-8")
    >>> d.text, d.source
    ('Février: € 1.250', 'fallback:detected')
    >>> decode_page(b"<meta charset=utf-8>ok", "text/html").source
    'meta'
    >>> d = decode_page(b"<meta charset=zlib>ok", "text/html; charset=idna")
    >>> d.encoding, d.source
    ('utf-8', 'default')
    """
    encoding, text = _w3lib(body, content_type)
    encoding = _codec(encoding) or encoding
    if read_bom(body)[0]:
        source = "bom"
    elif _codec(http_content_type_encoding(content_type)) == encoding:
        source = "header"
    elif _codec(html_body_declared_encoding(body)) == encoding:
        source = "meta"
    else:
        source = "default"
    if "\ufffd" not in text or _strict(body, encoding) is not None:
        return Decoded(encoding, text, source)
    # the declared (or guessed) charset does not fit the bytes: try what else the page offers
    for how in ("meta", "detected"):  # the detector only when the <meta> charset does not fit either
        name = _codec(html_body_declared_encoding(body)) if how == "meta" else _detected(body)
        strict = _strict(body, name) if name and name != encoding and _usable(name) else None
        if strict is not None:
            return Decoded(name, strict, f"fallback:{how}")
    return Decoded("cp1252", _cp1252(body), "fallback:cp1252")
