"""Transitions since the previous audit: string-in/assert-out over claim records."""

from __future__ import annotations

from typing import Any

from sv_scrapy.core.audit.news import apply_transitions, new_findings, news


def rec(cid: str = "xx:3:aaaa", prior: str = "TOKENS_PRESENT", status: str = "OK", **extra: Any) -> dict[str, Any]:
    base = {"id": cid, "scope": "xx", "line_no": 3, "source_url": "https://a.gouv.fr/x", "prior": prior,
            "fetch_status": status, "values": [{"type": "pct", "raw": "5.81 %", "norm": "5.81", "salient": True}],
            "in_flux": False, "stale_changed": False}
    return {**base, **extra}


def audits(*runs: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Feed each run's records through apply_transitions with the outcomes kept by the last."""
    kept: dict[str, dict[str, Any]] = {}
    scopes: set[str] = set()
    for items in runs:
        kept = apply_transitions(items, kept, scopes)
        scopes |= {i["scope"] for i in items}
    return list(runs)


def test_first_audit_has_no_transitions_and_a_later_new_claim_is_news() -> None:
    first, second = audits([rec()], [rec(), rec("xx:9:bbbb", prior="TOKENS_ABSENT", source_url="https://b.gouv.fr")])
    assert first[0]["transition"] is None and first[0]["previous_prior"] is None
    assert [i["transition"] for i in second] == [None, "new_claim"]


def test_vanished_on_a_settled_page_is_news_at_once() -> None:
    runs = audits([rec()], [rec(prior="TOKENS_ABSENT", content_changed=True)])
    assert (runs[1][0]["transition"], runs[1][0]["previous_prior"]) == ("vanished", "TOKENS_PRESENT")


def test_vanished_on_a_page_in_flux_waits_one_audit() -> None:
    runs = audits([rec()], [rec(prior="TOKENS_ABSENT", in_flux=True)], [rec(prior="TOKENS_ABSENT", in_flux=True)],
                  [rec(prior="TOKENS_ABSENT")])
    assert [r[0]["transition"] for r in runs] == [None, None, "vanished", None]
    assert runs[1][0]["transition_pending"] == "vanished"
    assert runs[3][0]["previous_prior"] == "TOKENS_ABSENT"  # standing from then on


def test_a_flip_back_is_never_news() -> None:
    runs = audits([rec()], [rec(prior="TOKENS_ABSENT", in_flux=True)], [rec()])
    assert [r[0]["transition"] for r in runs] == [None, None, None]


def test_weak_match_left_counts_as_vanished_and_the_figure_back_as_appeared() -> None:
    runs = audits([rec()], [rec(prior="WEAK_MATCH")], [rec()])
    assert [r[0]["transition"] for r in runs] == [None, "vanished", "appeared"]


def test_unavailable_dead_and_recovered() -> None:
    runs = audits([rec()], [rec(prior="SOURCE_UNAVAILABLE", status="UNAVAILABLE")],
                  [rec(prior="SOURCE_UNAVAILABLE", status="UNAVAILABLE")],
                  [rec(prior="SOURCE_UNAVAILABLE", status="DEAD")], [rec(prior="SOURCE_UNAVAILABLE", status="DEAD")],
                  [rec(prior="TOKENS_ABSENT", in_flux=True)])
    assert [r[0]["transition"] for r in runs] == [None, "newly_unavailable", None, "newly_dead", None, "recovered"]


def test_after_an_outage_a_lost_figure_is_still_compared_with_the_last_read_page() -> None:
    runs = audits([rec()], [rec(prior="SOURCE_UNAVAILABLE", status="UNAVAILABLE")], [rec(prior="TOKENS_ABSENT")])
    assert (runs[2][0]["transition"], runs[2][0]["previous_prior"]) == ("vanished", "TOKENS_PRESENT")


def test_a_claim_whose_line_moved_keeps_its_history() -> None:
    runs = audits([rec("xx:3:aaaa")], [rec("xx:7:aaaa", line_no=7, prior="TOKENS_ABSENT")])
    assert runs[1][0]["transition"] == "vanished"


def test_a_country_run_keeps_the_other_scopes_outcomes() -> None:
    kept = apply_transitions([rec(), rec("yy:1:cccc", scope="yy")], {}, set())
    kept = apply_transitions([rec()], kept, {"xx", "yy"})  # -a country=xx
    assert set(kept) == {"xx:3:aaaa", "yy:1:cccc"}
    kept = apply_transitions([], kept, {"xx", "yy"})  # nothing audited: nothing dropped
    assert set(kept) == {"xx:3:aaaa", "yy:1:cccc"}


def test_news_lists_each_claim_once_and_counts_findings() -> None:
    items = [
        rec("a", transition="vanished", stale_changed=True),
        rec("b", stale_changed=True),
        rec("c", transition="newly_dead", status="DEAD"),
        rec("d", transition="new_claim", prior="TOKENS_ABSENT"),
        rec("e", transition="new_claim"),
        rec("f", transition="recovered"),
        rec("g"),
    ]
    sections = news(items)
    assert {k: [i["id"] for i in v] for k, v in sections.items() if v} == {
        "vanished": ["a"], "stale_changed": ["b"], "newly_dead": ["c"], "new_claim": ["d", "e"], "recovered": ["f"]}
    assert new_findings(sections) == 4  # a, b, c and the new claim whose figure is absent


def test_a_new_proposal_is_news_once() -> None:
    """Issue #38: the month the audit first finds where the figure stands now, that is news (not a finding);
    the same page proposed again the next month is not; another page is."""
    at = {"url": "https://a.gouv.fr/guidance", "found_via": "sitemap"}
    runs = audits([rec(prior="TOKENS_ABSENT")], [rec(prior="TOKENS_ABSENT", proposed_source=at)],
                  [rec(prior="TOKENS_ABSENT", proposed_source=at)],
                  [rec(prior="TOKENS_ABSENT", proposed_source={**at, "url": "https://a.gouv.fr/v2"})])
    assert [r[0]["proposal_new"] for r in runs] == [False, True, False, True]
    sections = news(runs[1])
    assert [i["id"] for i in sections["proposed"]] == ["xx:3:aaaa"] and new_findings(sections) == 0
