"""``-a changed_since=REF``: the claims of the working tree against those at REF, as a change set
(``core.audit.changeset``), and the claims to check — narrowed by ``country``, ``section`` and
``sample`` the way the worklist narrows the whole corpus.

Both revisions are extracted whole (no country or section filter): a claim's old figure may
still stand in another scope, and the warning that says so must see it. Both are extracted by
the base's rules (``base_runtime``: the config folder at REF, ``sv_scrapy.run.baserules``); what the
change does to those rules is the check's warning (``ChangeCheck.rules``).
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any

from sv_scrapy.core.audit.changeset import Changed, ChangeSet, diff_claims
from sv_scrapy.core.claims.claims import Claim, Extraction, extract_corpus, scope_matches
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.claims.sampling import select_sample
from sv_scrapy.core.errors import CorpusError
from sv_scrapy.core.report.prcheck import WARNING, Finding
from sv_scrapy.run.baserules import RulesChange, base_config, edited_rules, rules_change
from sv_scrapy.run.corpusgit import Revision, corpus_at, resolve_revision
from sv_scrapy.run.runtime import Runtime, config_in


@dataclass
class ChangeCheck:
    """What the pull-request check knows before it fetches anything."""

    revision: Revision
    changes: ChangeSet
    checked: list[Changed]  # the changed claims in scope, to fetch
    rules: RulesChange | None = None  # what the change does to the rules that judge it (None: nothing)

    def annotated(self, record: ClaimRecord, change: Changed) -> ClaimRecord:
        """A checked claim's record with what the change did to it."""
        before = change.before
        old = [str(v.get("raw")) for v in (before or {}).get("values") or []
               if v.get("salient", True) and str(v.get("norm")) not in
               {str(n.get("norm")) for n in change.claim.get("values") or []}]
        out: ClaimRecord = {**record}
        out.update({
            "change": change.change, "repo_file": self.revision.prefix + str(record.get("file", "")),
            "before": {"line_no": before["line_no"], "claim_text": before["claim_text"],
                       "source_url": before["source_url"], "inline_stamp": before["inline_stamp"]} if before else None,
            "also_stated": list(change.also_stated), "old_figures": old if change.also_stated else [],
            "rules_effect": self.rules.effect_on(record) if self.rules else ""})
        return out

    def own_findings(self) -> list[Finding]:
        """The change's findings that are no claim's: an edit of the rules that judge it (a warning,
        on the first rule file it edits)."""
        if self.rules is None:
            return []
        return [Finding(WARNING, self.rules.edited[0], 1, "the change edits the rules that judge it",
                        self.rules.message())]

    def removed(self) -> list[ClaimRecord]:
        out: list[ClaimRecord] = []
        for claim in self.changes.removed:
            gone: ClaimRecord = {**claim}
            gone["repo_file"] = self.revision.prefix + str(claim.get("file", ""))
            out.append(gone)
        return out


def _extract(rt: Runtime, root: Path, params: Mapping[str, Any], texts: dict[str, str]) -> Extraction:
    opts = rt.extract_options(include_secondary=params.get("include_secondary", False))
    return extract_corpus(root, rt.config.hosts, opts, texts)


def base_runtime(rt: Runtime, ref: str) -> Runtime:
    """The run judged by the base's rules: ``rt`` with the config folder as REF holds it (the same
    folder when the corpus's repository does not hold it: no change can edit it then)."""
    return replace(rt, config=base_config(resolve_revision(rt.corpus_root, ref), rt.config.config_dir))


def check_changes(rt: Runtime, params: Mapping[str, Any]) -> ChangeCheck:
    """The change since ``params["changed_since"]`` and the claims to check (``sample``: the most
    urgent N of the changed claims in scope; none given: all of them). ``rt`` holds the base's
    rules (``base_runtime``); the working tree's config folder is read only to say what the
    change does to them."""
    revision = resolve_revision(rt.corpus_root, params["changed_since"])
    base_texts: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="sv-changed-since.") as tmp:
        try:
            base = _extract(rt, corpus_at(revision, Path(tmp)), params, base_texts).claims
        except CorpusError:  # no playbook at REF yet: every claim is new
            base = []
    head_texts: dict[str, str] = {}
    now = _extract(rt, rt.corpus_root, params, head_texts).claims
    changes = diff_claims([c.as_dict() for c in base], [c.as_dict() for c in now], base_texts, head_texts)
    by_id: dict[str, Claim] = {c.id: c for c in now}
    section = (params.get("section") or "").lower()
    in_scope = [c for c in changes.changed if scope_matches(c.claim["scope"], params.get("country"))
                and section in c.claim["section"].lower()]
    if params.get("sample") is not None:
        chosen = {c.id for c in select_sample([by_id[c.claim["id"]] for c in in_scope], params["sample"],
                                              rt.config.sampling.weights, date.fromisoformat(params["as_of"]),
                                              params["seed"])}
        in_scope = [c for c in in_scope if c.claim["id"] in chosen]
    changes.removed = [c for c in changes.removed if scope_matches(c["scope"], params.get("country"))]
    return ChangeCheck(revision, changes, in_scope, _rules_change(rt, revision, params, now))


def _rules_change(rt: Runtime, revision: Revision, params: Mapping[str, Any], now: list[Claim]) -> RulesChange | None:
    """What the change does to the rules: the working tree extracted once more, by its own rules."""
    edited = edited_rules(revision, rt.config.config_dir)
    if not edited:
        return None
    head = config_in(rt.config.config_dir)
    try:
        under_head = _extract(replace(rt, config=head), rt.corpus_root, params, {}).claims
    except CorpusError:  # its rules find no playbook at all: every claim stops being one
        under_head = []
    return rules_change(edited, rt.config, head, [c.as_dict() for c in now], [c.as_dict() for c in under_head])
