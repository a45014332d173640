"""Then and now in the reports: each looked-up claim's one line (``then_now.line``), escaped,
and the archived page's excerpt beside today's. A claim present now adds nothing."""

from __future__ import annotations

import re

from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.escape import h, md_inline, md_text, safe_href

_URL = re.compile(r"https?://[^\s<>|`]+")


def _parts(item: ClaimRecord) -> tuple[str, str, str]:
    """(the line without its archive URL, the archive URL or "", the then-excerpt or "")."""
    verdict = item.get("then_now") or {}
    line = str(verdict.get("line") or "")
    if not line:
        return "", "", ""
    then = item.get("then") or {}
    url = str(then.get("archive_url") or "")
    if url and url in line:
        line = line.replace(url, "").rstrip(" :")
    else:
        url = ""
    return line, url, str(then.get("excerpt") or "") if then.get("prior") == "TOKENS_PRESENT" else ""


def then_now_md(item: ClaimRecord) -> str:
    """One Markdown line (no newline): the verdict, and the archived URL as a link."""
    line, url, _ = _parts(item)
    if not line:
        return ""
    link = f" <{url}>" if url and _URL.fullmatch(url) else ""
    return f"🕰️ {md_text(line, 240)}{link}"


def then_excerpt_md(item: ClaimRecord) -> str:
    """The archived page's words around the figure (a quote, escaped), or ""."""
    _, _, excerpt = _parts(item)
    flat = " ".join(excerpt.split())
    return "“" + md_inline(flat if len(flat) <= 240 else flat[:239] + "…") + "”" if flat else ""


def then_now_html(item: ClaimRecord) -> str:
    """The line (and the then-excerpt) as an HTML fragment starting with ``<br>``, or ""."""
    line, url, excerpt = _parts(item)
    if not line:
        return ""
    href = safe_href(url) if url else None
    link = f' <a href="{href}" rel="noopener noreferrer nofollow">archived page</a>' if href else ""
    quote = f'<br><small>then:</small> <span class="old">{h(excerpt, 240)}</span>' if excerpt else ""
    return f'<br><span class="then">🕰️ {h(line, 240)}{link}</span>{quote}'
