"""``scrapy merge``'s judgement of the parts it is given, pure but for reading them: which parts are
complete and agree (same N, month and corpus commit, one folder per index, no host in two parts),
and what the one audit's finish gets from their union (``merged_inputs``).

A folder is a part when it holds ``part.json`` or a part's journal (``store/run.json`` whose
parameters name a ``part``: a part killed before its finish); anything else is the user's
mistake. A missing, unfinished, failed or mismatched part is no reason to write nothing: the
others are merged, and the one problem line names the parts and the hosts left unaudited."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sv_scrapy.core.audit.partfile import PART_FILE, READ_VERSIONS, PartData, read_part_file
from sv_scrapy.core.audit.parts import Part, joined_sites, owner_of, parse_part
from sv_scrapy.core.audit.spool import Spool, SpooledList, SpooledRecords
from sv_scrapy.core.errors import ArgumentError, SvError

HOSTS_NAMED = 12  # hosts named in the problem line, at most (the rest counted)


@dataclass
class PartFolder:
    folder: Path
    part: Part
    doc: PartData | None = None  # part.json of a finished part
    problem: str = ""  # why it is not merged ("" when it is)

    @property
    def store(self) -> Path:
        return self.folder / "store"


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {}  # there but unreadable: a damaged part, not "no part"


def read_part(folder: Path, spool: Spool | None = None) -> PartFolder:
    """One part folder (its records and claims into ``spool``, by default one of its own in the
    system's temp folder); raises ``ArgumentError`` for a folder that is no part."""
    if not folder.is_dir():
        raise ArgumentError(f"{folder}: no such folder (give each part's SV_OUTPUT_DIR)")
    try:
        doc = read_part_file(folder / PART_FILE, spool or Spool())
    except (OSError, ValueError):
        doc = PartData({})  # there but unreadable: a damaged part, not "no part"
    journal = _read_json(folder / "store" / "run.json")
    raw_part = (doc.get("part") if doc else None) or ((journal or {}).get("params") or {}).get("part")
    if not raw_part:
        raise ArgumentError(f"{folder}: not an audit part (no {PART_FILE}, no part's journal in store/run.json)")
    try:
        part = parse_part(str(raw_part))
    except SvError:
        raise ArgumentError(f"{folder}: not an audit part (part {raw_part!r})") from None
    found = PartFolder(folder, part)
    finished = isinstance(journal, dict) and journal.get("finished") and doc is not None \
        and doc.get("run_id") == journal.get("run_id") and doc.get("version") in READ_VERSIONS
    if not finished or doc is None:
        found.problem = f"part {part} in {folder} did not finish"
    elif doc.get("failure"):
        found.problem = f"part {part} failed ({doc['failure']})"
    else:
        found.doc = doc
    return found


@dataclass
class Judgement:
    count: int  # N
    merged: list[PartFolder]  # complete, agreeing parts, by index
    problems: list[str] = field(default_factory=list)
    unaudited: list[str] = field(default_factory=list)  # hosts of the parts not merged
    corpus: list[tuple[str, str]] = field(default_factory=list)  # (claim id, host), corpus order
    joined: dict[str, str] = field(default_factory=dict)  # the sites the parts' store joined

    def joined_now(self) -> dict[str, str]:
        """The joined sites for next month: the store's, and this month's redirects to another site."""
        return joined_sites(self.joined, [hop for p in self.merged if p.doc for hop in p.doc.hops])

    def line(self) -> str:
        """The merge's one problem line ("" when every part is in)."""
        if not self.problems:
            return ""
        hosts = ""
        if self.unaudited:
            named = ", ".join(self.unaudited[:HOSTS_NAMED])
            more = len(self.unaudited) - HOSTS_NAMED
            hosts = f"; hosts left unaudited: {named}" + (f" and {more} more" if more > 0 else "")
        return "merge incomplete: " + "; ".join(self.problems) + hosts


def _head(part: PartFolder) -> dict[str, Any]:
    return part.doc.head if part.doc else {}


def judge(parts: Sequence[PartFolder]) -> Judgement:
    """Which parts are merged and what is wrong with the rest."""
    complete = [p for p in parts if p.doc is not None]
    reference = complete[0] if complete else parts[0]
    count = reference.part.count
    key = _head(reference).get("generated_at", "")[:7], _head(reference).get("corpus_commit", "")
    problems = [p.problem for p in parts if p.problem]
    merged: dict[int, PartFolder] = {}
    for p in complete:
        doc = _head(p)
        if p.part.count != count:
            problems.append(f"part {p.part} in {p.folder} is of {p.part.count} parts, not {count}")
        elif (doc.get("generated_at", "")[:7], doc.get("corpus_commit", "")) != key:
            problems.append(f"part {p.part} in {p.folder} audited month {doc.get('generated_at', '')[:7]} of corpus "
                            f"commit {doc.get('corpus_commit') or 'none'}, not {key[0]} of {key[1] or 'none'}")
        elif p.part.index in merged:
            problems.append(f"part {p.part} given twice ({merged[p.part.index].folder}, {p.folder}): the second left out")
        else:
            merged[p.part.index] = p
    given = {p.part.index for p in parts if p.part.count == count}
    problems += [f"part {i}/{count} missing" for i in range(1, count + 1) if i not in given]
    corpus = list(reference.doc.corpus) if reference.doc else []
    joined = dict(_head(reference).get("joined") or {})
    problems += [f"part {p.part} in {p.folder} started from another store (its joined sites differ)"
                 for p in merged.values() if dict(_head(p).get("joined") or {}) != joined]
    problems += _hosts_claimed_twice(list(merged.values()))
    # one hash per host, not per claim: 20,000 claims cite 2,000 hosts
    unaudited = sorted(h for h in {h for _, h in corpus} if owner_of(h, count, joined) not in merged)
    if not corpus and len(merged) < count:
        problems.append("no part finished: the hosts left unaudited are unknown")
    return Judgement(count, [merged[i] for i in sorted(merged)], problems, unaudited, corpus, joined)


def _hosts_claimed_twice(parts: Sequence[PartFolder]) -> list[str]:
    owner: dict[str, Part] = {}
    twice: list[str] = []
    for p in parts:
        for host in p.doc.hosts if p.doc else ():
            if owner.setdefault(host, p.part) != p.part and host not in twice:
                twice.append(host)
    return [f"host {h} claimed by two parts" for h in twice]


def merged_inputs(judgement: Judgement) -> dict[str, Any]:
    """The finish's crawl-side inputs over the merged parts' union, claims in corpus order (the
    fields of ``core.report.finish.AuditInputs`` that a part's ``part.json`` carries); claims and
    records are read from the parts' spools as the finish asks for them."""
    docs = [p.doc for p in judgement.merged if p.doc]
    claims = {cid: place for d in docs for cid, place in d.claims.items()}
    order = [cid for cid, _ in judgement.corpus if cid in claims]
    placed = set(order)
    order += [cid for cid in claims if cid not in placed]
    counts: dict[str, Any] = {}
    for d in docs:
        for name, value in d.get("archive_counts", {}).items():
            summed = isinstance(value, int) and not isinstance(value, bool) and name != "max_lookups"
            counts[name] = counts.get(name, 0) + value if summed else value
    first = docs[0] if docs else PartData({})
    return {
        "claims": SpooledList([claims[cid] for cid in order]), "claim_ids": order,
        "records": SpooledRecords({k: v for d in docs for k, v in d.records.items()}),
        "urls": {k: v for d in docs for k, v in d.urls.items()},
        "archive_results": {k: v for d in docs for k, v in d.get("archive_results", {}).items()},
        "archive_enabled": any(d.get("archive_enabled") for d in docs),
        "archive_counts": counts,
        "quarantined": [q for d in docs for q in d.get("quarantined", [])],
        "store_format": first.get("store_format", {}),
        "allowlist_rows": first.get("allowlist_rows", []),
        "linter_rows": first.get("linter_rows", []),
        "failure": judgement.line(),
        "corpus_commit": first.get("corpus_commit", ""),
    }
