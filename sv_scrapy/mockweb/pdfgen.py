"""Tiny PDF writer for the mock web, tests and benchmarks (no dependency).

``text_pdf`` lays out lines (or table rows of cells) in Helvetica with WinAnsi encoding, so
"€ 1 500" survives; ``scanned_pdf`` holds only an image, the way a scan has no text layer.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence


def _escape(text: str) -> bytes:
    raw = text.encode("cp1252", "replace")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def _assemble(objects: list[bytes]) -> bytes:
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def _stream(data: bytes, extra: str = "") -> bytes:
    packed = zlib.compress(data)
    return f"<< /Length {len(packed)} /Filter /FlateDecode {extra}>>\nstream\n".encode() + packed + b"\nendstream"


def text_pdf(pages: Sequence[Sequence[str | Sequence[str]]], column_width: int = 150, padding: int = 0) -> bytes:
    """One PDF page per entry; each row is a line of text or a list of table cells.

    ``padding`` adds an unreferenced binary stream of that many bytes (embedded fonts and
    logos make real schedules weigh hundreds of KB); readers skip it."""
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    font_ref = 3 + 2 * len(pages)
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode()]
    for index, rows in enumerate(pages):
        ops = [b"BT /F1 10 Tf"]
        for line_no, row in enumerate(rows):
            y = 760 - 14 * line_no
            cells = [row] if isinstance(row, str) else list(row)
            for col, cell in enumerate(cells):
                ops.append(f"1 0 0 1 {50 + col * column_width} {y} Tm (".encode() + _escape(cell) + b") Tj")
        ops.append(b"ET")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * index} 0 R "
            f"/Resources << /Font << /F1 {font_ref} 0 R >> >> >>".encode()
        )
        objects.append(_stream(b"\n".join(ops)))
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    if padding:
        noise = random.Random(padding).randbytes(padding)
        objects.append(f"<< /Length {len(noise)} >>\nstream\n".encode() + noise + b"\nendstream")
    return _assemble(objects)


def scanned_pdf(pages: int = 1) -> bytes:
    """Pages that are one grey image each: no text layer at all."""
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(pages))
    image_ref = 3 + 2 * pages
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode()]
    for index in range(pages):
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * index} 0 R "
            f"/Resources << /XObject << /Im1 {image_ref} 0 R >> >> >>".encode()
        )
        objects.append(_stream(b"q 500 0 0 700 50 50 cm /Im1 Do Q"))
    pixels = bytes(range(256)) * 64  # 128 x 128 grey gradient
    objects.append(_stream(pixels, "/Type /XObject /Subtype /Image /Width 128 /Height 128 "
                                   "/ColorSpace /DeviceGray /BitsPerComponent 8 "))
    return _assemble(objects)
