"""The pull-request check judges a change by the base's rules: the config folder as the revision
REF holds it (``_source-verify.json``, ``_url-liveness.json``, the allowlist, the reviewed file),
whatever the change did to those files. Its extraction, politeness and exclusions are the base's
for both revisions, so a change cannot make its own claim vanish or lower the floors it runs at.

What the change does to those files is itself a finding (a warning of the check, on the file):
how many claims stop being claims, which hosts it excludes, which floors it lowers. A checked
claim those rules would hide says so on its own line; its failing finding stands (exit 3). A
maintainer who means the change merges it first, on its own: the next check reads it at REF.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sv_scrapy.core.audit.reviewfile import FILE_NAME as REVIEWED_FILE
from sv_scrapy.core.errors import ConfigError
from sv_scrapy.core.page.safety import host_listed
from sv_scrapy.core.policy import HostPolicy
from sv_scrapy.core.politeness import policy_for
from sv_scrapy.run.config import (
    ALLOWLIST_FILE,
    LIVENESS_FILE,
    SOURCE_VERIFY_FILE,
    Config,
    read_allowlist,
    read_file,
)
from sv_scrapy.run.corpusgit import Revision, reader_at, repo_path
from sv_scrapy.run.runtime import config_in

LISTED = 5  # hosts or floors named in the warning; the rest counted


def base_config(rev: Revision, config_dir: Path) -> Config:
    """The config folder as ``rev`` holds it (files outside the repository: from disk). A folder
    that is not valid there is the user's mistake: one line naming the revision, exit 2."""
    try:
        return config_in(config_dir, reader_at(rev))
    except ConfigError as exc:
        raise ConfigError(f"the base's rules ({rev.ref} at {rev.commit[:12]}), which judge the change: {exc}") from None


def edited_rules(rev: Revision, config_dir: Path) -> list[str]:
    """The rule files whose content the change edits (JSON compared parsed, the allowlist as hosts)."""
    base, head = reader_at(rev), read_file
    out: list[str] = []

    def name(path: Path) -> str:
        return repo_path(rev, path) or str(path)

    for file in (SOURCE_VERIFY_FILE, LIVENESS_FILE, REVIEWED_FILE):
        path = config_dir / file
        if _parsed(base(path)) != _parsed(head(path)):
            out.append(name(path))
    lists = {which: read_allowlist(config_dir, read) for which, read in (("base", base), ("head", head))}
    if lists["base"] != lists["head"]:
        out.append(name(lists["head"][0] or lists["base"][0] or config_dir / ALLOWLIST_FILE))
    return out


def _parsed(text: str | None) -> Any:
    try:
        return json.loads(text) if text is not None else None
    except json.JSONDecodeError:
        return text  # as text: an edit is still an edit


def _key(claim: Mapping[str, Any]) -> tuple[str, int, str]:
    return str(claim.get("file")), int(claim.get("line_no") or 0), str(claim.get("source_url"))


def _host(claim: Mapping[str, Any]) -> str:
    return (urlsplit(str(claim.get("source_url") or "")).hostname or "").lower()


def _lowered(old: HostPolicy, new: HostPolicy) -> bool:
    return new.interval_ms < old.interval_ms or new.concurrency > old.concurrency


def _policy(p: HostPolicy) -> str:
    return f"{p.interval_ms} ms x{p.concurrency}"


@dataclass(frozen=True)
class RulesChange:
    """What a change does to the rules that judge it (all empty: it leaves them alone)."""

    edited: tuple[str, ...]  # the rule files it edits, as the repository names them
    dropped: dict[tuple[str, int, str], str]  # claims (file, line, URL) its rules no longer extract -> "scope:line"
    excluded: dict[str, str]  # host -> the excluded_hosts entry it adds, for hosts the corpus cites
    lowered: dict[str, str]  # host (or "global") -> "1000 ms x1 -> 0 ms x1"

    def effect_on(self, claim: Mapping[str, Any]) -> str:
        """What the change's own rules would do to a claim ("" nothing)."""
        host = _host(claim)
        if _key(claim) in self.dropped:
            return "the change's own rules would no longer extract this claim"
        if host in self.excluded:
            return f"the change's own rules would exclude {host}"
        if host in self.lowered:
            return f"the change's own rules would lower the floor of {host} ({self.lowered[host]})"
        return ""

    def message(self) -> str:
        """The warning: what the edit does, and that the check did not apply it."""
        effects: list[str] = []
        if self.dropped:
            lines = sorted(self.dropped.values())
            effects.append(f"{len(lines)} claim(s) stop being claims ({_named(lines)})")
        if self.excluded:
            effects.append(f"host(s) excluded: {_named(sorted(self.excluded))}")
        if self.lowered:
            effects.append(f"floors lowered: {_named(f'{h} {v}' for h, v in sorted(self.lowered.items()))}")
        what = ", ".join(effects) if effects else "no claim or floor affected"
        return (f"this change edits the rules that judge it ({', '.join(self.edited)}): {what}. The check ran by "
                "the base's rules; merge a change of the rules on its own, first, and the next check uses it")


def _named(items: Iterable[str]) -> str:
    listed = list(items)
    more = f" and {len(listed) - LISTED} more" if len(listed) > LISTED else ""
    return ", ".join(listed[:LISTED]) + more


def rules_change(edited: Sequence[str], base: Config, head: Config, under_base: Sequence[Mapping[str, Any]],
                 under_head: Sequence[Mapping[str, Any]]) -> RulesChange:
    """What the change does to the rules: ``edited`` the rule files it edits (``edited_rules``),
    ``under_base`` and ``under_head`` the working tree's claims extracted by the base's and by the
    change's rules."""
    kept = {_key(c) for c in under_head}
    dropped = {_key(c): f"{c.get('scope')}:{c.get('line_no')}" for c in under_base if _key(c) not in kept}
    hosts = sorted({_host(c) for c in under_base} - {""})
    excluded: dict[str, str] = {}
    lowered: dict[str, str] = {}
    for host in hosts:
        entry = host_listed(host, head.liveness.excluded_hosts)
        if entry and not host_listed(host, base.liveness.excluded_hosts):
            excluded[host] = entry
        old, new = policy_for(host, base.liveness, base.hosts), policy_for(host, head.liveness, head.hosts)
        if _lowered(old, new):
            lowered[host] = f"{_policy(old)} -> {_policy(new)}"
    b, h = base.liveness, head.liveness
    if h.req_per_sec > b.req_per_sec or h.concurrency > b.concurrency:
        lowered["global"] = f"{b.req_per_sec:g} req/s x{b.concurrency} -> {h.req_per_sec:g} req/s x{h.concurrency}"
    return RulesChange(tuple(edited), dropped, excluded, lowered)
