"""The static portal-root linter: a primary-source citation to a bare host root (the
homepage) owning a percentage or money figure — the page that proves a number is almost
never the homepage. Advisory only.

Not flagged: statute-only lines ("[Llei 21/2014](gazette-root)" names its locator), links
whose label is a document name rather than a host, secondary hosts (a carrier's homepage
cited for its tariff is a convention), "verify at <authority>" pointers (the pointer rule of
``links``), and hosts or URLs in ``linter.root_url_allowlist``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from sv_scrapy.core.claims.claims import FENCE_RE, HEADING_RE, ExtractOptions, read_corpus
from sv_scrapy.core.claims.links import attribute, find_links, mask_urls, pointer_flags
from sv_scrapy.core.claims.stamps import mask_stamp_dates
from sv_scrapy.core.figures.values import extract_values
from sv_scrapy.core.hosts import SECONDARY, HostRules

_HOSTLIKE_LABEL = re.compile(r"^[a-z0-9][a-z0-9.-]*\.[a-z]{2,}/?$", re.IGNORECASE)


@dataclass(frozen=True)
class RootCitation:
    scope: str
    line_no: int
    url: str
    figure: str
    file: str

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def is_root(url: str) -> bool:
    parts = urlsplit(url)
    return parts.path in ("", "/") and not parts.query and not parts.fragment


def flag_line(line: str, hosts: HostRules, allow: Sequence[str] = ()) -> list[tuple[str, str]]:
    """(root URL, figure) pairs this line should be flagged for.

    >>> flag_line("10% band ([gov.ky](https://www.gov.ky/))", HostRules())
    [('https://www.gov.ky/', '10%')]
    >>> flag_line("10% band — verify at [gov.ky](https://www.gov.ky/)", HostRules())
    []
    """
    if "](http" not in line or HEADING_RE.match(line):
        return []
    links = find_links(line)
    values = extract_values(mask_stamp_dates(mask_urls(line)))
    allowed = {a.lower().rstrip("/") for a in allow}
    out = []
    for link, pointer, owned in zip(links, pointer_flags(line, links), attribute(values, links), strict=True):
        figures = [v.raw for v in owned if v.type in ("pct", "money") and v.salient]
        host = (urlsplit(link.url).hostname or "").lower()
        if pointer or not figures or not is_root(link.url) or not _HOSTLIKE_LABEL.match(link.text.strip()):
            continue
        if hosts.tier(host) == SECONDARY or host in allowed or link.url.lower().rstrip("/") in allowed:
            continue
        out.append((link.url, figures[0]))
    return out


class Lint(list[RootCitation]):
    """The findings, and ``skipped``: the files not read, with why (as extraction names them)."""

    def __init__(self) -> None:
        super().__init__()
        self.skipped: list[str] = []


def lint_corpus(root: Path, hosts: HostRules, opts: ExtractOptions, allow: Sequence[str] = ()) -> Lint:
    out = Lint()
    for file in read_corpus(root, opts, out.skipped, out.skipped):
        in_fence = False
        for line_no, line in enumerate(file.text.splitlines(), 1):
            if FENCE_RE.match(line):
                in_fence = not in_fence
                continue
            if not in_fence:
                out += [RootCitation(file.scope, line_no, url, figure, file.rel)
                                 for url, figure in flag_line(line, hosts, allow)]
    return out
