"""Scanned PDFs -> text: pages rendered by pypdfium2, read by Debian's ``tesseract`` CLI.

Why the command line and not a binding: one ``tesseract`` process per page can be killed at
the per-page time limit (a binding's call cannot be interrupted from Python), a crash on a
hostile image ends that process and not the crawl, and it adds no Python dependency
(pytesseract wraps the same command through Pillow and temporary files). The page goes in on
stdin as a greyscale PGM and TSV comes back on stdout: no shell, no temporary file, and the
only words on its command line are our own language codes, checked against the installed
packs. Each process is held to one thread (``OMP_THREAD_LIMIT=1``): Tesseract's OpenMP
threads were 5x *slower* on this 2-core machine; pages run ``jobs`` at a time instead.

OCR output is a guess with a confidence: :func:`~sv_scrapy.core.page.ocr.ocr_prior` keeps a low-confidence (or
partly read) scan whose figure was not found at ``PDF_NO_TEXT`` instead of ``TOKENS_ABSENT``,
and :func:`~sv_scrapy.core.page.ocr.ocr_digits` undoes the usual digit confusions for matching only.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from sv_scrapy.core.environment import child_environment
from sv_scrapy.core.page.prefilter import PDF_NO_TEXT, SOURCE_UNAVAILABLE, TOKENS_ABSENT, Prior

# Tesseract's pack names for CLDR language codes (tesseract names packs by ISO 639-2/T, and
# Chinese by script); only languages with a pack are listed
TESSERACT_CODES: dict[str, str] = {
    "en": "eng", "fr": "fra", "de": "deu", "es": "spa", "pt": "por", "it": "ita", "nl": "nld", "ar": "ara",
    "ko": "kor", "zh": "chi_sim", "zh_Hans": "chi_sim", "zh_Hant": "chi_tra", "ja": "jpn", "el": "ell",
    "pl": "pol", "ru": "rus", "tr": "tur", "sv": "swe", "da": "dan", "fi": "fin", "nb": "nor", "cs": "ces",
}
DEFAULT_LANGUAGES = ("eng", "fra", "deu", "spa", "por", "ita", "nld", "ara", "kor", "chi_sim")
LANGUAGE_CODE = re.compile(r"^[a-z]{3}(?:_[a-z]+)?$")
OCR_DPI = 300  # 8-point print has a ~17 px x-height here; measured faster than 200 dpi too
MAX_SIDE_PX = 5000  # A3 at 300 dpi; a bogus 200-inch MediaBox must not allocate gigapixels
MAX_LANGUAGES = 2  # each extra model costs ~25 % more time per page
# a PDF layer thinner than this per page (a stamp, a page number) is "almost no text": OCR it
MIN_LAYER_CHARS_PER_PAGE = 40


@dataclass(frozen=True)
class OcrSettings:
    command: str = "tesseract"
    languages: tuple[str, ...] = DEFAULT_LANGUAGES  # those OCR may use; the first is the fallback
    max_pages: int = 20
    page_timeout_s: float = 30.0
    dpi: int = OCR_DPI
    jobs: int = 2


@dataclass(frozen=True)
class OcrText:
    """What OCR read of one PDF (the cache entry, keyed by the PDF's raw hash)."""

    text: str
    confidence: float  # mean word confidence over every page read, 0–100; 0 when no word
    languages: str  # tesseract's -l, e.g. "fra" or "nld+fra"
    pages: int  # pages in the PDF
    pages_read: int  # pages OCR'd (ocr_max_pages bounds it)
    page_confidences: tuple[float, ...] = ()  # per page read; -1 for a page with no word
    timed_out: int = 0  # pages cut at the per-page time limit
    failed: int = 0  # pages tesseract could not read (crash, bad image)
    dpi: int = OCR_DPI
    error: str = ""  # set when OCR could not run at all (nothing is cached then)

    @property
    def complete(self) -> bool:
        return self.pages_read >= self.pages and not self.timed_out and not self.failed

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> OcrText | None:
        try:
            known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
            known["page_confidences"] = tuple(float(c) for c in known.get("page_confidences", ()))
            return cls(**known)
        except (TypeError, ValueError):
            return None  # a damaged cache entry is an entry never written

    def summary(self) -> dict[str, Any]:
        """What a page item carries (and a 304 restores): enough for :func:`ocr_prior`."""
        read = [c for c in self.page_confidences if c >= 0]
        return {"confidence": self.confidence, "weakest_page": min(read, default=0.0), "languages": self.languages,
                "pages": self.pages, "pages_read": self.pages_read, "timed_out": self.timed_out,
                "failed": self.failed, "complete": self.complete}

    def note(self) -> str:
        parts = [f"OCR ({self.languages}, {self.dpi} dpi): {self.pages_read} of {self.pages} page(s), "
                 f"confidence {self.confidence:.0f}"]
        if self.timed_out or self.failed:
            parts.append(f"{self.timed_out} page(s) over the time limit, {self.failed} unreadable")
        return "; ".join(parts)

    def reusable_for(self, settings: OcrSettings, languages: str) -> bool:
        """A cached reading serves when it used the same languages and resolution and read as
        far; one with a page cut at the time limit is tried again (the machine may have been busy)."""
        wanted = self.pages if settings.max_pages <= 0 else min(self.pages, settings.max_pages)
        return (self.languages == languages and self.dpi == settings.dpi and self.pages_read >= wanted
                and not self.timed_out)


# -- the page language ---------------------------------------------------------------------
def territory_of(host: str) -> str:
    """The CLDR territory of a host's ccTLD: ``impots.gouv.fr`` -> ``FR``; ``.uk`` -> ``GB``."""
    tld = host.rstrip(".").rsplit(".", 1)[-1].lower()
    if len(tld) != 2 or not tld.isalpha():
        return ""
    return "GB" if tld == "uk" else tld.upper()


def languages_for(hosts: Iterable[str], scopes: Iterable[str], allowed: Sequence[str],
                  installed: Iterable[str]) -> str:
    """Tesseract's ``-l`` for a page: the official languages (CLDR) of the URL's ccTLD, else of
    the citing playbook's country, kept to ``allowed`` and installed packs; else the first allowed."""
    from babel.languages import get_official_languages

    usable = [code for code in allowed if code in set(installed)]
    for territory in [territory_of(h) for h in hosts] + [s.upper() for s in scopes if len(s) == 2 and s.isalpha()]:
        if not territory:
            continue
        picked: list[str] = []
        for language in get_official_languages(territory, de_facto=True):
            code = TESSERACT_CODES.get(language) or TESSERACT_CODES.get(language.split("_", 1)[0])
            if code in usable and code not in picked:
                picked.append(code)
        if picked:
            return "+".join(picked[:MAX_LANGUAGES])
    return usable[0] if usable else ""


# -- matching help -------------------------------------------------------------------------
_CONFUSED = str.maketrans({"O": "0", "o": "0", "l": "1", "I": "1", "|": "1", "S": "5"})
_N = "0-9OolI|S"
# a run that holds a real digit before any other character, then groups of three after a space
_NUMBERISH = re.compile(rf"(?=[{_N}.,]*\d)[{_N}](?:[{_N}]|[.,](?=[{_N}]))*"
                        rf"(?:[ \u00a0\u202f'](?=[{_N}]{{3}}(?![{_N}]))[{_N}]{{3}})*")


def ocr_digits(text: str) -> str:
    """OCR's digit confusions undone inside numbers, for matching only (same length, so a
    match's offsets point into the text as read). A run counts as a number when it holds a real
    digit and no letter touches it.

    >>> ocr_digits("Taux 5,8l %, seuil 1 5OO OOO EUR, en 2O2S; Solde, lol, S5 ans, Sol 500, 5l0S")
    'Taux 5,81 %, seuil 1 500 000 EUR, en 2025; Solde, lol, 55 ans, Sol 500, 5105'
    """
    def fix(m: re.Match[str]) -> str:
        run = m.group(0)
        before = text[m.start() - 1] if m.start() else " "
        after = text[m.end()] if m.end() < len(text) else " "
        if before.isalpha() or after.isalpha():
            return run
        return run.translate(_CONFUSED)

    return _NUMBERISH.sub(fix, text)


def needs_ocr(text: str, pages: int) -> bool:
    """No text layer, or almost none (a stamp, page numbers): the page is an image."""
    return pages > 0 and len("".join(text.split())) < MIN_LAYER_CHARS_PER_PAGE * pages


def ocr_prior(prior: Prior, ocr: Mapping[str, Any], min_confidence: float) -> Prior:
    """A figure found on an OCR'd page stands; a figure *not* found (or a thin reading) is evidence
    only when every page was read, each with confidence >= ``min_confidence``: else the scan
    stays PDF_NO_TEXT, as a bad scan must not cry wolf."""
    if prior.prior not in (TOKENS_ABSENT, SOURCE_UNAVAILABLE):
        return prior
    weakest, complete = float(ocr.get("weakest_page", 0.0)), bool(ocr.get("complete"))
    if complete and weakest >= min_confidence:
        return prior
    if complete:
        why = f"weakest page at confidence {weakest:.0f} < {min_confidence:g}"
    else:
        why = f"read {ocr.get('pages_read')} of {ocr.get('pages')} page(s)"
    return Prior(PDF_NO_TEXT, missing_tokens=prior.missing_tokens,
                 note=f"scan: no figure found by OCR, but OCR {why}: not evidence of absence")


# -- the engine ----------------------------------------------------------------------------
class OcrUnavailable(Exception):
    """No usable OCR engine (command missing, or none of the wanted language packs)."""


@functools.lru_cache(maxsize=8)
def installed_languages(command: str) -> tuple[str, ...]:
    """The language packs ``command`` can use; raises :class:`OcrUnavailable` with one line."""
    if not shutil.which(command):
        raise OcrUnavailable(f"tesseract not found ({command!r}; make install, or set SV_TESSERACT)")
    try:
        out = subprocess.run([command, "--list-langs"], capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise OcrUnavailable(f"tesseract ({command!r}) does not run: {type(exc).__name__}") from None
    lines = out.stdout.decode("utf-8", "replace").splitlines()
    return tuple(sorted(line.strip() for line in lines[1:] if LANGUAGE_CODE.match(line.strip())))


def _env() -> dict[str, str]:
    return child_environment({"OMP_THREAD_LIMIT": "1"})


def parse_tsv(tsv: str) -> tuple[str, list[float]]:
    """Tesseract's TSV -> (text with its lines and paragraphs, word confidences)."""
    lines: list[str] = []
    words: list[str] = []
    confidences: list[float] = []
    current: tuple[str, ...] = ()
    block = ""
    for row in tsv.splitlines()[1:]:
        cols = row.split("\t", 11)
        if len(cols) < 12 or cols[0] != "5" or not cols[11].strip():
            continue
        key = tuple(cols[1:5])  # page, block, paragraph, line
        if key != current:
            if words:
                lines.append(" ".join(words))
            if current and cols[2] != block:
                lines.append("")
            words, current, block = [], key, cols[2]
        words.append(cols[11].strip())
        try:
            confidences.append(max(0.0, float(cols[10])))
        except ValueError:
            confidences.append(0.0)
    if words:
        lines.append(" ".join(words))
    return "\n".join(lines), confidences


def ocr_image(pgm: bytes, settings: OcrSettings, languages: str) -> tuple[str, list[float]]:
    """One page image through tesseract; raises ``subprocess.TimeoutExpired`` at the limit."""
    out = subprocess.run(
        [settings.command, "stdin", "stdout", "--dpi", str(settings.dpi), "-l", languages, "tsv"],
        input=pgm, capture_output=True, timeout=settings.page_timeout_s, env=_env(), check=False,
    )
    if out.returncode != 0:
        lines = out.stderr.decode("utf-8", "replace").strip().splitlines()
        raise OSError(lines[-1] if lines else f"tesseract exited {out.returncode}")
    return parse_tsv(out.stdout.decode("utf-8", "replace"))


_DARK = bytes(1 if value < 128 else 0 for value in range(256))
BLANK_MAX_DARK_PX = 100  # fewer dark pixels than one 10-point letter at 300 dpi: nothing to read


def is_blank(pgm: bytes) -> bool:
    """A page with (almost) no ink: tesseract would spend ~0.5 s to read nothing on it."""
    pixels = pgm.split(b"\n", 3)[3]  # after "P5", "width height", "255"
    return pixels.translate(_DARK).count(1) < BLANK_MAX_DARK_PX


def render_pgm(page: Any, dpi: int) -> bytes:
    """One pypdfium2 page as a greyscale PGM at ``dpi`` (capped at ``MAX_SIDE_PX``)."""
    width, height = page.get_size()
    scale = min(dpi / 72, MAX_SIDE_PX / max(width, height, 1.0))
    bitmap = page.render(scale=scale, grayscale=True)
    try:
        raw, w, h, stride = bytes(bitmap.buffer), bitmap.width, bitmap.height, bitmap.stride
        rows = raw if stride == w else b"".join(raw[i * stride:i * stride + w] for i in range(h))
        return b"P5\n%d %d\n255\n" % (w, h) + rows
    finally:
        bitmap.close()


@dataclass
class _Pages:
    texts: list[str] = field(default_factory=list)
    page_confidences: list[float] = field(default_factory=list)
    confidences: list[float] = field(default_factory=list)
    timed_out: int = 0
    failed: int = 0

    def add(self, future: Future[tuple[str, list[float]]]) -> None:
        try:
            text, confidences = future.result()
        except subprocess.TimeoutExpired:
            self.timed_out += 1
            return
        except OSError:
            self.failed += 1
            return
        self.texts.append(text)
        self.confidences.extend(confidences)
        self.page_confidences.append(round(sum(confidences) / len(confidences), 1) if confidences else -1.0)


def ocr_pdf(data: bytes, settings: OcrSettings, languages: str) -> OcrText:
    """OCR the first ``settings.max_pages`` pages; ``jobs`` tesseract processes at a time.

    Renders in the calling thread (pdfium is not thread-safe: call it from one thread only);
    raises :class:`OcrUnavailable` when the engine or the languages are missing.
    """
    import pypdfium2 as pdfium

    if not languages:
        raise OcrUnavailable("none of pdf.ocr_languages is installed for tesseract")
    installed = installed_languages(settings.command)
    if any(code not in installed for code in languages.split("+")):
        raise OcrUnavailable(f"tesseract language pack(s) {languages} not installed")
    doc = pdfium.PdfDocument(data)
    done = _Pages()
    try:
        count = len(doc)
        todo = count if settings.max_pages <= 0 else min(count, settings.max_pages)
        with ThreadPoolExecutor(max_workers=max(1, settings.jobs), thread_name_prefix="sv-ocr") as pool:
            pending: list[Future[tuple[str, list[float]]]] = []
            for index in range(todo):
                page = doc[index]
                try:
                    pgm = render_pgm(page, settings.dpi)
                finally:
                    page.close()
                if is_blank(pgm):
                    done.page_confidences.append(-1.0)
                    continue
                pending.append(pool.submit(ocr_image, pgm, settings, languages))
                del pgm
                while len(pending) >= max(1, settings.jobs):  # at most `jobs` page images held
                    done.add(pending.pop(0))
            for future in pending:
                done.add(future)
    finally:
        doc.close()
    confidence = round(sum(done.confidences) / len(done.confidences), 1) if done.confidences else 0.0
    return OcrText("\n\n".join(t for t in done.texts if t), confidence, languages, count, todo,
                   tuple(done.page_confidences), done.timed_out, done.failed, settings.dpi)
