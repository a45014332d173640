"""OCR of scans: digit confusions, the page language, the prior, the cache, and the engine on
scans the test rig draws (text rasterised by pypdfium2, no text layer)."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

from sv_scrapy.core.audit.store import ContentStore
from sv_scrapy.core.page.ocr import (
    OcrSettings,
    OcrText,
    OcrUnavailable,
    installed_languages,
    languages_for,
    needs_ocr,
    ocr_digits,
    ocr_pdf,
    ocr_prior,
    parse_tsv,
)
from sv_scrapy.core.page.pagescan import PageIndex
from sv_scrapy.core.page.pdf import pdf_to_text
from sv_scrapy.core.page.prefilter import PDF_NO_TEXT, SOURCE_UNAVAILABLE, TOKENS_ABSENT, TOKENS_PRESENT, Prior
from testing.mockweb.pdfgen import scan_pdf

_tesseract_installed = pytest.mark.skipif(shutil.which("tesseract") is None,
                                          reason="tesseract not installed (make install installs tesseract-ocr)")


def needs_tesseract(test: Any) -> Any:
    return pytest.mark.ocr(_tesseract_installed(test))
DECREE = ["Décret n° 2025-123 du 1er avril 2025", "Le taux des droits de mutation est fixé à 5,81 %.",
          "Le seuil est de 1 500 000 EUR pour les immeubles.", "Article 2. Le présent décret entre en vigueur."]


@pytest.mark.parametrize(("read", "matched"), [
    ("Taux 5,8l %", "Taux 5,81 %"),
    ("seuil 1 5OO OOO EUR", "seuil 1 500 000 EUR"),
    ("en 2O2S.", "en 2025."),
    ("l5 %", "15 %"),
    ("Solde lol Sol 500", "Solde lol Sol 500"),  # words stay words
    ("Art. l0a", "Art. l0a"),  # a letter touches the run: not a number
    ("ISO", "ISO"),
])
def test_ocr_digits_undoes_confusions_inside_numbers_only(read: str, matched: str) -> None:
    assert ocr_digits(read) == matched
    assert len(ocr_digits(read)) == len(read)  # offsets into the text as read still hold


def test_a_confused_figure_matches_after_normalising() -> None:
    assert not PageIndex("Taux 5,8l %").find_number("5.81")
    assert PageIndex(ocr_digits("Taux 5,8l %")).find_number("5.81")


@pytest.mark.parametrize(("hosts", "scopes", "expected"), [
    (["www.impots.gouv.fr"], [], "fra"),
    (["www.belastingdienst.nl"], ["fr"], "nld"),  # the URL wins over the playbook
    (["finances.belgium.be"], [], "nld+fra"),  # two official languages at most
    (["www.gov.uk"], [], "eng"),  # .uk is the territory GB
    (["www.irs.gov"], ["de"], "deu"),  # no ccTLD: the citing playbook's country
    (["example.org"], ["shared/exit"], "eng"),  # nothing known: the first allowed language
    (["www.gov.cn"], [], "chi_sim"),
])
def test_the_page_language_comes_from_the_cctld_then_the_scope(hosts: list[str], scopes: list[str],
                                                             expected: str) -> None:
    allowed = ("eng", "fra", "deu", "nld", "chi_sim")
    assert languages_for(hosts, scopes, allowed, allowed) == expected


def test_only_installed_and_allowed_languages_are_used() -> None:
    assert languages_for(["impots.gouv.fr"], [], ("eng", "fra"), ("eng",)) == "eng"
    assert languages_for(["impots.gouv.fr"], [], ("deu",), ("eng", "fra", "deu")) == "deu"
    assert languages_for(["impots.gouv.fr"], [], ("fra",), ()) == ""


def _ocr(confidence: float, complete: bool = True) -> dict[str, object]:
    return {"confidence": confidence, "weakest_page": confidence, "complete": complete, "pages": 3, "pages_read": 2}


def test_an_absent_figure_is_evidence_only_from_a_confident_complete_reading() -> None:
    absent = Prior(TOKENS_ABSENT, missing_tokens=["5.81 %"])
    assert ocr_prior(absent, _ocr(93), 70).prior == TOKENS_ABSENT
    low = ocr_prior(absent, _ocr(41), 70)
    assert (low.prior, low.missing_tokens) == (PDF_NO_TEXT, ["5.81 %"])
    assert "41" in low.note and "not evidence of absence" in low.note
    partial = ocr_prior(absent, _ocr(95, complete=False), 70)
    assert partial.prior == PDF_NO_TEXT and "read 2 of 3" in partial.note
    assert ocr_prior(Prior(SOURCE_UNAVAILABLE), _ocr(30), 70).prior == PDF_NO_TEXT
    assert ocr_prior(Prior(TOKENS_PRESENT), _ocr(30), 70).prior == TOKENS_PRESENT  # a found figure stands


def test_parse_tsv_keeps_lines_and_paragraphs() -> None:
    head = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
    rows = [("1", "1", "1", "1", "90", "Taux"), ("1", "1", "1", "2", "80", "5,81"), ("1", "1", "2", "1", "70", "%"),
            ("2", "1", "1", "1", "-1", " "), ("2", "1", "1", "1", "60", "Article")]
    tsv = head + "".join(f"5\t1\t{b}\t{p}\t{ln}\t{w}\t0\t0\t1\t1\t{c}\t{t}\n" for b, p, ln, w, c, t in rows)
    text, confidences = parse_tsv(tsv)
    assert text == "Taux 5,81\n%\n\nArticle"
    assert confidences == [90.0, 80.0, 70.0, 60.0]


def test_needs_ocr_when_the_layer_is_empty_or_almost() -> None:
    assert needs_ocr("", 1) and needs_ocr("Page 1 of 2", 2) and not needs_ocr("x" * 200, 2) and not needs_ocr("", 0)


def test_the_cache_round_trips_and_ignores_what_is_not_a_hash(tmp_path: Path) -> None:
    store = ContentStore(tmp_path)
    reading = OcrText("Taux 5,81 %", 91.5, "fra", 2, 2, (91.5, -1.0))
    store.save_ocr_text("0123456789abcdef", reading.to_json())
    assert OcrText.from_json(store.ocr_text("0123456789abcdef") or {}) == reading
    store.save_ocr_text("../../etc/x", reading.to_json())
    assert store.ocr_text("../../etc/x") is None and not (tmp_path / "ocr" / "..").resolve().joinpath("etc").exists()
    assert OcrText.from_json({"text": 3}) is None
    assert reading.reusable_for(OcrSettings(max_pages=20), "fra")
    assert not reading.reusable_for(OcrSettings(max_pages=20), "eng")
    partial = OcrText("Taux", 91.5, "fra", 30, 20)
    assert partial.reusable_for(OcrSettings(max_pages=20), "fra")
    assert not partial.reusable_for(OcrSettings(max_pages=0), "fra")  # 0: every page
    assert not partial.reusable_for(OcrSettings(max_pages=25), "fra")
    assert not OcrText("", 0, "fra", 2, 2, timed_out=1).reusable_for(OcrSettings(), "fra")


@needs_tesseract
def test_a_drawn_scan_reads_with_its_figures_and_high_confidence() -> None:
    pdf = scan_pdf([DECREE, DECREE[::-1]], dpi=200)
    assert pdf_to_text(pdf).text == ""  # no text layer: a real scan
    reading = ocr_pdf(pdf, OcrSettings(jobs=2), "fra")
    assert reading.pages_read == 2 and reading.complete
    assert reading.text.count("5,81 %") == 2 and reading.text.count("1 500 000") == 2
    assert reading.confidence > 85 and min(reading.page_confidences) > 85
    assert reading.text.index("Décret") < reading.text.index("vigueur")  # reading order kept


@needs_tesseract
def test_small_print_at_low_resolution_reads_with_low_confidence() -> None:
    reading = ocr_pdf(scan_pdf([DECREE * 3], dpi=72, font_size=5), OcrSettings(), "fra")
    assert reading.confidence < 70


@needs_tesseract
@pytest.mark.parametrize("noise", [0.0, 0.05], ids=["blank", "noisy"])
def test_a_blank_or_noisy_scan_reads_nothing(noise: float) -> None:
    reading = ocr_pdf(scan_pdf([[] if not noise else DECREE], noise=noise), OcrSettings(), "fra")
    assert reading.text == "" and reading.confidence == 0


@needs_tesseract
def test_ocr_max_pages_bounds_the_work() -> None:
    reading = ocr_pdf(scan_pdf([DECREE] * 3, dpi=100), OcrSettings(max_pages=1), "fra")
    assert (reading.pages, reading.pages_read, reading.complete) == (3, 1, False)


def _fake_tesseract(tmp_path: Path, body: str) -> str:
    script = tmp_path / "tesseract"
    script.write_text(f"#!/bin/sh\nif [ \"$1\" = --list-langs ]; then printf 'List\\neng\\nfra\\n'; exit 0; fi\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_a_page_over_the_time_limit_is_cut_not_waited_for(tmp_path: Path) -> None:
    command = _fake_tesseract(tmp_path, "sleep 30")
    reading = ocr_pdf(scan_pdf([DECREE, DECREE], dpi=50), OcrSettings(command=command, page_timeout_s=0.5), "fra")
    assert (reading.timed_out, reading.text, reading.complete) == (2, "", False)


def test_a_crashing_engine_counts_the_page_as_unreadable(tmp_path: Path) -> None:
    command = _fake_tesseract(tmp_path, "echo 'Error in pixReadMem' >&2; exit 1")
    reading = ocr_pdf(scan_pdf([DECREE], dpi=50), OcrSettings(command=command), "fra")
    assert (reading.failed, reading.text) == (1, "")


def test_a_blank_page_is_not_sent_to_tesseract(tmp_path: Path) -> None:
    command = _fake_tesseract(tmp_path, "exit 1")  # any page it were sent would count as failed
    reading = ocr_pdf(scan_pdf([[], DECREE], dpi=100), OcrSettings(command=command), "fra")
    assert (reading.pages_read, reading.failed, reading.page_confidences) == (2, 1, (-1.0,))


def test_no_engine_or_no_language_pack_is_unavailable_not_a_crash(tmp_path: Path) -> None:
    with pytest.raises(OcrUnavailable, match="tesseract not found"):
        ocr_pdf(scan_pdf([DECREE], dpi=50), OcrSettings(command=str(tmp_path / "missing")), "fra")
    with pytest.raises(OcrUnavailable, match="not installed"):
        ocr_pdf(scan_pdf([DECREE], dpi=50), OcrSettings(command=_fake_tesseract(tmp_path, "exit 1")), "kor")
    installed_languages.cache_clear()
