"""Bad spider arguments, config or corpus: one line naming the problem, exit 2, no crawl."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from testing.commands import scrapy_in_process

from .conftest import PROJECT_DIR
from .test_extract_command import one_line_error


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["-a", "sample=abc"], "-a sample='abc': expected a whole number"),
        (["-a", "sample=-3"], "-a sample='-3': must be >= 0"),
        (["-a", "seed=x"], "-a seed='x': expected a whole number"),
        (["-a", "include_secondary=maybe"], "-a include_secondary='maybe': expected 1/0"),
        (["-a", "as_of=2026-13-01"], "-a as_of='2026-13-01': expected a date YYYY-MM-DD"),
        (["-a", "country=zz"], "-a country='zz': no scope of the corpus matches"),
        (["-a", "contry=fr"], "unknown spider argument -a contry"),
    ],
)
def test_bad_worklist_argument(args: list[str], expected: str) -> None:
    line = one_line_error(scrapy_in_process("crawl", "worklist", *args, env={"http_proxy": "http://127.0.0.1:9",
                                                                     "https_proxy": "http://127.0.0.1:9"}))
    assert line.startswith("scrapy crawl worklist: error: ") and expected in line


def test_bad_config_stops_the_crawl_before_it_starts(tmp_path: Path) -> None:
    config = tmp_path / "config"
    shutil.copytree(PROJECT_DIR / "config", config)
    path = config / "_url-liveness.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["global"]["req_per_sec"] = "ten"
    path.write_text(json.dumps(data), encoding="utf-8")
    line = one_line_error(scrapy_in_process("crawl", "worklist", env={"SV_CONFIG_DIR": str(config)}))
    assert "_url-liveness.json: global.req_per_sec: expected a number" in line


def test_missing_corpus_root_stops_the_crawl() -> None:
    line = one_line_error(scrapy_in_process("crawl", "worklist", env={"SV_CORPUS_ROOT": "/nonexistent"}))
    assert "/nonexistent: corpus root not found" in line
