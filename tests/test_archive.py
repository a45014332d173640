"""Then and now, as run: the audit (crawled in-process) against the mock web and a mock Wayback Machine
served by the same loopback proxy, judged from ``audit.json`` and the mock's request log."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from testing.crawl import FAST_LIVENESS, NO_OCR, make_config, write_corpus
from testing.frozenrecords import frozen_records
from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb, Route
from testing.mockweb.pdfgen import text_pdf
from testing.mockweb.wayback import HOST, MockCapture, MockWayback

from .test_monitoring import metrics

FILLER = "<p>" + "How the duty is assessed, who pays it and when it falls due. " * 6 + "</p>"
SITE = "https://www.impots.gouv.fr"
NOW = "2026-06-15T03:00:00Z"
# the archive's floor, scaled down: its value does not matter, only that it is kept, and 150 ms stays three
# times the default floor (FAST_LIVENESS's 50 ms), which a lost override would show; a cold audit makes some 30
# archive requests one after another, so each 100 ms here is 3 s of the module's first audit
FLOOR_MS = 150
# the archive's pace as the operator configured it; short timeouts and one retry (max_retries counts the
# first try) keep the test quick
LIVENESS: dict[str, Any] = {**FAST_LIVENESS,
                            "global": {**FAST_LIVENESS["global"], "max_retries": 2, "request_timeout_seconds": 2},
                            "per_host_overrides": {"web.archive.org": {"concurrency": 1, "interval_ms": FLOOR_MS}}}
ON = {"archive": {"enabled": True}, **NO_OCR}  # a capture is a PDF too


def page(figure: str = "") -> str:
    said = f"<p>Le taux applicable est de {figure}.</p>" if figure else "<p>Le taux est fixé par décret.</p>"
    return f"<html lang='fr'><body><h1>Barème</h1>{said}{FILLER}</body></html>"


# path -> (claimed figure, today's page (None: 404), captures)
CASES: dict[str, tuple[str, str | None, list[MockCapture]]] = {
    "changed": ("5.81 %", page("6,00 %"), [MockCapture("20260301000000", page("4,00 %")),
                                            MockCapture("20260515000000", page("5,81 %")),
                                            MockCapture("20260610000000", page("6,00 %"))]),
    "never": ("7.25 %", page(), [MockCapture("20260510000000", page())]),
    "dead": ("3.5 %", None, [MockCapture("20260401000000", page("3,5 %"))]),
    "pdf": ("2.75 %", page(), [MockCapture("20260512000000", text_pdf([["Le taux applicable est de 2,75 %."]]),
                                           content_type="application/pdf")]),
    "empty": ("1.25 %", page(), []),
    "after": ("8.5 %", page(), [MockCapture("20260601000000", page("8,5 %"))]),
    "throttled": ("4.4 %", page(), [MockCapture("20260515000000", page("4,4 %"))]),
    "malformed": ("6.6 %", page(), [MockCapture("20260515000000", page("6,6 %"))]),
    "gone": ("9.9 %", page(), [MockCapture("20260505000000", page("9,9 %"), serve_status=404)]),
    "slow": ("2.2 %", page(), [MockCapture("20260505000000", page("2,2 %"))]),
    "present": ("3.3 %", page("3,3 %"), [MockCapture("20260505000000", page("3,3 %"))]),
}
FAILING = ("throttled", "malformed", "gone", "slow")


def url(path: str) -> str:
    return f"{SITE}/{path}"


def playbook() -> str:
    lines = "".join(f"- Duty {path} {figure} ([{path}]({url(path)}))\n" for path, (figure, _, _) in CASES.items())
    return f"# France\n\n**Last verified**: 2026-05-20\n\n## Tax\n\n{lines}"


CORPUS = {"countries/fr/playbook.md": playbook(),
          # no stamp anywhere in this file, and no git history: no date to compare with
          "countries/fr/notes.md": f"# Notes\n\n- Ceiling 1.75 % ([nodate]({url('nodate')}))\n"}


def serve(web: MockWeb) -> MockWayback:
    wayback = MockWayback(web)
    for path, (_, today, captures) in CASES.items():
        web.route(url(path), Route(status=404, body="<html><body>Introuvable</body></html>") if today is None
                  else Route(body=today))
        wayback.add(url(path), *captures)
    web.route(url("nodate"), Route(body=page()))
    # the Wayback redirects a raw capture to its nearest timestamp: followed, like any redirect
    web.route(f"{HOST}/web/20260510000000id_/{url('never')}",
              Route(status=302, redirect=f"{HOST}/web/20260510120000id_/{url('never')}"))
    web.route(f"{HOST}/web/20260510120000id_/{url('never')}", Route(body=page(), etag=False))
    wayback.cdx_first[url("throttled")] = [Route(status=429, headers={"Retry-After": "1"}, body="slow down",
                                                 content_type="text/plain")]
    wayback.cdx_always[url("malformed")] = Route(body='[["urlkey","timestamp"', content_type="application/json")
    wayback.cdx_always[url("slow")] = Route(body="[]", content_type="application/json", delay=3.0)
    return wayback


def audit(tmp: Path, web: MockWeb, config: Path, out: str, now: str = NOW) -> tuple[dict[str, Any], str]:
    with frozen_records() as writes:  # the lookups and the finish add then and now beside the records
        result = crawl_in_process("audit", corpus=tmp / "corpus", config=config, output=tmp / out,
                                  proxy_env=web.env(), extra_env={"SV_NOW": now})
    assert result.returncode == 0, result.stderr[-3000:]
    assert writes == [], writes
    return json.loads((tmp / out / "audit" / "audit.json").read_text(encoding="utf-8")), result.stdout


# One mock web (and Wayback) for the module's audits, in this order: cold, warm (the same output), then next
# month's over a copy of the store (its test's own). A fixture each for the first two, the second after the
# first, so that a test reading only the cold audit (the timing test, run in make test's `pacing` pass) costs
# one audit. The audits that need none of this chain's store (archive off, max_lookups 2, one claim's months)
# and scrapy verify's test are tests/test_archive_alone.py's: another file, which pytest-xdist (--dist
# loadfile) runs on another worker, beside this one's, not after it.
@pytest.fixture(scope="module")
def archive_web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, MockWeb]]:
    tmp = tmp_path_factory.mktemp("archive")
    write_corpus(tmp / "corpus", CORPUS)
    with MockWeb() as web:
        wayback = serve(web)
        yield tmp, web
        del wayback


@pytest.fixture(scope="module")
def cold(archive_web: tuple[Path, MockWeb]) -> dict[str, Any]:
    tmp, web = archive_web
    config = make_config(tmp / "config", liveness=LIVENESS, source_verify=ON)
    cold_doc, _ = audit(tmp, web, config, "out")
    cold_metrics = metrics(tmp / "out" / "metrics.prom")
    cold_log = list(web.log)
    web.clear_log()
    return {"cold": cold_doc, "cold_metrics": cold_metrics, "cold_log": cold_log, "config": config}


@pytest.fixture(scope="module")
def runs(archive_web: tuple[Path, MockWeb], cold: dict[str, Any]) -> dict[str, Any]:
    tmp, web = archive_web
    warm_doc, _ = audit(tmp, web, cold["config"], "out")
    warm_log = list(web.log)
    web.clear_log()
    return {**cold, "warm": warm_doc, "warm_log": warm_log, "store": tmp / "out" / "store"}


def by_path(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {i["source_url"].rsplit("/", 1)[1]: i for i in doc["items"]}


def archive_entries(log: list[Any]) -> list[Any]:
    return [e for e in log if e.url.startswith(HOST)]


def test_present_then_absent_now_is_changed_since_verified_with_both_excerpts(runs: dict[str, Any]) -> None:
    item = by_path(runs["cold"])["changed"]
    assert item["prior"] == "TOKENS_ABSENT"
    then = item["then"]
    assert then["prior"] == "TOKENS_PRESENT" and "5,81" in then["excerpt"]
    assert then["archive_url"] == f"{HOST}/web/20260515000000/{url('changed')}"
    assert then["digest"] and then["changed_after"] is True and then["after"] is False
    assert item["then_now"]["verdict"] == "changed_since_verified"
    assert item["then_now"]["line"] == ("changed since verified: the archived page of 2026-05-15 said 5,81 % — "
                                        "today's page does not")


def test_the_capture_read_is_the_closest_before_the_stamp(runs: dict[str, Any]) -> None:
    captures = [e.url for e in archive_entries(runs["cold_log"]) if "/web/" in e.url and url("changed") in e.url]
    assert captures == [f"{HOST}/web/20260515000000id_/{url('changed')}"]


def test_absent_then_and_now_is_not_on_the_page_when_verified(runs: dict[str, Any]) -> None:
    """(Its capture redirects to another timestamp, as the Wayback does.)"""
    item = by_path(runs["cold"])["never"]
    assert item["then"]["prior"] == "TOKENS_ABSENT"
    assert item["then_now"]["verdict"] == "not_on_page_when_verified"


def test_dead_now_present_then_offers_the_archived_url(runs: dict[str, Any]) -> None:
    item = by_path(runs["cold"])["dead"]
    assert item["fetch_status"] == "UNAVAILABLE" and "404" in item["note"]
    assert item["then_now"]["verdict"] == "replacement_candidate"
    assert f"{HOST}/web/20260401000000/{url('dead')}" in item["then_now"]["line"]


def test_a_pdf_capture_is_read_by_the_pdf_stage(runs: dict[str, Any]) -> None:
    item = by_path(runs["cold"])["pdf"]
    assert item["then"]["text_method"].startswith("pdf") and item["then"]["prior"] == "TOKENS_PRESENT"
    assert item["then_now"]["verdict"] == "changed_since_verified"


def test_no_capture_before_takes_the_first_after_and_says_so(runs: dict[str, Any]) -> None:
    item = by_path(runs["cold"])["after"]
    assert item["then"]["after"] is True and item["then"]["timestamp"] == "20260601000000"
    assert "first capture after the stamp" in item["then_now"]["line"]


def test_said_so_never_a_guess(runs: dict[str, Any]) -> None:
    items = by_path(runs["cold"])
    assert items["empty"]["then_now"]["verdict"] == "no_capture"
    assert items["nodate"]["then_now"] == {"verdict": "no_date", "line": items["nodate"]["then"]["line"]}
    assert items["nodate"]["then_now"]["line"].startswith("no date to compare with")
    assert items["present"]["then"] is None and items["present"]["then_now"] is None  # not flagged: not asked


@pytest.mark.parametrize(("path", "reason"), [("malformed", "malformed CDX JSON"),
                                              ("gone", "the capture answered HTTP 404"),
                                              ("slow", "timeout")])
def test_bad_archive_answers_say_archive_unavailable(runs: dict[str, Any], path: str, reason: str) -> None:
    item = by_path(runs["cold"])[path]
    assert item["then_now"]["verdict"] == "archive_unavailable"
    assert item["then_now"]["line"].startswith(f"archive unavailable: {reason}")
    assert runs["cold"]["complete"] is True


def test_a_429_is_waited_for_as_retry_after_asks(cold: dict[str, Any]) -> None:
    item = by_path(cold["cold"])["throttled"]
    assert item["then_now"]["verdict"] == "changed_since_verified"
    asks = [e for e in archive_entries(cold["cold_log"]) if "/cdx/" in e.url
            and parse_qs(urlsplit(e.url).query).get("url") == [url("throttled")] and "to=" in e.url]
    assert [e.status for e in asks] == [429, 200]
    assert asks[1].began - asks[0].began >= 0.95


@pytest.mark.pacing  # a floor on new connections: the server's accept clock (pyproject.toml)
def test_archive_requests_come_after_robots_and_keep_the_configured_floor(cold: dict[str, Any]) -> None:
    entries = archive_entries(cold["cold_log"])
    assert entries[0].url == f"{HOST}/robots.txt"
    starts = sorted(e.began for e in entries)
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    assert len(gaps) > 15 and min(gaps) >= FLOOR_MS / 1000 - 0.02


def test_stats_count_lookups_captures_and_verdicts(runs: dict[str, Any]) -> None:
    stats = runs["cold"]["stats"]["archive"]
    assert stats["lookups"] == len(CASES) - 1 + 1  # every flagged claim (not "present"), plus nodate
    assert stats["captures_read"] == 6 and stats["errors"] == 3 and stats["skipped"] == 0
    assert stats["by_verdict"]["changed_since_verified"] == 4


def test_metrics_carry_the_archive_counts(runs: dict[str, Any]) -> None:
    m, stats = runs["cold_metrics"], runs["cold"]["stats"]["archive"]
    assert m[("sv_audit_archive_events", (("event", "captures_read"),))] == stats["captures_read"] == 6
    assert m[("sv_audit_archive_events", (("event", "errors"),))] == 3
    assert m[("sv_audit_archive_claims", (("verdict", "changed_since_verified"),))] == 4


def test_a_warm_audit_asks_nothing_for_what_it_looked_up(runs: dict[str, Any]) -> None:
    asked = {parse_qs(urlsplit(e.url).query).get("url", [""])[0] if "/cdx/" in e.url else e.url.split("id_/", 1)[-1]
             for e in archive_entries(runs["warm_log"]) if not e.url.endswith("/robots.txt")}
    assert asked == set()  # a failed lookup is asked again next month, not the same week; nothing else
    warm, cold = by_path(runs["warm"]), by_path(runs["cold"])
    for path in ("changed", "never", "dead", "pdf", "after", "empty", "throttled"):
        assert warm[path]["then_now"] == cold[path]["then_now"], path
    assert runs["warm"]["stats"]["archive"]["captures_cached"] >= 5
    for path in ("malformed", "gone", "slow"):  # the failure as it was, and when it is asked again
        line = warm[path]["then_now"]["line"]
        assert line.startswith(cold[path]["then_now"]["line"]) and line.endswith(
            f"(asked {NOW[:10]}; asked again from 2026-07-13)"), line


def test_a_failed_lookup_is_asked_again_from_its_date(archive_web: tuple[Path, MockWeb],
                                                      runs: dict[str, Any]) -> None:
    tmp, web = archive_web
    shutil.copytree(runs["store"], tmp / "month" / "store")  # next month's audit over this store
    web.clear_log()
    doc, _ = audit(tmp, web, runs["config"], "month", now="2026-07-13T03:00:00Z")
    asked = {parse_qs(urlsplit(e.url).query).get("url", [""])[0] for e in archive_entries(web.log) if "/cdx/" in e.url}
    web.clear_log()
    assert {url(p) for p in ("malformed", "slow")} <= asked  # asked again, as on the first run
    assert not asked & {url(p) for p in ("changed", "never", "dead", "pdf")}  # answered: kept
    assert "asked again from" not in by_path(doc)["malformed"]["then_now"]["line"]


def test_the_store_keeps_answers_by_hash_in_format_3_and_later(runs: dict[str, Any]) -> None:
    store: Path = runs["store"]
    assert json.loads((store / "FORMAT.json").read_text())["format"] >= 3
    names = [p.name for p in (store / "archive").rglob("*.json")]
    assert names and all(len(n) == len("0" * 40 + ".json") for n in names)


def test_the_reports_show_the_one_line_escaped(runs: dict[str, Any]) -> None:
    from sv_scrapy.core.report.report_md import _row_now, claim_block

    out = runs["store"].parent / "audit"
    report_md, report_html = (out / "report.md").read_text(), (out / "report.html").read_text()
    # the first audit's backlog rows (TOKENS_ABSENT) carry the line
    assert "🕰️ changed since verified: the archived page of 2026-05-15 said 5,81 % — today's page does not" in report_md
    assert "changed since verified: the archived page of 2026-05-15 said 5,81 % — today&#x27;s page does not" \
        in report_html
    # a news block (vanished, changed) shows it with the then-excerpt; a news row with the archived link
    items = by_path(runs["cold"])
    block = claim_block(items["changed"])
    assert "🕰️ changed since verified" in block and "— then: “" in block and "5,81" in block.split("— then:")[1]
    assert f"<{HOST}/web/20260401000000/{url('dead')}>" in _row_now(items["dead"])
