"""The CDX reader (``core/audit/archive/cdx.py``) on generated answers: the Wayback Machine's
JSON table, and what a proxy, an error page or a hostile mirror might send instead.

Documented: ``parse_cdx`` returns the captures (none for an empty body or ``[]``) or raises
:class:`CdxError`, the one error the archive pipeline catches; a capture's timestamp is 14 ASCII
digits (its day and URLs are built from them) and its original URL is not empty.
"""

from __future__ import annotations

from hypothesis import example, given

from sv_scrapy.core.audit.archive.cdx import CdxError, parse_cdx
from tests.fuzz.profiles import fuzz_settings, within
from tests.fuzz.strategies import CDX_BODY

BOUND = 2.0  # s of CPU for one answer (the largest generated: 200,000 brackets)


@fuzz_settings()
@given(CDX_BODY)
@example(b"[" * 100_000)  # found: json.loads raised RecursionError
@example(b"[[\"timestamp\",\"original\"],[" + b"1" * 5000 + b",\"u\"]]")  # found: ValueError (int digit limit)
@example('[["timestamp","original"],["２０２６０５１５０００００٠","u"]]'.encode())  # found: non-ASCII digits kept
def test_parse_cdx_reads_any_answer(body: bytes) -> None:
    try:
        with within(BOUND, "parse_cdx"):
            captures = parse_cdx(body)
    except CdxError as exc:
        assert str(exc).startswith(("malformed CDX JSON (", "malformed CDX row ("))
        return
    for capture in captures:
        assert len(capture.timestamp) == 14 and capture.timestamp.isascii() and capture.timestamp.isdigit()
        assert capture.original
