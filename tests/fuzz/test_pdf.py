"""The page reader on PDFs (``core/page/reader.py`` over ``core/page/pdf.py``): files written by
``testing/mockweb/pdfgen.py``, then truncated, bit-flipped, spliced and made to lie about their
structure (page trees that loop, counts, lengths and offsets that do not hold).

Documented: a PDF body reads as ``kind="pdf"`` and never raises; either its text with the
extractor that gave it, or ``pdf`` says why not (``cut`` for a body stopped at the size cap,
``no_text`` with a note saying whether the file could not be parsed or has no text layer).
"""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from sv_scrapy.core.page.reader import ReadLimits, pdf_method, read_body
from testing.mockweb import pdfgen
from tests.fuzz.profiles import fuzz_settings, within
from tests.fuzz.strategies import PDF

BOUND = 10.0  # s of CPU for one PDF of at most three pages (pdfminer, the fallback, is slow on a broken file)
LIMITS = (ReadLimits(), ReadLimits(pdf_max_pages=1))
_SEED = pdfgen.text_pdf([["VAT 10 %"]])
# the page tree's object made a reference to itself: pypdfium2 refuses the file, pdfminer.six looped forever
SELF_REFERENCE = _SEED.replace(b"<< /Type /Pages", b"2 0 R endobj\n99 0 obj\n<< /Type /Pages", 1)


@fuzz_settings(short_examples=25)
@given(PDF, st.sampled_from(LIMITS), st.sampled_from((False, False, False, True)))  # "cut" is one branch of four
@example(SELF_REFERENCE, LIMITS[0], False)  # found: pdfminer.six never returned (a reference loop)
def test_read_body_reads_any_pdf(body: bytes, limits: ReadLimits, truncated: bool) -> None:
    with within(BOUND, "read_body (PDF)"):
        reading = read_body(body, "application/pdf", limits, truncated=truncated)
    assert reading.kind == "pdf"
    assert pdf_method(reading) in ("pypdfium2", "pdfminer", "no_text")
    if truncated:
        assert (reading.pdf, reading.text) == ("cut", "")
    elif reading.text.strip():
        assert reading.pdf == ""
        assert reading.text_method in ("pdf:pypdfium2", "pdf:pdfminer")
    else:
        assert reading.pdf == "no_text"
        assert reading.note.startswith(("PDF could not be parsed (", "PDF with no text layer ("))
