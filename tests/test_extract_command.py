"""`scrapy extract` end to end, in-process (its subprocess test: tests/test_cli.py): stats, --json, and bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from testing.commands import scrapy_in_process

from .conftest import PROJECT_DIR


def test_extract_on_the_sample_corpus_prints_stats() -> None:
    result = scrapy_in_process("extract")
    assert result.returncode == 0, result.stderr
    stats = json.loads(result.stdout)
    for key in ("total_claims", "links_seen", "primary_links", "skipped_pointer_links", "by_tier",
                "by_scope", "stamped", "stale_marked", "never_verified"):
        assert key in stats
    assert stats["total_claims"] > 0 and stats["skipped_pointer_links"] >= 1
    assert set(stats["by_scope"]) >= {"fr", "kr", "ad"}


def test_json_output_holds_every_claim(tmp_path: Path) -> None:
    out = tmp_path / "claims.json"
    result = scrapy_in_process("extract", "--include-secondary", "--as-of", "2026-07-01", "--json", str(out))
    assert result.returncode == 0, result.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    stats = json.loads(result.stdout)
    assert len(data["claims"]) == stats["total_claims"] == data["stats"]["total_claims"]
    assert data["params"]["as_of"] == "2026-07-01"
    assert "secondary" in stats["by_tier"]
    first = data["claims"][0]
    for key in ("id", "scope", "section", "line_no", "claim_text", "values", "source_url", "source_host",
                "source_tier", "inline_stamp"):
        assert key in first
    assert not list(tmp_path.glob(".claims.json.*"))  # no temp file left behind


def test_filters_narrow_the_claims() -> None:
    all_claims = json.loads(scrapy_in_process("extract").stdout)["total_claims"]
    fr = json.loads(scrapy_in_process("extract", "--country", "fr").stdout)
    assert set(fr["by_scope"]) == {"fr"} and fr["total_claims"] < all_claims
    tax = json.loads(scrapy_in_process("extract", "--country", "fr", "--section", "Tax").stdout)
    assert 0 < tax["total_claims"] <= fr["total_claims"]


def one_line_error(result) -> str:
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        (["--as-of", "2026-13-01"], {}, "--as-of '2026-13-01': expected a date YYYY-MM-DD"),
        (["--country", "zz"], {}, "--country 'zz': no scope of the corpus matches"),
        (["stray"], {}, "unexpected argument(s): stray"),
        ([], {"SV_CORPUS_ROOT": "/nonexistent/corpus"}, "/nonexistent/corpus: corpus root not found"),
        ([], {"SV_CONFIG_DIR": "/nonexistent/config"}, "/nonexistent/config: config folder not found"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], env: dict[str, str], expected: str) -> None:
    assert expected in one_line_error(scrapy_in_process("extract", *args, env=env))


def test_bad_config_key_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "config"
    shutil.copytree(PROJECT_DIR / "config", config)
    path = config / "_source-verify.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["sampling"]["default_sampel"] = 5
    path.write_text(json.dumps(data), encoding="utf-8")
    line = one_line_error(scrapy_in_process("extract", env={"SV_CONFIG_DIR": str(config)}))
    assert "_source-verify.json: sampling.default_sampel: unknown key" in line


def test_unreadable_file_is_a_warning_and_the_run_goes_on(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(PROJECT_DIR / "examples" / "corpus", corpus)
    bad = corpus / "countries" / "de" / "playbook.md"
    bad.parent.mkdir()
    bad.write_bytes("Grunderwerbsteuer 3,5 % ([BMF](https://www.bmf.gv.at/x)) M\xfcnchen\n".encode("latin-1"))
    result = scrapy_in_process("extract", env={"SV_CORPUS_ROOT": str(corpus)})
    assert result.returncode == 0
    assert f"warning: skipped {bad}: not UTF-8" in result.stderr
    assert json.loads(result.stdout)["unreadable_files"] == 1
