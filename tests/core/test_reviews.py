"""Review memory, pure: matching, expiry, orphans, the linter's finding, and the report lines."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from sv_scrapy.core.audit.reviewfile import Review, dumps, merged, parse
from sv_scrapy.core.audit.reviews import apply_reviews, new_review, open_findings
from sv_scrapy.core.report.report_html import render_html
from sv_scrapy.core.report.report_md import render_markdown

from .test_reports import synthetic_doc

TODAY = date(2027, 3, 1)


def item(cid: str, figure: str = "5.81", **extra: Any) -> dict[str, Any]:
    scope, line, _ = cid.split(":")
    return {"id": cid, "scope": scope, "line_no": int(line), "source_url": "https://www.impots.gouv.fr/taux",
            "values": [{"norm": figure, "raw": figure, "salient": True}], "prior": "TOKENS_ABSENT",
            "fetch_status": "OK", "content_hash": "h1", **extra}


def test_a_review_follows_its_claim_by_key_and_expires_when_the_figures_change() -> None:
    review = new_review(item("fr:4:aaaa0001"), "TOKENS_ABSENT", "figure_elsewhere", "annex", date(2027, 1, 1))
    moved = [item("fr:6:aaaa0001")]
    applied = apply_reviews(moved, [review], TODAY)
    assert moved[0]["review"]["quiet"] and applied.as_dict()["reviewed"] == 1
    changed = [item("fr:4:aaaa0001", figure="6.00")]
    applied = apply_reviews(changed, [review], TODAY)
    assert changed[0]["review"]["why_expired"] == "the claim's figures changed since (5.81 → 6.00)"
    assert changed[0]["review"]["news"] and applied.expired_news == changed and open_findings(changed) == 1
    # remembered as reported: news once
    again = [item("fr:4:aaaa0001", figure="6.00")]
    apply_reviews(again, [review], TODAY, previous={"fr:4:aaaa0001": {"reviews_expired": ["TOKENS_ABSENT@2027-01-01"]}})
    assert again[0]["review"]["expired"] and not again[0]["review"]["news"]


def test_a_review_without_its_claim_is_orphaned_never_an_error() -> None:
    review = new_review(item("fr:4:aaaa0001"), "TOKENS_ABSENT", "wont_fix", "gone", date(2027, 1, 1))
    other = [item("kr:2:bbbb0002", figure="10")]
    applied = apply_reviews(other, [review], TODAY)
    assert applied.orphaned == [review] and other[0]["review"] is None


def test_a_review_of_a_finding_the_claim_no_longer_shows_silences_nothing() -> None:
    review = new_review(item("fr:4:aaaa0001"), "TOKENS_ABSENT", "wont_fix", "x", date(2027, 1, 1))
    present = [item("fr:4:aaaa0001", prior="TOKENS_PRESENT")]
    apply_reviews(present, [review], TODAY)
    assert present[0]["review"]["applies"] is False and not present[0]["review"]["quiet"]


def test_the_linters_finding_is_reviewed_on_its_row() -> None:
    items = [item("fr:4:aaaa0001", prior="TOKENS_PRESENT")]
    row = {"id": "fr:4:aaaa0001", "scope": "fr", "line_no": 4, "url": "https://www.gov.fr/", "figure": "5.81 %"}
    review = new_review(items[0], "root_citation", "fix_pending", "deep link coming", date(2027, 1, 1))
    applied = apply_reviews(items, [review], TODAY, root_rows=[row])
    assert [r["id"] for r, _ in applied.quiet_roots] == ["fr:4:aaaa0001"] and not applied.orphaned


def test_merging_replaces_a_review_of_the_same_claim_and_finding() -> None:
    old = Review("ab12cd34", "fr:3:0a1b2c3d", "TOKENS_ABSENT", "wont_fix", "old", "2027-01-01")
    new = Review("ab12cd34", "fr:5:0a1b2c3d", "TOKENS_ABSENT", "accepted", "new", "2027-02-01")
    both, replaced = merged([old], [new])
    assert both == [new] and replaced == [old]
    assert parse(dumps(both), "f") == [new]


def test_report_warning_lines_link_urls_never_escape_them() -> None:
    doc = synthetic_doc(3)
    doc["store_quarantined"] = [{"url": "https://www.estadistica.ad/"}]
    md = render_markdown(doc)
    warning = next(line for line in md.splitlines() if "set aside" in line)
    assert "<https://www.estadistica.ad/>" in warning and "\\/" not in warning and "\\." not in warning
    assert '<a href="https://www.estadistica.ad/"' in render_html(doc)


def test_reviewed_and_orphaned_sections_are_collapsed_in_both_reports() -> None:
    doc = synthetic_doc(6)
    target = doc["items"][0]
    target.update(prior="TOKENS_ABSENT", fetch_status="OK", stale_changed=False, transition=None, content_hash="h")
    review = new_review(target, "TOKENS_ABSENT", "figure_elsewhere", "in the | annex", date(2026, 11, 2))
    orphan = Review("ffff0000", "ad:9:99999999", "DEAD", "wont_fix", "gone", "2026-10-01")
    applied = apply_reviews(doc["items"], [review, orphan], date(2026, 12, 1))
    doc["reviews"] = applied.as_dict()
    md, html = render_markdown(doc), render_html(doc)
    body, reviewed = md.split("<details><summary>Reviewed (1)", 1)
    assert f"`{target['scope']}:1`" not in body and f"`{target['scope']}:1`" in reviewed and "in the \\| annex" in reviewed
    assert "Orphaned reviews (1)" in reviewed and "`ad:9:99999999`" in reviewed and reviewed.rstrip().endswith("</details>")
    assert "<details><summary>Reviewed (1)" in html and "Orphaned reviews (1)" in html


def test_verify_reports_folder_from_config_is_relative_to_it(tmp_path: Path) -> None:
    from sv_scrapy.run.config import load_config
    from testing.crawl import make_config

    config = make_config(tmp_path / "config", source_verify={"report": {"verify_reports": "../reports"}})
    assert load_config(config).report.verify_reports == config / "../reports"
    assert load_config(make_config(tmp_path / "plain")).report.verify_reports is None
