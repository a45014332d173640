"""A screenshot of a local HTML page with Debian's Chromium, checked non-blank (a demo tool, kept out
of the package's egg).

``make screenshot`` runs ``make demo``'s audit (the sample corpus against the sample site on
loopback) when its report is missing, then writes ``_local/demo/report.png``. The browser
reads a local file with every network request sent to a closed loopback port, so nothing
leaves the machine; the PNG is decoded here (zlib, no imaging library) to prove it shows
more than a blank page. ``--docs`` shoots the built docs' index and config reference instead
(``make docs`` first) into ``_local/docs/*.png``.
"""

from __future__ import annotations

import struct
import subprocess
import sys
import zlib
from collections import Counter
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
if str(PROJECT_DIR) not in sys.path:  # run as a script: the package beside this folder
    sys.path.insert(0, str(PROJECT_DIR))

from sv_scrapy.downloadhandlers.render import CHROMIUM_FLAGS  # noqa: E402

CHROMIUM = "/usr/bin/chromium"  # Debian's wrapper
DEMO_REPORT = PROJECT_DIR / "_local" / "demo" / "source-verify" / "audit" / "report.html"


def screenshot(html: Path, png: Path, width: int = 1280, height: int = 1600, chromium: str = CHROMIUM) -> None:
    """Render ``html`` headless into ``png``; raises ``RuntimeError`` with one line on failure."""
    png.parent.mkdir(parents=True, exist_ok=True)
    png.unlink(missing_ok=True)
    cmd = [chromium, "--headless", *CHROMIUM_FLAGS, "--hide-scrollbars", "--proxy-server=http://127.0.0.1:9",
           f"--window-size={width},{height}", f"--screenshot={png}", html.resolve().as_uri()]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RuntimeError(f"{chromium}: could not take the screenshot: {exc}") from None
    if proc.returncode != 0 or not png.is_file():
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"{chromium} exited {proc.returncode} without a screenshot: {tail[:200]}")


def _unfilter(raw: bytes, width: int, height: int, bpp: int) -> list[bytes]:
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    pos = 0
    for _ in range(height):
        kind, line = raw[pos], bytearray(raw[pos + 1 : pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        prev = line
    return rows


def png_pixels(data: bytes, step: int = 4) -> tuple[int, int, Counter[bytes]]:
    """(width, height, colour counts of every ``step``-th pixel of every ``step``-th row) of an
    8-bit RGB or RGBA, non-interlaced PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunk = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = chunk
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    bpp = 3 if colour == 2 else 4
    rows = _unfilter(zlib.decompress(idat), width, height, bpp)
    counts: Counter[bytes] = Counter(row[x * bpp : x * bpp + 3] for row in rows[::step] for x in range(0, width, step))
    return width, height, counts


def non_blank(png: Path) -> str:
    """"" when the screenshot shows a page, else why not."""
    width, height, counts = png_pixels(png.read_bytes())
    background, most = counts.most_common(1)[0]
    inked = 1 - most / sum(counts.values())
    if len(counts) < 16 or inked < 0.01:
        return f"{png}: looks blank ({len(counts)} colours, {inked:.1%} off the background)"
    return ""


DOCS_HTML = PROJECT_DIR / "_local" / "docs" / "html"
DOCS_PAGES = {"index": "index.html", "config-reference": "reference/settings.html"}


def shoot(html: Path, png: Path) -> int:
    try:
        screenshot(html, png)
    except RuntimeError as exc:
        print(f"screenshot: error: {exc}", file=sys.stderr)
        return 1
    problem = non_blank(png)
    if problem:
        print(f"screenshot: error: {problem}", file=sys.stderr)
        return 1
    print(f"screenshot of {html.relative_to(PROJECT_DIR)}: {png.relative_to(PROJECT_DIR)}")
    return 0


def main() -> int:
    if sys.argv[1:] == ["--docs"]:
        return max(shoot(DOCS_HTML / page, DOCS_HTML.parent / f"{name}.png") for name, page in DOCS_PAGES.items())
    if not DEMO_REPORT.is_file():
        demo = subprocess.run([sys.executable, str(PROJECT_DIR / "tools" / "demo.py")], cwd=PROJECT_DIR)
        if demo.returncode != 0:
            return demo.returncode
    return shoot(DEMO_REPORT, DEMO_REPORT.parent.parent.parent / "report.png")


if __name__ == "__main__":
    sys.exit(main())
