"""The optional pdf.ocr* keys: absent in a playbook repo's config (defaults), checked when set."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from sv_scrapy.core.errors import ConfigError
from sv_scrapy.core.page.ocr import DEFAULT_LANGUAGES
from sv_scrapy.run.config import load_config

from .conftest import PROJECT_DIR


def config_with_pdf(tmp_path: Path, pdf: dict[str, Any]) -> Path:
    target = tmp_path / "config"
    shutil.copytree(PROJECT_DIR / "config", target)
    path = target / "_source-verify.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["pdf"] = pdf
    path.write_text(json.dumps(data), encoding="utf-8")
    return target


def test_a_pdf_section_without_ocr_keys_gets_the_defaults(tmp_path: Path) -> None:
    pdf = load_config(config_with_pdf(tmp_path, {"enabled": True, "max_pages": 0, "max_bytes": 100})).pdf
    assert (pdf.ocr, pdf.ocr_max_pages, pdf.ocr_languages) == (True, 20, DEFAULT_LANGUAGES)
    assert (pdf.ocr_page_timeout_seconds, pdf.ocr_min_confidence) == (30.0, 70.0)


def test_the_corpus_config_has_no_ocr_keys_and_stays_valid(shared_corpus: Path) -> None:
    assert "ocr" not in json.loads((shared_corpus / "config" / "_source-verify.json").read_text())["pdf"]
    assert load_config(shared_corpus / "config").pdf.ocr is True


def test_ocr_keys_are_read(tmp_path: Path) -> None:
    pdf = load_config(config_with_pdf(tmp_path, {
        "enabled": True, "max_pages": 0, "max_bytes": 100, "ocr": False, "ocr_max_pages": 3,
        "ocr_languages": ["deu", "chi_sim"], "ocr_page_timeout_seconds": 5, "ocr_min_confidence": 85})).pdf
    assert (pdf.ocr, pdf.ocr_max_pages, pdf.ocr_languages) == (False, 3, ("deu", "chi_sim"))
    assert (pdf.ocr_page_timeout_seconds, pdf.ocr_min_confidence) == (5.0, 85.0)


@pytest.mark.parametrize(("extra", "message"), [
    ({"ocr": "yes"}, 'pdf.ocr: expected true or false, got "yes"'),
    ({"ocr_languages": ["fr"]}, 'pdf.ocr_languages[0]: "fr" is no tesseract language code'),
    ({"ocr_languages": ["eng; rm -rf /"]}, "pdf.ocr_languages[0]"),
    ({"ocr_max_pages": -1}, "pdf.ocr_max_pages: must be >= 0"),
    ({"ocr_lang": ["eng"]}, "pdf.ocr_lang: unknown key"),
])
def test_a_bad_ocr_key_is_one_line_naming_it(tmp_path: Path, extra: dict[str, Any], message: str) -> None:
    folder = config_with_pdf(tmp_path, {"enabled": True, "max_pages": 0, "max_bytes": 100, **extra})
    with pytest.raises(ConfigError, match="^.*_source-verify.json: ") as err:
        load_config(folder)
    assert message in str(err.value) and "\n" not in str(err.value)
