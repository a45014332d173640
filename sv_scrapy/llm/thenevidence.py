"""Then and now for ``scrapy verify``: the archived page's excerpt (``then.excerpt`` of an
audit record) goes beside today's page evidence, labelled and fenced as untrusted data of its
own. A quote is checked against the text it came from: a verdict quoting only the archived
excerpt is not a statement of today's page, so it is held at ``INDETERMINATE`` with a note
naming the capture (``guardrails.apply_guardrails``, ``then_text``)."""

from __future__ import annotations

from collections.abc import Mapping

from sv_scrapy.core.claims.record import ClaimRecord

THEN_OPEN = "<untrusted_archived_evidence>"
THEN_CLOSE = "</untrusted_archived_evidence>"


def fence_then(text: str) -> str:
    """Archived text cannot close its block early (nor open a page-evidence block)."""
    for tag in (THEN_CLOSE, THEN_OPEN, "</untrusted_page_evidence>", "<untrusted_page_evidence>"):
        text = text.replace(tag, tag.replace("<", "< ", 1))
    return text


def then_excerpt(item: ClaimRecord) -> str:
    """The archived page's excerpt around the claim's figure, "" when there is none."""
    then = item.get("then") or {}
    return str(then.get("excerpt") or "") if isinstance(then, Mapping) else ""


def then_block(item: ClaimRecord) -> str:
    """The text block sent after today's evidence, or "" (no archived excerpt)."""
    excerpt = then_excerpt(item)
    if not excerpt:
        return ""
    then = item.get("then") or {}
    stamp = str(then.get("timestamp") or "")
    day = f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]}" if len(stamp) >= 8 else "an earlier date"
    return (f"Archived page evidence (the Internet Archive's capture of {day}, {then.get('archive_url', '')}): "
            "what the cited page said THEN, around the claim's Last verified date; context only, never today's "
            "page. Base `source_says` on today's page evidence above; if you can only quote the archived page, "
            f"say so in `note`.\n{THEN_OPEN}\n{fence_then(excerpt)}\n{THEN_CLOSE}")
