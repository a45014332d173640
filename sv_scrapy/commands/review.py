"""``scrapy review``: record a maintainer's review of a finding in the corpus's reviewed-findings
file (``<SV_CONFIG_DIR>/source-verify-reviewed.json``), or list the reviews.

Claim ids are checked against the latest ``audit.json`` (an id as the report prints it,
``fr:12:0a1b2c3d``, or its ``fr:12`` when one claim stands on that line); the review is made on
the page's confirmed content hash and the claim's figures that audit read. A ``root_citation`` is
checked against the citation linter run over the corpus (its one owner): a linter row that is no
claim of the audit (a bare host under "## Sources") is reviewed by the id its report row prints. The file is read whole and
written atomically under the output folder's lock: another run holding it is exit 75 at once
(try again when it has finished), never a wait. Never edits a playbook.
"""

from __future__ import annotations

import copy
import re
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import urlsplit

from scrapy.commands import ScrapyCommand

from sv_scrapy.commands import SvCommand
from sv_scrapy.core.audit import reviewfile
from sv_scrapy.core.audit.reviewfile import DECISIONS, FINDINGS, Review
from sv_scrapy.core.audit.reviews import ROOT_CITATION, apply_reviews, findings, new_review
from sv_scrapy.core.audit.runlock import acquire
from sv_scrapy.core.claims.linter import lint_corpus
from sv_scrapy.core.claims.record import ClaimRecord, records_of
from sv_scrapy.core.errors import ArgumentError
from sv_scrapy.core.report.finish import root_rows
from sv_scrapy.llm.jobs import load_items

if TYPE_CHECKING:
    import argparse

    from sv_scrapy.run.runtime import Runtime


def parse_findings(raw: str) -> tuple[str, ...]:
    """``--only TOKENS_ABSENT,stale_changed`` (any case) -> the findings' own spelling."""
    by_upper = {f.upper(): f for f in FINDINGS}
    out = []
    for token in (t.strip() for t in raw.split(",") if t.strip()):
        if token.upper() not in by_upper:
            raise ArgumentError(f"--only {token!r}: expected any of {', '.join(FINDINGS)}")
        out.append(by_upper[token.upper()])
    if not out:
        raise ArgumentError("--only: name at least one finding")
    return tuple(dict.fromkeys(out))


def resolve_id(raw: str, items: list[ClaimRecord], audit: Path) -> ClaimRecord:
    """The audit's claim an id names: the full id, or ``scope:line`` when one claim stands there."""
    exact = [i for i in items if i["id"] == raw]
    found = exact or [i for i in items if str(i["id"]).startswith(raw + ":")]
    if not found:
        raise ArgumentError(f"{raw!r}: no such claim in {audit} (ids look like fr:12:0a1b2c3d; run the audit first "
                            "if the playbook changed)")
    if len({i["id"] for i in found}) > 1:
        raise ArgumentError(f"{raw!r} is ambiguous in {audit}: " + ", ".join(sorted({str(i['id']) for i in found})))
    return found[0]


def one_line_error(message: str) -> NoReturn:
    print(f"scrapy review: error: {message}", file=sys.stderr)
    sys.exit(2)


_CLAIM_ID = re.compile(r"^[a-z][a-z0-9_-]*:\d+(?::[0-9a-f]{8})?$", re.IGNORECASE)


def check_arguments(ids: list[str], opts: argparse.Namespace) -> None:
    """What argparse lets through: an unknown option (taken for an id), and a claim id taken for
    ``--from-audit``'s path (its value is optional)."""
    unknown = [a for a in ids if a.startswith("-") and len(a) > 1]
    if unknown:
        raise ArgumentError(f"{unknown[0]}: no such option (see scrapy review -h)")
    path = opts.from_audit or ""
    if _CLAIM_ID.match(path) and not Path(path).exists():
        raise ArgumentError(f"--from-audit {path!r}: a claim id, not an audit file (put the ids first, "
                            f"or give the path: --from-audit PATH {path})")


def check_at(raw: str | None, decision: str) -> str:
    """``--at URL``: an http(s) URL, with ``--as figure_elsewhere`` only.

    >>> check_at("https://www.impots.gouv.fr/particulier/ifi", "figure_elsewhere")
    'https://www.impots.gouv.fr/particulier/ifi'
    """
    if raw is None:
        return ""
    if decision != "figure_elsewhere":
        raise ArgumentError(f"--at goes with --as figure_elsewhere, not --as {decision}")
    url = raw.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or any(c.isspace() for c in url):
        raise ArgumentError(f"--at {raw!r}: expected the http(s) URL of the page where the figure stands")
    return url


def row_item(row: dict[str, Any]) -> ClaimRecord:
    """A linter row that is no claim of the audit, as the target of its ``root_citation`` review
    (no page read, no figures: the review holds until its line or URL changes, or its ``until``)."""
    return {"id": row["id"], "scope": row["scope"], "line_no": row["line_no"], "source_url": row["url"],
            "values": [], "content_hash": ""}


@dataclass(frozen=True)
class Asked:
    """A review's options as checked: the decision (``--as``), the reason, the last day it holds
    (``--until``; "" none), the one finding it is of (``--finding``; "" each the claim shows),
    the page where the figure stands (``--at``; "" none) and today, the day it is made."""

    decision: str
    reason: str
    until: str
    finding: str
    at: str
    today: date


def checked_review(opts: argparse.Namespace, today: date) -> Asked:
    """``opts``' review options checked in the order a user reads them (``today``: the run's day)."""
    if not opts.decision:
        raise ArgumentError(f"--as: required, one of {', '.join(DECISIONS)}")
    decision = reviewfile.check_choice(opts.decision, DECISIONS, "--as")
    reason = reviewfile.check_reason(opts.reason or "")
    until = reviewfile.parse_day(opts.until, "--until") if opts.until else ""
    if until and until < today.isoformat():
        raise ArgumentError(f"--until {until}: already past (today is {today.isoformat()})")
    finding = reviewfile.check_choice(opts.finding, FINDINGS, "--finding") if opts.finding else ""
    return Asked(decision, reason, until, finding, check_at(opts.at, decision), today)


def shown_findings(item: ClaimRecord, roots: set[str]) -> list[str]:
    """The findings ``item`` shows: the audit's, and ``root_citation`` when its id is in ``roots``
    (the ids the citation linter flags)."""
    return findings(item) + ([ROOT_CITATION] if item["id"] in roots else [])


def wanted_findings(shown: list[str], finding: str, only: str | None) -> list[str]:
    """The findings of a claim to review: the one ``--finding`` named; else those of ``shown`` that
    ``--only`` names (``only``: its raw value); else every finding shown but ``root_citation``
    (a linter's finding is reviewed only when asked for)."""
    if finding:
        return [finding]
    if only:
        named = parse_findings(only)
        return [f for f in shown if f in named]
    return [f for f in shown if f != ROOT_CITATION]


def recorded_line(review: Review) -> str:
    """What ``scrapy review`` prints for a review it wrote."""
    line = f"recorded: {review.claim} {review.finding} as {review.decision} on {review.date}"
    if review.until:
        line += f" until {review.until}"
    if review.at:
        line += f" at {review.at}"
        if not review.at_hash:
            line += " (not a page the audit proposed: it expires with the cited page only)"
    page = review.content_hash[:12] or "not read"
    return line + f" (page {page}, figures {', '.join(review.figures) or 'none'}): {review.reason}"


class Command(SvCommand, ScrapyCommand):
    name = "review"

    def syntax(self) -> str:
        return ("<claim-id>... --as DECISION --reason TEXT [--until YYYY-MM-DD] [--at URL] [--finding F] [--reviewer NAME] | "
                "--from-audit [PATH] --only FINDINGS [--country CC] --as ... --reason ... | --list [--expired]")

    def short_desc(self) -> str:
        return "Record a maintainer's review of a finding (quiet until the page or the claim changes), or list them"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        # an option's mistake (``--until`` without its value) is one line, not the usage block
        setattr(parser, "error", one_line_error)  # noqa: B010 (this command's own parser)
        parser.add_argument("--as", dest="decision", metavar="DECISION", help=" | ".join(DECISIONS))
        parser.add_argument("--reason", help="why (required, free text)")
        parser.add_argument("--until", metavar="YYYY-MM-DD", help="the review holds until this day at most")
        parser.add_argument("--at", metavar="URL", help="with --as figure_elsewhere: the page where the figure stands "
                            "(the review expires when that page changes)")
        parser.add_argument("--reviewer", metavar="NAME", help="who reviewed (optional)")
        parser.add_argument("--finding", metavar="F", help="which of the claim's findings (default: all it shows)")
        parser.add_argument("--from-audit", nargs="?", const="", metavar="PATH",
                            help="the audit to check ids against / select from (default <SV_OUTPUT_DIR>/audit/audit.json)")
        parser.add_argument("--only", metavar="FINDINGS", help="with --from-audit and no ids: review every claim "
                            "showing one of these (" + ", ".join(FINDINGS) + ")")
        parser.add_argument("--country", metavar="CC", help="with --from-audit: only this scope")
        parser.add_argument("--list", action="store_true", help="list the reviews and how they stand")
        parser.add_argument("--expired", action="store_true", help="with --list: only the expired ones")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        self.ids = list(args)  # review takes claim ids as arguments

        def checked_then_executed() -> int:
            check_arguments(self.ids, opts)
            return self.execute(opts)

        self.answer(checked_then_executed)

    def execute(self, opts: argparse.Namespace) -> int:
        """The mode the options name: ``--list``, claim ids, or ``--from-audit --only`` (a
        selection). ``opts``: the parsed options; the claim ids are ``self.ids``."""
        rt = self.runtime()
        audit = Path(opts.from_audit) if opts.from_audit else rt.output_dir / "audit" / "audit.json"
        if opts.list:
            return self.list_reviews(rt, audit, opts)
        if opts.expired:
            raise ArgumentError("--expired goes with --list")
        asked = checked_review(opts, rt.clock.today())  # all the user gave, checked before the file is touched
        if self.ids:
            return self.review_ids(rt, audit, opts, asked)
        return self.review_selection(rt, audit, opts, asked)

    def list_reviews(self, rt: Runtime, audit: Path, opts: argparse.Namespace) -> int:
        """``--list [--expired]``: the reviews and how each stands against ``audit`` (the audit
        file, which may be absent when it was not given with ``--from-audit``)."""
        if self.ids or opts.decision or opts.reason:
            raise ArgumentError("--list takes no ids, --as or --reason")
        if opts.from_audit:  # a path given is checked as a review checks it (the default may be absent)
            load_items(audit, "audit")
        return self.listing(rt, audit, opts.expired)

    def review_ids(self, rt: Runtime, audit: Path, opts: argparse.Namespace, asked: Asked) -> int:
        """``<claim-id>... --as ...``: review the claims ``self.ids`` name in ``audit`` (the audit
        file); ``asked``: the review's checked options."""
        items, roots = self.reviewable(rt, audit, opts, asked)
        if opts.country:
            raise ArgumentError("--country selects claims with --from-audit --only: give ids or a selection")
        chosen = [resolve_id(raw, items, audit) for raw in self.ids]
        return self.record(rt, audit, opts, asked, chosen, roots)

    def review_selection(self, rt: Runtime, audit: Path, opts: argparse.Namespace, asked: Asked) -> int:
        """``--from-audit [PATH] --only FINDINGS [--country CC] --as ...``: review every claim of
        ``audit`` (the audit file) that shows one of the findings; ``asked``: the review's
        checked options."""
        items, roots = self.reviewable(rt, audit, opts, asked)
        if opts.from_audit is None or not opts.only:
            raise ArgumentError("name the claims: ids, or --from-audit [PATH] --only FINDINGS")
        only = set(parse_findings(opts.only))
        country = (opts.country or "").lower()
        chosen = [i for i in items if (not country or str(i["scope"]).lower() == country)
                  and set(shown_findings(i, roots)) & only]
        if not chosen:
            raise ArgumentError(f"no claim in {audit} shows {', '.join(parse_findings(opts.only))}"
                                + (f" in {opts.country}" if opts.country else ""))
        return self.record(rt, audit, opts, asked, chosen, roots)

    def reviewable(self, rt: Runtime, audit: Path, opts: argparse.Namespace,
                   asked: Asked) -> tuple[list[ClaimRecord], set[str]]:
        """The claims of ``audit`` a review may name, and the ids of those the citation linter
        flags ``root_citation`` (read only when the review is of that finding): a linter row whose
        line is no claim of the audit (a bare host under "## Sources") is a target too."""
        items = records_of(load_items(audit, "audit")["items"])
        wants_root = asked.finding == ROOT_CITATION or bool(opts.only and ROOT_CITATION in parse_findings(opts.only))
        rows = self.root_rows(rt) if wants_root else []
        claimed = {str(i["id"]) for i in items}
        items = items + [row_item(r) for r in rows if str(r["id"]) not in claimed]
        return items, {str(r["id"]) for r in rows}

    def record(self, rt: Runtime, audit: Path, opts: argparse.Namespace, asked: Asked, chosen: list[ClaimRecord],
               roots: set[str]) -> int:
        """Write the reviews of the ``chosen`` claims (each once) into the reviewed-findings file,
        one per finding wanted; ``roots``: the ids the citation linter flags ``root_citation``."""
        new = []
        for item in {i["id"]: i for i in chosen}.values():
            shown = shown_findings(item, roots)
            wanted = wanted_findings(shown, asked.finding, opts.only)
            missing = [f for f in wanted if f not in shown]
            if missing or not wanted:
                raise ArgumentError(f"{item['id']}: shows {', '.join(shown) or 'no finding'} in {audit}, "
                                    f"not {missing[0] if missing else 'a finding to review'}")
            new += [new_review(item, f, asked.decision, asked.reason, asked.today, asked.until, opts.reviewer or "",
                               asked.at) for f in wanted]
        # taken: LockHeld, exit 75, nothing written; let go once the file is written
        with acquire(rt.output_dir, "scrapy review", rt.clock.iso()):
            existing = reviewfile.load(rt.config.config_dir)  # read whole, or one line and nothing written
            merged, replaced = reviewfile.merged(existing, new)
            path = reviewfile.save(rt.config.config_dir, merged)
        for review in new:
            print(recorded_line(review))
        for review in replaced:
            print(f"replaced: the review of {review.claim} {review.finding} as {review.decision} of {review.date}")
        print(f"{len(new)} review(s) written to {path} ({len(merged)} in all); commit it with the playbooks")
        return 0

    @staticmethod
    def root_rows(rt: Runtime) -> list[dict[str, Any]]:
        """The portal-root linter's rows now (static, no network), each with the id the report prints."""
        lint = lint_corpus(rt.corpus_root, rt.config.hosts, rt.extract_options(), rt.config.linter.root_url_allowlist)
        return root_rows([r.as_dict() for r in lint])

    def listing(self, rt: Runtime, audit: Path, only_expired: bool) -> int:
        """Each review and how it stands against the latest audit (live, expired and why, orphaned)."""
        reviews = reviewfile.load(rt.config.config_dir)
        path = rt.config.config_dir / reviewfile.FILE_NAME
        if not reviews:
            print(f"no review recorded ({path})")
            return 0
        states = self.states(reviews, rt, audit)
        shown = [(r, s) for r, s in zip(reviews, states, strict=True) if not only_expired or s.startswith("expired")]
        for review, state in shown:
            print(f"{review.claim}  {review.finding}  {review.decision}  {review.date}"
                  + (f"  until {review.until}" if review.until else "") + f"  [{state}]  {review.reason}")
        print(f"{len(shown)} of {len(reviews)} review(s) in {path}")
        return 0

    @staticmethod
    def states(reviews: list[Review], rt: Runtime, audit: Path) -> list[str]:
        try:
            items = copy.deepcopy(load_items(audit, "audit")["items"])
        except ArgumentError:
            return ["no audit to compare with"] * len(reviews)
        today = rt.clock.today()
        # a root_citation review of a linter row that is no claim stands against the linter's rows
        rows = Command.root_rows(rt) if any(r.finding == ROOT_CITATION for r in reviews) else []
        applied = apply_reviews(items, reviews, today, None, rows)
        orphaned = {r.ident for r in applied.orphaned}
        why = {r.ident: w for r, w in applied.expired}
        out = []
        for r in reviews:
            if r.ident in orphaned:
                out.append("orphaned: no claim has its key")
            elif r.ident in why:
                out.append(f"expired: {why[r.ident]}")
            else:
                out.append("live")
        return out
