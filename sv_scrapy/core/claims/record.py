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
    id: str  # the claim's id: scope:line:urlhash
    scope: str  # the country code or shared/<path> the claim's file belongs to
    section: str  # the heading the claim stands under
    line_no: int  # the claim's line in its file (1-based)
    claim_text: str  # the claim's text as the playbook states it
    values: list[dict[str, Any]]  # core.figures.values.Value.as_dict
    source_url: str  # the cited URL
    source_host: str  # the cited URL's host
    source_tier: str  # primary | secondary
    inline_stamp: dict[str, str] | None  # the line's Last verified stamp
    file: str  # the playbook file, relative to the corpus root
    stamp_age_days: int | None  # scrapy extract's output only
    # the page's judgement (core.page.pagerecord: the one owner of fetch_status)
    fetch_status: str  # OK | DEAD | BINARY | EXCLUDED | ROBOTS | UNAVAILABLE
    prior: str  # what the page says of the figures: TOKENS_PRESENT, TOKENS_ABSENT, ...
    matched_tokens: list[str]  # the claim's figures found on the page
    strong_matched: list[str]  # the figures found as the claim writes them (not only their digits)
    missing_tokens: list[str]  # the claim's figures not found
    excerpts: list[str]  # page text around the found figures
    found_as: dict[str, str]  # claimed figure -> as the page wrote it
    note: str  # why the page got its status (a person can read it)
    final_url: str  # the URL after redirects
    http_status: int  # the last response's HTTP status
    text_method: str | None  # html | pdf | ocr | rendered (the reading's detail: text_method_detail)
    text_method_detail: str  # how the text was read, in words
    ocr_confidence: float | None  # a scan's mean word confidence (0-100)
    content_hash: str  # the cleaned text's hash
    stable_hash: str | None  # the confirmed baseline (what a review is made on)
    fetched_at: str  # when the page was read (ISO 8601, the run's clock)
    rendered: bool  # the page was rendered in Chromium
    soft_404: bool  # a 200 page that says it is not found
    context_match: bool | None  # the figure stands where the page states the claim's subject (None: no judgement)
    figure_link: str | None  # the page's URL landing on the figure (core.page.textfragment)
    found_linked: dict[str, str] | None  # one hop: {url, excerpt}
    # where the figure went (core.audit.discover): {url, excerpt, link, found_via, lastmod, context_match}
    proposed_source: dict[str, Any] | None  # the site's page stating the figure in context; a suggestion, never an edit
    proposed_note: str  # what was searched when nothing was found ("" when a page was proposed or none searched)
    proposed_hash: str | None  # the proposed page's text hash (a figure_elsewhere review --at it expires when it changes)
    charset: str | None  # the encoding the page was decoded with
    charset_source: str | None  # where the encoding came from: header, BOM, meta, guess
    frames: list[str]  # the frames whose text joined the page's
    # the audit's memory of the page (core.page.changes, core.audit.past)
    content_changed: bool  # the page's text changed since the baseline
    changed_at: str  # when the change was first seen
    stale_changed: bool  # the page changed after the claim's Last verified stamp
    in_flux: bool  # the page keeps changing (no stable baseline yet)
    previous_excerpts: list[str]  # the excerpts of the baseline
    change_diff: list[str]  # the changed lines around the claim's figures
    not_modified: bool  # the page answered 304 (its stored text was used)
    fail_streak: int  # failed audits in a row
    # what the finished audit adds (core.report.auditdoc.enrich, core.audit.news, reviews, archive)
    previous_prior: str | None  # the prior of the previous audit
    transition: str | None  # news since the previous audit: vanished, appeared, ...
    transition_pending: str | None  # a transition seen once on an unsettled page (the next audit settles it)
    proposal_new: bool  # proposed_source names a page the previous audit did not propose (news)
    page_excerpt: str  # the page's words on the claim's subject (an absent figure)
    page_hint: str  # what the page seems to say instead
    source_line_url: str | None  # a link to the claim's line (report.source_url_template)
    priority: float  # the backlog's order (sampling.priority_weights)
    review: dict[str, Any] | None  # the standing review of this finding, if any
    verdict: dict[str, Any] | None  # scrapy verify's verdict, if any
    then: dict[str, Any] | None  # the archived capture on the Last verified date
    then_now: dict[str, Any] | None  # then and now: the verdict of the archive comparison
    # the pull-request check (worklist -a changed_since: core.audit.changeset, sv_scrapy.run.changedsince)
    change: str  # new | restamped | figure_changed | source_changed
    repo_file: str  # the file from the repository's root (annotations' file=)
    before: dict[str, Any] | None  # the claim at the revision: line_no, claim_text, source_url, inline_stamp
    also_stated: list[str]  # figure_changed: "scope:line" still stating the old figure, same page or host
    old_figures: list[str]  # the replaced figures those lines still state
    rules_effect: str  # what the change's own edit of the config would do to the claim ("": none; judged by the base's)


def records_of(data: object) -> list[ClaimRecord]:
    """The claim records of a document read back from disk (``audit.json``/``worklist.json`` items,
    a store entry's results): JSON written from this type, so typed as it at this one boundary."""
    return [cast(ClaimRecord, item) for item in data if isinstance(item, dict)] if isinstance(data, list) else []
