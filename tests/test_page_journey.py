"""A page's journey, as run: ``scrapy crawl audit`` cold then warm over a held-out-style web
(testing/journeyweb.py: frames, linked PDFs and a scan, flagged claims with archived captures,
a hanging host), judged from ``audit.json`` and the mock web's request log. Timings are
bench/journey.py's; here only the order of requests and what a warm run asks again."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from testing.crawl import FAST_LIVENESS, crawl, make_config
from testing.journeyweb import JourneyWeb, build
from testing.mockweb import MockWeb
from testing.mockweb.server import LogEntry
from testing.mockweb.wayback import HOST

pytestmark = pytest.mark.subprocess  # drives a process: make test-fast leaves it out

NOW = "2026-06-15T03:00:00Z"
LIVENESS: dict[str, Any] = {**FAST_LIVENESS,
                            "global": {**FAST_LIVENESS["global"], "max_retries": 2, "request_timeout_seconds": 2},
                            "per_host_overrides": {"web.archive.org": {"concurrency": 1, "interval_ms": 200}}}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("journey")
    config = make_config(tmp / "config", liveness=LIVENESS, source_verify={"archive": {"enabled": True}})
    with MockWeb() as web:
        journey = build(web, tmp, hosts=2, hang_seconds=4.0, ocr=shutil.which("tesseract") is not None)
        got: dict[str, Any] = {"web": journey}
        for run in ("cold", "warm"):
            result = crawl("audit", corpus=journey.corpus, config=config, output=tmp / "out", proxy_env=web.env(),
                           extra_env={"SV_NOW": NOW})
            assert result.returncode == 0, result.stderr[-3000:]
            doc = json.loads((tmp / "out" / "audit" / "audit.json").read_text(encoding="utf-8"))
            got[run] = {i["source_url"]: i for i in doc["items"]}
            got[f"{run}_log"] = [e for e in web.log if e.method == "GET"]
            web.clear_log()
        yield got


def archive(log: list[LogEntry]) -> list[LogEntry]:
    return [e for e in log if e.url.startswith(HOST) and not e.url.endswith("/robots.txt")]


def test_the_archive_is_asked_during_the_crawl_not_after_it(runs: dict[str, Any]) -> None:
    journey: JourneyWeb = runs["web"]
    log = runs["cold_log"]
    pages = [e.began for e in log if e.url in journey.pages]
    asked = [e.began for e in archive(log)]
    assert asked and min(asked) < max(pages)
    looked_up = [u for u in journey.flagged if runs["cold"][u]["then"] is not None]
    assert set(looked_up) == set(journey.flagged)


def test_a_warm_audit_asks_frames_and_linked_documents_conditionally(runs: dict[str, Any]) -> None:
    journey: JourneyWeb = runs["web"]
    cold = {e.url: e for e in runs["cold_log"] if e.url in journey.extras}
    warm = [e for e in runs["warm_log"] if e.url in journey.extras]
    assert set(cold) == set(journey.extras) and all(e.status == 200 for e in cold.values())
    assert sorted(e.url for e in warm) == sorted(journey.extras)
    assert all(e.status == 304 and e.size == 0 for e in warm), [(e.url, e.status) for e in warm]
    for url in journey.pages:  # the same findings, frames and linked documents included
        assert (runs["warm"][url]["prior"], runs["warm"][url]["found_linked"]) == (
            runs["cold"][url]["prior"], runs["cold"][url]["found_linked"]), url


def test_a_warm_audit_asks_the_archive_nothing_it_was_answered(runs: dict[str, Any]) -> None:
    assert archive(runs["warm_log"]) == []
    for url in runs["web"].flagged:
        assert runs["warm"][url]["then_now"] == runs["cold"][url]["then_now"], url
    assert len(runs["warm_log"]) <= len(runs["cold_log"]) - len(archive(runs["cold_log"]))


def test_frames_linked_documents_and_scans_are_found(runs: dict[str, Any]) -> None:
    journey: JourneyWeb = runs["web"]
    for url in journey.pages:
        item = runs["cold"][url]
        if url.endswith(("/plain", "/frame")):
            assert item["prior"] == "TOKENS_PRESENT", item
        elif url.endswith(("/linked", "/scan")):
            assert item["prior"] == "TOKENS_ABSENT" and (item["found_linked"] or {}).get("url") in journey.extras, item
