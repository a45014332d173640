"""The claim record: the one schema of what sv_scrapy says about a claim and its cited page, from
the corpus (the claim's own fields: ``Claim.as_dict``) through the page's judgement (``pagerecord``) and the audit's
memory to what the report adds. ``worklist.json`` and ``audit.json`` items are these records;
mypy --strict checks every reader against this type.

Every key is optional in the type (``total=False``): a worklist item has no audit fields, a record
read back from an older ``audit.json`` may lack the newer ones, so readers ``.get()`` what a stage
may not have set.
"""

from __future__ import annotations

from typing import Any, TypedDict, cast


class ClaimRecord(TypedDict, total=False):
    # the claim, as the corpus states it (core.claims.claims.Claim.as_dict; CLAIM_KEYS)
    id: str
    scope: str
    section: str
    line_no: int
    claim_text: str
    values: list[dict[str, Any]]  # core.figures.values.Value.as_dict
    source_url: str
    source_host: str
    source_tier: str  # primary | secondary
    inline_stamp: dict[str, str] | None  # the line's Last verified stamp
    file: str
    stamp_age_days: int | None  # scrapy extract's output only
    # the page's judgement (core.page.pagerecord: the one owner of fetch_status)
    fetch_status: str
    prior: str
    matched_tokens: list[str]
    strong_matched: list[str]
    missing_tokens: list[str]
    excerpts: list[str]
    found_as: dict[str, str]
    note: str
    final_url: str
    http_status: int
    text_method: str | None  # html | pdf | ocr | rendered (the reading's detail: text_method_detail)
    text_method_detail: str
    ocr_confidence: float | None
    content_hash: str
    stable_hash: str | None  # the confirmed baseline (what a review is made on)
    fetched_at: str
    rendered: bool
    soft_404: bool
    context_match: bool | None
    figure_link: str | None  # the page's URL landing on the figure (core.page.textfragment)
    found_linked: dict[str, str] | None  # one hop: {url, excerpt}
    charset: str | None
    charset_source: str | None
    frames: list[str]
    # the audit's memory of the page (core.page.changes, core.audit.past)
    content_changed: bool
    changed_at: str
    stale_changed: bool
    in_flux: bool
    previous_excerpts: list[str]
    change_diff: list[str]
    not_modified: bool
    fail_streak: int
    # what the finished audit adds (core.report.auditdoc.enrich, core.audit.news, reviews, archive)
    previous_prior: str | None
    transition: str | None
    transition_pending: str | None
    page_excerpt: str
    page_hint: str
    source_line_url: str | None
    priority: float
    review: dict[str, Any] | None
    verdict: dict[str, Any] | None
    then: dict[str, Any] | None
    then_now: dict[str, Any] | None
    # the pull-request check (worklist -a changed_since: core.audit.changeset, sv_scrapy.changedsince)
    change: str  # new | restamped | figure_changed | source_changed
    repo_file: str  # the file from the repository's root (annotations' file=)
    before: dict[str, Any] | None  # the claim at the revision: line_no, claim_text, source_url, inline_stamp
    also_stated: list[str]  # figure_changed: "scope:line" still stating the old figure, same page or host
    old_figures: list[str]  # the replaced figures those lines still state


def records_of(data: object) -> list[ClaimRecord]:
    """The claim records of a document read back from disk (``audit.json``/``worklist.json`` items,
    a store entry's results): JSON written from this type, so typed as it at this one boundary."""
    return [cast(ClaimRecord, item) for item in data if isinstance(item, dict)] if isinstance(data, list) else []
