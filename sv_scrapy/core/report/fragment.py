"""The link a report row gives to a claim's figure on its page (``core.page.textfragment`` makes it).

``fragment_link`` is the one function that builds such a link from a URL, text (a page's or an
excerpt) and the figure as the page writes it; the pull-request summary and the reports use it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sv_scrapy.core.page.textfragment import find_figure, fragment_link

__all__ = ["SAFE_MD_URL", "figure_of", "fragment_link", "item_link", "md_figure_link"]

# a URL that can stand in a Markdown link target as it is (no space, bracket, pipe or backtick)
SAFE_MD_URL = re.compile(r"https?://[^\s<>()\[\]`|\\]+")


def figure_of(item: Mapping[str, Any], excerpt: str) -> str:
    """The item's figure, as the page writes it, that ``excerpt`` shows (strong matches first)."""
    found = item.get("found_as") or {}
    order = [*(item.get("strong_matched") or []), *(item.get("matched_tokens") or [])]
    for raw in order:
        written = str(found.get(raw) or "")
        if written and find_figure(excerpt, written, None) >= 0:
            return written
    return ""


def item_link(item: Mapping[str, Any]) -> str | None:
    """The link a report row gives to the figure of one claim record: the one made with the page's
    text when it was read (``figure_link``), else one made from its first excerpt."""
    if item.get("figure_link"):
        return str(item["figure_link"])
    excerpts = item.get("excerpts") or []
    url = str(item.get("final_url") or item.get("source_url") or "")
    if not excerpts or item.get("text_method", "") and str(item.get("text_method")).startswith(("pdf", "ocr")):
        return None
    for excerpt in excerpts:
        figure = figure_of(item, str(excerpt))
        if figure:
            return fragment_link(url, str(excerpt).strip("…"), figure)
    return None


def md_figure_link(item: Mapping[str, Any]) -> str:
    """The Markdown link that lands on the record's figure ("↪ at the figure"), or "" when there is
    none or it cannot stand in Markdown unescaped."""
    link = item_link(item) or ""
    return f"[↪ at the figure]({link})" if SAFE_MD_URL.fullmatch(link) else ""
