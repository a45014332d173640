"""Politeness read off the mock web's log: floors between starts, robots first, the global cap.

Each rule is judged on floors scaled down from the shipped config's (a government host's 1 s, the
default 0.5 s, 2 at a time): which floor each host gets is the rule, not its size. The floors here
are 0.3 s and more, the tolerance 0.05 s, so a rule removed (gaps near 0, or another host's floor)
still fails by far."""

from __future__ import annotations

from pathlib import Path

import pytest

from testing.crawl import make_config, write_corpus
from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb, Route, gets_by_host
from testing.mockweb.server import LogEntry

# Server-side receipt times trail the client's send by connection set-up (CONNECT + TLS on
# a new tunnel): two starts can arrive a little closer than they were sent.
TOLERANCE = 0.05

pytestmark = pytest.mark.pacing  # one at a time (make test)

HOSTS = {
    # host: (urls, floor seconds, robots.txt)
    "a.polite.gouv.fr": (4, 0.4, "User-agent: *\nAllow: /\n"),  # government floor
    "b.polite-example.org": (4, 0.3, ""),  # default policy (2 at a time, 0.3 s apart)
    "c.polite-example.org": (3, 0.6, "User-agent: *\nCrawl-delay: 0.6\n"),  # robots Crawl-delay
    "d.override-example.org": (3, 0.5, ""),  # per_host_overrides
    "slow.polite-example.org": (3, 0.3, ""),  # answers in 0.8 s: AutoThrottle slows it
}
SLOW_ANSWER = 0.8
# the shipped policy's shape (2 at a time by default, 1 for a government host) at scaled floors
SCALED = {"global": {"retry_jitter_pct": 0, "default_per_host_interval_ms": 300},
          "gov_suffix_default": {"concurrency": 1, "interval_ms": 400}}


@pytest.fixture(scope="module")
def floors_log(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[LogEntry]]:
    tmp: Path = tmp_path_factory.mktemp("polite")
    lines = []
    with MockWeb() as web:
        for host, (count, _, robots) in HOSTS.items():
            if robots:
                web.route(f"https://{host}/robots.txt", body=robots, content_type="text/plain")
            for i in range(count):
                url = f"https://{host}/page{i}"
                delay = SLOW_ANSWER if host.startswith("slow.") else 0.0
                web.route(url, Route(body=f"<p>Fee €{100 + i} and more text here.</p>", delay=delay))
                lines.append(f"- Fee €{100 + i} ([p]({url}))")
        corpus = write_corpus(tmp / "corpus", {"countries/xx/playbook.md": "# P\n" + "\n".join(lines) + "\n"})
        config = make_config(tmp / "config", liveness={
            **SCALED, "per_host_overrides": {"d.override-example.org": {"concurrency": 1, "interval_ms": 500}},
        })
        result = crawl_in_process("worklist", corpus=corpus, config=config, output=tmp / "out", proxy_env=web.env(),
                                  args={"sample": "100", "include_secondary": "1"})
        assert result.returncode == 0, result.stderr[-2000:]
        return gets_by_host(web.log, key=lambda e: e.t)


@pytest.mark.parametrize("host", list(HOSTS))
def test_consecutive_starts_respect_the_floor(floors_log: dict[str, list[LogEntry]], host: str) -> None:
    starts = [e.t for e in floors_log[host]]
    floor = HOSTS[host][1]
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    assert len(starts) == HOSTS[host][0] + 1  # robots.txt + every page, nothing twice
    assert min(gaps) >= floor - TOLERANCE, (host, [round(g, 3) for g in gaps])


@pytest.mark.parametrize("host", list(HOSTS))
def test_robots_txt_comes_first(floors_log: dict[str, list[LogEntry]], host: str) -> None:
    assert floors_log[host][0].url == f"https://{host}/robots.txt"


def test_autothrottle_slows_a_slow_host_above_its_floor(floors_log: dict[str, list[LogEntry]]) -> None:
    starts = [e.t for e in floors_log["slow.polite-example.org"]]
    assert starts[-1] - starts[-2] >= SLOW_ANSWER - 0.15  # latency 0.8 s pushed the delay up from 0.3 s


def test_global_request_rate_cap(tmp_path: Path) -> None:
    hosts = [f"h{i}.cap-example.org" for i in range(6)]
    with MockWeb() as web:
        for host in hosts:
            web.route(f"https://{host}/p", body="<p>Fee €100.</p>")
        corpus = write_corpus(tmp_path / "corpus", {
            "countries/xx/playbook.md": "# C\n" + "\n".join(f"- Fee €100 ([p](https://{h}/p))" for h in hosts) + "\n"})
        config = make_config(tmp_path / "config", liveness={"global": {"req_per_sec": 5}})
        result = crawl_in_process("worklist", corpus=corpus, config=config, output=tmp_path / "out",
                                  proxy_env=web.env(), args={"sample": "100", "include_secondary": "1"})
        assert result.returncode == 0, result.stderr[-2000:]
        starts = sorted(e.t for e in web.log if e.method == "GET")
    assert len(starts) == 2 * len(hosts)  # robots.txt and the page of each
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    assert min(gaps) >= 0.2 - TOLERANCE, [round(g, 3) for g in gaps]
    assert starts[-1] - starts[0] >= (len(starts) - 1) * 0.2 - TOLERANCE
