"""Where the figure went, in a crawl (issue #38): an audit over a small mock web where a cited page no
longer states its figure and the site now states it elsewhere — behind a robots.txt-declared sitemap
index with a gzip child, behind a link, behind the site's search — beside a decoy, a site with nothing to
find, a robots-disallowed candidate and a control. Judged from the mock web's own request log; then a
month later: sitemaps asked conditionally (304), proposals kept."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

from testing.crawl import FAST_LIVENESS, make_config, write_corpus
from testing.frozenrecords import frozen_records
from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb, Route

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
MOVED = "The page has moved: see the guidance pages of this site for the current figures and forms of this year."


def html(body: str, title: str = "Official page") -> str:
    return f'<!doctype html><html lang="en"><head><title>{title}</title></head><body>{body}</body></html>'


def urlset(*rows: tuple[str, str]) -> bytes:
    urls = "".join(f"<url><loc>{loc}</loc>{f'<lastmod>{mod}</lastmod>' if mod else ''}</url>" for loc, mod in rows)
    return f'<?xml version="1.0" encoding="UTF-8"?><urlset {NS}>{urls}</urlset>'.encode()


def stated(subject: str, figure: str) -> str:
    return html(f"<h1>{subject}</h1><p>The {subject.lower()} is {figure} of the price, paid with the return.</p>"
                + "<p>Other duties and the forms are described on the pages of this site.</p>" * 2)


CLAIMS = {  # claim line -> cited URL
    "Stamp duty surcharge for non-residents: 2 %": "https://www.moved.gov/rates",
    "Land registration fee for companies: 0.9 %": "https://www.linked.gov/fees",
    "Transfer levy on commercial property: 1.7 %": "https://www.searched.gov/levy",
    "Foreign-buyer surcharge on dwellings: 3.5 %": "https://www.decoy.gov/surcharge",
    "Vacancy duty on empty homes: 4.2 %": "https://www.nothing.gov/vacancy",
    "Notary fee on first band: 3.87 %": "https://www.control.gov/notary",
    "Harbour levy on cargo ships: 6.4 %": "https://www.big.gov/harbour",
}


def web_pages(web: MockWeb) -> None:
    # a robots.txt-declared sitemap index with a gzipped child; the right page, an older release, a disallowed copy
    web.route("https://www.moved.gov/robots.txt", Route(
        body="User-agent: *\nDisallow: /private/\nSitemap: https://www.moved.gov/sitemap-index.xml\n",
        content_type="text/plain"))
    web.route("https://www.moved.gov/sitemap-index.xml", Route(body=(
        f'<?xml version="1.0"?><sitemapindex {NS}><sitemap><loc>https://www.moved.gov/sm-1.xml.gz</loc>'
        "</sitemap></sitemapindex>"), content_type="application/xml"))
    web.route("https://www.moved.gov/sm-1.xml.gz", Route(body=gzip.compress(urlset(
        ("https://www.moved.gov/contact", "2026-01-01"),
        ("https://www.moved.gov/private/stamp-duty-surcharge-non-residents", "2026-11-01"),
        ("https://www.moved.gov/news/2019/stamp-duty-surcharge-non-residents", "2019-02-01"),
        ("https://www.moved.gov/guidance/stamp-duty-surcharge-non-residents", "2026-10-01"),
        *((f"https://www.moved.gov/forms/form-{n}", "2025-01-01") for n in range(300)))),
        content_type="application/x-gzip"))
    web.route("https://www.moved.gov/rates", Route(body=html(f"<p>{MOVED}</p>" * 3)))
    web.route("https://www.moved.gov/guidance/stamp-duty-surcharge-non-residents",
              Route(body=stated("Stamp duty surcharge for non-residents", "2 %")))
    web.route("https://www.moved.gov/news/2019/stamp-duty-surcharge-non-residents",
              Route(body=stated("Stamp duty surcharge for non-residents", "2 %")))
    web.route("https://www.moved.gov/private/stamp-duty-surcharge-non-residents",
              Route(body=stated("Stamp duty surcharge for non-residents", "2 %")))
    # behind a link of the cited page (no sitemap)
    web.route("https://www.linked.gov/fees", Route(body=html(
        f"<p>{MOVED}</p>" * 3 + '<p><a href="/companies/registration-fee">Land registration fee for companies</a>'
        '<a href="/about">About us</a></p>')))
    web.route("https://www.linked.gov/companies/registration-fee",
              Route(body=stated("Land registration fee for companies", "0.9 %")))
    # behind the site's own search (its sitemap lists nothing like it)
    web.route("https://www.searched.gov/sitemap.xml", Route(body=urlset(("https://www.searched.gov/about", ""))))
    web.route("https://www.searched.gov/levy", Route(body=html(f"<p>{MOVED}</p>" * 3)))
    web.route("https://www.searched.gov/find", Route(responder=lambda url, hit: Route(body=html(
        '<ul><li><a href="/p/88">Transfer levy on commercial property (guidance)</a></li></ul>'))))
    web.route("https://www.searched.gov/p/88", Route(body=stated("Transfer levy on commercial property", "1.7 %")))
    # a decoy: the figure stands for another instrument, the claim's subject is stated with another figure
    web.route("https://www.decoy.gov/sitemap.xml",
              Route(body=urlset(("https://www.decoy.gov/foreign-buyer-surcharge-agents", ""))))
    web.route("https://www.decoy.gov/surcharge", Route(body=html(f"<p>{MOVED}</p>" * 3)))
    web.route("https://www.decoy.gov/foreign-buyer-surcharge-agents", Route(body=html(
        "<p>VAT on an agent's services is 3.5 %.</p><p>The foreign-buyer surcharge on dwellings is 4 %.</p>"
        "<p>Other duties and the forms are described on the pages of this site.</p>" * 2)))
    # nothing to find: no sitemap at all
    web.route("https://www.nothing.gov/vacancy", Route(body=html(f"<p>{MOVED}</p>" * 3)))
    # a plain sitemap larger than a page's body cap (fetch.max_body_bytes), the page last in it
    web.route("https://www.big.gov/harbour", Route(body=html(f"<p>{MOVED}</p>" * 3)))
    web.route("https://www.big.gov/sitemap.xml", Route(body=urlset(
        *((f"https://www.big.gov/forms/application-form-number-{n}", "2025-01-01") for n in range(12_000)),
        ("https://www.big.gov/ports/harbour-levy-cargo-ships", "2026-09-01")), content_type="application/xml"))
    web.route("https://www.big.gov/ports/harbour-levy-cargo-ships", Route(body=stated("Harbour levy on cargo ships", "6.4 %")))
    # the control: its page states its figure
    web.route("https://www.control.gov/notary", Route(body=stated("Notary fee on first band", "3.87 %")))
    web.route("https://www.control.gov/sitemap.xml", Route(body=urlset(("https://www.control.gov/notary-fees", ""))))


def audit(tmp_path: Path, web: MockWeb, now: str) -> Any:
    lines = "\n".join(f"- **{text.split(':')[0]}**: {text.split(': ')[1]} ([source]({url}))" for text, url in CLAIMS.items())
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": f"# XX\n\n## Tax\n\n{lines}\n"})
    config = tmp_path / "config"
    if not config.exists():
        make_config(config, liveness=FAST_LIVENESS, source_verify={
            "discover": {"enabled": True, "search": {"searched.gov": "https://www.searched.gov/find?q={q}"}}})
    with frozen_records() as writes:  # the one hop and discovery add their findings beside the records
        result = crawl_in_process("audit", corpus=corpus, config=config, output=tmp_path / "out", proxy_env=web.env(),
                                  extra_env={"SV_NOW": now})
    assert writes == [], writes
    return result


def test_the_moved_figure_is_found_and_nothing_wrong_is_proposed(tmp_path: Path) -> None:
    with MockWeb() as web:
        web_pages(web)
        result = audit(tmp_path, web, "2026-11-02T09:00:00Z")
        assert result.returncode == 0, result.stderr[-3000:]
        items = {item["source_url"]: item for item in result.audit()["items"]}
        proposed = {url: (item.get("proposed_source") or {}).get("url") for url, item in items.items()}
        assert proposed == {
            "https://www.moved.gov/rates": "https://www.moved.gov/guidance/stamp-duty-surcharge-non-residents",
            "https://www.linked.gov/fees": "https://www.linked.gov/companies/registration-fee",
            "https://www.searched.gov/levy": "https://www.searched.gov/p/88",
            "https://www.decoy.gov/surcharge": None,  # the decoy is never proposed
            "https://www.nothing.gov/vacancy": None,
            "https://www.control.gov/notary": None,
            "https://www.big.gov/harbour": "https://www.big.gov/ports/harbour-levy-cargo-ships"}
        moved = items["https://www.moved.gov/rates"]["proposed_source"]
        assert moved["found_via"] == "sitemap" and moved["lastmod"] == "2026-10-01" and moved["context_match"] is True
        assert moved["link"].startswith("https://www.moved.gov/guidance/stamp-duty-surcharge-non-residents#:~:text=")
        assert items["https://www.linked.gov/fees"]["proposed_source"]["found_via"] == "link"
        assert items["https://www.searched.gov/levy"]["proposed_source"]["found_via"] == "search"
        assert "not found" in items["https://www.decoy.gov/surcharge"]["proposed_note"]
        log = [(e.url, e.status) for e in web.log if e.method == "GET"]
        assert not [u for u, _ in log if "/private/" in u]  # never a robots-disallowed path
        assert [u for u, _ in log if "control.gov" in u and "robots" not in u] == ["https://www.control.gov/notary"]
        assert len([u for u, _ in log if "nothing.gov" in u and not u.endswith(("/robots.txt", "/vacancy"))]) <= 3
        assert result.stats.get("sv/discover/proposals") == 4

        web.clear_log()
        again = audit(tmp_path, web, "2026-12-02T09:00:00Z")  # a month later: nothing changed
        assert again.returncode == 0, again.stderr[-3000:]
        items = {item["source_url"]: item for item in again.audit()["items"]}
        assert items["https://www.moved.gov/rates"]["proposed_source"]["url"].endswith("/guidance/stamp-duty-surcharge-non-residents")
        discovery = [(e.url, e.status) for e in web.log
                     if e.method == "GET" and "moved.gov" in e.url and not e.url.endswith(("/rates", "robots.txt"))]
        # the proposal is kept while the page and the claim stand: its page asked once, conditionally
        assert discovery == [("https://www.moved.gov/guidance/stamp-duty-surcharge-non-residents", 304)]
        decoy = [(e.url, e.status) for e in web.log if e.url == "https://www.decoy.gov/sitemap.xml"]
        assert decoy == [("https://www.decoy.gov/sitemap.xml", 304)]  # nothing found: searched again, conditionally

        # the month after, the proposed page no longer states the figure: asked conditionally, it answers
        # 200, is judged again and refused, and the search finds the page still stating it
        web.route("https://www.moved.gov/guidance/stamp-duty-surcharge-non-residents",
                  Route(body=stated("Stamp duty surcharge for non-residents", "abolished")))
        third = audit(tmp_path, web, "2027-01-04T09:00:00Z")
        assert third.returncode == 0, third.stderr[-3000:]
        items = {item["source_url"]: item for item in third.audit()["items"]}
        assert items["https://www.moved.gov/rates"]["proposed_source"]["url"] == \
            "https://www.moved.gov/news/2019/stamp-duty-surcharge-non-residents"
        assert items["https://www.moved.gov/rates"]["proposal_new"] is True  # news: another page now
