"""One page, start to finish: what the downloader produced for one URL -> its claim records.

The one module that decides a page's ``fetch_status`` and note. Scrapy's side only carries
facts in (``Fetched``: the response or the failure; ``Reading``: what the text, PDF and OCR
stages read out of the body) and records out (``page_records``). The audit hands in what it
remembers of the URL as plain values (``Previous``); this layer knows nothing of the content store
(``core.audit`` builds ``Previous`` from it and journals the outcome: ``core.audit.journal``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.page.changes import ContentState, changed_lines, fail_streak, settle, stale_changed
from sv_scrapy.core.page.context import order_by_context
from sv_scrapy.core.page.fetchstatus import BINARY, DEAD, EXCLUDED, OK, ROBOTS, UNAVAILABLE, challenge_reason, status_outcome
from sv_scrapy.core.page.ocr import ocr_digits, ocr_prior
from sv_scrapy.core.page.outlinks import name_frames
from sv_scrapy.core.page.pagescan import Hit, PageIndex
from sv_scrapy.core.page.prefilter import (
    PDF_NO_TEXT,
    SOURCE_BINARY,
    SOURCE_UNAVAILABLE,
    TOKENS_ABSENT,
    TOKENS_PRESENT,
    PrefilterSettings,
    Prior,
    prior_for_text,
    prior_without_text,
)
from sv_scrapy.core.page.reader import Reading
from sv_scrapy.core.page.soft404 import NOTE as SOFT_404_NOTE
from sv_scrapy.core.page.soft404 import soft_404
from sv_scrapy.core.page.subject import needs_words, page_words
from sv_scrapy.core.page.textfragment import fragment_link
from sv_scrapy.core.politeness import RETRY_AFTER_CAP_SECONDS

# the claim record: the seed's fields first (copied from the claim), then what a reviewer also wants
CLAIM_KEYS = ("id", "scope", "section", "line_no", "claim_text", "values", "source_url", "source_host",
              "source_tier", "inline_stamp")


@dataclass(frozen=True)
class FetchFailure:
    """A request that produced no response, as the downloader described it."""

    kind: str  # robots | refused (target guard) | ignored (a middleware dropped it) | error
    exc_name: str = ""
    message: str = ""


@dataclass(frozen=True)
class Fetched:
    """What the downloader produced for one URL: a response, a failure, or a refusal."""

    url: str  # as cited
    fetched_at: str
    final_url: str = ""
    http_status: int = 0
    headers: Mapping[str, str] = field(default_factory=dict)  # lower-case names, first values
    title: str = ""
    rendered: bool = False  # read through the browser
    via_browser: bool = False  # the request asked for the browser (failures included)
    render_reason: str = ""
    attempts: int = 1
    truncated: bool = False
    stopped: str = ""  # the body cap's note ("binary …" when it stopped reading a binary)
    shell: str = ""  # JavaScript-shell signs of a page not rendered (rendering off)
    retry_after_refused: float = 0.0
    robots_note: str = ""  # fetched under a stored robots.txt (the live one unreachable): which
    failure: FetchFailure | None = None
    refused: str = ""  # never requested: the target guard's reason

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    @property
    def declared_lang(self) -> str:
        """The language the response's headers declared (the first of Content-Language's)."""
        return self.headers.get("content-language", "").split(",")[0].strip()


@dataclass(frozen=True)
class PageRules:
    """The config the page's judgement needs (built from ``config.py`` by ``runtime.page_rules``)."""

    prefilter: PrefilterSettings = field(default_factory=PrefilterSettings)
    blocking_codes: frozenset[int] = frozenset()
    challenge_headers: tuple[str, ...] = ()
    challenge_titles: tuple[str, ...] = ()
    dead_after: int = 3
    max_pdf_bytes: int = 0
    min_ocr_confidence: float = 70.0


@dataclass(frozen=True)
class Previous:
    """What the audit remembers of the URL and the page's judgement needs: the fail streak so
    far, the content state (change settling), the baseline's excerpts and its text (what
    "before" means when a change settles). A URL seen for the first time: the defaults."""

    fail_streak: int = 0
    state: ContentState | None = None
    excerpts: Mapping[str, list[str]] = field(default_factory=dict)  # claim id -> excerpts of the baseline
    stable_text: str | None = None


@dataclass(frozen=True)
class PageOutcome:
    fetch_status: str
    note: str
    records: list[ClaimRecord]
    raw_status: str = ""  # before a fail streak restated it (what the stats count)
    priors: tuple[str, ...] = ()
    state: ContentState | None = None
    changed: bool = False
    fail_streak: int = 0


def failure_outcome(failure: FetchFailure, attempts: int, via_browser: bool = False) -> tuple[str, str]:
    """(fetch_status, note) of a request that got no response."""
    if failure.kind == "robots":
        return ROBOTS, failure.message or "robots.txt disallows this URL"
    if failure.kind == "refused":
        return EXCLUDED, failure.message
    if via_browser:
        return UNAVAILABLE, _render_failure(failure)
    if failure.kind == "ignored":
        if "redirect" in failure.message.lower():
            return UNAVAILABLE, f"redirects not followed to the end: {failure.message} (loop or chain too long)"
        return UNAVAILABLE, f"request dropped: {failure.message}"
    name, text, tries = failure.exc_name, failure.message, f" after {attempts} attempt(s)"
    if "Timeout" in name:
        return UNAVAILABLE, f"timeout{tries}"
    lost = "connectionlost" in text.lower().replace(" ", "")
    if name in ("ResponseDataLossError", "ConnectionLost", "ResponseFailed", "ConnectionDone") or lost:
        return UNAVAILABLE, f"connection reset mid-response{tries}"
    if "Refused" in name:
        return UNAVAILABLE, f"connection refused{tries}"
    if "Resolve" in name or "DNS" in name:
        return UNAVAILABLE, f"DNS lookup failed{tries}"
    if name == "TunnelError":
        return UNAVAILABLE, f"proxy tunnel failed{tries}: {text[:120]}"
    return UNAVAILABLE, f"{name}{tries}: {text[:160]}"


def _render_failure(failure: FetchFailure) -> str:
    first = failure.message.splitlines()[0] if failure.message else failure.exc_name
    low = failure.message.lower()
    if "executable doesn't exist" in low or "failed to launch" in low or "no such file" in low or "launch" in low:
        return f"browser not available ({first[:160]})"
    if "timeout" in low or "Timeout" in failure.exc_name:
        return f"render timeout: {first[:160]}"
    return f"rendering failed: {failure.exc_name}: {first[:160]}"


def response_outcome(fetched: Fetched, rules: PageRules) -> tuple[str, str]:
    """(fetch_status, note) of a response before its body is read: a challenge or a failing
    status says so; a readable answer is OK with what the downloader noticed."""
    if fetched.http_status == 304:
        return OK, ""  # our conditional request answered: the text comes from the store
    challenge = challenge_reason(fetched.http_status, fetched.headers, fetched.title, rules.challenge_headers,
                                 rules.challenge_titles, rules.blocking_codes)
    outcome = (UNAVAILABLE, challenge) if challenge else status_outcome(fetched.http_status, rules.blocking_codes)
    if outcome:
        status, note = outcome
        if fetched.retry_after_refused:
            asked = fetched.retry_after_refused
            said = f"{asked:g} s" if asked < 1e12 else "more than 10¹² s"
            note = f"Retry-After {said} exceeds the {RETRY_AFTER_CAP_SECONDS:g} s limit: not waited for ({note})"
        elif fetched.attempts > 1:
            note += f" after {fetched.attempts} attempts"
        return status, note
    if fetched.shell:
        return OK, f"JavaScript shell ({fetched.shell}); rendering is off (SV_RENDER_ENABLED)"
    if fetched.rendered:
        return OK, f"rendered in Chromium ({fetched.render_reason or 'requested'})"
    return OK, fetched.stopped


def body_to_read(fetched: Fetched, body: bytes, rules: PageRules) -> bytes | None:
    """The bytes the reading stages get: none for a failing answer or a 304, a binary's first KiB."""
    if fetched.http_status == 304 or response_outcome(fetched, rules)[0] != OK:
        return None
    return body[:1024] if fetched.stopped.startswith("binary") else body


def page_status(fetched: Fetched, reading: Reading, rules: PageRules) -> tuple[str, str]:
    """The page's ``fetch_status`` and note, from the downloader's answer and the reading of it."""
    if fetched.refused:
        return EXCLUDED, fetched.refused
    if fetched.failure is not None:
        return failure_outcome(fetched.failure, fetched.attempts, fetched.via_browser)
    if fetched.http_status == 304:
        if reading.restored is False:
            return UNAVAILABLE, "304 Not Modified but no stored copy to read"
        return OK, reading.note
    status, note = response_outcome(fetched, rules)
    if status != OK:
        return status, note
    if reading.kind == "binary":
        return BINARY, note or f"binary content ({fetched.content_type or 'no type'}): not read"
    if reading.pdf == "disabled":
        return BINARY, "PDF extraction disabled in config (pdf.enabled)"
    if reading.pdf == "cut":
        return UNAVAILABLE, f"PDF larger than pdf.max_bytes ({rules.max_pdf_bytes} bytes): a cut PDF cannot be read"
    return OK, reading.note or note


def _restate(status: str, note: str, streak: int, dead_after: int) -> tuple[str, str]:
    """DEAD only after ``dead_after`` failing runs; before that, "failing (k of n)"."""
    if status == DEAD and streak < dead_after:
        return UNAVAILABLE, f"failing ({streak} of {dead_after}): {note}"
    if status == UNAVAILABLE and streak:
        return status, f"failing ({min(streak, dead_after)} of {dead_after}): {note}"
    return status, note


def _prior(status: str, reading: Reading, values: list[dict[str, Any]], note: str, hosts: list[str],
           rules: PageRules, index: PageIndex | None) -> Prior:
    if status == OK and reading.pdf == "no_text":
        return prior_without_text(values, PDF_NO_TEXT, note)
    if status == OK and (index is not None or reading.kind in ("html", "text", "pdf")):
        # an empty text is a thin page: prior_for_text says "indeterminate", never absent
        prior = prior_for_text(values, reading.text, hosts, rules.prefilter, index)
        return ocr_prior(prior, reading.ocr, rules.min_ocr_confidence) if reading.ocr and reading.text else prior
    if status == OK:
        return prior_without_text(values, SOURCE_UNAVAILABLE, "page read but no text came out")
    if status == BINARY:
        return prior_without_text(values, SOURCE_BINARY, note)
    return prior_without_text(values, SOURCE_UNAVAILABLE, note)


@dataclass(frozen=True)
class _Judged:
    """The page's own judgement, before any claim: its status and note, and given the audit's
    memory of the URL its fail streak and content state (a settled change, and what it was)."""

    raw_status: str
    status: str
    note: str
    streak: int = 0
    state: ContentState | None = None
    changed: bool = False
    in_flux: bool = False
    excerpts_before: Mapping[str, list[str]] = field(default_factory=dict)
    diff: Sequence[str] = ()


def _judge_page(fetched: Fetched, reading: Reading, rules: PageRules, previous: Previous | None) -> _Judged:
    raw_status, note = page_status(fetched, reading, rules)
    if fetched.robots_note:
        note = "; ".join(filter(None, (note, fetched.robots_note)))
    if previous is None:
        return _Judged(raw_status, raw_status, note)
    # a refusal is our choice, not the page's failure: it neither breaks nor extends a streak
    counts = raw_status not in (EXCLUDED, ROBOTS)
    streak = fail_streak(previous.fail_streak, raw_status in (OK, BINARY)) if counts else 0
    status, note = _restate(raw_status, note, streak, rules.dead_after)
    if not reading.content_hash:
        return _Judged(raw_status, status, note, streak, previous.state or ContentState())
    settled = settle(previous.state, reading.content_hash, fetched.fetched_at)
    if not settled.changed:
        return _Judged(raw_status, status, note, streak, settled.state, False, settled.in_flux)
    return _Judged(raw_status, status, note, streak, settled.state, True, settled.in_flux, dict(previous.excerpts),
                   changed_lines(previous.stable_text or "", reading.text))


def page_records(fetched: Fetched, reading: Reading, claims: Sequence[ClaimRecord], rules: PageRules,
                 previous: Previous | None = None) -> PageOutcome:
    """Each claim citing the page, judged: ``fetch_status``, prior, excerpts and, given the
    audit's ``previous`` (worklist: None), fail streak and change fields."""
    page = _judge_page(fetched, reading, rules, previous)
    status, note = page.status, page.note
    text = reading.text if status == OK else ""
    # the page decides the locale: its declared language and its host's country are hints
    final = fetched.final_url or fetched.url
    host = urlsplit(final).hostname or ""
    index = None
    if text:
        indexed = ocr_digits(text) if reading.ocr else text
        index = PageIndex(indexed, lang=reading.lang or None, host=host or None)
    hosts = [urlsplit(fetched.url).hostname or "", host]
    gone = status == OK and reading.kind in ("html", "text") and soft_404(fetched.title, text, reading.lang, host)
    records: list[ClaimRecord] = []
    for claim in claims:
        prior = _prior(status, reading, claim["values"], note, hosts, rules, index)
        is_soft_404 = gone and prior.prior != TOKENS_PRESENT
        if is_soft_404:  # the page is gone though it answered 200: absent, and the reviewer told why
            prior = Prior(TOKENS_ABSENT, missing_tokens=[str(v["raw"]) for v in claim["values"] if v.get("salient")],
                          note=SOFT_404_NOTE)
        context_match, link = None, None
        if index is not None and prior.matched_tokens and not is_soft_404:
            excerpts, context_match, best = order_by_context(claim, text, index, prior, rules.prefilter,
                                                             reading.shapes, reading.lang, fetched.title)
            prior = replace(prior, excerpts=excerpts)
            link = _figure_link(final, text, prior, best, reading.kind == "pdf")
        record = claim_record(claim, status, prior, note)
        if reading.frames:
            record["excerpts"] = name_frames(record["excerpts"], text[:_main_length(text, reading.frames)],
                                             reading.frames, prior.found_as.values())
        record.update(_read_fields(fetched, reading, final))
        record.update({"soft_404": is_soft_404, "context_match": context_match, "figure_link": link})
        if previous is not None:
            record.update(_change_fields(record, page, fetched))
        if text and needs_words(record):  # the page's own words while its text is in hand (reports, PR check)
            words = page_words(record, text)
            record.update({"page_excerpt": words.excerpt, "page_hint": words.hint})
        records.append(record)
    return PageOutcome(status, note, records, page.raw_status, tuple(r["prior"] for r in records), page.state,
                       page.changed, page.streak)


def _read_fields(fetched: Fetched, reading: Reading, final: str) -> ClaimRecord:
    """What every record of the page says of how it was fetched and read."""
    return {"final_url": final, "http_status": fetched.http_status, "text_method": reading.text_method,
            "ocr_confidence": reading.ocr["confidence"] if reading.ocr else None,
            "content_hash": reading.content_hash, "fetched_at": fetched.fetched_at,
            "rendered": fetched.rendered, "charset": reading.charset or None,
            "charset_source": reading.charset_source or None, "frames": [url for url, _ in reading.frames],
            "found_linked": None}


def _change_fields(record: ClaimRecord, page: _Judged, fetched: Fetched) -> ClaimRecord:
    """The audit's fields of one record: the streak, the confirmed baseline (what a review's
    page-change expiry compares, ``audit.reviews``) and a settled change."""
    state, changed = page.state, page.changed
    assert state is not None
    fields: ClaimRecord = {
        "stable_hash": state.stable_hash or None, "content_changed": changed,
        "changed_at": state.changed_at if changed else "",
        "stale_changed": changed and stale_changed(state.changed_at, record.get("inline_stamp")),
        "in_flux": page.in_flux, "previous_excerpts": page.excerpts_before.get(record["id"], []) if changed else [],
        "change_diff": list(page.diff), "not_modified": fetched.http_status == 304, "fail_streak": page.streak}
    return fields


def _figure_link(url: str, text: str, prior: Prior, best: Hit | None, pdf: bool) -> str | None:
    """The link that lands on the figure the first excerpt shows (``core.page.textfragment``)."""
    if best is not None:
        return fragment_link(url, text, text[best.start : best.end], best.start, pdf)
    written = next((prior.found_as[raw] for raw in [*prior.strong_matched, *prior.matched_tokens]
                    if prior.found_as.get(raw)), "")
    return fragment_link(url, text, written, None, pdf) if written else None


def _main_length(text: str, frames: Sequence[tuple[str, str]]) -> int:
    """Where the page's own text ends in a text with its frames joined (``outlinks.join_frames``)."""
    return max(0, len(text) - sum(len(t) + 1 for _, t in frames if t))


def claim_record(claim: ClaimRecord, fetch_status: str, prior: Prior, note: str = "") -> ClaimRecord:
    """The one claim-record schema (worklist and audit items, ``core.page.claimrecord``): the seed's
    fields (``CLAIM_KEYS``, copied from the claim), then the verdict."""
    record: ClaimRecord = {
        "id": claim["id"], "scope": claim["scope"], "section": claim["section"], "line_no": claim["line_no"],
        "claim_text": claim["claim_text"], "values": claim["values"], "source_url": claim["source_url"],
        "source_host": claim["source_host"], "source_tier": claim["source_tier"], "inline_stamp": claim["inline_stamp"]}
    record["fetch_status"] = fetch_status  # decided here and nowhere else (tests/test_one_owner.py)
    record.update({"prior": prior.prior, "matched_tokens": prior.matched_tokens, "strong_matched": prior.strong_matched,
                   "missing_tokens": prior.missing_tokens, "excerpts": prior.excerpts, "found_as": prior.found_as,
                   "note": prior.note or note, "file": claim.get("file", ""),
                   # issue #19's fields, on every record (page_records fills them for a page that was read)
                   "soft_404": False, "context_match": None, "found_linked": None, "charset": None, "figure_link": None,
                   "proposed_source": None})
    return record


def unfetched_record(claim: ClaimRecord, why: str) -> ClaimRecord:
    """A selected claim whose page never came back: reported, never dropped."""
    return claim_record(claim, UNAVAILABLE, prior_without_text(claim["values"], SOURCE_UNAVAILABLE), why)
