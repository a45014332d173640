"""A 429 or 503 with ``Retry-After`` holds its whole host, and the refused URL is asked again
first (RFC 6585, RFC 9110 §10.2.3) — for a cited site and for the archive host alike. Judged
from the mock web's own request log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from testing.crawl import FAST_LIVENESS, crawl, make_config, write_corpus
from testing.mockweb import MockWeb, Route, gets_by_host
from testing.mockweb.server import LogEntry
from testing.mockweb.wayback import HOST, MockCapture, MockWayback

pytestmark = pytest.mark.subprocess  # drives a process: make test-fast leaves it out

SITE = "www.impots.gouv.fr"
ARCHIVE = "web.archive.org"
HELD = 2.0
TOLERANCE = 0.1  # the server's clock (see tests/test_pacing_as_run.py)
PAGES = 6
LIVENESS: dict[str, Any] = {**FAST_LIVENESS,
                            "global": {**FAST_LIVENESS["global"], "max_retries": 2, "request_timeout_seconds": 3},
                            # two in flight: the slot's own queue is in play, not only the paced handler's
                            "per_host_overrides": {SITE: {"concurrency": 2, "interval_ms": 200},
                                                   ARCHIVE: {"concurrency": 1, "interval_ms": 200}}}
REFUSED_PAGE = f"https://{SITE}/p1"
REFUSED_LOOKUP = f"https://{SITE}/p3"  # the page whose first CDX query the archive refuses


FILLER = "<p>The duty is set by decree and collected each year.</p>" * 8


def page(said: str) -> str:
    return f"<html lang='en'><body><h1>Rates</h1><p>{said}</p>{FILLER}</body></html>"


def refused(status: int) -> Route:
    return Route(status=status, headers={"Retry-After": str(int(HELD))}, body="slow down")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], list[LogEntry]]:
    tmp: Path = tmp_path_factory.mktemp("hold")
    lines = "".join(f"- Duty p{i} {i}.5 % ([s](https://{SITE}/p{i}))\n" for i in range(PAGES))
    write_corpus(tmp / "corpus", {"countries/fr/playbook.md": f"# France\n\n**Last verified**: 2026-05-20\n\n## Tax\n\n{lines}"})
    config = make_config(tmp / "config", liveness=LIVENESS, source_verify={"archive": {"enabled": True}})
    with MockWeb() as web:
        wayback = MockWayback(web)
        web.route(f"{HOST}/robots.txt", Route(body="User-agent: *\nAllow: /\n", content_type="text/plain"))
        for i in range(PAGES):
            today = Route(body=page("The duty is set by decree."))  # no figure today: each claim is looked up
            url = f"https://{SITE}/p{i}"
            web.route(url, Route(sequence=[refused(503), today]) if url == REFUSED_PAGE else today)
            wayback.add(url, MockCapture("20260515000000", page(f"The rate is {i}.5 %.")))
        wayback.cdx_first[REFUSED_LOOKUP] = [refused(429)]
        result = crawl("audit", corpus=tmp / "corpus", config=config, output=tmp / "out", proxy_env=web.env(),
                       extra_env={"SV_NOW": "2026-06-15T03:00:00Z"})
        assert result.returncode == 0, result.stderr[-3000:]
        log = list(web.log)
    return json.loads((tmp / "out" / "audit" / "audit.json").read_text(encoding="utf-8")), log


def after_refusal(log: list[LogEntry], host: str, status: int) -> tuple[LogEntry, list[LogEntry]]:
    entries = gets_by_host(log)[host]
    at = next(i for i, e in enumerate(entries) if e.status == status)
    return entries[at], entries[at + 1:]


def same_lookup(a: LogEntry, b: LogEntry) -> bool:
    return parse_qs(urlsplit(a.url).query) == parse_qs(urlsplit(b.url).query)


@pytest.mark.parametrize("host,status", [(SITE, 503), (ARCHIVE, 429)])
def test_retry_after_holds_the_host_then_asks_the_refused_url_first(
        run: tuple[dict[str, Any], list[LogEntry]], host: str, status: int) -> None:
    refusal, later = after_refusal(run[1], host, status)
    assert later, "nothing asked of the host after its refusal"
    # nothing to that host until Retry-After has passed (each entry timed where its request began) ...
    assert later[0].began - refusal.began >= HELD - TOLERANCE, [(e.url, round(e.began - refusal.began, 3))
                                                                 for e in later[:3]]
    # ... and then the refused URL first
    assert later[0].url == refusal.url or (host == ARCHIVE and same_lookup(later[0], refusal)), \
        [e.url for e in later[:3]]
    assert later[0].status == 200


def test_the_refused_page_and_lookup_end_as_if_never_refused(run: tuple[dict[str, Any], list[LogEntry]]) -> None:
    items = {i["source_url"]: i for i in run[0]["items"]}
    assert items[REFUSED_PAGE]["fetch_status"] == "OK"
    assert items[REFUSED_LOOKUP]["then_now"]["verdict"] == "changed_since_verified", items[REFUSED_LOOKUP]["then_now"]
