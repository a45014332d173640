"""Scanned PDFs through real `scrapy crawl audit` runs on the mock web: OCR'd cold, read from
the content store warm (counted by a wrapper around the tesseract command, outside the crawler),
and today's PDF_NO_TEXT when tesseract is missing or OCR is switched off."""

from __future__ import annotations

import json
import re
import shutil
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from sv_scrapy.core.audit.store import ContentStore
from testing.crawl import FAST_LIVENESS, CrawlResult, crawl, make_config, write_corpus
from testing.mockweb import MockWeb, Route
from testing.mockweb.pdfgen import scan_pdf

pytestmark = [pytest.mark.subprocess, pytest.mark.skipif(
    shutil.which("tesseract") is None, reason="tesseract not installed (make install installs tesseract-ocr)")]

HEAD = ["Décret n° 2025-123 du 1er avril 2025 relatif aux droits de mutation",
        "Les dispositions du présent décret s'appliquent aux actes conclus après sa publication.",
        "Le ministre de l'économie est chargé de l'exécution du présent décret."]


def decree(*lines: str) -> list[list[str]]:
    return [[*HEAD, *lines, "Article 3. Le présent décret entre en vigueur le lendemain de sa publication."]]


PDF = "application/pdf"


def scan(pages: Sequence[Sequence[str | Sequence[str]]], etag: bool = True, **options: Any) -> Callable[[], Route]:
    """A scan's route, made when a test serves it: every worker of the suite imports this module to
    collect it, and rasterising the seven scans costs ~0.9 s of CPU a worker even where OCR is skipped."""
    return lambda: Route(body=scan_pdf(pages, **options), content_type=PDF, etag=etag)


# line text, url, route — lines 3, 4, … of the playbook
CASES: dict[str, tuple[str, str, Callable[[], Route]]] = {
    "present": ("DMTO 5.81 % ([a]({url}))", "https://present.ocr.gouv.fr/decret.pdf",
                scan(decree("Article 1. Le taux est fixé à 5,81 %."))),
    # no ETag: the warm run downloads it again, and the content-hash cache answers
    "refetched": ("Seuil €1,500,000 ([a]({url}))", "https://refetched.ocr.gouv.fr/seuil.pdf",
                  scan(decree("Article 2. Le seuil est de 1 500 000 EUR."), etag=False)),
    "absent": ("DMTO 5.81 % ([a]({url}))", "https://absent.ocr.gouv.fr/decret.pdf",
               scan(decree("Article 1. Le taux est fixé à 6,32 %."))),
    # small print scanned at 72 dpi: OCR reads garbage, with a low confidence
    "bad": ("DMTO 5.81 % ([a]({url}))", "https://bad.ocr.gouv.fr/decret.pdf",
            scan([decree("Article 1. Le taux est fixé à 6,32 %.")[0] * 3], dpi=72, font_size=5)),
    # unreadable: no text is stored, so the warm run asks for them unconditionally
    "noisy": ("DMTO 5.81 % ([a]({url}))", "https://noisy.ocr.gouv.fr/decret.pdf",
              scan(decree("Article 1. Le taux est fixé à 5,81 %."), noise=0.05)),
    "blank": ("DMTO 5.81 % ([a]({url}))", "https://blank.ocr.gouv.fr/decret.pdf", scan([[]])),
}
LINE = {name: 3 + i for i, name in enumerate(CASES)}
# a page without the figure that links to a scan with it: the one hop reads the scan by OCR
LINKED_PAGE, LINKED_SCAN = "https://linked.ocr.gouv.fr/droits", "https://linked.ocr.gouv.fr/docs/bareme-dmto-2025.pdf"
LINKED_LINE = 3 + len(CASES)
LINKED_ROUTES: dict[str, Callable[[], Route]] = {
    LINKED_PAGE: lambda: Route(body="<html lang='fr'><body><h1>Droits de mutation</h1>"
                                    + "<p>Le barème des droits est publié chaque année par le département.</p>" * 8
                                    + "<a href='/docs/bareme-dmto-2025.pdf'>Barème DMTO 2025</a></body></html>"),
    LINKED_SCAN: scan(decree("Article 1. Le taux DMTO 2025 est fixé à 4,50 %.")),
}


def by_line(result: CrawlResult) -> dict[int, dict[str, Any]]:
    doc = json.loads((result.output_dir / "audit" / "audit.json").read_text(encoding="utf-8"))
    return {item["line_no"]: item for item in doc["items"]}


def counting_tesseract(folder: Path) -> tuple[str, Path]:
    """A tesseract that logs each page it reads, so runs are judged from outside the crawler."""
    log, script = folder / "tesseract-calls.log", folder / "tesseract"
    real = shutil.which("tesseract")
    script.write_text(f'#!/bin/sh\n[ "$1" = --list-langs ] || echo "$*" >> "{log}"\nexec "{real}" "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script), log


def calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def stat_value(stderr: str, key: str) -> int:
    found = re.search(rf"'{re.escape(key)}': (\d+)", stderr)
    return int(found.group(1)) if found else 0


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):
    tmp: Path = tmp_path_factory.mktemp("ocr")
    lines = "\n".join([*(f"- {text.format(url=url)}" for text, url, _ in CASES.values()),
                       f"- DMTO 2025 4.50 % ([a]({LINKED_PAGE}))"])
    corpus = write_corpus(tmp / "corpus", {"countries/xx/playbook.md": f"# OCR\n\n{lines}\n"})
    config = make_config(tmp / "config", liveness=FAST_LIVENESS)
    command, log = counting_tesseract(tmp)
    results, counts = [], []
    with MockWeb() as web:
        for _, url, route in CASES.values():
            web.route(url, route())
        for url, route in LINKED_ROUTES.items():
            web.route(url, route())
        for _ in range(2):
            before = len(calls(log))
            result = crawl("audit", corpus=corpus, config=config, output=tmp / "out", proxy_env=web.env(),
                           extra_env={"SV_TESSERACT": command}, options=["-L", "INFO"])  # stats on stderr
            assert result.returncode == 0, result.stderr[-3000:]
            results.append((result, by_line(result)))
            counts.append(len(calls(log)) - before)
    return results, counts, log


def test_a_scan_with_the_figure_is_tokens_present_by_ocr(runs) -> None:
    cold = runs[0][0][1]
    for name in ("present", "refetched"):
        item = cold[LINE[name]]
        assert (item["fetch_status"], item["prior"], item["text_method"]) == ("OK", "TOKENS_PRESENT", "ocr"), item
        assert item["ocr_confidence"] > 80
        assert any("Décret" in e or "Article" in e for e in item["excerpts"])


def test_the_ocr_text_is_in_the_content_store_for_the_llm_layer(runs) -> None:
    store = ContentStore(runs[0][0][0].output_dir / "store")
    text = store.text(CASES["present"][1]) or ""
    assert "5,81 %" in text and "Décret" in text
    assert store.pdf_path(CASES["present"][1]).is_file()  # the scan itself too


def test_a_clean_scan_without_the_figure_is_tokens_absent(runs) -> None:
    item = runs[0][0][1][LINE["absent"]]
    assert (item["prior"], item["text_method"]) == ("TOKENS_ABSENT", "ocr")
    assert item["ocr_confidence"] >= 70 and item["missing_tokens"] == ["5.81 %"]


def test_a_bad_scan_without_the_figure_does_not_cry_wolf(runs) -> None:
    item = runs[0][0][1][LINE["bad"]]
    assert item["prior"] == "PDF_NO_TEXT", item
    assert item["ocr_confidence"] < 70 and "not evidence of absence" in item["note"]


@pytest.mark.parametrize("name", ["noisy", "blank"])
def test_a_blank_or_noisy_scan_stays_pdf_no_text(runs, name: str) -> None:
    item = runs[0][0][1][LINE[name]]
    assert (item["fetch_status"], item["prior"]) == ("OK", "PDF_NO_TEXT"), item
    assert "OCR read no text" in item["note"]


def test_a_warm_audit_never_ocrs_an_unchanged_scan_again(runs) -> None:
    (cold, warm), (cold_calls, warm_calls), _ = runs
    # one page each (and the linked scan); a blank page is never sent to tesseract
    assert cold_calls == len(CASES) - 1 + 1
    assert warm_calls == 0
    assert stat_value(warm[0].stderr, "sv/ocr/pages") == 0
    assert stat_value(warm[0].stderr, "sv/ocr/cache_hit") == len(CASES)
    before, after = cold[1], warm[1]
    for line in LINE.values():
        assert after[line]["prior"] == before[line]["prior"], after[line]
    for name in ("present", "refetched", "absent", "bad"):
        assert (after[LINE[name]]["text_method"], after[LINE[name]]["ocr_confidence"]) == (
            "ocr", before[LINE[name]]["ocr_confidence"])
    assert after[LINE["present"]]["not_modified"] and not after[LINE["refetched"]]["not_modified"]
    assert not after[LINE["present"]]["content_changed"]


def test_a_scan_linked_one_hop_from_a_page_is_read_by_ocr_and_found(runs) -> None:
    (cold, warm), _, _ = runs
    item = cold[1][LINKED_LINE]
    assert (item["fetch_status"], item["prior"]) == ("OK", "TOKENS_ABSENT"), item
    found = item["found_linked"] or {}
    assert found.get("url") == LINKED_SCAN and "4,50 %" in found["excerpt"], item
    assert warm[1][LINKED_LINE]["found_linked"] == item["found_linked"]  # the unchanged page's finding stands


def test_no_tesseract_or_ocr_off_is_pdf_no_text_with_a_note(tmp_path: Path) -> None:
    text, url, route = CASES["present"]
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": f"# OCR\n\n- {text.format(url=url)}\n"})
    on = make_config(tmp_path / "on", liveness=FAST_LIVENESS)
    off = make_config(tmp_path / "off", liveness=FAST_LIVENESS, source_verify={"pdf": {"ocr": False}})
    command, log = counting_tesseract(tmp_path)
    with MockWeb() as web:
        web.route(url, route())
        missing = crawl("audit", corpus=corpus, config=on, output=tmp_path / "missing", proxy_env=web.env(),
                        extra_env={"SV_TESSERACT": str(tmp_path / "no" / "tesseract")}, options=["-L", "INFO"])
        switched_off = crawl("audit", corpus=corpus, config=off, output=tmp_path / "off-out", proxy_env=web.env(),
                             extra_env={"SV_TESSERACT": command}, options=["-L", "INFO"])
    assert missing.returncode == switched_off.returncode == 0, missing.stderr[-2000:] + switched_off.stderr[-2000:]
    assert "Traceback" not in missing.stderr + switched_off.stderr
    item = by_line(missing)[3]
    assert (item["fetch_status"], item["prior"]) == ("OK", "PDF_NO_TEXT")
    assert "OCR unavailable: tesseract not found" in item["note"] and "\n" not in item["note"]
    assert stat_value(missing.stderr, "sv/ocr/unavailable") == 1
    item = by_line(switched_off)[3]
    assert (item["prior"], item["text_method"]) == ("PDF_NO_TEXT", None)  # no text read: null (audit records)
    assert calls(log) == []
