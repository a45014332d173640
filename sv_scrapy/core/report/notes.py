"""A report's ⚠️ lines (a partial run, no previous store, copies set aside): plain text whose URLs
become links (Markdown autolinks, HTML anchors) — never backslash-escaped prose."""

from __future__ import annotations

import re
from collections.abc import Callable

from sv_scrapy.core.escape import h, md_code, md_inline, safe_href

_URL = re.compile(r"https?://[^\s<>\"'`|\\]*[^\s<>\"'`|\\.,;:)\]]")


def md_note(text: str) -> str:
    """Prose escaped where Markdown would act; each URL an autolink (code when it cannot be one).

    >>> md_note("set aside: https://www.estadistica.ad/, and *x*")
    'set aside: <https://www.estadistica.ad/>, and \\\\*x\\\\*'
    """
    return _linked(text, md_inline, lambda url: f"<{url}>" if safe_href(url) else md_code(url))


def html_note(text: str) -> str:
    """Escaped text; each URL a link.

    >>> html_note("see https://a.gov/x?a=1&b=2.")
    'see <a href="https://a.gov/x?a=1&amp;b=2" rel="noopener noreferrer nofollow">https://a.gov/x?a=1&amp;b=2</a>.'
    """
    return _linked(text, h, lambda url: f'<a href="{href}" rel="noopener noreferrer nofollow">{h(url)}</a>'
                   if (href := safe_href(url)) else h(url))


def _linked(text: str, prose: Callable[[str], str], link: Callable[[str], str]) -> str:
    """``text`` with its URLs through ``link`` and the prose between them through ``prose``."""
    out, pos = [], 0
    for m in _URL.finditer(text):
        out += [prose(text[pos:m.start()]), link(m.group(0))]
        pos = m.end()
    out.append(prose(text[pos:]))
    return "".join(out)
