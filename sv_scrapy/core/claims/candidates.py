"""Allowlist candidates: secondary hosts cited next to salient figures that look official.

A central bank on ``.org.in``, a city corporation on ``.org``, a ministry on ``.nl`` are not
in a government namespace, so their citations are never claims until a maintainer adds the
host to ``primary-source-allowlist.txt``. This module only *proposes*: it never promotes a
host. A host looks official when its name, a link text citing it, or its page title (when
fetched) names an official body — a central or reserve bank, a ministry, a court, an official
gazette, a statistics office, a city or municipal government, a tax or land authority, a
regulator, a parliament.

Pure: rows in, rows out; ``candidates_markdown`` renders them (escaped) for a report.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from sv_scrapy.core.claims.claims import SecondaryCitation
from sv_scrapy.core.claims.officialwords import official_word
from sv_scrapy.core.escape import md, md_code

# words naming official bodies in the languages the corpus cites; matched on word starts
_OFFICIAL_TEXT = re.compile(
    r"\b(?:central bank|reserve bank|national bank|bank of|monetary (?:authority|agency)|banco central|"
    r"banque (?:centrale|de france)|bundesbank|ministr(?:y|ies)|minist[eè]re|ministerio|ministero|ministerie|"
    r"ministerium|department of|court|tribunal|gazette|official journal|journal officiel|bolet[ií]n oficial|"
    r"staatsblad|gazzetta ufficiale|statistic|statisti[qk]|estad[ií]stic|census|city (?:of|council|corporation)|"
    r"municipal|corporation of|county council|council of|government|gouvernement|gobierno|governo|regierung|"
    r"revenue|tax (?:authority|administration|office|department)|land (?:registry|authority|department)|"
    r"cadastre|catastro|regulator|regulatory authority|financial (?:services|conduct) authority|parliament|"
    r"national assembly|senate|official)",
    re.IGNORECASE,
)
# host labels (split on dots and hyphens) that name official bodies; short codes ("rbi",
# "cbs") cannot be told from a company's, so only words count
_HOST_WORDS = frozenset({
    "court", "courts", "judiciary", "gazette", "stats", "statistics", "statistik", "census", "ministry",
    "treasury", "revenue", "tax", "city", "council", "parliament", "senate", "municipality", "government",
})
_HOST_PARTS = ("centralbank", "reservebank", "nationalbank", "bundesbank", "monetary", "municipal")


@dataclass
class Candidate:
    """One secondary host proposed for the allowlist."""

    host: str
    count: int = 0
    claim_ids: list[str] = field(default_factory=list)  # a few examples
    why: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"host": self.host, "count": self.count, "examples": self.claim_ids, "why": self.why}


def _bare(host: str) -> str:
    return host[4:] if host.startswith("www.") else host


def _official(text: str, host: str) -> str:
    """An official-body word in ``text``: the English pattern, else the host's languages' words
    (``core.claims.officialwords``: CLDR's languages of the ccTLD)."""
    found = _OFFICIAL_TEXT.search(text)
    return found.group(0).lower() if found else official_word(text, host)


def _reasons(host: str, texts: Iterable[str], title: str | None) -> list[str]:
    why: list[str] = []
    tokens = re.split(r"[.-]", _bare(host))
    word = next((t for t in tokens if t in _HOST_WORDS or any(part in t for part in _HOST_PARTS)), None)
    word = word or official_word(".".join(tokens[:-1]), host, in_host=True)  # not the TLD itself
    if word:
        why.append(f"host: {word}")
    for text in texts:
        found = _official(text, host)
        if found:
            why.append(f"link text: {found}")
            break
    # the page's title and its <meta> names (site name, publisher), one per line, when it was fetched
    for line in (title or "").splitlines():
        found = _official(line, host)
        if found:
            why.append(f"page title: {found}")
            break
    return why


def allowlist_candidates(
    cited: Iterable[SecondaryCitation],
    titles: Mapping[str, str] | None = None,
    examples: int = 3,
) -> list[Candidate]:
    """Hosts of ``cited`` (``Extraction.secondary_cited``) that look official, most cited first.

    ``titles`` maps a host to its page title when the audit fetched it (and the ``<meta>`` site
    name and publisher, one per line: ``core.page.text.page_names``).

    >>> for r in allowlist_candidates([
    ...     SecondaryCitation("www.rijksoverheid.nl", "nl:3:aa", "Rijksoverheid", "Tax"),
    ...     SecondaryCitation("propertytax.punecorporation.org", "in:7:bb", "PMC", "Tax"),
    ...     SecondaryCitation("rbi.org.in", "in:9:cc", "RBI circular", "Tax")], {"rbi.org.in": "Reserve Bank of India"}):
    ...     print(r.host, r.why)
    propertytax.punecorporation.org ['host: property tax']
    rbi.org.in ['page title: reserve bank']
    rijksoverheid.nl ['host: rijksoverheid', 'link text: rijksoverheid']
    >>> rows = allowlist_candidates([SecondaryCitation("www.rbi.org.in", "in:4:ab", "Reserve Bank of India", "Tax"),
    ...                              SecondaryCitation("blog.example.com", "in:9:cd", "a blog", "Tax")])
    >>> [(r.host, r.count, r.why) for r in rows]
    [('rbi.org.in', 1, ['link text: reserve bank'])]
    """
    by_host: dict[str, list[SecondaryCitation]] = {}
    for citation in cited:
        by_host.setdefault(_bare(citation.host), []).append(citation)
    rows = []
    for host, citations in by_host.items():
        title = (titles or {}).get(host) or (titles or {}).get("www." + host)
        why = _reasons(host, [c.link_text for c in citations], title)
        if why:
            ids = list(dict.fromkeys(c.claim_id for c in citations))
            rows.append(Candidate(host, len(citations), ids[:examples], why))
    return sorted(rows, key=lambda r: (-r.count, r.host))


def candidates_markdown(rows: Iterable[Candidate], limit: int = 30) -> str:
    """A Markdown table of candidates for a report (every cell escaped)."""
    rows = list(rows)
    if not rows:
        return "_No secondary host cited next to a figure looks official._\n"
    lines = [
        "Secondary hosts cited next to salient figures that look official — add them to "
        "`primary-source-allowlist.txt` if they are (never done automatically).",
        "",
        "| host | citations | why | examples |",
        "|---|---:|---|---|",
    ]
    for row in rows[:limit]:
        lines.append(
            f"| {md_code(row.host)} | {row.count} | {md('; '.join(row.why), 120)} | "
            f"{', '.join(md_code(i) for i in row.claim_ids)} |"
        )
    if len(rows) > limit:
        lines.append(f"| … {len(rows) - limit} more | | | |")
    return "\n".join(lines) + "\n"
