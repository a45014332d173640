"""The audit's finish, string in / documents out: records and the store's memory as values ->
the document, the three reports, the CI lines and what the store keeps."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from sv_scrapy.core.claims.claims import extract_corpus
from sv_scrapy.core.report.finish import OUTPUT_COUNTS, AuditInputs, finish_audit
from sv_scrapy.core.report.report_html import render_html
from sv_scrapy.core.report.report_md import issue_markdown, render_markdown
from sv_scrapy.core.report.sourcelinks import SourceLinks
from sv_scrapy.run.runtime import Runtime
from testing.crawl import make_config, write_corpus

NOW = "2027-02-01T03:17:00+00:00"


def inputs(tmp_path: Path, **given: Any) -> AuditInputs:
    from sv_scrapy.run.config import load_config

    corpus = write_corpus(tmp_path / "corpus", {"countries/fr/playbook.md": (
        "# Tax\n- DMTO 5.81 % ([a](https://a.finish.gouv.fr/dmto))\n- fee €150 ([b](https://b.finish.gouv.fr/fee))\n")})
    config = load_config(make_config(tmp_path / "config"))
    rt = Runtime(config=config, corpus_root=corpus, output_dir=tmp_path / "out")
    claims = [c.as_dict() for c in extract_corpus(corpus, config.hosts, rt.extract_options()).claims]
    first = claims[0]
    record = {**first, "fetch_status": "OK", "prior": "TOKENS_ABSENT", "matched_tokens": [], "strong_matched": [],
              "missing_tokens": ["5.81 %"], "excerpts": [], "found_as": {}, "note": "", "fetched_at": NOW}
    base: dict[str, Any] = dict(claims=claims, records={first["id"]: record},
                                urls={first["source_url"]: {"fetch_status": "OK", "not_modified": False, "kind": "html"}},
                                params={"country": None, "ci": True}, run_id="r1", resumed=False, generated_at=NOW,
                                links=SourceLinks(), weights=config.sampling.weights, backlog_top_n=10,
                                out_dir=tmp_path / "out" / "audit")
    return AuditInputs(**{**base, **given})


def test_a_finish_without_a_past_is_a_baseline_with_every_claim(tmp_path: Path) -> None:
    done = finish_audit(inputs(tmp_path))
    doc = done.doc
    assert [i["prior"] for i in doc["items"]] == ["TOKENS_ABSENT", "SOURCE_UNAVAILABLE"]  # the unfetched one kept
    assert doc["items"][1]["note"] == "not fetched" and doc["complete"] and doc["news_since"] == ""
    assert set(done.reports) == {"report.md", "report.html", "issue.md"}
    assert [line.split("=")[0] for line in done.output_lines][:len(OUTPUT_COUNTS)] == list(OUTPUT_COUNTS)
    assert "flagged=1" in done.output_lines and done.scopes == {"fr": NOW}
    assert len(done.history) == 1 and set(done.kept) == {i["id"] for i in doc["items"]}
    assert done.summary.startswith("audit: 2 claim(s) over 1 URL(s); first audit (baseline);")  # pages that came back


def test_a_failure_and_an_earlier_audit_show_in_the_document(tmp_path: Path) -> None:
    done = finish_audit(inputs(tmp_path, failure="none of 2 request(s) got an answer",
                               journal={"previous_finished_at": "2027-01-01T03:17:00+00:00"},
                               scopes={"fr": "2027-01-01T03:17:00+00:00"}))
    assert not done.doc["complete"] and done.doc["problems"] == ["none of 2 request(s) got an answer"]
    assert done.doc["news_since"] == "2027-01-01T03:17:00+00:00" and "new since 2027-01-01" in done.summary


def test_the_reports_of_the_listed_claims_are_those_of_every_claim(tmp_path: Path) -> None:
    """The finish hands its reports only the claims they may list, with the counts over every
    claim (issue #42): they must read as if drawn from the whole document."""
    base = inputs(tmp_path)
    absent, present = base.claims
    def records() -> dict[str, Any]:  # afresh for each finish: it enriches the records it is given
        found = base.records[absent["id"]]
        return {absent["id"]: dict(found), present["id"]: {**found, **present, "prior": "TOKENS_PRESENT",
                                                            "matched_tokens": ["150"], "missing_tokens": []}}
    was = {"prior": "TOKENS_PRESENT", "fetch_status": "OK", "scope": "fr", "baseline": "TOKENS_PRESENT"}
    month_two: dict[str, Any] = {"previous": {absent["id"]: was, present["id"]: was},
                                 "scopes": {"fr": "2027-01-01T03:17:00+00:00"},
                                 "journal": {"previous_finished_at": "2027-01-01T03:17:00+00:00"}}
    for month in ({}, month_two):  # month one (a baseline), month two (news)
        given = replace(base, records=records(), **month)
        done = finish_audit(given)
        whole = {**done.doc, "items": list(done.doc["items"])}
        assert done.reports["report.md"] == render_markdown(whole, [], given.backlog_top_n)
        assert done.reports["report.html"] == render_html(whole, [])
        assert done.reports["issue.md"] == issue_markdown(whole, [], given.backlog_top_n)
    assert [i["transition"] for i in whole["items"]] == ["vanished", None]  # month two: one listed, one not
