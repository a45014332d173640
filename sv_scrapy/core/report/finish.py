"""The audit's finish, pure: from what the crawl gathered and the store remembered (plain values
in, ``AuditInputs``) to everything the finished audit writes (``AuditFinish``): the document, the
three reports, the ``$GITHUB_OUTPUT`` lines, what the store keeps for next month (each claim's
outcome, the history) and the console summary. ``pipelines/auditexport.py`` reads the store, calls
``finish_audit`` and writes what comes back, in the order that keeps a killed run resumable.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from sv_scrapy.core.audit import history
from sv_scrapy.core.audit.archive.thennow import apply as apply_then_now
from sv_scrapy.core.audit.archive.thennow import by_verdict
from sv_scrapy.core.audit.news import fingerprint, news
from sv_scrapy.core.audit.outcomes import KeptOutcomes
from sv_scrapy.core.audit.reviewfile import Review
from sv_scrapy.core.audit.reviews import apply_reviews, open_findings, remember_expired
from sv_scrapy.core.audit.spool import SpooledItems
from sv_scrapy.core.audit.stats import audit_stats, buckets, by_scope_priors
from sv_scrapy.core.audit.verdicts import attach_verdicts
from sv_scrapy.core.claims.claims import claim_id
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.page.pagerecord import unfetched_record
from sv_scrapy.core.report.auditdoc import Enricher
from sv_scrapy.core.report.report_html import render_html
from sv_scrapy.core.report.report_md import issue_markdown, render_markdown
from sv_scrapy.core.report.sourcelinks import SourceLinks
from sv_scrapy.core.report.totals import Totals, counted_apart

# the counts a CI job reads from $GITHUB_OUTPUT, in this order
OUTPUT_COUNTS = ("tokens_absent", "stale_changed", "content_changed", "unavailable", "dead", "new_findings",
                 "reviewed", "review_expired")


@dataclass(frozen=True)
class AuditInputs:
    """Everything the finish needs, as values (the crawl's records, the store's memory, config)."""

    claims: Sequence[ClaimRecord]  # the run's claims, in corpus order
    records: Mapping[str, ClaimRecord]  # claim id -> its record, for the pages that came back
    urls: Mapping[str, Mapping[str, Any]]  # url -> fetch_status, not_modified, kind
    params: Mapping[str, Any]
    run_id: str
    resumed: bool
    generated_at: str  # the run's one clock
    links: SourceLinks
    weights: Mapping[str, float]
    backlog_top_n: int
    out_dir: Path
    failure: str = ""  # the run's one failure line, if any
    journal: Mapping[str, Any] = field(default_factory=dict)  # the store's run.json
    previous: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # each claim's last outcome
    scopes: Mapping[str, str] = field(default_factory=dict)  # scope -> when it was last audited
    history: Sequence[Mapping[str, Any]] = ()  # each earlier audit's counts
    quarantined: Sequence[Mapping[str, str]] = ()
    store_format: Mapping[str, Any] = field(default_factory=dict)
    allowlist_rows: Sequence[Mapping[str, object]] = ()
    linter_rows: Sequence[Mapping[str, object]] = ()
    reviews: Sequence[Review] = ()
    verdicts: Mapping[Any, Mapping[str, Any]] = field(default_factory=dict)  # the latest `scrapy verify` verdicts
    archive_results: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # claim id -> its capture outcome
    archive_enabled: bool = False
    archive_counts: Mapping[str, Any] = field(default_factory=dict)  # the archive's requests, caches, errors
    log_file: str = ""
    corpus_commit: str = ""  # the corpus checkout's HEAD ("" outside git)
    claim_ids: Collection[str] | None = None  # every claim's id, where iterating the claims twice costs (a merge's are on disk)
    spool_dir: Path | None = None  # where the finished records wait for audit.json (None: the system's temp folder)


@dataclass(frozen=True)
class AuditFinish:
    doc: dict[str, Any]  # audit.json
    reports: dict[str, str]  # file name -> text: report.md, report.html, issue.md
    output_lines: list[str]  # $GITHUB_OUTPUT (with ci=1)
    kept: KeptOutcomes  # each claim's outcome, for next month's news (on disk until the store writes it)
    scopes: dict[str, str]
    history: list[dict[str, Any]]
    summary: str  # the console's lines


def root_rows(linter_rows: Sequence[Mapping[str, object]]) -> list[dict[str, Any]]:
    """The linter's rows, each with the id of the claim its line and URL make (what a review names)."""
    return [{**r, "id": claim_id(str(r["scope"]), int(str(r["line_no"])), str(r["url"]))} for r in linter_rows]


def listed(item: ClaimRecord) -> bool:
    """Whether a report may list the claim (or count it apart): news, a backlog bucket, a review,
    a transition pending. The rest of the claims only count (``core.report.totals``)."""
    return bool(item.get("review") or item.get("transition_pending") or any(news([item]).values())
                or any(rows for rows in buckets([item]).values()))


# what the counts over every claim read of each (core.audit.stats, history.scope_signals, the chart)
TALLIED = ("scope", "prior", "fetch_status", "stale_changed", "content_changed", "soft_404", "fail_streak")


class _Tally(list[ClaimRecord]):
    """Every claim's counted fields, one small record each; equal ones are one shared object (a
    few hundred distinct among 100,000 claims), so the list costs a pointer per claim."""

    def __init__(self) -> None:
        super().__init__()
        self._shared: dict[tuple[Any, ...], ClaimRecord] = {}

    def take(self, item: ClaimRecord) -> None:
        verdict = (item.get("then_now") or {}).get("verdict")
        key = (*(item.get(k) for k in TALLIED), verdict)
        if key not in self._shared:
            fields = {k: item[k] for k in TALLIED if k in item}  # type: ignore[literal-required]  # keys of TALLIED
            self._shared[key] = cast(ClaimRecord, {**fields, "then_now": {"verdict": verdict} if verdict else None})
        self.append(self._shared[key])


def finish_audit(given: AuditInputs) -> AuditFinish:
    """One pass over the claims in corpus order: each record is enriched, counted and spooled
    (``core.audit.spool``); only the claims a report may list stay in memory. A claim a
    review may be about is finished last, once every claim is known (a review follows a moved line)."""
    today = datetime.fromisoformat(given.generated_at).date()
    # every id, to tell a previous outcome whose claim is gone (moved lines): none to tell on a first audit
    ids: set[str] = set()
    if given.previous:
        ids = set(given.claim_ids) if given.claim_ids is not None else {c["id"] for c in given.claims}
    enricher = Enricher(previous=given.previous, audited_scopes=given.scopes, ids=ids, links=given.links, pages=given.urls,
                        weights=given.weights, as_of=today, spool_dir=given.spool_dir)
    roots = root_rows(given.linter_rows)
    review_keys = {r.key for r in given.reviews}
    named = {r.claim for r in given.reviews} | {str(r["id"]) for r in roots}
    items, tally = SpooledItems(given.spool_dir), _Tally()
    shown: list[tuple[int, ClaimRecord]] = []  # (place in the corpus, record): what the reports may list
    last: list[ClaimRecord] = []
    for place, claim in enumerate(given.claims):
        item = given.records.get(claim["id"]) or unfetched_record(claim, "not fetched")
        enricher.apply(item)
        apply_then_now([item], given.archive_results, given.archive_enabled)  # then and now (core.audit.archive)
        tally.take(item)
        if item["id"] in named or (review_keys and fingerprint(item) in review_keys):
            items.hold(item)
            last.append(item)
            shown.append((place, item))
            continue
        item["review"] = None  # as apply_reviews leaves a claim no review is about
        attach_verdicts([item], given.verdicts)
        items.spool(item)
        if listed(item):
            shown.append((place, item))
    memory = apply_reviews(last, given.reviews, today, given.previous, roots)
    attach_verdicts(last, given.verdicts)
    kept = enricher.kept()
    remember_expired(kept, last, given.reviews, today)
    in_reports = [item for _, item in sorted(shown, key=lambda pair: pair[0])]
    stats = audit_stats(tally, given.urls)
    stats["archive"] = {**given.archive_counts, "by_verdict": by_verdict(tally)}
    stats["new_findings"] = open_findings(in_reports)  # live reviews excluded; an expired one is news
    stats["reviewed"], stats["review_expired"] = memory.as_dict()["reviewed"], len(memory.expired_news)
    doc: dict[str, Any] = {
        "version": 1,
        "generated_at": given.generated_at,
        "params": dict(given.params),
        # which audit this is: a part (-a part=I/N) or the whole (None), of which corpus and month
        "part": given.params.get("part"),
        "corpus_commit": given.corpus_commit,
        "month": given.generated_at[:7],
        "run": {"run_id": given.run_id, "resumed": given.resumed,
                "previous_finished_at": given.journal.get("previous_finished_at", "")},
        "news_since": str(given.journal.get("previous_finished_at") or "") if given.scopes else "",
        "complete": not given.failure,
        "problems": [given.failure] if given.failure else [],
        # store entries or texts that failed their check this run: set aside, fetched fresh
        "store_quarantined": list(given.quarantined),
        # the store's format, and what the first run of a new release migrated
        "store": dict(given.store_format),
        "stats": stats,
        "allowlist_candidates": list(given.allowlist_rows),
        "reviews": memory.as_dict(),
        "items": items,
    }
    line = history.entry({**doc, "items": tally})
    past = history.appended(given.history, line)
    doc["history"] = {"previous": history.previous(past, line), "current": line,
                      "trend": [{k: e[k] for k in ("at", "signals")} for e in past if e.get("country") == line["country"]]}
    quiet_roots = {str(row["id"]) for row, _ in memory.quiet_roots}
    linter_rows = [r for r in roots if r["id"] not in quiet_roots]
    out, top_n = given.out_dir, given.backlog_top_n
    listing = {**doc, "items": in_reports}
    totals = Totals(len(tally), counted_apart(in_reports), by_scope_priors(tally))
    reports = {"report.md": render_markdown(listing, linter_rows, top_n, totals),
               "report.html": render_html(listing, linter_rows, totals),
               "issue.md": issue_markdown(listing, linter_rows, top_n, totals=totals)}
    # a claim both absent and changed is one flag, not two
    flagged = sum(1 for i in tally if i["prior"] == "TOKENS_ABSENT" or i.get("content_changed"))
    output_lines = [f"{key}={stats[key]}" for key in OUTPUT_COUNTS]
    output_lines += [f"flagged={flagged}", f"has_flags={'true' if flagged else 'false'}",
                     f"report={out / 'report.md'}", f"issue={out / 'issue.md'}"]
    scopes = {**given.scopes, **{str(i["scope"]): given.generated_at for i in tally}}
    return AuditFinish(doc, reports, output_lines, kept, scopes, past, _summary(doc, given))


def _summary(doc: Mapping[str, Any], given: AuditInputs) -> str:
    stats, out = doc["stats"], given.out_dir
    since = str(doc["news_since"])[:10]
    return (
        f"audit: {stats['claims']} claim(s) over {stats['urls']} URL(s); "
        + (f"new since {since}: {stats['new_findings']} finding(s); " if since else "first audit (baseline); ")
        + (f"reviewed {stats['reviewed']} (quiet), review expired {stats['review_expired']}; "
           if given.reviews else "")
        + f"⚠️ stale_changed {stats['stale_changed']}, TOKENS_ABSENT {stats['tokens_absent']}, "
        f"unavailable {stats['unavailable']}, DEAD {stats['dead']}, "
        f"304 {stats['not_modified_urls']} ({stats['not_modified_pct']:g} %)\n"
        f"report: {out / 'report.md'}\n        {out / 'report.html'}\n        {out / 'issue.md'}"
        + (f"\nlog:    {given.log_file}" if given.log_file else "")
    )
