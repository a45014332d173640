"""One page, start to finish, string in / records out: the downloader's facts and the reading
of the body decide fetch_status, prior, excerpts, fail streaks and change fields."""

from __future__ import annotations

from typing import Any

import pytest

from sv_scrapy.core.audit.journal import next_entry
from sv_scrapy.core.audit.past import PagePast
from sv_scrapy.core.audit.store import Entry
from sv_scrapy.core.figures.values import extract_values
from sv_scrapy.core.page.changes import ContentState
from sv_scrapy.core.page.pagerecord import (
    CLAIM_KEYS,
    Fetched,
    FetchFailure,
    PageRules,
    Previous,
    Reading,
    body_to_read,
    page_records,
    unfetched_record,
)
from sv_scrapy.core.page.prefilter import PrefilterSettings
from sv_scrapy.core.page.text import content_hash

URL = "https://tax.example.gouv.fr/dmto"
RULES = PageRules(prefilter=PrefilterSettings(excerpt_window_chars=40, max_excerpts=2, min_text_chars=0),
                  blocking_codes=frozenset({403, 429, 503}), challenge_headers=("cf-mitigated",),
                  challenge_titles=("Just a moment",), dead_after=3, max_pdf_bytes=1000)
PAGE = "Le taux de 5,81 % s'applique aux ventes." + " Texte." * 40


def claim(text: str = "DMTO 5.81 %", cid: str = "c1") -> dict[str, Any]:
    return {"id": cid, "scope": "fr", "section": "Tax", "line_no": 3, "claim_text": text,
            "values": [v.as_dict() for v in extract_values(text)], "source_url": URL,
            "source_host": "tax.example.gouv.fr", "source_tier": "primary", "inline_stamp": None, "file": "fr.md"}


def answer(status: int = 200, **kw: Any) -> Fetched:
    return Fetched(URL, "2026-12-01T00:00:00+00:00", final_url=URL, http_status=status, **kw)


def read(text: str = PAGE, **kw: Any) -> Reading:
    return Reading(kind=kw.pop("kind", "html"), text=text, text_method=kw.pop("text_method", "html"),
                   content_hash=content_hash(text), **kw)


def test_a_page_that_states_the_figure_is_ok_with_an_excerpt() -> None:
    out = page_records(answer(), read(), [claim()], RULES)
    (record,) = out.records
    assert (out.fetch_status, record["fetch_status"], record["prior"]) == ("OK", "OK", "TOKENS_PRESENT")
    assert any("5,81 %" in e for e in record["excerpts"])
    assert list(record)[:len(CLAIM_KEYS)] == list(CLAIM_KEYS)
    assert "content_changed" not in record  # the worklist keeps no memory


def test_a_page_without_the_figure_says_tokens_absent() -> None:
    out = page_records(answer(), read("Le taux est de 6,10 %." + " Texte." * 40), [claim()], RULES)
    assert out.records[0]["prior"] == "TOKENS_ABSENT" and out.records[0]["missing_tokens"] == ["5.81 %"]


@pytest.mark.parametrize(("status", "fetch_status", "note"), [
    (404, "DEAD", "http 404"),
    (429, "UNAVAILABLE", "http 429: rate limited"),
    (503, "UNAVAILABLE", "http 503: blocked or unavailable after 3 attempts"),
])
def test_a_failing_status_is_named_and_has_no_text(status: int, fetch_status: str, note: str) -> None:
    fetched = answer(status, attempts=1 if status != 503 else 3)
    assert body_to_read(fetched, b"<p>error page</p>", RULES) is None
    out = page_records(fetched, Reading(), [claim()], RULES)
    assert (out.fetch_status, out.note) == (fetch_status, note)
    assert out.records[0]["prior"] == "SOURCE_UNAVAILABLE" and out.records[0]["note"] == note


def test_a_challenge_page_is_unavailable_never_dead() -> None:
    out = page_records(answer(200, title="Just a moment..."), Reading(), [claim()], RULES)
    assert out.fetch_status == "UNAVAILABLE" and out.note.startswith("challenge page")


@pytest.mark.parametrize(("failure", "via_browser", "fetch_status", "note"), [
    (FetchFailure("robots"), False, "ROBOTS", "robots.txt disallows this URL"),
    (FetchFailure("refused", message="host excluded"), False, "EXCLUDED", "host excluded"),
    (FetchFailure("ignored", "IgnoreRequest", "max redirections reached"), False, "UNAVAILABLE",
     "redirects not followed to the end: max redirections reached (loop or chain too long)"),
    (FetchFailure("error", "TimeoutError", "timed out"), False, "UNAVAILABLE", "timeout after 2 attempt(s)"),
    (FetchFailure("error", "ConnectionRefusedError", "refused"), False, "UNAVAILABLE", "connection refused after 2 attempt(s)"),
    (FetchFailure("error", "TimeoutError", "Timeout 30000ms exceeded"), True, "UNAVAILABLE",
     "render timeout: Timeout 30000ms exceeded"),
])
def test_a_failure_is_named(failure: FetchFailure, via_browser: bool, fetch_status: str, note: str) -> None:
    fetched = Fetched(URL, "t", attempts=2, failure=failure, via_browser=via_browser)
    out = page_records(fetched, Reading(), [claim()], RULES)
    assert (out.fetch_status, out.note) == (fetch_status, note)


def test_a_refused_target_is_excluded_and_breaks_no_streak() -> None:
    out = page_records(Fetched(URL, "t", refused="excluded_hosts: tax.example.gouv.fr"), Reading(), [claim()], RULES,
                       Previous(fail_streak=2))
    assert out.fetch_status == "EXCLUDED" and out.fail_streak == 0


@pytest.mark.parametrize(("reading", "fetch_status", "prior", "note"), [
    (Reading(kind="binary"), "BINARY", "SOURCE_BINARY", "binary content (application/zip): not read"),
    (Reading(kind="pdf", pdf="disabled"), "BINARY", "SOURCE_BINARY", "PDF extraction disabled in config (pdf.enabled)"),
    (Reading(kind="pdf", pdf="cut"), "UNAVAILABLE", "SOURCE_UNAVAILABLE",
     "PDF larger than pdf.max_bytes (1000 bytes): a cut PDF cannot be read"),
    (Reading(kind="pdf", pdf="no_text", note="PDF with no text layer (2 page(s)): a scan?"), "OK", "PDF_NO_TEXT",
     "PDF with no text layer (2 page(s)): a scan?"),
])
def test_what_the_reader_could_not_read_decides_the_status(reading: Reading, fetch_status: str, prior: str,
                                                            note: str) -> None:
    out = page_records(answer(headers={"content-type": "application/zip"}), reading, [claim()], RULES)
    assert (out.fetch_status, out.records[0]["prior"], out.records[0]["note"]) == (fetch_status, prior, note)


def test_a_304_reads_the_stored_copy_or_says_there_is_none() -> None:
    assert body_to_read(answer(304), b"", RULES) is None
    kept = page_records(answer(304), read(restored=True, text_method="store (304 Not Modified)"), [claim()], RULES,
                        Previous())
    assert kept.fetch_status == "OK" and kept.records[0]["not_modified"] is True
    assert kept.records[0]["prior"] == "TOKENS_PRESENT"
    lost = page_records(answer(304), Reading(restored=False), [claim()], RULES, Previous())
    assert (lost.fetch_status, lost.note) == ("UNAVAILABLE", "failing (1 of 3): 304 Not Modified but no stored copy to read")


def test_dead_only_after_the_configured_streak() -> None:
    first = page_records(answer(404), Reading(), [claim()], RULES, Previous(fail_streak=0))
    assert (first.fetch_status, first.note, first.raw_status) == ("UNAVAILABLE", "failing (1 of 3): http 404", "DEAD")
    assert first.records[0]["fetch_status"] == "UNAVAILABLE" and first.records[0]["fail_streak"] == 1
    third = page_records(answer(404), Reading(), [claim()], RULES, Previous(fail_streak=2))
    assert third.fetch_status == "DEAD" and third.records[0]["fail_streak"] == 3
    back = page_records(answer(), read(), [claim()], RULES, Previous(fail_streak=2))
    assert back.fail_streak == 0


def test_a_settled_change_carries_the_excerpts_before_and_the_diff() -> None:
    old = "Le taux de 5,80 % s'applique." + " Texte." * 40
    prev = Entry(URL, state=ContentState(stable_hash=content_hash(old), stable_since="2026-10-01T00:00:00+00:00",
                                         last_hash=content_hash(PAGE), pending_since="2026-11-01T00:00:00+00:00"),
                 excerpts={"c1": ["taux de 5,80 %"]})
    out = page_records(answer(), read(), [claim()], RULES, PagePast(URL, prev, stable_text=old).previous())
    record = out.records[0]
    assert out.changed and record["content_changed"] and record["previous_excerpts"] == ["taux de 5,80 %"]
    assert any("5,81" in line for line in record["change_diff"])
    entry = next_entry(answer(headers={"etag": '"v2"'}), read(), out, prev, "run-1")
    assert entry.etag == '"v2"' and entry.state.stable_hash == content_hash(PAGE) and entry.run_id == "run-1"
    assert entry.excerpts == {"c1": record["excerpts"]}


def test_an_unfetched_claim_has_the_same_schema() -> None:
    record = unfetched_record(claim(), "not fetched")
    fetched = page_records(answer(), read(), [claim()], RULES).records[0]
    assert list(record) == list(fetched)[:len(record)]
    assert (record["fetch_status"], record["prior"], record["note"]) == ("UNAVAILABLE", "SOURCE_UNAVAILABLE", "not fetched")
