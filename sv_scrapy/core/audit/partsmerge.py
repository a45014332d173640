"""``scrapy merge``'s judgement of the parts it is given, pure but for reading them: which parts are
complete and agree (same N, month and corpus commit, one folder per index, no host in two parts),
and what the one audit's finish gets from their union (``merged_inputs``).

A folder is a part when it holds ``part.json`` or a part's journal (``store/run.json`` whose
parameters name a ``part``: a part killed before its finish); anything else is the user's
mistake. A missing, unfinished, failed or mismatched part is no reason to write nothing: the
others are merged, and the one problem line names the parts and the hosts left unaudited."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
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
    """The small members of a finished part's file (its month, commit, joined sites)."""
    return part.doc.head if part.doc else {}


def _month_and_commit(part: PartFolder) -> tuple[str, str]:
    """The month a finished part audited (``YYYY-MM``) and the corpus commit it read."""
    doc = _head(part)
    return doc.get("generated_at", "")[:7], doc.get("corpus_commit", "")


def _of_another_count(part: PartFolder, reference: PartFolder, merged: Mapping[int, PartFolder]) -> str:
    """A part of another split (``2/3`` beside ``1/2``)."""
    if part.part.count == reference.part.count:
        return ""
    return f"part {part.part} in {part.folder} is of {part.part.count} parts, not {reference.part.count}"


def _of_another_audit(part: PartFolder, reference: PartFolder, merged: Mapping[int, PartFolder]) -> str:
    """A part of another month's audit, or of another corpus commit."""
    (month, commit), (want_month, want_commit) = _month_and_commit(part), _month_and_commit(reference)
    if (month, commit) == (want_month, want_commit):
        return ""
    return (f"part {part.part} in {part.folder} audited month {month} of corpus commit {commit or 'none'}, "
            f"not {want_month} of {want_commit or 'none'}")


def _given_twice(part: PartFolder, reference: PartFolder, merged: Mapping[int, PartFolder]) -> str:
    """A second folder for an index already merged (the first one given stays)."""
    if part.part.index not in merged:
        return ""
    return f"part {part.part} given twice ({merged[part.part.index].folder}, {part.folder}): the second left out"


# Why a finished part is left out, first rule first. Each rule takes the part, the reference part
# (the first finished one: its N, month and commit are the merge's) and the parts admitted so far
# (by index), and answers the problem line, or "" when the part passes it.
ADMISSION_RULES: tuple[Callable[[PartFolder, PartFolder, Mapping[int, PartFolder]], str], ...] = (
    _of_another_count, _of_another_audit, _given_twice,
)


def _admitted(complete: Sequence[PartFolder], reference: PartFolder) -> tuple[dict[int, PartFolder], list[str]]:
    """The finished parts that pass every admission rule (by index), and why the others do not.

    ``complete``: the finished parts in the order given; ``reference``: the first of them."""
    merged: dict[int, PartFolder] = {}
    refused: list[str] = []
    for part in complete:
        problem = next((found for rule in ADMISSION_RULES if (found := rule(part, reference, merged))), "")
        if problem:
            refused.append(problem)
        else:
            merged[part.part.index] = part
    return merged, refused


def _missing(parts: Sequence[PartFolder], count: int) -> list[str]:
    """An index of the N with no folder given (a folder that did not finish counts as given)."""
    given = {p.part.index for p in parts if p.part.count == count}
    return [f"part {i}/{count} missing" for i in range(1, count + 1) if i not in given]


def _from_another_store(merged: Iterable[PartFolder], joined: Mapping[str, str]) -> list[str]:
    """A merged part whose joined sites differ from the reference's: it started from another store."""
    return [f"part {p.part} in {p.folder} started from another store (its joined sites differ)"
            for p in merged if dict(_head(p).get("joined") or {}) != joined]


def judge(parts: Sequence[PartFolder]) -> Judgement:
    """Which parts are merged and what is wrong with the rest.

    ``parts``: every folder given to ``scrapy merge`` as ``read_part`` read it (finished or not,
    ``problem`` set on those that are not), in the order given; not empty. The first finished part
    is the reference: its N, month, corpus commit, corpus and joined sites are the merge's. A part
    is merged when it finished and passes every rule of ``ADMISSION_RULES``; the problems come in
    a fixed order (the parts' own, those rules', the missing indexes, then the merged set's)."""
    complete = [p for p in parts if p.doc is not None]
    reference = complete[0] if complete else parts[0]
    count = reference.part.count
    problems = [p.problem for p in parts if p.problem]
    merged, refused = _admitted(complete, reference)
    problems += refused + _missing(parts, count)
    corpus = list(reference.doc.corpus) if reference.doc else []
    joined = dict(_head(reference).get("joined") or {})
    problems += _from_another_store(merged.values(), joined)
    problems += _hosts_claimed_twice(list(merged.values()))
    # one hash per host, not per claim: 20,000 claims cite 2,000 hosts
    unaudited = sorted(h for h in {h for _, h in corpus} if owner_of(h, count, joined) not in merged)
    if not corpus and len(merged) < count:
        problems.append("no part finished: the hosts left unaudited are unknown")
    return Judgement(count, [merged[i] for i in sorted(merged)], problems, unaudited, corpus, joined)


def _hosts_claimed_twice(parts: Sequence[PartFolder]) -> list[str]:
    """A host whose claims two merged parts audited (``parts``: the merged ones, by index)."""
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
