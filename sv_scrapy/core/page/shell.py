"""Does an HTML response look like a client-rendered shell, to be read through a browser?

Only a thin page qualifies (visible text under ``min_text_chars``), and it must show a sign
of a JavaScript app: a script bundle, an empty root element (``#root``, ``#app``,
``#__next``, ``<app-root>``…), or a ``<noscript>`` asking for JavaScript.
"""

from __future__ import annotations

import re

_SCRIPT_SRC = re.compile(r"<script\b[^>]*\bsrc\s*=", re.IGNORECASE)
_EMPTY_ROOT = re.compile(
    r"<(div|main|section|body)\b[^>]*\bid\s*=\s*[\"']?(root|app|__next|__nuxt|main|application|react-root|ng-app)"
    r"[\"']?[^>]*>\s*</\1>|<(app-root|my-app)\b[^>]*>\s*</\3>",
    re.IGNORECASE,
)
_NOSCRIPT_JS = re.compile(r"<noscript\b[^>]*>(?:(?!</noscript>).){0,400}?(javascript|enable|activ)", re.IGNORECASE | re.DOTALL)


def shell_signs(html: str, visible_text: str, min_text_chars: int) -> list[str]:
    """Why this page looks like a JavaScript shell; empty when it does not.

    >>> shell_signs('<div id="root"></div><script src="/app.js"></script>', "", 200)
    ['script bundle', 'empty root element']
    >>> shell_signs('<p>' + 'text ' * 100 + '</p><script src="/a.js"></script>', 'text ' * 100, 200)
    []
    """
    if len(visible_text.strip()) >= min_text_chars:
        return []
    return shell_markers(html)


def shell_markers(html: str) -> list[str]:
    """The JavaScript-app signs in the markup alone (cheap: no text extraction)."""
    head = html[:200_000]
    signs = []
    if _SCRIPT_SRC.search(head):
        signs.append("script bundle")
    if _EMPTY_ROOT.search(head):
        signs.append("empty root element")
    if _NOSCRIPT_JS.search(head):
        signs.append("noscript asks for JavaScript")
    return signs
