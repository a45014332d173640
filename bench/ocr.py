"""OCR speed and accuracy on scans the test rig draws (text rasterised, no text layer).

    python bench/ocr.py [--pages 8] [--lines 40] [--font-size 9] [--scan-dpi 200] [--dpi 300]

Draws ``--pages`` gazette-like pages (``--lines`` lines of ``--font-size`` pt, each stating a
rate and an amount), scans them at ``--scan-dpi``, then OCRs them at ``--dpi`` as the crawl
does (core/page/ocr.py): once one page at a time (seconds a page), once with two tesseract
processes (pages per second on 2 cores). Accuracy is the share of drawn figures the
prefilter's matcher finds in the OCR text (after ``ocr_digits``), and the same without the
digit normalisation. Asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import sys
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

from sv_scrapy.core.figures.values import canonical_number  # noqa: E402
from sv_scrapy.core.page.ocr import OcrSettings, ocr_digits, ocr_pdf  # noqa: E402
from sv_scrapy.core.page.pagescan import PageIndex  # noqa: E402
from testing.mockweb.pdfgen import scan_pdf  # noqa: E402


def gazette(pages: int, lines: int, seed: int = 7) -> tuple[list[list[str]], list[list[str]]]:
    """(page lines, the figures drawn on each page as the page writes them)."""
    rng = random.Random(seed)
    texts, figures = [], []
    for _ in range(pages):
        rows, drawn = [], []
        for k in range(lines):
            rate = f"{rng.randint(1, 19)},{rng.randint(0, 99):02d}"
            amount = f"{rng.randint(1, 999)} {rng.randint(0, 999):03d}"
            rows.append(f"Art. {k + 1}. Le taux applicable aux actes de la catégorie {rng.choice('ABCDE')} "
                        f"est fixé à {rate} % au-delà de {amount} EUR.")
            drawn += [rate, amount]
        texts.append(rows)
        figures.append(drawn)
    return texts, figures


def found(text: str, drawn: list[str]) -> int:
    index = PageIndex(text)
    return sum(bool(index.find_number(canonical_number(f))) for f in drawn)


def cpu_seconds() -> float:
    """CPU time of finished child processes (the tesseract runs): steady under others' load."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=8)
    ap.add_argument("--lines", type=int, default=40)
    ap.add_argument("--font-size", type=int, default=9)
    ap.add_argument("--scan-dpi", type=int, default=200)
    ap.add_argument("--dpi", type=int, default=300)
    ap.add_argument("--noise", type=float, default=0.0, help="share of pixels replaced by random grey")
    ap.add_argument("--languages", default="fra")
    args = ap.parse_args()
    if shutil.which("tesseract") is None:
        print("tesseract not installed (make install): nothing to measure")
        return 1
    texts, figures = gazette(args.pages, args.lines)
    pdfs = [scan_pdf([page], dpi=args.scan_dpi, font_size=args.font_size, noise=args.noise, seed=i)
            for i, page in enumerate(texts)]
    words = sum(len(line.split()) for line in texts[0])
    print(f"{args.pages} scanned page(s), {args.lines} lines of {args.font_size} pt (~{words} words a page), "
          f"scanned at {args.scan_dpi} dpi (noise {args.noise:g}), OCR at {args.dpi} dpi, -l {args.languages}")

    serial = OcrSettings(dpi=args.dpi, jobs=1, page_timeout_s=120)
    start, cpu = time.perf_counter(), cpu_seconds()
    readings = [ocr_pdf(pdf, serial, args.languages) for pdf in pdfs]
    per_page, cpu_page = (time.perf_counter() - start) / args.pages, (cpu_seconds() - cpu) / args.pages
    print(f"one page at a time : {per_page:.2f} s a page wall, {cpu_page:.2f} s CPU a page (goal <= 2 s)")

    both = scan_pdf(texts, dpi=args.scan_dpi, font_size=args.font_size, noise=args.noise)  # pages 2 at a time
    start = time.perf_counter()
    ocr_pdf(both, OcrSettings(dpi=args.dpi, jobs=2, page_timeout_s=120, max_pages=0), args.languages)
    wall = time.perf_counter() - start
    print(f"two processes      : {args.pages / wall:.2f} pages/s on 2 cores ({wall / args.pages:.2f} s a page)")

    drawn = sum(len(f) for f in figures)
    hits = sum(found(ocr_digits(r.text), f) for r, f in zip(readings, figures, strict=True))
    raw = sum(found(r.text, f) for r, f in zip(readings, figures, strict=True))
    confidence = sum(r.confidence for r in readings) / len(readings)
    print(f"accuracy           : {hits}/{drawn} figures found ({hits / drawn:.1%}); "
          f"without ocr_digits {raw}/{drawn}; mean confidence {confidence:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
