"""Where the figure went, at scale: 500 `TOKENS_ABSENT` claims over 50 sites whose sitemaps list 50,000 URLs.

    python bench/discover.py [--sites 50] [--claims-per-site 10] [--sitemap-urls 50000] [--rps 10]

Each site's cited pages no longer state their figures; half the claims' figures stand on a page the
site's sitemap names (half the sites declare a sitemap index with a gzipped child in robots.txt, the
other half serve a plain `/sitemap.xml`), the other half have only a near miss (a page on the subject
without the figure) or nothing. Politeness as shipped: one request a second a government host, the
global cap ``--rps`` (the shipped 10 req/s: a bound of about 100 s). Runs the audit cold, then a month
later (warm).

Prints, for each run: requests a claim beyond its own page (robots.txt, sitemaps and candidates), the
first→last request span ÷ the politeness bound of every request in the mock web's log (candidates
counted; goal ≤ 1.10), the crawl's CPU seconds, proposals found and wrong, the crawl's peak RSS; warm:
sitemaps answered 304.
Loopback only; asserts nothing.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import resource
import sys
import tempfile
from collections import Counter
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

from testing.bounds import politeness_bound, span  # noqa: E402
from testing.crawl import crawl, make_config, write_corpus  # noqa: E402
from testing.mockweb import MockWeb, Route  # noqa: E402

_SYLLABLES = ["ka", "lo", "mer", "tin", "vos", "ra", "bel", "dun", "sir", "pam", "gor", "lek", "nu", "tav"]
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def word(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(3))


def page(title: str, text: str) -> str:
    filler = "<p>Forms, deadlines and the ways to pay are described on the other pages of this site.</p>" * 6
    return (f'<!doctype html><html lang="en"><head><title>{title}</title></head>'
            f"<body><h1>{title}</h1><p>{text}</p>{filler}</body></html>")


def urlset(rows: list[tuple[str, str]]) -> bytes:
    body = "".join(f"<url><loc>{loc}</loc><lastmod>{mod}</lastmod></url>" for loc, mod in rows)
    return f'<?xml version="1.0" encoding="UTF-8"?><urlset {NS}>{body}</urlset>'.encode()


def build(web: MockWeb, sites: int, per_site: int, sitemap_urls: int, seed: int = 38) -> tuple[list[str], dict[str, str]]:
    """The mock web and the corpus lines; cited URL -> the page that states its figure ("" when none)."""
    rng = random.Random(seed)
    lines: list[str] = []
    expected: dict[str, str] = {}
    for s in range(sites):
        host = f"s{s:02d}.discover-bench.gouv.fr"
        rows: list[tuple[str, str]] = []
        for k in range(per_site):
            topic = f"{word(rng)} {word(rng)}"
            slug = topic.replace(" ", "-")
            figure = f"{rng.randint(1, 40)}.{rng.randint(1, 9)} %"
            cited = f"https://{host}/old/{k}"
            web.route(cited, Route(body=page(f"Levy on {topic}", "This page has moved; see the guidance pages.")))
            lines.append(f"- **Levy on {topic}**: {figure} ([source]({cited}))")
            target = ""
            if k % 2 == 0:  # the figure moved to a guidance page the sitemap names
                target = f"https://{host}/guidance/{slug}-levy"
                web.route(target, Route(body=page(f"Levy on {topic}", f"The levy on {topic} is {figure} of the value.")))
                rows.append((target, "2026-10-01"))
            elif k % 4 == 1:  # a near miss: the subject without the figure
                miss = f"https://{host}/news/{slug}-levy-consultation"
                web.route(miss, Route(body=page(f"Consultation: levy on {topic}", "A consultation on the levy opens.")))
                rows.append((miss, "2025-03-01"))
            expected[cited] = target
        rows += [(f"https://{host}/forms/form-{n}", "2024-01-01") for n in range(sitemap_urls - len(rows))]
        rng.shuffle(rows)
        if s % 2 == 0:  # robots.txt names an index; its child is gzipped
            web.route(f"https://{host}/robots.txt", Route(body=f"User-agent: *\nSitemap: https://{host}/sm-index.xml\n",
                                                          content_type="text/plain"))
            web.route(f"https://{host}/sm-index.xml", Route(body=(
                f'<?xml version="1.0"?><sitemapindex {NS}><sitemap><loc>https://{host}/sm-1.xml.gz</loc></sitemap>'
                "</sitemapindex>"), content_type="application/xml"))
            web.route(f"https://{host}/sm-1.xml.gz", Route(body=gzip.compress(urlset(rows)),
                                                           content_type="application/x-gzip"))
        else:
            web.route(f"https://{host}/sitemap.xml", Route(body=urlset(rows), content_type="application/xml"))
    return lines, expected


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sites", type=int, default=50)
    ap.add_argument("--claims-per-site", type=int, default=10)
    ap.add_argument("--sitemap-urls", type=int, default=50_000)
    ap.add_argument("--rps", type=float, default=10.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name, MockWeb() as web:
        tmp = Path(tmp_name)
        lines, expected = build(web, args.sites, args.claims_per_site, args.sitemap_urls)
        corpus = write_corpus(tmp / "corpus", {"countries/xx/playbook.md": "# Bench\n\n## Tax\n\n" + "\n".join(lines) + "\n"})
        config = make_config(tmp / "config", liveness={"global": {"req_per_sec": args.rps}},
                             source_verify={"discover": {"enabled": True}})
        print(f"discover: {len(lines)} TOKENS_ABSENT claims over {args.sites} sites, sitemaps of "
              f"{args.sitemap_urls:,} URLs (half an index + gzip child), {sum(1 for t in expected.values() if t)} "
              f"findable; gov floor 1 s a host, global cap {args.rps:g} req/s")
        for name, now in (("cold", "2026-11-02T03:00:00Z"), ("warm", "2026-12-02T03:00:00Z")):
            web.clear_log()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            result = crawl("audit", corpus=corpus, config=config, output=tmp / "out", proxy_env=web.env(),
                           timeout=3600, extra_env={"SV_NOW": now})
            if result.returncode != 0:
                print(result.stderr[-3000:])
                raise SystemExit(f"{name} audit failed")
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            log = list(web.log)
            gets = [e for e in log if e.method == "GET"]
            doc = json.loads((tmp / "out" / "audit" / "audit.json").read_text(encoding="utf-8"))
            found = {i["source_url"]: (i.get("proposed_source") or {}).get("url", "") for i in doc["items"]}
            right = sum(1 for t, url in found.items() if url and expected.get(t) == url)
            wrong = sum(1 for t, url in found.items() if url and expected.get(t) != url)
            extra = len(gets) - len(doc["items"])  # beyond each claim's own page
            statuses = Counter(e.status for e in gets if "sitemap" in e.url or "/sm-" in e.url)
            bound = politeness_bound(log, config)
            print(f"  {name}: {len(gets)} requests, {extra / len(doc['items']):.2f} a claim beyond its page "
                  f"(robots.txt, sitemaps, candidates); proposals {right} right, {wrong} wrong; sitemap answers "
                  f"{dict(statuses)}")
            print(f"    first→last request {span(log):.1f} s, bound {bound:.1f} s -> wall ÷ bound "
                  f"{span(log) / bound:.3f} (goal ≤ 1.10); whole process {result.seconds:.1f} s, {cpu:.1f} s of CPU "
                  f"(a loaded machine: CPU under the bound is what an idle one needs); "
                  f"peak RSS {result.logged_peak_rss_mb():.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
