"""A robots.txt refusal stops a request before it is sent — for every request to that host,
including those that were already waiting for its robots.txt, and for the archive host too.
Judged from the mock web's own request log.

Scrapy 2.19 lets every request to a host wait on one Deferred while its robots.txt is fetched,
and awaits it through ``asFuture``, whose callback hands the next waiter ``None`` ("no
robots.txt"): one request went out after "robots.txt unavailable (502)".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from testing.crawl import FAST_LIVENESS, crawl, make_config, write_corpus
from testing.mockweb import MockWeb, Route, gets_by_host
from testing.mockweb.server import LogEntry
from testing.mockweb.wayback import HOST, MockCapture, MockWayback

pytestmark = pytest.mark.subprocess  # drives a process: make test-fast leaves it out

SITE = "www.impots.gouv.fr"  # robots.txt allows; its pages no longer state the figures: flagged, looked up
DOWN = "down.impots.gouv.fr"  # robots.txt answers 502
SITE_FLOOR, ARCHIVE_FLOOR = 0.3, 0.3
LIVENESS: dict[str, Any] = {**FAST_LIVENESS,
                            "global": {**FAST_LIVENESS["global"], "max_retries": 2, "request_timeout_seconds": 2},
                            "per_host_overrides": {"web.archive.org": {"concurrency": 1, "interval_ms": 300},
                                                   SITE: {"concurrency": 1, "interval_ms": 300}}}
PAGES = 4
TOLERANCE = 0.1  # the server's clock (see tests/test_pacing_as_run.py); floors here are 0.3 s


def page(said: str) -> str:
    return f"<html lang='fr'><body><h1>Barème</h1><p>{said}</p>" + "<p>Le taux est fixé par décret.</p>" * 6 + \
        "</body></html>"


def serve(web: MockWeb, archive_robots: Route) -> None:
    wayback = MockWayback(web)
    web.route(f"https://{SITE}/robots.txt", Route(body="User-agent: *\nAllow: /\n", content_type="text/plain"))
    web.route(f"https://{DOWN}/robots.txt", Route(status=502, body="bad gateway"))
    web.route(f"{HOST}/robots.txt", archive_robots)
    for i in range(PAGES):
        for host in (SITE, DOWN):
            web.route(f"https://{host}/p{i}", Route(body=page("Le taux est fixé par décret.")))
        wayback.add(f"https://{SITE}/p{i}", MockCapture("20260515000000", page(f"Le taux applicable est de {i},5 %.")))


def corpus() -> str:
    lines = "".join(f"- Duty {i},5 % ([s](https://{host}/p{i}))\n" for host in (SITE, DOWN) for i in range(PAGES))
    return f"# France\n\n**Last verified**: 2026-05-20\n\n## Tax\n\n{lines}"


def audit(tmp: Path, archive_robots: Route) -> tuple[dict[str, Any], list[LogEntry]]:
    write_corpus(tmp / "corpus", {"countries/fr/playbook.md": corpus()})
    config = make_config(tmp / "config", liveness=LIVENESS, source_verify={"archive": {"enabled": True}})
    with MockWeb() as web:
        serve(web, archive_robots)
        result = crawl("audit", corpus=tmp / "corpus", config=config, output=tmp / "out", proxy_env=web.env(),
                       extra_env={"SV_NOW": "2026-06-15T03:00:00Z"})
        assert result.returncode == 0, result.stderr[-3000:]
        log = list(web.log)
    return json.loads((tmp / "out" / "audit" / "audit.json").read_text(encoding="utf-8")), log


@pytest.fixture(scope="module")
def archive_down(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], list[LogEntry]]:
    return audit(tmp_path_factory.mktemp("down"), Route(status=502, body="bad gateway"))


@pytest.fixture(scope="module")
def archive_up(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], list[LogEntry]]:
    return audit(tmp_path_factory.mktemp("up"), Route(body="User-agent: *\nAllow: /\n", content_type="text/plain"))


def paths(log: list[LogEntry], host: str) -> list[str]:
    return [e.url.split(host, 1)[1] for e in gets_by_host(log).get(host, [])]


def test_a_host_whose_robots_txt_fails_gets_nothing_else(archive_down: tuple[dict[str, Any], list[LogEntry]]) -> None:
    doc, log = archive_down
    assert set(paths(log, DOWN)) == {"/robots.txt"}, paths(log, DOWN)  # its retries, and no page
    down = [i for i in doc["items"] if i["source_url"].startswith(f"https://{DOWN}/")]
    assert len(down) == PAGES
    assert all(i["note"] == "robots.txt unavailable (502): not fetched (RFC 9309)" for i in down), down


def test_the_archive_host_whose_robots_txt_fails_gets_nothing_else(
        archive_down: tuple[dict[str, Any], list[LogEntry]]) -> None:
    doc, log = archive_down
    assert set(paths(log, "web.archive.org")) == {"/robots.txt"}, paths(log, "web.archive.org")
    flagged = [i for i in doc["items"] if i["source_url"].startswith(f"https://{SITE}/")]
    assert len(flagged) == PAGES and all(i["prior"] == "TOKENS_ABSENT" for i in flagged)
    assert all(i["then_now"]["line"] == "archive unavailable: robots.txt unavailable (502): not fetched (RFC 9309)"
               for i in flagged), [i["then_now"] for i in flagged]


def test_robots_txt_answering_200_lets_lookups_proceed(archive_up: tuple[dict[str, Any], list[LogEntry]]) -> None:
    doc, log = archive_up
    asked = paths(log, "web.archive.org")
    assert asked[0] == "/robots.txt" and len(asked) > 1 + PAGES  # CDX queries and captures
    flagged = [i for i in doc["items"] if i["source_url"].startswith(f"https://{SITE}/")]
    assert all(i["then_now"]["verdict"] == "changed_since_verified" for i in flagged), [i["then_now"] for i in flagged]


@pytest.mark.parametrize("host,floor", [(SITE, SITE_FLOOR), ("web.archive.org", ARCHIVE_FLOOR)])
def test_allowed_requests_keep_their_hosts_floor(archive_up: tuple[dict[str, Any], list[LogEntry]], host: str,
                                                 floor: float) -> None:
    entries = gets_by_host(archive_up[1])[host]
    gaps = [round(b.began - a.began, 3) for a, b in zip(entries, entries[1:], strict=False)]
    assert len(entries) > PAGES and min(gaps) >= floor - TOLERANCE, gaps
