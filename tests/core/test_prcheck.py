"""The pull-request check's verdicts and how they are shown (pure): what fails, what warns, the
annotations escaped as the Actions toolkit escapes them, at most 10 of a kind, the step summary cut."""

from __future__ import annotations

from typing import Any

import pytest

from sv_scrapy.core.report.prcheck import (
    ERROR,
    WARNING,
    Finding,
    annotation,
    annotation_lines,
    changes_markdown,
    findings_of,
    output_lines,
)

PATH = "playbooks/countries/fr/playbook.md"


def item(change: str = "new", prior: str = "TOKENS_PRESENT", status: str = "OK", **extra: Any) -> dict[str, Any]:
    return {"change": change, "prior": prior, "fetch_status": status, "repo_file": PATH, "line_no": 7,
            "claim_text": "Duty 5.81 %", "source_url": "https://a.gouv.fr/x", "missing_tokens": ["5.81 %"],
            "excerpts": ["The duty is 5.81 %."], **extra}


@pytest.mark.parametrize(("record", "levels"), [
    (item(), []),
    (item(prior="TOKENS_ABSENT"), [ERROR]),
    (item("restamped", prior="TOKENS_ABSENT", soft_404=True), [ERROR]),
    (item("source_changed", prior="SOURCE_UNAVAILABLE", status="DEAD"), [ERROR]),
    (item("restamped", prior="SOURCE_UNAVAILABLE", status="DEAD"), [WARNING]),  # DEAD fails new/changed only
    (item(prior="SOURCE_UNAVAILABLE", status="UNAVAILABLE"), [WARNING]),  # a bad minute never fails
    (item(prior="SOURCE_UNAVAILABLE", status="ROBOTS"), [WARNING]),
    (item(prior="WEAK_MATCH"), []),
    (item(context_match=False), []),  # another context is shown, not a failure
    (item("figure_changed", also_stated=["fr:120"], old_figures=["0.65 %"]), [WARNING]),
])
def test_what_fails_and_what_warns(record: dict[str, Any], levels: list[str]) -> None:
    assert [f.level for f in findings_of(record)] == levels


def test_annotation_escapes_properties_and_message_like_the_toolkit() -> None:
    hostile = item(prior="TOKENS_ABSENT", claim_text="50% off\r\n::error file=x,line=1::spoof",
                   repo_file="a,b:c.md")
    (line,) = annotation_lines(findings_of(hostile))
    assert line.startswith("::error file=a%2Cb%3Ac.md,line=7,title=figure not on the cited page::")
    assert '"50%25 off ::error file=x,line=1::spoof"' in line  # after the command's own "::", on its line
    raw = Finding(WARNING, "f.md", 1, "t,i:t", "a\r\nb%")
    assert annotation(raw) == "::warning file=f.md,line=1,title=t%2Ci%3At::a%0D%0Ab%25"


def test_at_most_ten_of_each_kind_then_a_plain_line_saying_how_many_more() -> None:
    records = [item(prior="TOKENS_ABSENT", line_no=n) for n in range(13)]
    records += [item(prior="SOURCE_UNAVAILABLE", status="UNAVAILABLE", line_no=n) for n in range(11)]
    lines = annotation_lines([f for r in records for f in findings_of(r)])
    assert sum(x.startswith("::error ") for x in lines) == 10 and sum(x.startswith("::warning ") for x in lines) == 10
    more = [x for x in lines if not x.startswith("::")]
    assert more == ["sv_scrapy: 3 more failing finding(s) not annotated (GitHub shows 10 per step): see changes.md",
                    "sv_scrapy: 1 more warning(s) not annotated (GitHub shows 10 per step): see changes.md"]


def test_the_step_summary_is_cut_on_a_row_to_its_byte_limit() -> None:
    records = [item(line_no=n, claim_text="é" * 200) for n in range(400)]
    whole = changes_markdown(records, [], "main")
    cut = changes_markdown(records, [], "main", limit=20_000)
    assert len(cut.encode("utf-8")) <= 20_000 < len(whole.encode("utf-8"))
    rows = [x for x in cut.splitlines() if x.startswith("| `")]
    assert rows and all(x.endswith(" | ok |") for x in rows)
    assert cut.rstrip().endswith(f"{400 - len(rows)} more row(s) in changes.md (the artifact)._")


def test_markdown_in_claims_and_excerpts_stays_text() -> None:
    text = changes_markdown([item(claim_text="| [x](https://e.vil) @bob", excerpts=["<img src=x> ::warning::y"])],
                            [], "main")
    row = text.splitlines()[6]
    assert "\\| \\[x\\]" in row and "&#64;bob" in row and "&lt;img" in row


def test_github_output_counts() -> None:
    records = [item(prior="TOKENS_ABSENT"), item(prior="SOURCE_UNAVAILABLE", status="UNAVAILABLE"), item()]
    assert output_lines(records, "/o/changes.md") == ["findings=1", "warnings=1", "claims_checked=3",
                                                      "report=/o/changes.md"]


def test_the_worklist_summary_never_starts_a_line_with_a_claims_words() -> None:
    from sv_scrapy.core.report.worklistsummary import summary_lines, worklist_stats

    hostile = {**item(prior="TOKENS_ABSENT", claim_text="::error file=x,line=1::spoof"), "id": "fr:7:x", "scope": "fr"}
    lines = summary_lines(worklist_stats([hostile]), "worklist.json")  # type: ignore[list-item]
    assert not [line for line in lines if line.strip().startswith("::")]
    moved = {**hostile, "proposed_source": {"url": "https://a.gouv.fr/::error spoof"}}
    lines = summary_lines(worklist_stats([moved]), "worklist.json")  # type: ignore[list-item]
    assert "      stated now at: https://a.gouv.fr/::error spoof" in lines  # labelled, never a line's start


def test_a_row_with_an_excerpt_links_to_the_figure_on_the_page() -> None:
    # the pull-request summary lands on the figure like the audit's reports (issue: links to the figure)
    linked = item(matched_tokens=["5.81"], strong_matched=["5.81"], found_as={"5.81": "5.81 %"})
    table = changes_markdown([linked], [], "origin/main")
    assert "[↪ at the figure](https://a.gouv.fr/x#:~:text=" in table
    absent = item(prior="TOKENS_ABSENT", excerpts=[], page_excerpt="")
    assert "#:~:text=" not in changes_markdown([absent], [], "origin/main")  # nothing on the page to land on


def test_an_edit_of_the_rules_is_a_warning_of_the_change_shown_above_the_table() -> None:
    from sv_scrapy.core.report.prcheck import summary_line

    edit = Finding(WARNING, "config/_url-liveness.json", 1, "the change edits the rules that judge it",
                   "this change edits the rules that judge it: host(s) excluded: a.gouv.fr | [x](https://e.vil)")
    hidden = item("restamped", prior="TOKENS_ABSENT", rules_effect="the change's own rules would exclude a.gouv.fr")
    (finding,) = findings_of(hidden)
    assert finding.level == ERROR and finding.message.endswith("(the change's own rules would exclude a.gouv.fr; "
                                                               "judged by the base's rules)")
    assert output_lines([hidden], "/o/changes.md", [edit])[:2] == ["findings=1", "warnings=1"]
    assert "1 failing, 1 warning(s)" in summary_line([hidden], 0, 0, "abc", "/o/changes.md", [edit])
    text = changes_markdown([hidden], [], "main", extra=[edit])
    above, _, _ = text.partition("| where |")
    assert "⚠️ `config/_url-liveness.json`: this change edits the rules" in above
    assert "](https://e.vil" not in text  # the edit's words are escaped like a claim's
def test_a_failing_claim_says_where_the_figure_stands() -> None:
    """Issue #38: the annotation and changes.md of a failing claim name the page the site states the
    figure on (a suggestion, never an edit); a claim without a proposal says nothing of it."""
    at = {"url": "https://a.gouv.fr/guidance", "found_via": "sitemap", "excerpt": "The duty is 5.81 %."}
    (finding,) = findings_of(item(prior="TOKENS_ABSENT", proposed_source=at))
    assert "the figure stands at https://a.gouv.fr/guidance (found via the site's sitemap" in finding.message
    assert "stands at" not in findings_of(item(prior="TOKENS_ABSENT"))[0].message
    # page text and URLs reach Markdown escaped, as every report escapes them (no autolink of untrusted text)
    assert "the figure stands at https:\\/\\/a.gouv.fr/guidance" in changes_markdown(
        [item(prior="TOKENS_ABSENT", proposed_source=at)], [], "main")
