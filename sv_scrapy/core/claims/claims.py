"""Markdown playbooks -> claim records (a primary citation next to a salient figure).

A *claim* is a markdown link to a primary source whose line carries at least
``min_salient_values`` salient figures owned by that link. Navigation/roster links with no
figure, links under skipped headings, "verify at" pointer links, and links inside fenced
code are not claims. Each claim has a stable id ``scope:line:sha1(url)[:8]``.

Pure: reads files, returns data, never writes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sv_scrapy.core.claims.links import Link, attribute, find_code_urls, find_links, label_span, mask_urls, pointer_flags
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.claims.stamps import Stamp, mask_stamp_dates, parse_file_stamp, parse_line_stamp
from sv_scrapy.core.errors import ArgumentError, CorpusError
from sv_scrapy.core.figures.values import Value, extract_values, has_salient, numbers_instrument
from sv_scrapy.core.hosts import SECONDARY, HostRules

HEADING_RE = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<title>.*?)\s*#*\s*$")
FENCE_RE = re.compile(r"^\s*(```|~~~)")
_BESIDE = 160  # "next to a figure": within this many characters of a code URL
EXCLUDED_DIRS = frozenset({"_local", "_ci", ".git", "node_modules"})


@dataclass(frozen=True)
class ExtractOptions:
    """What to extract; built from config plus the command's filters."""

    scope_dirs: tuple[str, ...]
    skip_files: frozenset[str] = frozenset()
    skip_headings: tuple[str, ...] = ()
    primary_only: bool = True
    min_salient_values: int = 1
    claim_window_chars: int = 360
    salient_types: tuple[str, ...] = ("pct", "money", "statute", "date")
    country: str | None = None
    section: str | None = None
    code_urls: bool = False  # backticked/bare URLs cite like markdown links (extraction.code_urls)


@dataclass(frozen=True)
class SecondaryCitation:
    """A non-primary link owning a salient figure: raw material for allowlist candidates."""

    host: str
    claim_id: str
    link_text: str
    section: str


@dataclass
class Claim:
    """One claim <-> citation pair; ``as_dict`` gives the seed's record shape."""

    id: str
    scope: str
    section: str
    line_no: int
    claim_text: str
    values: list[dict[str, Any]]
    source_url: str
    source_host: str
    source_tier: str
    inline_stamp: dict[str, str] | None
    file: str

    def as_dict(self) -> ClaimRecord:
        return {"id": self.id, "scope": self.scope, "section": self.section, "line_no": self.line_no,
                "claim_text": self.claim_text, "values": self.values, "source_url": self.source_url,
                "source_host": self.source_host, "source_tier": self.source_tier, "inline_stamp": self.inline_stamp,
                "file": self.file}


@dataclass
class Extraction:
    """Claims plus the counters ``scrapy extract`` reports."""

    claims: list[Claim] = field(default_factory=list)
    links_seen: int = 0
    primary_links: int = 0
    skipped_pointer_links: int = 0
    files_read: int = 0
    unreadable: list[str] = field(default_factory=list)  # "path: reason"
    outside_root: list[str] = field(default_factory=list)  # symlinks out of the corpus: not read

    @property
    def skipped(self) -> list[str]:
        """Every file not read, with why: one warning line each."""
        return [*self.unreadable, *self.outside_root]
    scopes_seen: set[str] = field(default_factory=set)  # before the --country filter
    code_urls_next_to_figure: int = 0  # primary backticked/bare URLs with a salient figure beside them
    secondary_cited: list[SecondaryCitation] = field(default_factory=list)


def scope_for(rel_path: Path, scope_dir: str) -> str:
    """``countries/<cc>/…`` -> ``cc``; anything else -> ``shared/<path under its scope dir>``.

    >>> scope_for(Path("skills/x/countries/fr/playbook.md"), "skills/x/countries")
    'fr'
    >>> scope_for(Path("skills/x/shared/exit/western-europe.md"), "skills/x/shared")
    'shared/exit/western-europe'
    """
    parts = rel_path.parts
    if "countries" in parts[:-1]:
        return parts[parts.index("countries") + 1].lower()
    inner = rel_path.relative_to(scope_dir) if rel_path.is_relative_to(scope_dir) else Path(rel_path.name)
    return "shared/" + inner.with_suffix("").as_posix()


def scope_matches(scope: str, wanted: str | None) -> bool:
    """``fr`` matches ``fr``; ``western-europe`` or ``shared/exit`` match the shared doc."""
    if not wanted:
        return True
    wanted = wanted.strip("/").lower()
    return scope == wanted or scope.endswith("/" + wanted) or scope.startswith(wanted + "/")


def unknown_scope(ex: Extraction, wanted: str | None, flag: str) -> ArgumentError | None:
    """A ``--country``/``-a country`` that matches no scope of the corpus is a mistake."""
    if not wanted or any(scope_matches(s, wanted) for s in ex.scopes_seen):
        return None
    known = ", ".join(sorted(ex.scopes_seen)) or "none"
    return ArgumentError(f"{flag}{wanted!r}: no scope of the corpus matches (known: {known})")


def claim_id(scope: str, line_no: int, url: str) -> str:
    return f"{scope}:{line_no}:{hashlib.sha1(url.encode()).hexdigest()[:8]}"


def claim_sentence(line: str, link_start: int, window: int) -> str:
    """The whole (stripped) line, or a ``window``-wide slice centred on the link."""
    lead = len(line) - len(line.lstrip())
    text = line.strip()
    if len(text) <= window:
        return text
    centre = max(0, link_start - lead)
    lo = max(0, centre - window // 2)
    hi = min(len(text), lo + window)
    lo = max(0, hi - window)
    return ("…" if lo else "") + text[lo:hi].strip() + ("…" if hi < len(text) else "")


@lru_cache(maxsize=16)
def _skip_heading_re(skip_headings: tuple[str, ...]) -> re.Pattern[str] | None:
    """Whole-word match, so "Sources" skips "Primary sources" but not "Resources"."""
    if not skip_headings:
        return None
    return re.compile(r"\b(?:" + "|".join(re.escape(sk) for sk in skip_headings) + r")\b", re.IGNORECASE)


def _heading_skipped(titles: list[str], skip_headings: tuple[str, ...]) -> bool:
    rx = _skip_heading_re(skip_headings)
    return rx is not None and any(rx.search(title) for title in titles)


def iter_markdown(root: Path, opts: ExtractOptions, outside: list[str] | None = None) -> Iterator[tuple[Path, str]]:
    """(path, scope dir) for every playbook file under the configured scope dirs, sorted.

    Only files that resolve inside the corpus root are read: a symlink (or a symlinked
    folder) pointing elsewhere — ``/etc/shadow``, another checkout — is skipped and named
    in ``outside``. A corpus in which no playbook is found at all is the user's mistake.
    """
    if not root.is_dir():
        raise CorpusError(f"{root}: corpus root not found (SV_CORPUS_ROOT)")
    real_root = root.resolve()
    found = 0
    for scope_dir in opts.scope_dirs:
        base = root / scope_dir
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*.md")):
            rel = path.relative_to(root)
            if path.name in opts.skip_files or EXCLUDED_DIRS.intersection(rel.parts):
                continue
            found += 1
            if not path.resolve().is_relative_to(real_root):
                if outside is not None:
                    outside.append(f"{path}: links outside the corpus root; not read")
                continue
            yield path, scope_dir
    if not found:
        looked = ", ".join(f"{d}/" for d in opts.scope_dirs) or "(none configured)"
        raise CorpusError(f"{root}: no playbook (*.md) found under {looked} "
                          "(extraction.scope_dirs); is SV_CORPUS_ROOT the corpus root?")


class _FileState:
    """Heading path and stamp defaults while walking one file."""

    def __init__(self, file_stamp: Stamp | None) -> None:
        self.file_stamp = file_stamp
        self.headings: list[tuple[int, str, Stamp | None]] = []

    def enter_heading(self, level: int, title: str) -> None:
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, title, parse_line_stamp(title, origin="heading")))

    @property
    def section(self) -> str:
        return self.headings[-1][1] if self.headings else "(none)"

    @property
    def titles(self) -> list[str]:
        return [title for _, title, _ in self.headings]

    def default_stamp(self) -> Stamp | None:
        for _, _, stamp in reversed(self.headings):
            if stamp:
                return stamp
        return self.file_stamp


def _file_stamp(lines: list[str]) -> Stamp | None:
    for line in lines:
        stamp = parse_file_stamp(line)
        if stamp:
            return stamp
    return None


# words that make a date in link text the thing's own ("signed 30 Jun 2011", "Decree of …",
# "del 29 desembre 2000", "Effective July 1, 2025"), not the date of the page it links
_DATE_OWN_WORDS = frozenset({
    "of", "on", "from", "since", "until", "till", "to", "effective", "signed", "dated", "issued", "enacted",
    "adopted", "approved", "force", "de", "del", "du", "des", "da", "do", "dal", "della", "vom", "von", "am", "le", "el",
})
_LABEL_TAIL_RE = re.compile(r"\)?(?:\s[^\W\d_]+)?\)?\s*\Z")  # "… 2024-02-28 circular]", "… (Apr 2025)]"
_LAST_WORD_RE = re.compile(r"([^\W\d_]+)[\s,(]*\Z")
_WORD_REACH = 40  # the word before a date: searched in a short window, so a long link text costs no more


def _page_label(value: Value, label: tuple[int, int], line: str, in_label: list[Value]) -> bool:
    """Whether ``value``, inside the link text spanning ``label`` on ``line`` (holding the figures
    ``in_label``), only labels the linked page: a record number ("[NTA No.15001]"), or
    the page's own date closing a source's name ("[Revenue Board press release 3 Mar 2024]",
    "[Tax Bulletin (Feb 2025)]") in a link text with no other figure."""
    if value.type == "statute":
        return value.raw[:2].lower() in ("no", "nr", "n°", "nº") and not numbers_instrument(line, value)
    if value.type != "date" or sum(v.salient for v in in_label) > 1:
        return False
    if not _LABEL_TAIL_RE.match(line, value.end, label[1]):
        return False
    word = _LAST_WORD_RE.search(line, max(label[0], value.pos - _WORD_REACH), value.pos)
    return not (word and word.group(1).lower() in _DATE_OWN_WORDS)


def _line_values(line: str, links: list[Link], opts: ExtractOptions) -> list[Value]:
    """The line's figures, less those a link's text holds only as its page's label (``_page_label``)."""
    values = extract_values(mask_stamp_dates(mask_urls(line)), opts.salient_types)
    dropped: set[int] = set()
    for lo, hi in (label_span(link) for link in links if link.text):
        in_label = [v for v in values if lo <= v.pos and v.end <= hi]
        dropped.update(id(v) for v in in_label if _page_label(v, (lo, hi), line, in_label))
    return [v for v in values if id(v) not in dropped] if dropped else values


def _prose_lines(lines: list[str], state: _FileState) -> Iterator[tuple[int, str]]:
    """(line number, line) for each line that may cite a URL: outside fenced code, no heading.

    ``lines`` are the document's lines; ``state`` takes every heading on the way, so it names
    the section of the line yielded.
    """
    in_fence = False
    for line_no, line in enumerate(lines, 1):
        if FENCE_RE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        heading = HEADING_RE.match(line)
        if heading:
            state.enter_heading(len(heading.group("hashes")), heading.group("title").strip())
            continue
        if "http" in line:
            yield line_no, line


def _tier(hosts: HostRules, link: Link) -> str:
    """The tier ``hosts`` gives the host of ``link``'s URL."""
    return hosts.tier(urlsplit(link.url).hostname or "")


def _line_links(line: str, opts: ExtractOptions) -> tuple[list[Link], list[Link]]:
    """(the links that cite, the bare and backticked URLs) of ``line``; with ``opts.code_urls``
    the code URLs cite too, so they are among the first list as well, in line order."""
    links = find_links(line)
    code_links = find_code_urls(line, links)
    if opts.code_urls and code_links:
        links = sorted([*links, *code_links], key=lambda link: link.start)
    return links, code_links


def _section_wanted(state: _FileState, opts: ExtractOptions) -> bool:
    """Whether the line's section (``state``) is extracted: under no skipped heading and, with
    ``opts.section``, inside the wanted section."""
    if _heading_skipped(state.titles, opts.skip_headings):
        return False
    return not opts.section or opts.section.lower() in state.section.lower()


def _code_urls_beside_figures(line: str, code_links: list[Link], hosts: HostRules, opts: ExtractOptions) -> int:
    """How many primary code URLs of a line that cites nothing else have a salient figure within
    ``_BESIDE`` characters (``hosts`` tiers them; ``opts.salient_types`` says what is salient)."""
    primary = [u for u in code_links if _tier(hosts, u) != SECONDARY]
    if not primary:
        return 0
    masked = mask_stamp_dates(mask_urls(line))
    return sum(
        has_salient(masked[max(0, u.start - _BESIDE) : u.end + _BESIDE], opts.salient_types) for u in primary
    )


@dataclass(frozen=True)
class _CitedLine:
    """One line with its links, as the claim step reads it.

    ``scope``/``rel``/``line_no`` place it; ``line`` is its text; ``links`` its citing links and
    ``tiers`` their hosts' tiers (same order); ``section`` the heading it sits under; ``stamp``
    the stamp its claims carry (its own, else its heading's or the file's).
    """

    scope: str
    rel: str
    line_no: int
    line: str
    links: list[Link]
    tiers: list[str]
    section: str
    stamp: Stamp | None


def _line_claims(cited: _CitedLine, values: list[Value], opts: ExtractOptions, seen: set[str], out: Extraction) -> None:
    """Append a claim for each link of ``cited`` that is primary (or any, without
    ``opts.primary_only``), no pointer, and owns a salient figure of ``values`` when the line has
    several links; ``seen`` holds the claim ids already made (a URL cited twice on a line is one
    claim). Secondary links owning a figure are noted in ``out.secondary_cited``."""
    links, line = cited.links, cited.line
    owned = attribute(values, links)
    for link, tier, is_pointer, link_values in zip(links, cited.tiers, pointer_flags(line, links), owned, strict=True):
        cid = claim_id(cited.scope, cited.line_no, link.url)
        host = (urlsplit(link.url).hostname or "").lower()
        if tier == SECONDARY and not is_pointer and any(v.salient for v in link_values):
            out.secondary_cited.append(SecondaryCitation(host, cid, link.text, cited.section))
        if opts.primary_only and tier == SECONDARY:
            continue
        if is_pointer:
            out.skipped_pointer_links += 1
            continue
        # on a multi-link line a link owning no salient figure is a roster co-citation
        if len(links) > 1 and not any(v.salient for v in link_values):
            continue
        if cid in seen:
            continue
        seen.add(cid)
        out.claims.append(
            Claim(
                id=cid,
                scope=cited.scope,
                section=cited.section,
                line_no=cited.line_no,
                claim_text=claim_sentence(line, link.start, opts.claim_window_chars),
                values=[v.as_dict() for v in link_values],
                source_url=link.url,
                source_host=host,
                source_tier=tier,
                inline_stamp=cited.stamp.as_dict() if cited.stamp else None,
                file=cited.rel,
            )
        )


def extract_file(text: str, scope: str, rel: str, hosts: HostRules, opts: ExtractOptions, out: Extraction) -> None:
    """Append the claims of one markdown document to ``out``, and count its links there.

    ``text`` is the document; ``scope`` its scope (``"fr"``, ``"shared/exit/western-europe"``);
    ``rel`` its posix path under the corpus root; ``hosts`` the rules that tier each link's host;
    ``opts`` what to extract (skipped headings, section, salient types, primary only…).
    """
    lines = text.splitlines()
    state = _FileState(_file_stamp(lines))
    seen = {c.id for c in out.claims}
    for line_no, line in _prose_lines(lines, state):
        links, code_links = _line_links(line, opts)
        if not links and not code_links:
            continue
        tiers = [_tier(hosts, link) for link in links]
        out.links_seen += len(links)
        out.primary_links += sum(tier != SECONDARY for tier in tiers)
        if not _section_wanted(state, opts):
            continue
        if not links:  # only code URLs, not cited: count the primary ones a figure sits beside
            out.code_urls_next_to_figure += _code_urls_beside_figures(line, code_links, hosts, opts)
            continue
        values = _line_values(line, links, opts)
        n_salient = sum(v.salient for v in values)
        if n_salient:
            out.code_urls_next_to_figure += sum(_tier(hosts, u) != SECONDARY for u in code_links)
        if n_salient < max(1, opts.min_salient_values):
            continue
        stamp = parse_line_stamp(line) or state.default_stamp()
        cited = _CitedLine(scope, rel, line_no, line, links, tiers, state.section, stamp)
        _line_claims(cited, values, opts, seen, out)


@dataclass(frozen=True)
class CorpusFile:
    path: Path
    rel: str  # posix path under the corpus root
    scope: str
    text: str


def read_corpus(root: Path, opts: ExtractOptions, unreadable: list[str], outside: list[str] | None = None,
                scopes_seen: set[str] | None = None) -> Iterator[CorpusFile]:
    """The one corpus walk (extraction and the linter): each playbook in scope, read as UTF-8; an
    unreadable or non-UTF-8 file is named in ``unreadable`` ("path: reason") and skipped."""
    for path, scope_dir in iter_markdown(root, opts, outside):
        rel = path.relative_to(root)
        scope = scope_for(rel, scope_dir)
        if scopes_seen is not None:
            scopes_seen.add(scope)
        if not scope_matches(scope, opts.country):
            continue
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            unreadable.append(f"{path}: not UTF-8 (byte {exc.start})")
            continue
        except OSError as exc:
            unreadable.append(f"{path}: {exc.strerror or exc}")
            continue
        yield CorpusFile(path, rel.as_posix(), scope, text)


def extract_corpus(root: Path, hosts: HostRules, opts: ExtractOptions, texts: dict[str, str] | None = None) -> Extraction:
    """Walk the corpus; an unreadable or non-UTF-8 file is recorded and skipped. ``texts``, when
    given, receives each file's text by its path under the root (the pull-request check aligns
    two revisions' lines with them)."""
    out = Extraction()
    for file in read_corpus(root, opts, out.unreadable, out.outside_root, out.scopes_seen):
        out.files_read += 1
        if texts is not None:
            texts[file.rel] = file.text
        extract_file(file.text, file.scope, file.rel, hosts, opts, out)
    return out


def extraction_stats(ex: Extraction) -> dict[str, object]:
    """The JSON summary ``scrapy extract`` prints."""
    by_tier: dict[str, int] = {}
    by_scope: dict[str, int] = {}
    for c in ex.claims:
        by_tier[c.source_tier] = by_tier.get(c.source_tier, 0) + 1
        by_scope[c.scope] = by_scope.get(c.scope, 0) + 1
    stamps = [c.inline_stamp for c in ex.claims]
    return {
        "total_claims": len(ex.claims),
        "links_seen": ex.links_seen,
        "primary_links": ex.primary_links,
        "skipped_pointer_links": ex.skipped_pointer_links,
        "code_urls_next_to_figure": ex.code_urls_next_to_figure,
        "by_tier": dict(sorted(by_tier.items())),
        "by_scope": dict(sorted(by_scope.items(), key=lambda kv: (-kv[1], kv[0]))),
        "stamped": sum(1 for s in stamps if s),
        "stamped_inline": sum(1 for s in stamps if s and s["origin"] == "line"),
        "stale_marked": sum(1 for s in stamps if s and s["kind"].startswith("stale")),
        "never_verified": sum(1 for s in stamps if not s),
        "files_read": ex.files_read,
        "unreadable_files": len(ex.unreadable),
        "outside_root_skipped": len(ex.outside_root),
    }
