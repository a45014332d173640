"""Escaping untrusted text for the reports: Markdown (the rolling GitHub issue) and HTML.

Page-derived text — excerpts, titles, diff lines — is data. In Markdown it must not open a
table cell, a code span, a link, an image, raw HTML, or @-mention someone; in HTML it must
not become markup. Corpus text goes through the same functions: a pipe in a playbook line
must not break a table either.
"""

from __future__ import annotations

import html
import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-!|~>])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029]")


def one_line(text: str) -> str:
    return " ".join(_CONTROL.sub(" ", str(text)).split())


def md(text: str, limit: int = 0) -> str:
    """Inline Markdown-safe text, on one line.

    >>> md("a | b `c` [x](https://e.vil) <b> @bob")
    'a \\\\| b \\\\`c\\\\` \\\\[x\\\\]\\\\(https:\\\\/\\\\/e.vil\\\\) &lt;b&gt; &#64;bob'
    """
    flat = one_line(text)
    if limit and len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    flat = flat.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    flat = _MD_SPECIAL.sub(r"\\\1", flat)
    flat = flat.replace("@", "&#64;")
    return flat.replace("://", ":\\/\\/")


def md_code(text: str) -> str:
    """A Markdown code span (escapes do not work inside one: backticks are replaced)."""
    return "`" + one_line(text).replace("`", "'") + "`"


def h(text: str, limit: int = 0) -> str:
    """HTML-escaped text (quotes included), control characters removed."""
    flat = _CONTROL.sub(" ", str(text))
    if limit and len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return html.escape(flat, quote=True)


def safe_href(url: str) -> str | None:
    """An http(s) URL fit for an ``href``, or None (``javascript:`` and the like)."""
    return html.escape(url, quote=True) if re.match(r"https?://", url, re.IGNORECASE) else None
