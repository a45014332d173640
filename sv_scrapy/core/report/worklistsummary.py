"""The worklist document and its console summary (pure)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.page.prefilter import TOKENS_ABSENT


def worklist_stats(items: Sequence[ClaimRecord]) -> dict[str, Any]:
    absent = [i for i in items if i["prior"] == TOKENS_ABSENT]
    return {
        "total": len(items),
        "urls": len({i["source_url"] for i in items}),
        "by_prior": dict(sorted(Counter(i["prior"] for i in items).items())),
        "by_fetch_status": dict(sorted(Counter(i["fetch_status"] for i in items).items())),
        "by_scope": dict(sorted(Counter(i["scope"] for i in items).items(), key=lambda kv: (-kv[1], kv[0]))),
        "tokens_absent_count": len(absent),
        "tokens_absent": [
            {"id": i["id"], "claim": i["claim_text"][:160], "url": i["source_url"], "missing": i["missing_tokens"][:6],
             "stated_now_at": str((i.get("proposed_source") or {}).get("url") or "")}
            for i in absent
        ],
    }


def _clean(text: str, width: int) -> str:
    """One line, control characters removed: page- and corpus-derived text stays inert."""
    flat = "".join(ch if ch.isprintable() else " " for ch in text)
    flat = " ".join(flat.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def summary_lines(stats: Mapping[str, Any], path: str) -> list[str]:
    """What ``scrapy crawl worklist`` prints at the end."""
    lines = [
        f"worklist: {stats['total']} claim(s) over {stats['urls']} URL(s) -> {path}",
        "  priors: " + ", ".join(f"{k} {v}" for k, v in stats["by_prior"].items()),
        "  fetch:  " + ", ".join(f"{k} {v}" for k, v in stats["by_fetch_status"].items()),
    ]
    count = stats["tokens_absent_count"]
    if count:
        lines.append(f"⚠️  {count} claim(s) whose figure is ABSENT from the cited page — review these first:")
        for row in stats["tokens_absent"]:
            missing = ", ".join(row["missing"])
            lines.append(f"  - {row['id']}  missing {_clean(missing, 60)}  {_clean(row['url'], 120)}")
            # a label first: a claim's words never start a line a CI runner could read as a command
            lines.append(f"      claim: {_clean(row['claim'], 150)}")
            if row.get("stated_now_at"):  # found by searching the cited site: a suggestion to check
                lines.append(f"      stated now at: {_clean(row['stated_now_at'], 150)}")
    else:
        lines.append("TOKENS_ABSENT: 0")
    return lines
