"""Acceptance of "where the figure went" (issue #38): one ``scrapy crawl audit`` over the held-out web of
testing/discoverweb.py, judged from ``audit.json``'s ``proposed_source`` and the mock web's own request log.

Expected: the right page for at least 9 of the 10 findable claims, no wrong proposal (a page other than the
expected one, on any case), no request to a path robots.txt disallows, no request under its host's floor, at
most 3 extra requests where there is nothing to find and none for the claim whose page states its figure.

The web itself is checked first, without a crawl (``test_web_*``): each moved page states its figure and is
reachable the way its case says, the sitemaps parse with Scrapy's own parser, the gzip child decompresses,
robots.txt says what each case needs. A failure of the acceptance tests is then the discovery's, not the web's.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from protego import Protego
from scrapy.utils.sitemap import Sitemap, sitemap_urls_from_robots

from sv_scrapy.core.claims.claims import extract_corpus
from sv_scrapy.core.errors import ConfigError
from sv_scrapy.core.hosts import registrable_domain
from sv_scrapy.core.page.prefilter import TOKENS_ABSENT, TOKENS_PRESENT, PrefilterSettings, prior_for_text
from sv_scrapy.core.page.text import html_to_text
from sv_scrapy.core.politeness import floor_seconds, policy_for
from sv_scrapy.run.config import load_config
from sv_scrapy.run.runtime import Runtime
from testing.crawl import FAST_LIVENESS, make_config
from testing.discoverweb import BIG_SITEMAP_URLS, Case, DiscoverWeb, build
from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb, gets_by_host
from testing.mockweb.server import LogEntry
from testing.mockweb.wayback import HOST as WAYBACK

NOW = "2026-06-15T03:00:00Z"
FLOOR_S = 0.3  # every site's floor here; the Wayback's is its own
TOLERANCE = 0.1  # what the server's clock cannot see of a request's start (tests/test_pacing_as_run.py)
LIVENESS: dict[str, Any] = {
    **FAST_LIVENESS,
    "global": {**FAST_LIVENESS["global"], "max_retries": 1},
    "gov_suffix_default": {"concurrency": 1, "interval_ms": int(FLOOR_S * 1000)},
    "per_host_overrides": {"web.archive.org": {"concurrency": 1, "interval_ms": 50}},
}
FINDABLE_RIGHT_AT_LEAST = 9
NOTHING_EXTRA_AT_MOST = 3


# -- the web, without a crawl ---------------------------------------------------------------------------

def served(web: MockWeb, url: str) -> tuple[int, bytes, str]:
    """(status, body, redirect) that ``url`` is answered with on its first hit; 404 on a served host."""
    route = web.find(url)
    if route is None:
        return 404, b"", ""
    answer = route.for_hit(1, url)
    return answer.status, answer.body_bytes(1), answer.redirect


@pytest.fixture(scope="module")
def offline(tmp_path_factory: pytest.TempPathFactory) -> tuple[MockWeb, DiscoverWeb, dict[str, dict[str, Any]],
                                                              dict[str, dict[str, str]]]:
    """The web routed (never started), its claims as extracted by URL, each host's sitemap pages."""
    tmp = tmp_path_factory.mktemp("discoverweb")
    web = MockWeb()
    built = build(web, tmp)
    config = load_config(make_config(tmp / "config"))
    claims = extract_corpus(built.corpus, config.hosts, Runtime(config, built.corpus, tmp / "out").extract_options())
    pages = {c.host: sitemap_pages(web, built, c.host) for c in built.cases}
    return web, built, {c.source_url: c.as_dict() for c in claims.claims}, pages


def sitemap_pages(web: MockWeb, built: DiscoverWeb, host: str) -> dict[str, str]:
    """Every page the host's sitemaps list (URL -> lastmod), read as the contract says: robots.txt
    ``Sitemap:`` lines, else /sitemap.xml; indexes followed, .gz children decompressed."""
    robots = built.robots.get(host, "").encode()
    todo = list(sitemap_urls_from_robots(robots, f"https://{host}/")) or [f"https://{host}/sitemap.xml"]
    pages: dict[str, str] = {}
    while todo:
        url = todo.pop(0)
        status, body, _ = served(web, url)
        if status != 200:
            continue
        if url.endswith(".gz"):
            body = gzip.decompress(body)
        sitemap = Sitemap(body)
        for entry in sitemap:
            if sitemap.type == "sitemapindex":
                todo.append(entry["loc"])
            else:
                pages[entry["loc"]] = entry.get("lastmod", "")
    return pages


def test_web_has_fourteen_sites_and_ten_findable_claims(offline) -> None:
    _, built, claims, _ = offline
    assert len(built.cases) == 14 and len({c.host for c in built.cases}) == 14
    assert sum(c.findable for c in built.cases) == 10
    assert set(claims) == {c.cited for c in built.cases}  # one claim a site, each extracted
    for case in built.cases:
        assert registrable_domain(case.host) != ".".join(case.host.split(".")[-2:]), case.host  # under a suffix
        assert case.expected is None or registrable_domain(urlsplit(case.expected).netloc) == \
            registrable_domain(case.host)


def test_web_moved_pages_state_their_figure_and_cited_pages_do_not(offline) -> None:
    web, built, claims, _ = offline
    settings = PrefilterSettings()
    for case in built.cases:
        values = claims[case.cited]["values"]
        for url in filter(None, (case.expected, *case.never, *case.disallowed)):
            status, body, _ = served(web, url)
            text = html_to_text(body.decode("utf-8"))
            assert status == 200 and case.figure in text, (case.name, url)
            assert prior_for_text(values, text, [case.host], settings).prior == TOKENS_PRESENT, (case.name, url)
        status, body, redirect = served(web, case.cited)
        if redirect:
            status, body, _ = served(web, redirect)
        text = html_to_text(body.decode("utf-8"))
        want = TOKENS_PRESENT if case.name.startswith("control") else TOKENS_ABSENT
        assert prior_for_text(values, text, [case.host], settings).prior == want or status >= 400, case.name
    assert served(web, built.case("page gone (410)").cited)[0] == 410
    redirected = built.case("redirect to the root").cited
    assert served(web, redirected)[2] == built.redirects[redirected] == f"https://{urlsplit(redirected).netloc}/"
    assert built.case("root citation").cited.endswith(".gov.jm/")


def test_web_each_moved_page_is_reachable_by_its_route(offline) -> None:
    web, built, _, listed = offline
    for case in built.cases:
        pages = listed[case.host]
        if case.via == "sitemap":
            assert case.expected in pages, case.name
        elif case.via == "link":
            assert f"href='{urlsplit(case.expected).path}'" in served(web, case.cited)[1].decode(), case.name
            assert case.expected not in pages, case.name  # the link, and only the link
        elif case.via == "search":
            template = built.search[case.host]
            answer = served(web, template.replace("{q}", quote("additional buyer's stamp duty foreigners")))[1]
            assert urlsplit(case.expected).path in answer.decode(), case.name
            assert not pages and case.expected not in served(web, case.cited)[1].decode(), case.name
        for url in case.never + case.disallowed:
            assert url in pages, (case.name, url)  # a candidate the sitemap offers
    assert list(built.search) == [built.case("the site's search").host]


def test_web_sitemaps_parse_with_scrapys_parser(offline) -> None:
    web, built, _, pages = offline
    big = built.case("50,000-URL sitemap")
    listed = pages[big.host]
    assert len(listed) == BIG_SITEMAP_URLS and listed[big.expected] == "2026-02-18"
    assert web.find(f"https://{big.host}/sitemap.xml").gzip  # sent with Content-Encoding: gzip
    packed = [u for u in built.sitemaps if u.endswith(".xml.gz")]
    assert len(packed) == 1 and built.sitemaps[packed[0]][:2] == b"\x1f\x8b"
    child = Sitemap(gzip.decompress(built.sitemaps[packed[0]]))
    assert child.type == "urlset" and built.case("sitemap index, gzip child").expected in {e["loc"] for e in child}
    index = next(u for u in built.sitemaps if u.endswith("sitemap_index.xml"))
    assert Sitemap(built.sitemaps[index]).type == "sitemapindex"


def test_web_robots_txt_says_what_each_case_needs(offline) -> None:
    _, built, _, _ = offline
    declared = {h: list(sitemap_urls_from_robots(t.encode(), f"https://{h}/")) for h, t in built.robots.items()}
    assert declared[built.case("robots.txt sitemap").host] == ["https://www.landduty.govt.nz/sitemaps/main.xml"]
    assert declared[built.case("default /sitemap.xml").host] == []
    assert declared[built.case("sitemap index, gzip child").host][0].endswith("/sitemap_index.xml")
    case = built.case("robots.txt-disallowed candidate")
    rules = Protego.parse(built.robots[case.host])
    assert not rules.can_fetch(case.disallowed[0], "sv_scrapy") and rules.can_fetch(case.cited, "sv_scrapy")
    for case in built.cases:
        rules = Protego.parse(built.robots[case.host])
        for url in filter(None, (case.cited, case.expected, *case.never)):
            assert rules.can_fetch(url, "sv_scrapy"), (case.name, url)
        if case.host in built.search:
            assert rules.can_fetch(built.search[case.host].replace("{q}", "x"), "sv_scrapy")


# -- one audit over it ------------------------------------------------------------------------------------

@dataclass
class Row:
    case: Case
    record: dict[str, Any]
    extra: list[str]  # requests beyond robots.txt and the cited page (and its redirect)

    @property
    def proposed(self) -> dict[str, Any] | None:
        got = self.record.get("proposed_source")
        return got if isinstance(got, dict) else None

    @property
    def url(self) -> str:
        return str((self.proposed or {}).get("url") or "").split("#", 1)[0]

    @property
    def outcome(self) -> str:
        if self.proposed is None:
            return "missed" if self.case.findable else "none (right)"
        return "right" if self.url == self.case.expected else "WRONG"


def refused_requests(robots: dict[str, str], log: list[LogEntry]) -> list[str]:
    """The GETs (robots.txt's own aside) that their host's robots.txt disallows to their user agent."""
    rules = {host: Protego.parse(text) for host, text in robots.items()}
    return [e.url for e in log if (r := rules.get(urlsplit(e.url).netloc))
            and not e.url.endswith("/robots.txt") and not r.can_fetch(e.url, e.user_agent)]


def floor_breaks(log: list[LogEntry], floor_of: Callable[[str], float]) -> list[str]:
    """Each host's consecutive GETs that began closer than its floor (less what the clock cannot see)."""
    breaks = []
    for host, entries in gets_by_host(log).items():
        floor = floor_of(host)
        for a, b in zip(entries, entries[1:], strict=False):
            if b.began - a.began < floor - TOLERANCE:
                breaks.append(f"{host}: {a.url} -> {b.url} {b.began - a.began:.3f} s < {floor} s")
    return breaks


def extra_requests(case: Case, built: DiscoverWeb, log: list[LogEntry]) -> list[str]:
    """The GETs to a claim's site beyond its page's journey (robots.txt, the cited page, its redirect)."""
    journey = {f"https://{case.host}/robots.txt", case.cited, built.redirects.get(case.cited, "")}
    return [e.url for e in log if urlsplit(e.url).netloc == case.host and e.url not in journey]


def archive_requests(case: Case, log: list[LogEntry]) -> list[str]:
    """The Wayback's requests about the claim's page (then and now asks it of a flagged claim only)."""
    return [e.url for e in log if e.url.startswith(WAYBACK) and (case.cited in e.url or quote(case.cited, "") in e.url)]


def table(rows: list[Row]) -> str:
    lines = [f"{'case':34} {'route':8} {'outcome':12} {'via':8} {'ctx':5} {'extra':>5}  proposed"]
    for r in rows:
        p = r.proposed or {}
        lines.append(f"{r.case.name:34} {r.case.via:8} {r.outcome:12} {str(p.get('found_via', '-')):8} "
                     f"{str(p.get('context_match', '-')):5} {len(r.extra):>5}  {r.url or '-'}")
    return "\n".join(lines)


def config_for(tmp: Path, built: DiscoverWeb) -> Path:
    """The test config with the contract's ``discover`` section (../DESIGN.md, 2026-12-07). A release that
    does not read it refuses the key (exit 2); until discovery lands the crawl runs without it, so that the
    tests fail on the missing proposals, not on the config."""
    archive: dict[str, Any] = {"archive": {"enabled": True}}
    config = make_config(tmp / "config", liveness=LIVENESS,
                         source_verify={**archive, "discover": {"enabled": True, "search": built.search}})
    try:
        load_config(config)
    except ConfigError as exc:
        if "discover" not in str(exc):
            raise
        return make_config(tmp / "config-without-discover", liveness=LIVENESS, source_verify=archive)
    return config


@pytest.fixture(scope="module")
def audit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("discover")
    with MockWeb() as web:
        built = build(web, tmp)
        config = config_for(tmp, built)
        result = crawl_in_process("audit", corpus=built.corpus, config=config, output=tmp / "out",
                                  proxy_env=web.env(), extra_env={"SV_NOW": NOW}, timeout=120)
        every = list(web.log)
    log = [e for e in every if e.method == "GET"]
    assert result.returncode == 0, result.stderr[-3000:]
    items = {i["source_url"]: i for i in result.audit()["items"]}
    rows = [Row(c, items[c.cited], extra_requests(c, built, log)) for c in built.cases]
    print("\n" + table(rows))  # the per-case table, shown with -s or on a failure
    # every host asked, tunnelled (a CONNECT names host:port) or not
    asked = {e.url.split(":")[0] if e.method == "CONNECT" else urlsplit(e.url).hostname for e in every}
    yield {"web": built, "rows": rows, "log": log, "config": config, "table": table(rows), "asked": asked}


def test_the_right_page_for_nine_of_the_ten_findable(audit: dict[str, Any]) -> None:
    rows: list[Row] = audit["rows"]
    assert any("proposed_source" in r.record for r in rows), "no record has proposed_source\n" + audit["table"]
    right = [r for r in rows if r.case.findable and r.outcome == "right"]
    assert len(right) >= FINDABLE_RIGHT_AT_LEAST, audit["table"]


def test_no_wrong_proposal(audit: dict[str, Any]) -> None:
    rows: list[Row] = audit["rows"]
    assert [r.case.name for r in rows if r.outcome == "WRONG"] == [], audit["table"]


def test_no_request_to_a_disallowed_path(audit: dict[str, Any]) -> None:
    built: DiscoverWeb = audit["web"]
    assert refused_requests(built.robots, audit["log"]) == []
    hidden = built.case("robots.txt-disallowed candidate").disallowed
    assert not [e for e in audit["log"] if e.url in hidden]


def test_no_request_leaves_the_cited_sites_and_the_archive(audit: dict[str, Any]) -> None:
    built: DiscoverWeb = audit["web"]
    assert audit["asked"] - {c.host for c in built.cases} == {urlsplit(WAYBACK).hostname}


def test_every_host_keeps_its_floor(audit: dict[str, Any]) -> None:
    cfg = load_config(audit["config"])
    assert floor_breaks(audit["log"], lambda host: floor_seconds(policy_for(host, cfg.liveness, cfg.hosts))) == []
    assert floor_seconds(policy_for(audit["web"].cases[0].host, cfg.liveness, cfg.hosts)) == FLOOR_S  # as set


def test_at_most_three_extra_requests_where_there_is_nothing_to_find(audit: dict[str, Any]) -> None:
    row = next(r for r in audit["rows"] if r.case.name == "nothing to find")
    assert row.proposed is None and len(row.extra) <= NOTHING_EXTRA_AT_MOST, row.extra


def test_no_extra_request_for_a_claim_whose_page_states_its_figure(audit: dict[str, Any]) -> None:
    row = next(r for r in audit["rows"] if r.case.name.startswith("control"))
    assert row.record["prior"] == TOKENS_PRESENT, row.record["prior"]
    assert row.extra == [] and archive_requests(row.case, audit["log"]) == [] and row.proposed is None, row.extra


def test_every_record_carries_proposed_source(audit: dict[str, Any]) -> None:
    rows: list[Row] = audit["rows"]
    assert [r.case.name for r in rows if "proposed_source" not in r.record] == []  # null when none was found


def test_each_proposal_is_on_the_cited_site_and_states_the_figure(audit: dict[str, Any]) -> None:
    for row in audit["rows"]:
        p = row.proposed
        if p is None:
            continue
        assert registrable_domain(urlsplit(row.url).netloc) == registrable_domain(row.case.host), row.url
        assert p.get("found_via") in ("link", "sitemap", "search"), p
        assert row.case.figure.replace("\u00a0", " ") in str(p.get("excerpt", "")).replace("\u00a0", " "), p
        assert str(p.get("link", "")).startswith(row.url) and ":~:text=" in str(p.get("link")), p
        assert p.get("context_match") in (True, False, None), p
    json.dumps([r.proposed for r in audit["rows"]])  # plain JSON values


# -- the judge, on made-up answers: each acceptance check can fail ----------------------------------------

def test_the_judge_tells_right_wrong_and_missed(offline) -> None:
    _, built, _, _ = offline
    two, decoy = built.case("old release and current guidance"), built.case("decoy: another instrument")
    said = {"found_via": "sitemap", "excerpt": "", "link": "", "lastmod": None, "context_match": True}
    assert Row(two, {"proposed_source": {**said, "url": f"{two.expected}#:~:text=8"}}, []).outcome == "right"
    assert Row(two, {"proposed_source": {**said, "url": two.never[0]}}, []).outcome == "WRONG"  # the old release
    assert Row(decoy, {"proposed_source": {**said, "url": decoy.never[0]}}, []).outcome == "WRONG"
    assert Row(two, {"proposed_source": None}, []).outcome == "missed"
    assert Row(decoy, {}, []).outcome == "none (right)"


def test_the_judge_sees_a_disallowed_request_and_a_floor_break(offline) -> None:
    _, built, _, _ = offline
    hidden = built.case("robots.txt-disallowed candidate").disallowed[0]
    cited = built.case("robots.txt-disallowed candidate").cited
    log = [LogEntry(100.0, "GET", cited, "sv_scrapy/test", {}), LogEntry(100.15, "GET", hidden, "sv_scrapy/test", {})]
    assert refused_requests(built.robots, log) == [hidden]
    assert floor_breaks(log, lambda host: FLOOR_S) == [f"{urlsplit(cited).netloc}: {cited} -> {hidden} 0.150 s < 0.3 s"]
    assert floor_breaks(log, lambda host: 0.24) == []  # within the clock's tolerance
