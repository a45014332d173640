"""The sitemap reader (``sv_scrapy/pipelines/sitemaps.py``, over Scrapy's ``scrapy.utils.sitemap``) on generated
sitemaps: sitemaps and indexes, gzipped or not, with or without their namespace, HTML and RSS in
their place, cut short, in other encodings, with an external entity or an entity expansion.

Documented: ``read_sitemap`` returns a ``SitemapRead`` — its rows (absolute http(s) URLs, at most
``max_urls``), or a ``problem`` that says why it is no sitemap — and never raises; robots.txt's
``Sitemap:`` lines come back absolute. An external entity is never read (Scrapy's parser resolves
none), and an expansion stays within the time bound.
"""

from __future__ import annotations

import gzip

from hypothesis import example, given
from hypothesis import strategies as st

from sv_scrapy.pipelines.sitemaps import MAX_URLS, read_sitemap, robots_sitemaps
from tests.fuzz.profiles import fuzz_settings, within
from tests.fuzz.strategies import SITEMAP_BODY

BOUND = 2.0  # s of CPU for one sitemap (the generated ones are small; a 50,000-URL one is the bench's)


@fuzz_settings()
@given(SITEMAP_BODY, st.booleans(), st.integers(1, MAX_URLS))
@example(b"<!DOCTYPE x [<!ENTITY e SYSTEM 'file:///etc/passwd'>]><urlset><url><loc>&e;</loc></url></urlset>", False, 5)
@example(b"\x1f\x8b\x08" + b"\x00" * 20, False, 5)  # a gzip header over nothing
def test_read_sitemap_reads_any_sitemap(body: bytes, gzipped: bool, max_urls: int) -> None:
    if gzipped:
        body = gzip.compress(body)
    with within(BOUND, "read_sitemap"):
        read = read_sitemap(body, max_urls=max_urls)
    if read.problem:
        assert not read.rows
        return
    assert len(read.rows) <= max_urls
    for loc, _lastmod in read.rows:
        assert loc.startswith(("http://", "https://")) and "root:" not in loc


@fuzz_settings()
@given(st.binary(max_size=300) | st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")))
@example(b"Sitemap: /a.xml\nSitemap: http://[x\n")
def test_robots_sitemaps_are_absolute(robots: bytes) -> None:
    with within(BOUND, "robots_sitemaps"):
        found = robots_sitemaps(robots, "https://a.gov/robots.txt")
    assert all(url.startswith(("https://", "http://")) for url in found)
    assert len(found) == len(set(found))
