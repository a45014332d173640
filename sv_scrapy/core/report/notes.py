"""A report's ⚠️ lines (a partial run, no previous store, copies set aside): plain text whose URLs
become links (Markdown autolinks, HTML anchors) — never backslash-escaped prose."""

from __future__ import annotations

import re

from sv_scrapy.core.escape import h, md_code, md_inline, safe_href

_URL = re.compile(r"https?://[^\s<>\"'`|\\]*[^\s<>\"'`|\\.,;:)\]]")


def md_note(text: str) -> str:
    """Prose escaped where Markdown would act; each URL an autolink (code when it cannot be one).

    >>> md_note("set aside: https://www.estadistica.ad/, and *x*")
    'set aside: <https://www.estadistica.ad/>, and \\\\*x\\\\*'
    """
    out, pos = [], 0
    for m in _URL.finditer(text):
        out.append(md_inline(text[pos:m.start()]))
        url = m.group(0)
        out.append(f"<{url}>" if safe_href(url) else md_code(url))
        pos = m.end()
    out.append(md_inline(text[pos:]))
    return "".join(out)


def html_note(text: str) -> str:
    """Escaped text; each URL a link.

    >>> html_note("see https://a.gov/x?a=1&b=2.")
    'see <a href="https://a.gov/x?a=1&amp;b=2" rel="noopener noreferrer nofollow">https://a.gov/x?a=1&amp;b=2</a>.'
    """
    out, pos = [], 0
    for m in _URL.finditer(text):
        out.append(h(text[pos:m.start()]))
        href = safe_href(m.group(0))
        out.append(f'<a href="{href}" rel="noopener noreferrer nofollow">{h(m.group(0))}</a>' if href else h(m.group(0)))
        pos = m.end()
    out.append(h(text[pos:]))
    return "".join(out)
