"""The Wayback Machine's budget across parts: three parts at once, every claim flagged (its figure
absent today, present in a capture), so each part asks the archive for its own claims. Judged
from the one request log: the archive's requests of all parts together never come faster than
one run's floor allows (a window's count), because each part takes a third of it."""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from sv_scrapy.core.audit.archive.thennow import CHANGED
from testing.crawl import FAST_ANY_HOST, crawl, make_config, write_corpus
from testing.mockweb import MockWeb, Route
from testing.mockweb.wayback import HOST, MockCapture, MockWayback

from .conftest import run_scrapy

pytestmark = pytest.mark.subprocess  # drives a process: make test-fast leaves it out

FLOOR_S = 0.15  # the archive's floor for one run (the shipped 0.3 s halved: the rule is the share, not the value)
WINDOW_S = 3.0
NOW = "2026-06-15T03:00:00Z"
SITES = range(1, 19)
FILLER = "<p>" + "How the duty is assessed, who pays it and when it falls due. " * 6 + "</p>"


def page(figure: str = "") -> str:
    said = f"<p>Le taux applicable est de {figure}.</p>" if figure else "<p>Le taux est fixé par décret.</p>"
    return f"<html lang='fr'><body><h1>Barème</h1>{said}{FILLER}</body></html>"


def url(k: int) -> str:
    return f"https://www.duty{k:02d}.gouv.fr/taux"


@pytest.fixture(scope="module")
def parts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("parts-archive")
    lines = "".join(f"- Duty {k} {k}.5 % ([t]({url(k)}))\n" for k in SITES)
    corpus = write_corpus(tmp / "corpus", {"countries/fr/playbook.md":
                                           f"# France\n\n**Last verified**: 2026-05-20\n\n## Tax\n\n{lines}"})
    liveness = {**FAST_ANY_HOST, "per_host_overrides": {
        "web.archive.org": {"concurrency": 1, "interval_ms": int(FLOOR_S * 1000)}}}
    configs = {i: make_config(tmp / f"config{i}", source_verify={"archive": {"enabled": True}}, liveness={
        **liveness, "global": {**liveness["global"], "user_agent": f"sv_scrapy/{{version}} (part {i})"}})
        for i in (1, 2, 3)}
    with MockWeb() as web:
        wayback = MockWayback(web)
        for k in SITES:
            web.route(url(k), Route(body=page()))
            wayback.add(url(k), MockCapture("20260512000000", page(f"{k},5 %")))
        with ThreadPoolExecutor(3) as pool:
            results = list(pool.map(lambda i: crawl(
                "audit", corpus=corpus, config=configs[i], output=tmp / f"p{i}", proxy_env=web.env(),
                args={"part": f"{i}/3"}, extra_env={"SV_NOW": NOW}), (1, 2, 3)))
        log = [e for e in web.log if e.method == "GET" and e.url.startswith(HOST) and not e.url.endswith("robots.txt")]
    assert [r.returncode for r in results] == [0, 0, 0], [r.stderr[-1500:] for r in results]
    merged = run_scrapy("merge", *(str(tmp / f"p{i}") for i in (1, 2, 3)), "--into", str(tmp / "m"),
                        env={"SV_CONFIG_DIR": str(configs[1]), "SV_CORPUS_ROOT": str(corpus), "SV_NOW": NOW})
    assert merged.returncode == 0, merged.stderr
    return {"log": log, "doc": json.loads((tmp / "m" / "audit" / "audit.json").read_text(encoding="utf-8"))}


def test_every_part_asked_the_archive_and_the_merge_has_then_and_now(parts: dict[str, Any]) -> None:
    agents = {re.search(r"\(part (\d)\)", e.user_agent)[1] for e in parts["log"]}  # type: ignore[index]
    assert agents == {"1", "2", "3"} and len(parts["log"]) >= 2 * len(SITES)
    doc = parts["doc"]
    assert {(i["then_now"] or {}).get("verdict") for i in doc["items"]} == {CHANGED}
    assert doc["stats"]["archive"]["lookups"] == len(SITES)


def test_the_parts_together_keep_the_archives_budget(parts: dict[str, Any]) -> None:
    starts = sorted(e.began for e in parts["log"])
    busiest = max(sum(1 for t in starts if s <= t < s + WINDOW_S) for s in starts)
    # one run: at most WINDOW_S / FLOOR_S + 1 in any window; each part adds at most one edge request
    assert busiest <= WINDOW_S / FLOOR_S + 3, busiest
