"""The change set of two revisions' claims (pure): identity survives moves, each change its kind."""

from __future__ import annotations

from sv_scrapy.core.audit.changeset import diff_claims
from sv_scrapy.core.claims.claims import Extraction, ExtractOptions, extract_file
from sv_scrapy.core.claims.record import ClaimRecord
from sv_scrapy.core.hosts import HostRules

OPTS = ExtractOptions(scope_dirs=("countries",))
REL = "countries/fr/playbook.md"


def claims(text: str) -> list[ClaimRecord]:
    out = Extraction()
    extract_file(text, "fr", REL, HostRules(), OPTS, out)
    return [c.as_dict() for c in out.claims]


def diff(before: str, after: str) -> tuple[dict[int, str], list[int], int]:
    out = diff_claims(claims(before), claims(after), {REL: before}, {REL: after})
    return {c.claim["line_no"]: c.change for c in out.changed}, [r["line_no"] for r in out.removed], out.moved


A = "Duty 5.81 % ([a](https://a.impots.gouv.fr/x))"
B = "Fee 7.10 % ([b](https://b.impots.gouv.fr/y))"


def test_lines_that_only_move_are_no_change() -> None:
    before = f"# T\n\n{A}\n{B}\n"
    after = "# T\n\n" + "filler\n" * 20 + f"{B}\n{A}\n"
    assert diff(before, after) == ({}, [], 2)


def test_a_later_stamp_of_any_origin_is_a_restamp() -> None:
    assert diff(f"{A} (2026-01-01 verified)\n", f"{A} (2026-12-01 verified)\n")[0] == {1: "restamped"}
    assert diff(f"**Last verified**: 2026-01-01\n\n{A}\n", f"**Last verified**: 2026-12-01\n\n{A}\n")[0] == {3: "restamped"}
    heading = "## Rates (verified {})\n" + A + "\n"
    assert diff(heading.format("2026-01-01"), heading.format("2026-12-01"))[0] == {2: "restamped"}
    # an earlier date, or a stale marker, re-stamps nothing
    assert diff(f"{A} (2026-12-01 verified)\n", f"{A} (2026-12-01 stale-marker)\n")[0] == {}


def test_figure_source_new_and_removed() -> None:
    before = f"# T\n{A}\n{B}\nOld 3.3 % ([o](https://o.impots.gouv.fr/z))\n"
    after = ("# T\nDuty 6.00 % ([a](https://a.impots.gouv.fr/x))\nFee 7.10 % ([b](https://b.impots.gouv.fr/new))\n"
             "New 9.9 % ([n](https://n.impots.gouv.fr/q))\n")
    changed, removed, _ = diff(before, after)
    assert changed == {2: "figure_changed", 3: "source_changed", 4: "new"}
    assert removed == [4]


def test_the_old_figure_still_stated_on_another_line_citing_the_page_is_named() -> None:
    other = "Annex rate 5.81 % ([a](https://a.impots.gouv.fr/x))"
    before, after = f"{A}\n\n{other}\n", f"Duty 6.00 % ([a](https://a.impots.gouv.fr/x))\n\n{other}\n"
    out = diff_claims(claims(before), claims(after), {REL: before}, {REL: after})
    (change,) = out.changed
    assert change.change == "figure_changed" and change.also_stated == ("fr:3",)


def test_an_edited_line_is_found_where_its_lines_moved() -> None:
    # 20 lines above it: the aligned line, not the old number, says which claim it replaced
    before = f"# T\n{A}\n"
    after = "# T\n" + "filler\n" * 20 + "Duty 6.00 % ([a](https://a.impots.gouv.fr/x))\n"
    assert diff(before, after)[:2] == ({22: "figure_changed"}, [])
