"""A site's sitemaps read with Scrapy's parser (issue #38): robots.txt's lines, an index, gzip, the
protocol's 50,000 URLs, a decompression bomb, entity expansion, an HTML page answered for /sitemap.xml."""

from __future__ import annotations

import gzip

from sv_scrapy.pipelines.sitemaps import MAX_URLS, read_sitemap, robots_sitemaps

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def urlset(n: int, lastmod: str = "") -> bytes:
    mod = f"<lastmod>{lastmod}</lastmod>" if lastmod else ""
    rows = "".join(f"<url><loc>https://x.gov/p/{i}</loc>{mod}</url>" for i in range(n))
    return f'<?xml version="1.0" encoding="UTF-8"?><urlset {NS}>{rows}</urlset>'.encode()


def test_robots_lines_in_order_and_absolute() -> None:
    body = b"User-agent: *\nDisallow: /private/\nSitemap: https://x.gov/sm-a.xml\nSITEMAP: /sm-b.xml.gz\n"
    assert robots_sitemaps(body, "https://x.gov/robots.txt") == ["https://x.gov/sm-a.xml", "https://x.gov/sm-b.xml.gz"]
    assert robots_sitemaps(b"User-agent: *\nDisallow:\n", "https://x.gov/robots.txt") == []


def test_a_urlset_with_lastmod() -> None:
    read = read_sitemap(urlset(3, "2026-10-01"))
    assert not read.index and not read.problem
    assert read.rows == [(f"https://x.gov/p/{i}", "2026-10-01") for i in range(3)]


def test_an_index_names_its_children() -> None:
    body = (f'<?xml version="1.0"?><sitemapindex {NS}><sitemap><loc>https://x.gov/a.xml.gz</loc></sitemap>'
            f"<sitemap><loc>https://x.gov/b.xml</loc><lastmod>2026-01-01</lastmod></sitemap></sitemapindex>").encode()
    read = read_sitemap(body)
    assert read.index and [loc for loc, _ in read.rows] == ["https://x.gov/a.xml.gz", "https://x.gov/b.xml"]


def test_gzip_by_its_magic_bytes() -> None:
    read = read_sitemap(gzip.compress(urlset(2)))
    assert not read.problem and len(read.rows) == 2


def test_fifty_thousand_urls_and_no_more() -> None:
    assert len(read_sitemap(urlset(MAX_URLS)).rows) == MAX_URLS
    over = read_sitemap(urlset(MAX_URLS + 5))
    assert len(over.rows) == MAX_URLS and over.cut


def test_a_decompression_bomb_stops_at_the_cap() -> None:
    bomb = gzip.compress(b"<" + b" " * (8 * 1024 * 1024))  # 8 MB of spaces, a few kB compressed
    assert len(bomb) < 100_000
    read = read_sitemap(bomb, max_bytes=1024 * 1024)
    assert read.problem.startswith("larger than") and not read.rows


def test_entities_are_never_expanded() -> None:
    laughs = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
              b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
              b'<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>'
              b'<urlset><url><loc>https://x.gov/&lol3;</loc></url></urlset>')
    read = read_sitemap(laughs)
    assert all("lollol" not in loc for loc, _ in read.rows)


def test_an_html_page_is_no_sitemap() -> None:
    read = read_sitemap(b"<!doctype html><html><body><a href='/x'>Site map</a></body></html>")
    assert read.problem.startswith("not a sitemap") and not read.rows
    assert read_sitemap(b"").problem == "empty"
    assert read_sitemap(b"\x1f\x8b\x08broken").problem == "broken gzip"
