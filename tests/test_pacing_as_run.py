"""Politeness as the jobs are run: `worklist`, then `audit` cold and warm, on one mock web with
plain, rendered, retried and redirected pages — judged from the mock web's own request log.

Every request the crawler sends (robots.txt, pages, retries, redirect hops, browser
navigations) must keep its host's floor (raised by Crawl-delay) and, across all hosts, the
global cap. A browser's page may load its own sub-resources; none exist on this site, so
every logged GET is a request the crawler sent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from testing.crawl import CrawlResult, crawl, make_config, write_corpus
from testing.mockweb import MockWeb, Route, gets_by_host
from testing.mockweb.server import LogEntry

# Each request is timed where the server first sees it begin (when its connection was
# accepted, else when its first bytes arrived, by the kernel's stamp: tests/test_mockweb_clock.py).
# The crawler's own book is exact (tests/core/test_pacer.py) and each start counts from when it
# left (tests/test_paced_wire.py); the tolerance covers what the stamps cannot see (a new
# connection's accept). Floors and the cap here are 0.2 s and
# more, so a removed pacing piece (gaps near 0) still fails by far. They are scaled down from the
# shipped config's (1 s for a government host, Crawl-delays of whole seconds) and from a 3 s Retry-After, with
# each host's floor still apart from the others' by more than the tolerance: which floor a request
# keeps is the rule, not its size.
TOLERANCE = 0.1

pytestmark = [pytest.mark.pacing, pytest.mark.subprocess]  # one at a time (make test); drives a process

LIVENESS: dict[str, Any] = {
    "global": {"req_per_sec": 5, "default_per_host_interval_ms": 300, "request_timeout_seconds": 5,
               "retry_backoff_seconds": [0.3, 0.6], "retry_jitter_pct": 0},
    "gov_suffix_default": {"concurrency": 1, "interval_ms": 500},
    # one at a time, 0.1 s apart: each answer takes 0.5 s, so starts are 0.5 s apart
    "per_host_overrides": {"one.pace.gouv.fr": {"concurrency": 1, "interval_ms": 100}},
}
GOV, DEFAULT, CRAWL_DELAY = 0.5, 0.3, 0.6
ONE_ANSWER = 0.5  # one.pace.gouv.fr's answers take this long
RETRY_AFTER = 2  # seconds: above the gap between a host's requests at the global cap (~1.2 s here)
RENDERED = 2  # rendered pages (the browser's navigations)
FLOORS = {
    "a.pace.gouv.fr": GOV,
    "b.pace-example.org": DEFAULT,
    "c.pace-example.org": CRAWL_DELAY,
    "r.pace.gov.hk": GOV,
    "retry.pace.gouv.fr": GOV,
    "redir.pace.gouv.fr": GOV,
    "one.pace.gouv.fr": 0.1,
}


def page(text: str) -> str:
    return f"<html><head><title>Rates</title></head><body><h1>Rates</h1><p>{text}</p>" + \
        "<p>Background on how the duty is assessed and collected in practice.</p>" * 8 + "</body></html>"


def script_page(text: str) -> str:
    """A page whose figure only exists once its (inline) script has run."""
    return ("<html><head><title>App</title></head><body><div id='app'></div><script>"
            f"document.getElementById('app').innerHTML = '<p>{text}</p>' + "
            "'<p>Background on how the duty is assessed and collected in practice.</p>'.repeat(8);"
            "</script></body></html>")


def site(web: MockWeb) -> list[str]:
    lines = []
    for i in range(RENDERED):  # first in the corpus, so the browser starts early in both runs
        web.route(f"https://r.pace.gov.hk/p{i}", body=script_page(f"Fee HK$ {400 + i}."))
        lines.append(f"- fee HK$ {400 + i} ([r](https://r.pace.gov.hk/p{i}))")
    for i in range(3):
        # ~200 KB at 400 KB/s: a cold fetch takes half a second, a warm 304 none
        web.route(f"https://a.pace.gouv.fr/p{i}", Route(body=page(f"Fee €{100 + i}.") + "<!-- pad -->" * 17000,
                                                        bandwidth=400_000))
        lines.append(f"- fee €{100 + i} ([a](https://a.pace.gouv.fr/p{i}))")
    for i in range(3):
        web.route(f"https://b.pace-example.org/p{i}", body=page(f"Fee €{200 + i}."))
        lines.append(f"- fee €{200 + i} ([b](https://b.pace-example.org/p{i}))")
    web.route("https://c.pace-example.org/robots.txt", body=f"User-agent: *\nCrawl-delay: {CRAWL_DELAY}\n",
              content_type="text/plain")
    for i in range(2):
        web.route(f"https://c.pace-example.org/p{i}", body=page(f"Fee €{300 + i}."))
        lines.append(f"- fee €{300 + i} ([c](https://c.pace-example.org/p{i}))")
    for i in range(3):
        web.route(f"https://one.pace.gouv.fr/p{i}", Route(body=page(f"Fee €{800 + i}."), delay=ONE_ANSWER))
        lines.append(f"- fee €{800 + i} ([o](https://one.pace.gouv.fr/p{i}))")
    # a 503 with Retry-After, then the page, for the worklist and the cold audit; the warm
    # audit gets the page at once. A second page of the host waits out the hold too (the retry
    # alone would be late anyway: it queues behind every other request at the global cap)
    busy, ok = Route(status=503, headers={"Retry-After": str(RETRY_AFTER)}), Route(body=page("Fee €500."))
    web.route("https://retry.pace.gouv.fr/p", Route(sequence=[busy, ok, busy, ok, ok]))
    lines.append("- fee €500 ([x](https://retry.pace.gouv.fr/p))")
    web.route("https://retry.pace.gouv.fr/q", body=page("Fee €510."))
    lines.append("- fee €510 ([x](https://retry.pace.gouv.fr/q))")
    # a redirect on the same host, and one onto another paced host
    web.route("https://redir.pace.gouv.fr/old", redirect="https://redir.pace.gouv.fr/new", status=301)
    web.route("https://redir.pace.gouv.fr/new", body=page("Fee €600."))
    lines.append("- fee €600 ([x](https://redir.pace.gouv.fr/old))")
    web.route("https://redir.pace.gouv.fr/away", redirect="https://a.pace.gouv.fr/moved", status=302)
    web.route("https://a.pace.gouv.fr/moved", body=page("Fee €700."))
    lines.append("- fee €700 ([x](https://redir.pace.gouv.fr/away))")
    return lines


def floor_breaks(log: list[LogEntry]) -> list[str]:
    breaks = []
    for host, entries in gets_by_host(log).items():
        for a, b in zip(entries, entries[1:], strict=False):
            if b.began - a.began < FLOORS[host] - TOLERANCE:
                breaks.append(f"{host}: {a.url} -> {b.url} {b.began - a.began:.3f} s < {FLOORS[host]} s")
    return breaks


def cap_breaks(log: list[LogEntry], rps: float) -> list[str]:
    starts = sorted((e.began, e.url) for e in log if e.method == "GET")
    return [f"{u1} -> {u2} {t2 - t1:.3f} s" for (t1, u1), (t2, u2) in zip(starts, starts[1:], strict=False)
            if t2 - t1 < 1 / rps - TOLERANCE]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[CrawlResult, list[LogEntry]]]:
    tmp: Path = tmp_path_factory.mktemp("pacing")
    out: dict[str, tuple[CrawlResult, list[LogEntry]]] = {}
    with MockWeb() as web:
        lines = site(web)
        corpus = write_corpus(tmp / "corpus", {"countries/xx/playbook.md": "# Pace\n" + "\n".join(lines) + "\n"})
        config = make_config(tmp / "config", liveness=LIVENESS,
                             source_verify={"fetch": {"js_spa_hosts": ["r.pace.gov.hk"]},
                                            "extraction": {"primary_only": False}})
        for name, spider, args in (("worklist", "worklist", {"sample": "100", "include_secondary": "1"}),
                                   ("cold", "audit", {}), ("warm", "audit", {})):
            web.clear_log()
            result = crawl(spider, corpus=corpus, config=config, output=tmp / ("wl" if spider == "worklist" else "out"),
                           proxy_env=web.env(), args=args, options=["-L", "INFO"])
            assert result.returncode == 0, result.stderr[-3000:]
            out[name] = (result, list(web.log))
    return out


@pytest.mark.parametrize("run", ["worklist", "cold", "warm"])
def test_every_host_keeps_its_floor(runs: dict[str, tuple[CrawlResult, list[LogEntry]]], run: str) -> None:
    log = runs[run][1]
    assert not floor_breaks(log), floor_breaks(log)
    by_host = gets_by_host(log)
    assert set(by_host) == set(FLOORS)
    assert by_host["c.pace-example.org"][0].url.endswith("/robots.txt")  # robots first, then Crawl-delay gaps


@pytest.mark.parametrize("run", ["worklist", "cold", "warm"])
def test_the_global_cap_holds(runs: dict[str, tuple[CrawlResult, list[LogEntry]]], run: str) -> None:
    log = runs[run][1]
    assert not cap_breaks(log, LIVENESS["global"]["req_per_sec"]), cap_breaks(log, LIVENESS["global"]["req_per_sec"])


@pytest.mark.parametrize("run", ["worklist", "cold", "warm"])
def test_one_at_a_time_means_one_in_flight(runs: dict[str, tuple[CrawlResult, list[LogEntry]]], run: str) -> None:
    pages = [e for e in gets_by_host(runs[run][1])["one.pace.gouv.fr"] if "/p" in e.url]
    gaps = [b.began - a.began for a, b in zip(pages, pages[1:], strict=False)]
    assert len(pages) == 3 and min(gaps) >= ONE_ANSWER - TOLERANCE, gaps  # each answer takes ONE_ANSWER


@pytest.mark.parametrize("run", ["worklist", "cold"])
def test_retry_after_and_redirect_hops_are_paced(runs: dict[str, tuple[CrawlResult, list[LogEntry]]], run: str) -> None:
    by_host = gets_by_host(runs[run][1])
    retry = [e for e in by_host["retry.pace.gouv.fr"] if e.url.endswith("/p")]
    assert [e.status for e in retry] == [503, 200]
    held = [round(e.began - retry[0].began, 3) for e in by_host["retry.pace.gouv.fr"] if e.began > retry[0].began]
    assert held and min(held) >= RETRY_AFTER - TOLERANCE, held  # the whole host held, the retry included
    hops = [e.url.rsplit("/", 1)[-1] for e in by_host["redir.pace.gouv.fr"]]
    assert {"old", "new", "away"} <= set(hops)
    assert any(e.url.endswith("/moved") for e in by_host["a.pace.gouv.fr"])


def test_rendered_pages_are_read_cold_and_warm(runs: dict[str, tuple[CrawlResult, list[LogEntry]]]) -> None:
    for run in ("cold", "warm"):
        result, log = runs[run]
        rendered = [e for e in log if e.method == "GET" and e.url.startswith("https://r.pace.gov.hk/p")]
        assert len(rendered) == RENDERED and all(e.status == 200 for e in rendered), run  # never a 304 in the browser
        assert not any("if-none-match" in {k.lower() for k in e.headers} for e in rendered)
        assert "ERR_ABORTED" not in result.stderr and "render timeout" not in result.stderr
    import json

    doc = json.loads((runs["warm"][0].output_dir / "audit" / "audit.json").read_text(encoding="utf-8"))
    items = {i["source_url"]: i for i in doc["items"]}
    for i in range(RENDERED):
        item = items[f"https://r.pace.gov.hk/p{i}"]
        assert (item["prior"], item["rendered"]) == ("TOKENS_PRESENT", True)


def test_warm_asks_less_and_moves_fewer_bytes_than_cold(runs: dict[str, tuple[CrawlResult, list[LogEntry]]]) -> None:
    # what "warm is cheaper" means, read off the server without a clock (two wall times on a
    # loaded machine compare the machine, not the crawl): no more requests, fewer body bytes,
    # every plain page a 304
    cold, warm = ([e for e in runs[run][1] if e.method == "GET"] for run in ("cold", "warm"))
    plain = [e for e in warm if e.url.startswith("https://a.pace.gouv.fr/p")]
    assert plain and all(e.status == 304 and e.size == 0 for e in plain)
    assert len(warm) <= len(cold)
    assert sum(e.size for e in warm) < sum(e.size for e in cold)


def test_chromium_makes_no_request_of_its_own(runs: dict[str, tuple[CrawlResult, list[LogEntry]]]) -> None:
    for run in ("worklist", "cold", "warm"):
        hosts = {e.url.split(":")[0] if e.method == "CONNECT" else e.url.split("/")[2] for e in runs[run][1]}
        assert hosts <= set(FLOORS), (run, sorted(hosts - set(FLOORS)))


def test_the_browser_carries_the_configured_user_agent(runs: dict[str, tuple[CrawlResult, list[LogEntry]]]) -> None:
    agents = {e.user_agent for e in runs["cold"][1] if e.method == "GET"}
    assert len(agents) == 1 and next(iter(agents)).startswith("sv_scrapy/")
