"""Does an HTML response look like a client-rendered shell, to be read through a browser?

Only a thin page qualifies (visible text under ``min_text_chars``), and it must show a sign
of a JavaScript app: a script bundle, an empty root element (``#root``, ``#app``,
``#__next``, ``<app-root>``…), a ``<noscript>`` asking for JavaScript, or a script that
navigates to a same-site URL (``location = …``, ``location.href/replace/assign``,
``window.open``) or a ``<noscript>`` meta refresh: the figure is one navigation away.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

from sv_scrapy.core.page.outlinks import same_site

_SCRIPT_SRC = re.compile(r"<script\b[^>]*\bsrc\s*=", re.IGNORECASE)
_EMPTY_ROOT = re.compile(
    r"<(div|main|section|body)\b[^>]*\bid\s*=\s*[\"']?(root|app|__next|__nuxt|main|application|react-root|ng-app)"
    r"[\"']?[^>]*>\s*</\1>|<(app-root|my-app)\b[^>]*>\s*</\3>",
    re.IGNORECASE,
)
_SCRIPT_BLOCK = re.compile(r"<script\b[^>]*>(.*?)</script>", re.IGNORECASE | re.DOTALL)
_NAVIGATES = re.compile(
    r"""\blocation(?:\.href)?\s*=\s*["'`]([^"'`]*)["'`]"""
    r"""|\blocation\.(?:replace|assign)\s*\(\s*["'`]([^"'`]*)["'`]"""
    r"""|\bwindow\.open\s*\(\s*["'`]([^"'`]*)["'`]""")
_NOSCRIPT_REFRESH = re.compile(r"<noscript\b[^>]*>(?:(?!</noscript>).){0,400}?<meta\b[^>]*http-equiv\s*=\s*[\"']?refresh"
                               r"[^>]*\burl\s*=\s*([^\"'>\s]+)", re.IGNORECASE | re.DOTALL)
_NOSCRIPT_JS = re.compile(r"<noscript\b[^>]*>(?:(?!</noscript>).){0,400}?(javascript|enable|activ)", re.IGNORECASE | re.DOTALL)


def shell_signs(html: str, visible_text: str, min_text_chars: int, base: str = "") -> list[str]:
    """Why this page looks like a JavaScript shell; empty when it does not.

    >>> shell_signs('<div id="root"></div><script src="/app.js"></script>', "", 200)
    ['script bundle', 'empty root element']
    >>> shell_signs('<p>' + 'text ' * 100 + '</p><script src="/a.js"></script>', 'text ' * 100, 200)
    []
    """
    if len(visible_text.strip()) >= min_text_chars:
        return []
    return shell_markers(html, base)


def _same_site_target(target: str, base: str) -> bool:
    url = urljoin(base, target.strip())
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or url.split("#")[0] == base.split("#")[0]:
        return False
    return not base or same_site(parts.hostname or "", urlsplit(base).hostname or "")


def navigates(html: str, base: str = "") -> bool:
    """A script (or a ``<noscript>`` meta refresh) that sends the reader to a same-site URL.

    >>> navigates("<script>location.replace('/moved/page')</script>", "https://x.gouv.fr/old")
    True
    >>> navigates("<script>window.location.href = 'https://tracker.example.com/'</script>", "https://x.gouv.fr/old")
    False
    """
    for block in _SCRIPT_BLOCK.findall(html):
        for m in _NAVIGATES.finditer(block):
            if _same_site_target(next(g for g in m.groups() if g is not None), base):
                return True
    refresh = _NOSCRIPT_REFRESH.search(html)
    return bool(refresh and _same_site_target(refresh.group(1), base))


def shell_markers(html: str, base: str = "") -> list[str]:
    """The JavaScript-app signs in the markup alone (cheap: no text extraction)."""
    head = html[:200_000]
    signs = []
    if _SCRIPT_SRC.search(head):
        signs.append("script bundle")
    if _EMPTY_ROOT.search(head):
        signs.append("empty root element")
    if _NOSCRIPT_JS.search(head):
        signs.append("noscript asks for JavaScript")
    if navigates(head, base):
        signs.append("script navigates")
    return signs
