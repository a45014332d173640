"""Tiny PDF writer for the mock web, tests and benchmarks (no dependency but pypdfium2).

``text_pdf`` lays out lines (or table rows of cells) in Helvetica with WinAnsi encoding, so
"€ 1 500" survives; ``scanned_pdf`` holds only an image, the way a scan has no text layer;
``scan_pdf`` is a real-looking scan: ``text_pdf`` pages rasterised by pypdfium2 (as a scanner
would at ``dpi``), optionally speckled with noise, embedded as images with no text layer.
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


def text_pdf(pages: Sequence[Sequence[str | Sequence[str]]], column_width: int = 150, padding: int = 0,
             font_size: int = 10) -> bytes:
    """One PDF page per entry; each row is a line of text or a list of table cells.

    ``padding`` adds an unreferenced binary stream of that many bytes (embedded fonts and
    logos make real schedules weigh hundreds of KB); readers skip it."""
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    font_ref = 3 + 2 * len(pages)
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode()]
    for index, rows in enumerate(pages):
        ops = [f"BT /F1 {font_size} Tf".encode()]
        for line_no, row in enumerate(rows):
            y = 760 - round(font_size * 1.4) * line_no
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


def image_pdf(images: Sequence[tuple[int, int, bytes]]) -> bytes:
    """One page per greyscale image (width, height, 8-bit pixels), each filling a US Letter page."""
    kids = " ".join(f"{3 + 3 * i} 0 R" for i in range(len(images)))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", f"<< /Type /Pages /Kids [{kids}] /Count {len(images)} >>".encode()]
    for index, (width, height, pixels) in enumerate(images):
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 3 * index} 0 R "
            f"/Resources << /XObject << /Im1 {5 + 3 * index} 0 R >> >> >>".encode()
        )
        objects.append(_stream(b"q 612 0 0 792 0 0 cm /Im1 Do Q"))
        objects.append(_stream(pixels, f"/Type /XObject /Subtype /Image /Width {width} /Height {height} "
                                       "/ColorSpace /DeviceGray /BitsPerComponent 8 "))
    return _assemble(objects)


def scanned_pdf(pages: int = 1) -> bytes:
    """Pages that are one grey image each: no text layer at all."""
    return image_pdf([(128, 128, bytes(range(256)) * 64)] * pages)  # a 128 x 128 grey gradient


def scan_pdf(pages: Sequence[Sequence[str | Sequence[str]]], dpi: int = 200, noise: float = 0.0, seed: int = 0,
             font_size: int = 10) -> bytes:
    """``text_pdf(pages)`` as a scanner returns it: images only, ``noise`` the share of pixels
    replaced by random grey (0.5 already defeats OCR)."""
    import pypdfium2 as pdfium

    rng = random.Random(seed)
    source = pdfium.PdfDocument(text_pdf(pages, font_size=font_size))
    images = []
    try:
        for index in range(len(source)):
            page = source[index]
            bitmap = page.render(scale=dpi / 72, grayscale=True)
            raw, width, height, stride = bytes(bitmap.buffer), bitmap.width, bitmap.height, bitmap.stride
            bitmap.close()
            page.close()
            pixels = b"".join(raw[i * stride:i * stride + width] for i in range(height))
            if noise > 0:
                cut = round(noise * 256)
                pixels = bytes(n if r < cut else p for p, r, n in
                               zip(pixels, rng.randbytes(len(pixels)), rng.randbytes(len(pixels)), strict=True))
            images.append((width, height, pixels))
    finally:
        source.close()
    return image_pdf(images)
