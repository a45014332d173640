"""Then and now, pure: which claims are looked up, and what each outcome says."""

from __future__ import annotations

import pytest

from sv_scrapy.core.audit.archive.cdx import CdxError, parse_cdx
from sv_scrapy.core.audit.archive.thennow import select, verdict


def rec(cid: str, prior: str = "TOKENS_ABSENT", status: str = "OK", priority: float = 0.0, **extra: object) -> dict:
    return {"id": cid, "prior": prior, "fetch_status": status, "priority": priority, **extra}


def test_flagged_claims_most_urgent_first_bounded() -> None:
    records = [rec("a", priority=1), rec("b", priority=5), rec("c", "TOKENS_PRESENT", priority=9),
               rec("d", "SOURCE_UNAVAILABLE", "DEAD", priority=3), rec("e", "SOURCE_UNAVAILABLE", "EXCLUDED", priority=8),
               rec("f", "SOURCE_UNAVAILABLE", "ROBOTS", priority=8), rec("g", "TOKENS_PRESENT", stale_changed=True),
               rec("h", "WEAK_MATCH", priority=2)]
    assert [r["id"] for r in select(records, 10)] == ["b", "d", "h", "a", "g"]
    assert [r["id"] for r in select(records, 2)] == ["b", "d"]
    assert select(records, 0) == []


THEN = {"timestamp": "20260515000000", "archive_url": "https://web.archive.org/web/20260515000000/https://a.gouv.fr/x",
        "found_as": {"5.81 %": "5,81"}}


@pytest.mark.parametrize(("now", "then_prior", "expected"), [
    (rec("x"), "TOKENS_PRESENT", "changed_since_verified"),
    (rec("x", "WEAK_MATCH"), "TOKENS_PRESENT", "changed_since_verified"),
    (rec("x"), "TOKENS_ABSENT", "not_on_page_when_verified"),
    (rec("x", "TOKENS_PRESENT", stale_changed=True), "TOKENS_PRESENT", "present_now"),
    (rec("x", "SOURCE_UNAVAILABLE", "DEAD"), "TOKENS_PRESENT", "replacement_candidate"),
    (rec("x", "SOURCE_UNAVAILABLE", "UNAVAILABLE"), "TOKENS_ABSENT", "not_on_page_when_verified"),
    (rec("x"), "PDF_NO_TEXT", "capture_unreadable"),
])
def test_the_verdicts(now: dict, then_prior: str, expected: str) -> None:
    assert verdict(now, {**THEN, "prior": then_prior})["verdict"] == expected  # type: ignore[index]


def test_the_lines_name_the_capture_and_the_figure_as_written() -> None:
    line = verdict(rec("x"), {**THEN, "prior": "TOKENS_PRESENT"})["line"]  # type: ignore[index]
    assert line == "changed since verified: the archived page of 2026-05-15 said 5,81 % — today's page does not"
    dead = verdict(rec("x", "SOURCE_UNAVAILABLE", "DEAD"), {**THEN, "prior": "TOKENS_PRESENT"})["line"]  # type: ignore[index]
    assert dead.endswith(THEN["archive_url"]) and dead.startswith("replacement citation candidate")
    assert verdict(rec("x"), None) is None


@pytest.mark.parametrize("body", ['{"a": 1}', "[[1, 2]", '[["urlkey","timestamp","original"],["k","2026","u"]]',
                                  '[["urlkey"]]'])
def test_malformed_cdx_answers_raise(body: str) -> None:
    with pytest.raises(CdxError):
        parse_cdx(body)


def test_a_file_without_stamp_takes_its_last_commit_day(tmp_path):  # type: ignore[no-untyped-def]
    import os
    import subprocess

    from sv_scrapy.core.audit.archive.filedates import file_days
    from sv_scrapy.core.audit.archive.thennow import stamp_date

    (tmp_path / "countries").mkdir()
    (tmp_path / "countries" / "notes.md").write_text("- Ceiling 1.75 %\n")
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-04-02T10:00:00Z", "GIT_COMMITTER_DATE": "2026-04-02T10:00:00Z",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for cmd in (["init", "-q"], ["add", "."], ["commit", "-qm", "notes"]):
        subprocess.run(["git", "-C", str(tmp_path), *cmd], check=True, env=env)
    days = file_days(tmp_path, ["countries/notes.md", "countries/none.md", ""])
    assert days == {"countries/notes.md": "2026-04-02"}
    assert stamp_date({"file": "countries/notes.md", "inline_stamp": None}, days) == ("2026-04-02", "file")
    assert stamp_date({"file": "x.md", "inline_stamp": {"date": "2026-05-20"}}, days) == ("2026-05-20", "stamp")
    assert stamp_date({"file": "x.md", "inline_stamp": None}, days) == ("", "")
