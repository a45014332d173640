"""A site's sitemaps read with Scrapy's own parser (``scrapy.utils.sitemap``), within the protocol's limits.

* robots.txt's ``Sitemap:`` lines: ``sitemap_urls_from_robots`` (the ``SitemapSpider``'s reader);
* a sitemap or a sitemap index, plain or gzipped (by its magic bytes: a ``.xml.gz`` file, whatever its
  name or Content-Type says): ``Sitemap``, whose lxml parser resolves no entities (no billion laughs,
  no external file), and ``gunzip`` with a size cap (a decompression bomb stops at the cap);
* the sitemaps.org limits: 50,000 URLs and 50 MB uncompressed a file — past them the rest is left unread.

Anything else — an HTML page answered for ``/sitemap.xml``, broken XML, a broken gzip — is no sitemap,
said in a few words. Used by ``pipelines/discover.py``; no crawl needed to test it.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

import lxml.etree
from scrapy.utils.gz import gunzip
from scrapy.utils.sitemap import Sitemap, sitemap_urls_from_robots

MAX_URLS = 50_000  # sitemaps.org: a sitemap lists at most this many URLs
MAX_BYTES = 50 * 1024 * 1024  # sitemaps.org: and is at most this large, uncompressed
_GZIP = b"\x1f\x8b\x08"


@dataclass(frozen=True)
class SitemapRead:
    """What one sitemap file said: its rows, or why it said nothing."""

    index: bool = False  # a sitemap index: its rows are child sitemaps
    rows: list[tuple[str, str]] = field(default_factory=list)  # (loc, lastmod)
    problem: str = ""  # "" when read; else why it is no sitemap
    cut: bool = False  # the protocol's limits left part of it unread


def robots_sitemaps(robots_body: bytes, robots_url: str) -> list[str]:
    """The sitemaps robots.txt names, absolute, in its order, each once.

    >>> robots_sitemaps(b"User-agent: *\\nDisallow: /x\\nSitemap: /sm.xml\\nsitemap: https://a.gov/b.xml.gz\\n",
    ...                 "https://a.gov/robots.txt")
    ['https://a.gov/sm.xml', 'https://a.gov/b.xml.gz']
    """
    out: list[str] = []
    for line in robots_body.splitlines():
        try:  # a line at a time: one malformed URL ("http://[x") must not cost the lines after it
            found = list(sitemap_urls_from_robots(line, base_url=robots_url))
        except ValueError:
            continue
        out.extend(url for url in found if url.startswith(("https://", "http://")) and url not in out)
    return out


def read_sitemap(body: bytes, max_bytes: int = MAX_BYTES, max_urls: int = MAX_URLS) -> SitemapRead:
    """The rows of a sitemap or sitemap index (gzipped or not), at most ``max_urls``."""
    if body[:3] == _GZIP:
        try:
            body = gunzip(body, max_size=max_bytes)
        except ValueError:  # scrapy's _DecompressionMaxSizeExceeded: a bomb stops here
            return SitemapRead(problem=f"larger than {max_bytes // (1024 * 1024)} MB uncompressed")
        except (OSError, EOFError, struct.error, zlib.error):
            return SitemapRead(problem="broken gzip")
    elif len(body) > max_bytes:
        return SitemapRead(problem=f"larger than {max_bytes // (1024 * 1024)} MB")
    if not body.strip():
        return SitemapRead(problem="empty")
    try:
        sitemap = Sitemap(body)
        if sitemap.type not in ("urlset", "sitemapindex"):
            return SitemapRead(problem="not a sitemap (an HTML page or other XML)")
        rows: list[tuple[str, str]] = []
        cut = False
        for entry in sitemap:
            loc = str(entry.get("loc") or "").strip()
            if not loc.startswith(("https://", "http://")):
                continue
            if len(rows) >= max_urls:
                cut = True
                break
            rows.append((loc, str(entry.get("lastmod") or "").strip()))
    except (lxml.etree.LxmlError, StopIteration, ValueError):
        return SitemapRead(problem="not a sitemap (XML that does not parse)")
    return SitemapRead(sitemap.type == "sitemapindex", rows, "", cut)
