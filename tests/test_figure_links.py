"""Issue 31 end to end: the demo's figures judged in their context (0 "other context" rows but the
decoy page), and each excerpt's link, opened in Debian's Chromium over the mock web, scrolled to
the figure (the figure's element in the viewport after load; the page's top without the link)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from sv_scrapy.downloadhandlers.render import CHROMIUM_FLAGS, chromium_path
from testing.crawl import FAST_ANY_HOST, crawl, crawl_demo, make_config, write_corpus
from testing.mockweb import MockWeb

pytestmark = pytest.mark.subprocess  # drives a process: make test-fast leaves it out

FILLER = "<p>" + "General guidance on how the duty is assessed and collected by the office. " * 12 + "</p>"
ABOVE = FILLER * 12  # the figure stands far below the first screen


def long_page(body: str, title: str = "Official page") -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>'
            f"<body><h1>{title}</h1>{ABOVE}{body}{FILLER * 12}</body></html>")


# name -> (playbook line with {url}, url, page): the element that states the figure has id="target"
PAGES: dict[str, tuple[str, str, str]] = {
    "table": ("Land transaction tax, higher rates: 8.5 % ([a]({url}))", "https://table.links.gov.uk/ltt",
              long_page("<table><caption>Land transaction tax bands</caption><tr><th>Band</th><th>Main rates</th>"
                        "<th>Higher rates</th></tr><tr><th>First band</th><td>0 %</td><td>5 %</td></tr>"
                        '<tr><th>Second band</th><td>3.5 %</td><td id="target">8.5 %</td></tr></table>')),
    "dl": ("Minimum wage: ₩10,320 an hour ([a]({url}))", "https://dl.links.go.kr/wage",
           long_page('<h2>Minimum wage</h2><dl><dt>Hourly</dt><dd id="target">KRW 10,320</dd><dt>Daily</dt>'
                     "<dd>KRW 82,560</dd></dl>")),
    "second": ("Foreign-buyer surcharge 3.5 % ([a]({url}))", "https://second.links.gov.sg/stamp",
               long_page('<p id="decoy">VAT 3.5 % on services applies to every supplier.</p>' + FILLER * 12
                         + '<p id="target">The foreign-buyer surcharge is 3.5 % of the price.</p>',
                         title="Guidance for non-resident buyers")),
}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, dict[str, Any]], str]:
    """The demo's audit (examples/corpus against examples/site), as ``make demo`` runs it."""
    tmp = tmp_path_factory.mktemp("demo")
    result = crawl_demo(tmp)
    assert result.returncode == 0, result.stderr[-2000:]
    doc = json.loads((tmp / "out" / "audit" / "audit.json").read_text(encoding="utf-8"))
    return {f"{i['scope']}:{i['line_no']}": i for i in doc["items"]}, (tmp / "out" / "audit" / "report.md").read_text(
        encoding="utf-8")


def test_the_demo_flags_only_its_decoy(demo: tuple[dict[str, dict[str, Any]], str]) -> None:
    items, report = demo
    other = sorted(where for where, i in items.items() if i["prior"] == "TOKENS_PRESENT" and i["context_match"] is False)
    assert other == ["kr:17"]  # the VAT-vs-surcharge page: the playbook's 3.5 % is another tax's rate there
    for where in ("kr:9", "fr:7", "ad:7", "shared/exit/notes:3"):  # the figures stand where the pages state them
        assert items[where]["context_match"] is not False, where
    section = report.split("### Figure found, other context — 1", 1)[1].split("###", 1)[0]
    assert "`kr:17`" in section and "The foreign-buyer surcharge" in section  # where the claim's words are
    assert "[↪ at the figure](https://www.moef.go.kr/eng/non-resident-buyers#:~:text=3.5)" in section


def test_every_figure_of_the_demo_has_a_link_to_it(demo: tuple[dict[str, dict[str, Any]], str]) -> None:
    items, _ = demo
    for where, item in items.items():
        if item["prior"] == "TOKENS_PRESENT" and not item["source_url"].endswith("acquisition"):
            assert str(item["figure_link"]).startswith(item["final_url"] + "#:~:text="), where


@pytest.mark.skipif(not os.access(chromium_path(), os.X_OK), reason="Debian's Chromium is not installed")
def test_opening_an_excerpts_link_scrolls_to_the_figure(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    lines = "\n".join(f"- {line.format(url=url)}" for line, url, _ in PAGES.values())
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": f"# Links\n\n{lines}\n"})
    config = make_config(tmp_path / "config", liveness=FAST_ANY_HOST)
    with MockWeb() as web:
        for _, url, body in PAGES.values():
            web.route(url, body=body)
        result = crawl("audit", corpus=corpus, config=config, output=tmp_path / "out", proxy_env=web.env())
        assert result.returncode == 0, result.stderr[-2000:]
        doc = json.loads((tmp_path / "out" / "audit" / "audit.json").read_text(encoding="utf-8"))
        links = {i["source_url"]: i["figure_link"] for i in doc["items"]}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS,
                                        proxy={"server": web.proxy_url})
            context = browser.new_context(ignore_https_errors=True, viewport={"width": 1000, "height": 700})
            page = context.new_page()
            for name, (_, url, _) in PAGES.items():
                assert links[url] and links[url].startswith(url + "#:~:text="), (name, links[url])
                page.goto(url)
                assert page.evaluate("window.scrollY") == 0  # the plain link: the page's top
                page.goto("about:blank")
                page.goto(links[url])
                page.wait_for_function("window.scrollY > 0", timeout=5000)
                box = page.evaluate("(() => { const r = document.getElementById('target').getBoundingClientRect();"
                                    " return [r.top, r.bottom, window.innerHeight]; })()")
                assert box[0] >= 0 and box[1] <= box[2], (name, links[url], box)
                if name == "second":  # the occurrence in the claim's context, not the decoy above it
                    top = page.evaluate("document.getElementById('decoy').getBoundingClientRect().bottom")
                    assert top < 0, links[url]
            browser.close()


def test_the_demo_shows_where_the_ifi_threshold_is_stated_now(demo: tuple[dict[str, dict[str, Any]], str]) -> None:
    """Issue #38's demo row: fr:9's page no longer states the IFI threshold; the site's sitemap
    (examples/site/www.impots.gouv.fr/sitemap.xml) names the page that does, and the report says so."""
    items, report = demo
    page = "https://www.impots.gouv.fr/particulier/ifi-impot-sur-la-fortune-immobiliere"
    proposed = items["fr:9"]["proposed_source"]
    assert items["fr:9"]["prior"] == "TOKENS_ABSENT"
    assert (proposed["url"], proposed["found_via"], proposed["lastmod"]) == (page, "sitemap", "2026-06-01")
    assert proposed["link"].startswith(page + "#:~:text=") and "1 300 000" in proposed["excerpt"]
    assert {where for where, i in items.items() if i.get("proposed_source")} == {"fr:9"}  # nothing else proposed
    row = next(line for line in report.splitlines() if "`fr:9`" in line and line.startswith("|"))
    assert "www.impots.gouv.fr/particulier/ifi-impot-sur-la-fortune-immobiliere" in row and "sitemap" in row
