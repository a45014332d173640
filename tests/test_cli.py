"""One subprocess test per command that has no other: what only a process shows — the entry
point, the exit status, stdout and stderr as a user sees them. Everything else about these
commands is tested in-process (testing.commands.scrapy_in_process). `scrapy crawl`
(test_unattended, test_monitoring), `scrapy verify` (test_verify) and `scrapy review`
(test_review_command) keep theirs beside their other tests."""

from __future__ import annotations

import json
from pathlib import Path

from testing.crawl import write_corpus

from .conftest import run_scrapy


def test_scrapy_extract_prints_its_stats_and_exits_0() -> None:
    result = run_scrapy("extract")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["total_claims"] > 0


def test_scrapy_check_citations_prints_its_findings_and_exits_0(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": "# X\n- stamp duty 7.5% ([gov.ky](https://www.gov.ky/))\n"})
    result = run_scrapy("check-citations", env={"SV_CORPUS_ROOT": str(tmp_path / "corpus")})
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert "xx:2  7.5%  -> https://www.gov.ky/" in result.stdout and corpus.is_dir()
