"""``scrapy review`` on its own (an audit.json as the audit writes it, no crawl), and what bad
input in the reviewed-findings file does to the command and to the audit: one line naming the
file and the entry, exit 2, the file never rewritten."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from testing.commands import scrapy_in_process
from testing.crawl import make_config, write_corpus
from testing.env import clean_env
from testing.inprocess import crawl_in_process

FILE = "source-verify-reviewed.json"


def claim(cid: str, prior: str = "TOKENS_ABSENT", **extra: Any) -> dict[str, Any]:
    scope, line, _ = cid.split(":")
    return {"id": cid, "scope": scope, "section": "Tax", "line_no": int(line), "claim_text": f"Duty 5.81 % ({cid})",
            "values": [{"type": "pct", "raw": "5.81 %", "norm": "5.81", "salient": True}],
            "source_url": f"https://www.impots.gouv.fr/{cid.replace(':', '-')}", "prior": prior,
            "fetch_status": "OK", "content_hash": "0123456789abcdef", "stale_changed": False,
            "content_changed": False, **extra}


def review_workspace(tmp_path: Path) -> dict[str, Any]:
    """A config, an audit of five flagged claims and a corpus: what a review works on."""
    config = make_config(tmp_path / "config")
    out = tmp_path / "out"
    items = [claim("fr:5:aaaa0001"), claim("fr:5:bbbb0002"), claim("fr:7:cccc0003", "TOKENS_PRESENT"),
             claim("hk:3:dddd0004"), claim("fr:9:eeee0005", "WEAK_MATCH")]
    (out / "audit").mkdir(parents=True)
    (out / "audit" / "audit.json").write_text(json.dumps({"items": items}), encoding="utf-8")
    corpus = write_corpus(tmp_path / "corpus", {"countries/fr/p.md": "# France\n"})
    env = clean_env()
    env.update(SV_CONFIG_DIR=str(config), SV_OUTPUT_DIR=str(out), SV_CORPUS_ROOT=str(corpus),
               SV_NOW="2027-01-10T10:00:00Z")
    return {"config": config, "out": out, "env": env, "corpus": corpus}


@pytest.fixture
def workspace(tmp_path: Path) -> dict[str, Any]:
    return review_workspace(tmp_path)


def review(ws: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    return scrapy_in_process("review", *args, env=ws["env"])


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def reviews(ws: dict[str, Any]) -> list[dict[str, Any]]:
    return list(json.loads((ws["config"] / FILE).read_text(encoding="utf-8"))["reviews"])


def test_records_replaces_and_selects_from_the_audit(workspace: dict[str, Any]) -> None:
    ok = review(workspace, "fr:9", "--as", "false_positive", "--reason", "written 5,81 pour cent", "--until",
                "2027-06-30")
    assert ok.returncode == 0, ok.stderr
    assert "recorded: fr:9:eeee0005 WEAK_MATCH as false_positive on 2027-01-10 until 2027-06-30" in ok.stdout
    again = review(workspace, "fr:9:eeee0005", "--as", "accepted", "--reason", "on second thought")
    assert "replaced: the review of fr:9:eeee0005 WEAK_MATCH as false_positive" in again.stdout
    assert [(r["claim"], r["decision"]) for r in reviews(workspace)] == [("fr:9:eeee0005", "accepted")]
    bulk = review(workspace, "--from-audit", "--only", "tokens_absent", "--country", "fr", "--as", "wont_fix",
                  "--reason", "portal search pages")
    assert bulk.returncode == 0, bulk.stderr
    assert sorted(r["claim"] for r in reviews(workspace)) == ["fr:5:aaaa0001", "fr:5:bbbb0002", "fr:9:eeee0005"]
    listed = review(workspace, "--list")
    assert listed.returncode == 0 and "3 of 3 review(s)" in listed.stdout and listed.stdout.count("[live]") == 3


@pytest.mark.parametrize(("args", "expected"), [
    (["fr:99:ffff0000", "--as", "wont_fix", "--reason", "x"], "'fr:99:ffff0000': no such claim in"),
    (["fr:5", "--as", "wont_fix", "--reason", "x"], "'fr:5' is ambiguous in"),
    (["fr:7:cccc0003", "--as", "wont_fix", "--reason", "x"], "shows no finding"),
    (["hk:3:dddd0004", "--as", "wont_fix"], "--reason: required"),
    (["hk:3:dddd0004", "--as", "wont_fix", "--reason", "…"], "--reason: required"),
    (["hk:3:dddd0004", "--as", "ok", "--reason", "x"], "--as 'ok': expected one of false_positive"),
    (["hk:3:dddd0004", "--as", "wont_fix", "--reason", "x", "--until", "2026-12-31"], "already past"),
    (["hk:3:dddd0004", "--as", "wont_fix", "--reason", "x", "--until", "soon"], "expected a date YYYY-MM-DD"),
    (["hk:3:dddd0004", "--finding", "DEAD", "--as", "wont_fix", "--reason", "x"], "not DEAD"),
    (["--from-audit", "--as", "wont_fix", "--reason", "x"], "name the claims"),
    (["--from-audit", "--only", "SOMETHING", "--as", "wont_fix", "--reason", "x"], "--only 'SOMETHING'"),
    (["hk:3:dddd0004", "--bogus", "--as", "wont_fix", "--reason", "x"], "--bogus: no such option"),
    (["hk:3:dddd0004", "--as", "wont_fix", "--reason", "x", "--until"], "argument --until: expected one argument"),
    (["--from-audit", "hk:3:dddd0004", "--as", "wont_fix", "--reason", "x"],
     "--from-audit 'hk:3:dddd0004': a claim id, not an audit file"),
    (["--from-audit", "hk:3", "--as", "wont_fix", "--reason", "x"], "--from-audit 'hk:3': a claim id"),
])
def test_mistakes_are_one_line_and_exit_2(workspace: dict[str, Any], args: list[str], expected: str) -> None:
    result = review(workspace, *args)
    assert result.returncode == 2 and expected in one_line(result)
    assert not (workspace["config"] / FILE).exists()


def test_list_with_a_missing_audit_is_the_reviews_one_line(workspace: dict[str, Any], tmp_path: Path) -> None:
    missing = str(tmp_path / "nonexistent.json")
    listed = review(workspace, "--list", "--from-audit", missing)
    recorded = review(workspace, "hk:3:dddd0004", "--from-audit", missing, "--as", "wont_fix", "--reason", "x")
    assert listed.returncode == recorded.returncode == 2
    assert one_line(listed) == one_line(recorded) and f"{missing}: audit not found" in one_line(listed)
    assert review(workspace, "--list").returncode == 0


GOOD = {"key": "0123456789abcdef", "claim": "hk:3:dddd0004", "finding": "TOKENS_ABSENT", "decision": "wont_fix",
        "reason": "ok", "date": "2027-01-01"}
BAD_FILES = {
    "malformed": ('{"format": 1, "reviews": [', "invalid JSON"),
    "decision": (json.dumps({"format": 1, "reviews": [GOOD, {**GOOD, "claim": "fr:5:aaaa0001",
                                                              "decision": "meh"}]}),
                 "reviews[1] (fr:5:aaaa0001): decision 'meh': expected one of"),
    "reason": (json.dumps({"format": 1, "reviews": [{**GOOD, "reason": ""}]}), "reviews[0] (hk:3:dddd0004): missing 'reason'"),
    "duplicate": (json.dumps({"format": 1, "reviews": [GOOD, {**GOOD, "reason": "again"}]}),
                  "reviews[1] (hk:3:dddd0004): duplicate of reviews[0]"),
    "newer": (json.dumps({"format": 9, "reviews": []}), "format 9 was written by a newer sv_scrapy"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_file_is_named_with_its_entry_and_never_rewritten(workspace: dict[str, Any], case: str) -> None:
    text, expected = BAD_FILES[case]
    path = workspace["config"] / FILE
    path.write_text(text, encoding="utf-8")
    for args in (["--list"], ["fr:9", "--as", "wont_fix", "--reason", "a reason"]):
        result = review(workspace, *args)
        line = one_line(result)
        assert result.returncode == 2 and str(path) in line and expected in line, line
        assert path.read_text(encoding="utf-8") == text


def test_the_audit_refuses_a_bad_file_before_any_request(workspace: dict[str, Any]) -> None:
    path = workspace["config"] / FILE
    path.write_text(BAD_FILES["decision"][0], encoding="utf-8")
    write_corpus(workspace["corpus"], {"countries/fr/p.md": "# France\n\n- Duty 5.81 % ([t](https://www.impots.gouv.fr/t))\n"})
    result = crawl_in_process("audit", corpus=workspace["corpus"], config=workspace["config"], output=workspace["out"],
                   proxy_env={})
    line = one_line(result)
    assert result.returncode == 2 and str(path) in line and "reviews[1] (fr:5:aaaa0001): decision 'meh'" in line
    assert path.read_text(encoding="utf-8") == BAD_FILES["decision"][0]


def test_the_linters_finding_is_checked_against_the_corpus(workspace: dict[str, Any]) -> None:
    from sv_scrapy.core.claims.claims import claim_id

    # a bare host under "## Sources": the linter's row, and no claim of the audit
    write_corpus(workspace["corpus"], {"countries/ky/p.md": "# Cayman\n\n## Sources\n\n"
                                       "- 10% band ([gov.ky](https://www.gov.ky/))\n"})
    cid = claim_id("ky", 5, "https://www.gov.ky/")
    assert cid not in (workspace["out"] / "audit" / "audit.json").read_text(encoding="utf-8")
    ok = review(workspace, cid, "--finding", "root_citation", "--as", "fix_pending", "--reason", "deep link soon")
    assert ok.returncode == 0, ok.stderr
    assert f"recorded: {cid} root_citation as fix_pending" in ok.stdout
    assert [(r["claim"], r["finding"]) for r in reviews(workspace)] == [(cid, "root_citation")]
    bulk = review(workspace, "--from-audit", "--only", "root_citation", "--as", "wont_fix", "--reason", "portal")
    assert bulk.returncode == 0, bulk.stderr
    assert f"replaced: the review of {cid} root_citation as fix_pending" in bulk.stdout
    wrong = review(workspace, "hk:3:dddd0004", "--finding", "root_citation", "--as", "fix_pending", "--reason", "x")
    assert wrong.returncode == 2 and "not root_citation" in one_line(wrong)
    plain = review(workspace, cid, "--as", "fix_pending", "--reason", "x")  # a linter row is no claim otherwise
    assert plain.returncode == 2 and "no such claim" in one_line(plain)



def test_the_linter_rows_command_works_as_the_report_prints_it(workspace: dict[str, Any]) -> None:
    """audit -> paste the citation linter row's command (reason edited) -> audit: the row is reviewed."""
    import re
    import shlex

    from testing.mockweb import MockWeb, Route

    cited = "https://www.impots.gouv.fr/taux"
    write_corpus(workspace["corpus"], {"countries/fr/p.md": (
        f"# France\n\n## Tax\n\n- Duty 5.81 % ([taux]({cited}))\n\n## Sources\n\n"
        "- Transfer duty 5.81 % ([impots.gouv.fr](https://www.impots.gouv.fr/))\n")})
    env = {k: v for k, v in workspace["env"].items() if k != "SV_NOW"}
    with MockWeb() as web:
        web.route(cited, Route(body="<html><body>" + "Le taux est de 5,81 %. " * 20 + "</body></html>"))
        for month, now in enumerate(("2027-01-01T03:00:00Z", "2027-02-01T03:00:00Z")):
            result = crawl_in_process("audit", corpus=workspace["corpus"], config=workspace["config"], output=workspace["out"],
                           proxy_env=web.env(), extra_env={"SV_NOW": now})
            assert result.returncode == 0, result.stderr[-2000:]
            doc = json.loads((workspace["out"] / "audit" / "audit.json").read_text(encoding="utf-8"))
            if month:
                break
            report = (workspace["out"] / "audit" / "report.md").read_text(encoding="utf-8")
            printed = re.findall(r"`(scrapy review [^`]*--finding root_citation[^`]*)`", report)
            assert len(printed) == 1, report
            argv = shlex.split(printed[0].replace('"…"', '"the deep link is on its way"'))
            assert argv[2] not in {i["id"] for i in doc["items"]}  # no claim: the linter's row
            pasted = review({**workspace, "env": {**env, "SV_NOW": "2027-01-01T09:00:00Z"}}, *argv[2:])
            assert pasted.returncode == 0, pasted.stderr
            assert f"recorded: {argv[2]} root_citation as fix_pending" in pasted.stdout
            bulk = review({**workspace, "env": {**env, "SV_NOW": "2027-01-01T09:30:00Z"}}, "--from-audit", "--only",
                          "root_citation", "--as", "fix_pending", "--reason", "the deep link is on its way")
            assert bulk.returncode == 0 and "replaced: the review of" in bulk.stdout, bulk.stderr
            listed = review({**workspace, "env": env}, "--list")
            assert listed.returncode == 0 and f"{argv[2]}  root_citation  fix_pending" in listed.stdout
            assert "[live]" in listed.stdout and "orphaned" not in listed.stdout, listed.stdout
    assert [r["id"] for r in doc["reviews"]["root_citations_reviewed"]] == [argv[2]]
    assert doc["reviews"]["reviewed"] == 1 and not doc["reviews"]["orphaned"]


def test_figure_elsewhere_at_a_url_expires_when_that_page_changes(tmp_path: Path) -> None:
    """``--as figure_elsewhere --at URL`` (issue #38): made on the proposed page's hash; the review stands
    while that page stands, and expires when it changes; --at is refused with another decision."""
    from datetime import date

    from sv_scrapy.core.audit.reviewfile import Review
    from sv_scrapy.core.audit.reviews import why_expired

    at = "https://www.impots.gouv.fr/particulier/ifi-seuil"
    ws = review_workspace(tmp_path)
    items = [claim("fr:5:aaaa0001", proposed_source={"url": at, "found_via": "sitemap"}, proposed_hash="feedc0de")]
    (ws["out"] / "audit" / "audit.json").write_text(json.dumps({"items": items}), encoding="utf-8")
    ok = review(ws, "fr:5", "--as", "figure_elsewhere", "--at", at, "--reason", "the threshold moved there")
    assert ok.returncode == 0, ok.stderr
    assert f"at {at}" in ok.stdout
    (saved,) = reviews(ws)
    assert (saved["at"], saved["at_hash"]) == (at, "feedc0de")
    review_of = Review(**{**{k: v for k, v in saved.items() if k != "figures"}, "figures": tuple(saved["figures"]),
                          "reviewer": "", "until": ""})
    assert why_expired(review_of, items[0], date(2027, 1, 20)) == ""
    changed = {**items[0], "proposed_hash": "0badf00d"}
    assert why_expired(review_of, changed, date(2027, 1, 20)) == f"the page it names ({at}) changed since"
    wrong = review(ws, "fr:5", "--as", "accepted", "--at", at, "--reason", "x")
    assert wrong.returncode == 2 and "--at goes with --as figure_elsewhere" in one_line(wrong)
    bad = review(ws, "fr:5", "--as", "figure_elsewhere", "--at", "javascript:alert(1)", "--reason", "x")
    assert bad.returncode == 2 and "expected the http(s) URL" in one_line(bad)
