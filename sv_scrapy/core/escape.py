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


# -- prose-preserving Markdown ---------------------------------------------------------------
# Only what Markdown (GFM, as GitHub renders an issue) would act on is escaped, so the raw file
# still reads like prose: hyphens, dates, dots and parentheses stay as written.
_MD_ACTIVE = re.compile(r"[\\`*\[\]|~]")  # escapes, code, emphasis, links/images, table cells, strikethrough
_MD_EDGE_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")  # intraword _ is literal in GFM
_MD_ENTITY = re.compile(r"&(?=#[0-9]+;|#[xX][0-9a-fA-F]+;|[A-Za-z][A-Za-z0-9]*;)")
_MD_MENTION = re.compile(r"(?<![\w`/])@(?=[A-Za-z0-9])")
_MD_AUTOLINK = re.compile(r"(?i)\b(https?|ftp)://|\bwww\.")
# a heading, quote, list item or thematic break at the start of a line
_MD_LEADING = re.compile(r"#{1,6}(?=\s|$)|>|[-+](?=\s|$)|-(?=-)|=(?==)|\d{1,9}(?=[.)](?:\s|$))")


def md_inline(text: str) -> str:
    """Escape one line's inline Markdown (no truncation, no line-start rule).

    >>> md_inline("DMTO 5.81 % (since 2026-12-03, art. 1594 D) | x")
    'DMTO 5.81 % (since 2026-12-03, art. 1594 D) \\\\| x'
    >>> md_inline("<b>a</b> [x](https://e.vil) @bob a@b.fr &amp; R&D")
    '&lt;b>a&lt;/b> \\\\[x\\\\](https:\\\\/\\\\/e.vil) &#64;bob a@b.fr &amp;amp; R&D'
    """
    flat = _MD_ENTITY.sub("&amp;", re.sub(r"\s+", " ", _CONTROL.sub(" ", str(text))))  # edges kept: pieces join
    flat = _MD_ACTIVE.sub(r"\\\g<0>", flat)
    flat = _MD_EDGE_UNDERSCORE.sub(r"\\_", flat)
    flat = flat.replace("<", "&lt;")
    flat = _MD_MENTION.sub("&#64;", flat)
    return _MD_AUTOLINK.sub(lambda m: m.group(0).replace("://", ":\\/\\/").replace(".", "\\."), flat)


def md_lead(escaped: str) -> str:
    """Neutralise a line start Markdown would read as a heading, quote or list item.

    >>> [md_lead(s) for s in ("# 1", "- a", "> q", "12. x", "3) y", "2026-12-03 ok", "-5 %", "#1 rate", "1.5 %")]
    ['\\\\# 1', '\\\\- a', '\\\\> q', '12\\\\. x', '3\\\\) y', '2026-12-03 ok', '-5 %', '#1 rate', '1.5 %']
    """
    m = _MD_LEADING.match(escaped)
    if not m:
        return escaped
    if m.group(0)[0].isdigit():
        end = m.end()
        return escaped[:end] + "\\" + escaped[end:]
    return "\\" + escaped


def md_text(text: str, limit: int = 0) -> str:
    """Markdown-safe prose on one line: escaped only where Markdown would change its meaning."""
    flat = one_line(text)
    if limit and len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return md_lead(md_inline(flat))


# -- GitHub workflow commands --------------------------------------------------------------------
# As the Actions toolkit escapes them (@actions/core's command.ts): a message cannot end its
# command (a newline) or be read as an escape; a property value cannot close its property list
# either (":" and ","), so a claim's words can never become a command of their own.
def command_data(text: str) -> str:
    """A workflow command's message.

    >>> command_data("50%\\r\\n::warning::x")
    '50%25%0D%0A::warning::x'
    """
    return str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def command_property(text: str) -> str:
    """A workflow command's property value (``file=``, ``title=``).

    >>> command_property("a, b: c\\n")
    'a%2C b%3A c%0A'
    """
    return command_data(text).replace(":", "%3A").replace(",", "%2C")
