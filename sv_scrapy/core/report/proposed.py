"""Where the figure stands now (``proposed_source``, issue #38), as each report says it: a suggestion
found by searching the cited site, for a person to check — never an edit of the playbook.

* the Markdown and HTML reports' column "stated now at": the page, linked at the figure;
* ``changes.md`` and the pull-request annotation: "the figure stands at <url>";
* the plain line of a search that found nothing ("searched the sitemap (N pages) …: not found").

The URL is the site's (untrusted): it is linked only when it can stand in a link as it is
(``SAFE_MD_URL``), else shown as text by the caller's escaping.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sv_scrapy.core.escape import md_inline
from sv_scrapy.core.report.fragment import SAFE_MD_URL

FOUND_VIA = {"link": "a link of the cited page", "sitemap": "the site's sitemap", "search": "the site's search"}


def proposal(item: Mapping[str, Any]) -> dict[str, Any]:
    found = item.get("proposed_source")
    return found if isinstance(found, dict) and found.get("url") else {}


def stands_at(item: Mapping[str, Any]) -> str:
    """The plain sentence (``changes.md``, annotations): "the figure stands at <url> (found via …)"; "" when none."""
    found = proposal(item)
    if not found:
        return ""
    via = FOUND_VIA.get(str(found.get("found_via")), "searching the site")
    return f"the figure stands at {found['url']} (found via {via}; a suggestion to check, not an edit)"


def stated_now_md(item: Mapping[str, Any]) -> str:
    """The Markdown column: the page linked at the figure, how it was found; what was searched when none."""
    found = proposal(item)
    if not found:
        note = str(item.get("proposed_note") or "")
        return f"_{md_inline(note)}_" if note else ""
    url, link = str(found["url"]), str(found.get("link") or found["url"])
    shown = md_inline(url.split("://", 1)[-1])
    target = link if SAFE_MD_URL.fullmatch(link) else url if SAFE_MD_URL.fullmatch(url) else ""
    page = f"[{shown}]({target})" if target else shown
    return f"{page} _(found via {FOUND_VIA.get(str(found.get('found_via')), 'the site')}; check, then cite)_"


def stated_now_html(item: Mapping[str, Any], escape: Callable[[str], str], link: Callable[[str], str]) -> str:
    """The HTML column: ``link`` renders the page (the report's own safe link), ``escape`` the text."""
    found = proposal(item)
    if not found:
        note = str(item.get("proposed_note") or "")
        return f"<small>{escape(note)}</small>" if note else ""
    via = FOUND_VIA.get(str(found.get("found_via")), "the site")
    target = str(found.get("link") or found["url"])
    return f"{link(target)}<br><small>found via {escape(via)}; check, then cite</small>"
