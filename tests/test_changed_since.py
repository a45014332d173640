"""``scrapy crawl worklist -a changed_since=REF -a ci=1`` over a real git repository and the mock
web: a base commit, then one change that does everything a pull request does to the claims
(issue 30's cases a–j), judged from the exit status, stdout's annotations, the step summary and the
mock web's own request log."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from testing.crawl import FAST_LIVENESS, SCRAPY, CrawlResult, crawl, make_config
from testing.gitcorpus import commit, init_repo
from testing.mockweb import MockWeb
from testing.mockweb.server import LogEntry, gets_by_host

from .conftest import PROJECT_DIR

FR = "playbooks/countries/fr/playbook.md"
DE = "playbooks/countries/de/playbook.md"
ES = "playbooks/countries/es/playbook.md"
PROSE = "<p>" + "This page explains how the levy is assessed, who pays it and when it is due. " * 5 + "</p>"


def page(sentence: str) -> str:
    return f"<html><head><title>Levy</title></head><body><h1>Levy</h1><p>{sentence}</p>{PROSE}</body></html>"


def url(name: str) -> str:
    return f"https://{name}.case.gouv.fr/levy"


# what each cited page says (the mock web serves these)
PAGES = {
    "a": "The transfer duty is 6.32 %.",  # (a) re-stamped, the figure is not there
    "b": "The notary fee is 7.10 %.",  # (b) re-stamped, the figure is there
    "c": "The stamp duty is 2.50 %.",  # (c) changed to 3.00: not stated
    "d": "The land fee is now 1.40 %.",  # (d) changed to what the page now states
    "f": "Fee 300 EUR.", "h": "Nothing about it.", "i": "The rate is 0.80 %.",
    "j": "The new levy is 3.30 %.",  # (j) a new claim whose page lacks its figure
    "g1": "The registry fee is 1.50 %.", "g2": "The filing fee is 2.25 %.", "g3": "The deed fee is 3.75 %.",
    "e1": "Rate 4.00 %.", "e2": "Rate 5.00 %.",
}

FR_BASE = f"""# France

## Taxes

Transfer duty 5.81 % ([a]({url('a')})) (2026-05-01 verified)
Notary fee 7.10 % ([b]({url('b')})) (2026-05-01 verified)
Stamp duty 2.50 % ([c]({url('c')}))
Land fee 1.20 % ([d]({url('d')}))
Removed fee €300 ([f]({url('f')}))
Standing levy 9.99 % ([h]({url('h')})) (2026-05-01 verified)
Reduced rate 0.65 % ([i]({url('i')}))

## Elsewhere

The reduced rate of 0.65 % also applies to annexes ([i]({url('i')})).
"""
FR_HEAD = f"""# France

## Taxes

Transfer duty 5.81 % ([a]({url('a')})) (2026-12-01 verified)
Notary fee 7.10 % ([b]({url('b')})) (2026-12-01 verified)
Stamp duty 3.00 % ([c]({url('c')}))
Land fee 1.40 % ([d]({url('d')}))
Standing levy 9.99 % ([h]({url('h')})) (2026-05-01 verified)
Reduced rate 0.80 % ([i]({url('i')}))
New levy 4.40 % ([j]({url('j')}))

## Elsewhere

The reduced rate of 0.65 % also applies to annexes ([i]({url('i')})).
"""
LINE = {"a": 5, "b": 6, "c": 7, "d": 8, "i": 10, "j": 11, "i_elsewhere": 15}


def de_file(stamp: str) -> str:
    return f"""# Germany

**Last verified**: {stamp}

Registry fee 1.50 % ([g1]({url('g1')}))
Filing fee 2.25 % ([g2]({url('g2')}))
Deed fee 3.75 % ([g3]({url('g3')})) (2026-06-01 verified)
"""


ES_BASE = f"""# Spain

Rate 4.00 % ([e1]({url('e1')}))
Rate 5.00 % ([e2]({url('e2')}))
"""
ES_HEAD = "".join(f"Introductory note {n}.\n" for n in range(20)) + ES_BASE


def serve(web: MockWeb) -> None:
    for name, sentence in PAGES.items():
        web.route(url(name), body=page(sentence))


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> tuple[CrawlResult, list[LogEntry], Path, Path]:
    tmp = tmp_path_factory.mktemp("changed_since")
    repo = init_repo(tmp / "repo")
    commit(repo, {FR: FR_BASE, DE: de_file("2026-05-01"), ES: ES_BASE}, "base")
    commit(repo, {FR: FR_HEAD, DE: de_file("2026-12-01"), ES: ES_HEAD}, "the change")
    summary, output = tmp / "summary.md", tmp / "output.txt"
    with MockWeb() as web:
        serve(web)
        result = crawl("worklist", corpus=repo / "playbooks", config=make_config(tmp / "config", liveness=FAST_LIVENESS),
                       output=tmp / "out", proxy_env=web.env(), args={"changed_since": "HEAD~1", "ci": "1"},
                       extra_env={"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output)})
        requested = [e for e in web.log if e.method == "GET"]
    return result, requested, summary, output


def items(result: CrawlResult) -> dict[tuple[str, int], dict[str, Any]]:
    return {(i["repo_file"], i["line_no"]): i for i in result.worklist()["items"]}


def annotations(stdout: str, kind: str) -> list[tuple[str, int, str]]:
    return [(m["file"], int(m["line"]), m["title"]) for m in
            re.finditer(rf"^::{kind} file=(?P<file>[^,]+),line=(?P<line>\d+),title=(?P<title>[^:]*)::", stdout, re.M)]


@pytest.mark.subprocess
def test_the_change_fails_with_exit_3_and_one_summary_line(checked) -> None:
    result = checked[0]
    assert result.returncode == 3, result.stderr[-2000:]
    plain = [line for line in result.stdout.splitlines() if not line.startswith("::")]
    assert len(plain) == 1 and plain[0].startswith("changes since ") and "3 failing" in plain[0], result.stdout


@pytest.mark.subprocess
def test_each_changed_claim_carries_its_change(checked) -> None:
    got = {key[1]: i["change"] for key, i in items(checked[0]).items() if key[0] == FR}
    assert got == {LINE["a"]: "restamped", LINE["b"]: "restamped", LINE["c"]: "figure_changed",
                   LINE["d"]: "figure_changed", LINE["i"]: "figure_changed", LINE["j"]: "new"}


@pytest.mark.subprocess
def test_failing_findings_are_annotated_at_their_file_and_line(checked) -> None:
    errors = annotations(checked[0].stdout, "error")
    assert sorted((f, n) for f, n, _ in errors) == sorted([(FR, LINE["a"]), (FR, LINE["c"]), (FR, LINE["j"])])
    assert {t for _, _, t in errors} == {"figure not on the cited page"}


@pytest.mark.subprocess
def test_a_corrected_figure_still_stated_elsewhere_is_a_warning_naming_the_line(checked) -> None:
    (warning,) = [w for w in annotations(checked[0].stdout, "warning")]
    assert warning[:2] == (FR, LINE["i"])
    item = items(checked[0])[(FR, LINE["i"])]
    assert item["also_stated"] == [f"fr:{LINE['i_elsewhere']}"] and item["prior"] == "TOKENS_PRESENT"
    assert f"still stated at fr:{LINE['i_elsewhere']}" in checked[0].stdout


@pytest.mark.subprocess
def test_a_file_stamp_bump_checks_its_claims_without_their_own_stamp(checked) -> None:
    got = {key[1]: i["change"] for key, i in items(checked[0]).items() if key[0] == DE}
    assert got == {5: "restamped", 6: "restamped"}  # the deed fee keeps its own 2026-06-01 stamp


@pytest.mark.subprocess
def test_moves_removals_and_standing_findings_are_not_fetched(checked) -> None:
    doc = checked[0].worklist()
    assert [(r["repo_file"], r["line_no"]) for r in doc["removed"]] == [(FR, 9)]
    assert doc["changed_since"]["moved"] >= 2  # Spain's two claims, 20 lines lower
    urls = [e.url for e in checked[1]]
    pages = sorted({u for u in urls if not u.endswith("/robots.txt")})
    assert pages == sorted(url(n) for n in ("a", "b", "c", "d", "i", "j", "g1", "g2"))
    assert len([u for u in urls if not u.endswith("/robots.txt")]) == len(pages)  # once each


@pytest.mark.subprocess
def test_each_host_is_asked_at_its_floor(checked) -> None:
    floor = FAST_LIVENESS["gov_suffix_default"]["interval_ms"] / 1000
    for host, entries in gets_by_host(checked[1]).items():
        assert [e.url.rsplit("/", 1)[1] for e in entries] == ["robots.txt", "levy"], host
        assert entries[1].began - entries[0].began >= floor - 0.01, host


@pytest.mark.subprocess
def test_the_step_summary_holds_the_table_and_outputs_the_counts(checked) -> None:
    _, _, summary, output = checked
    table = summary.read_text(encoding="utf-8")
    assert "| where | change | claim | what the page says | outcome |" in table
    assert f"`{FR}:{LINE['a']}` | restamped" in table and "6.32" in table
    assert f"`{FR}:9` | removed" in table  # one table: the removed claim's line at the revision
    lines = dict(line.split("=", 1) for line in output.read_text(encoding="utf-8").splitlines())
    assert lines["findings"] == "3" and lines["warnings"] == "1" and lines["claims_checked"] == "8"
    assert lines["report"].endswith("changes.md") and Path(lines["report"]).is_file()


# -- the one-line outcomes ------------------------------------------------------------------------

def _quick(tmp: Path, corpus: Path, ref: str, web: MockWeb) -> CrawlResult:
    return crawl("worklist", corpus=corpus, config=make_config(tmp / "config", liveness=FAST_LIVENESS),
                 output=tmp / "out", proxy_env=web.env(), args={"changed_since": ref})


@pytest.mark.subprocess
def test_a_change_that_only_moves_lines_passes_and_fetches_nothing(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    commit(repo, {ES: ES_BASE}, "base")
    commit(repo, {ES: ES_HEAD}, "moved")
    with MockWeb() as web:
        serve(web)
        result = _quick(tmp_path, repo / "playbooks", "HEAD~1", web)
        assert web.log == []
    assert result.returncode == 0, result.stderr[-2000:]
    assert "0 claim(s) checked" in result.stdout and "2 moved" in result.stdout


@pytest.mark.parametrize("ref", ["no-such-branch", "--output=/tmp/x"])
@pytest.mark.subprocess
def test_a_ref_that_is_no_revision_is_one_line_exit_2(tmp_path: Path, ref: str) -> None:
    repo = init_repo(tmp_path / "repo")
    commit(repo, {ES: ES_BASE}, "base")
    with MockWeb() as web:
        result = _quick(tmp_path, repo / "playbooks", ref, web)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "-a changed_since=" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out").exists()  # refused before the output folder or its store is touched


@pytest.mark.subprocess
def test_a_corpus_outside_git_is_one_line_exit_2(tmp_path: Path) -> None:
    corpus = tmp_path / "plain" / "playbooks"
    (corpus / "countries" / "es").mkdir(parents=True)
    (corpus / "countries" / "es" / "playbook.md").write_text(ES_BASE, encoding="utf-8")
    with MockWeb() as web:
        result = _quick(tmp_path, corpus, "HEAD", web)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "not in a git repository" in result.stderr


@pytest.mark.subprocess
def test_claim_words_and_page_text_never_become_workflow_commands(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    commit(repo, {ES: ES_BASE}, "base")
    spoof = f"::error file=x,line=1::spoof 6.10 % ([s]({url('s')}))\n"
    commit(repo, {ES: ES_BASE + spoof + f"Rate 7.70 % ([t]({url('t')}))\n"}, "hostile")
    with MockWeb() as web:
        web.route(url("s"), body=page("Other 1.00 %. ::warning::spoof"))
        web.route(url("t"), body=page("Rate 7.70 % ::warning::spoof applies."))
        result = crawl("worklist", corpus=repo / "playbooks", config=make_config(tmp_path / "config", liveness=FAST_LIVENESS),
                       output=tmp_path / "out", proxy_env=web.env(), args={"changed_since": "HEAD~1", "ci": "1"})
    assert result.returncode == 3, result.stderr[-2000:]
    commands = [line for line in result.stdout.splitlines() if line.strip().startswith("::")]
    assert len(commands) == 1 and commands[0].startswith(f"::error file={ES},line=5,title=figure not on"), commands
    assert "spoof" not in commands[0].split("::", 2)[1]  # the properties hold nothing of the claim


@pytest.mark.subprocess
def test_over_the_monthly_store_an_unchanged_page_answers_304_and_is_read_from_it(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    commit(repo, {ES: ES_BASE}, "base")
    config, out = make_config(tmp_path / "config", liveness=FAST_LIVENESS), tmp_path / "out"
    with MockWeb() as web:
        serve(web)
        audit = crawl("audit", corpus=repo / "playbooks", config=config, output=out, proxy_env=web.env())
        assert audit.returncode == 0, audit.stderr[-2000:]
        commit(repo, {ES: ES_BASE.replace("Rate 4.00 %", "Rate 4.00 % (verified 2026-12-01)")}, "re-stamp")
        web.clear_log()
        result = crawl("worklist", corpus=repo / "playbooks", config=config, output=out, proxy_env=web.env(),
                       args={"changed_since": "HEAD~1"})
        (get,) = [e for e in web.log if e.method == "GET" and e.url == url("e1")]
    assert result.returncode == 0, result.stderr[-2000:]
    assert get.status == 304 and get.headers.get("If-None-Match")
    (item,) = result.worklist()["items"]
    assert item["change"] == "restamped" and item["prior"] == "TOKENS_PRESENT"


# -- narrowing (in-process: the change set before any fetch) ----------------------------------------

@pytest.mark.subprocess
def test_country_and_sample_narrow_the_changed_claims_and_nothing_else(tmp_path: Path) -> None:
    from sv_scrapy.run.changedsince import check_changes
    from sv_scrapy.run.config import load_config
    from sv_scrapy.run.runtime import Runtime

    repo = init_repo(tmp_path / "repo")
    commit(repo, {FR: FR_BASE, DE: de_file("2026-05-01")}, "base")
    commit(repo, {FR: FR_HEAD, DE: de_file("2026-12-01")}, "the change")
    rt = Runtime(config=load_config(make_config(tmp_path / "config")), corpus_root=repo / "playbooks",
                 output_dir=tmp_path / "out")
    params: dict[str, Any] = {"changed_since": "HEAD~1", "sample": None, "country": None, "section": None,
                              "seed": 1234, "as_of": "2026-12-06"}
    assert len(check_changes(rt, params).checked) == 8
    fr = check_changes(rt, {**params, "country": "fr"})
    assert {c.claim["scope"] for c in fr.checked} == {"fr"} and len(fr.checked) == 6
    assert [c["scope"] for c in fr.changes.removed] == ["fr"]
    assert len(check_changes(rt, {**params, "country": "de", "sample": 1}).checked) == 1
    # the warning still sees the whole corpus: the old figure's other line is found with a country filter
    (corrected,) = [c for c in fr.checked if c.claim["line_no"] == LINE["i"]]
    assert corrected.also_stated == (f"fr:{LINE['i_elsewhere']}",)


def test_ci_without_changed_since_is_a_mistake(tmp_path: Path) -> None:
    from sv_scrapy.core.errors import ArgumentError
    from sv_scrapy.spiders.worklist import WorklistSpider

    with pytest.raises(ArgumentError, match="-a ci="):
        WorklistSpider.parse_arguments({"ci": "1"})
    assert WorklistSpider.parse_arguments({"ci": "1", "changed_since": "main"})["ci"] is True


@pytest.mark.subprocess
def test_the_workflows_model_step_verifies_the_failing_claims_alone(tmp_path: Path) -> None:
    """What the workflow's optional step runs: ``scrapy verify --worklist changes-failing.json``."""
    from testing.mockweb.anthropic_stub import AnthropicStub

    repo = init_repo(tmp_path / "repo")
    commit(repo, {ES: ES_BASE}, "base")
    commit(repo, {ES: ES_BASE + f"New levy 4.40 % ([j]({url('j')}))\nRate 7.10 % ([b]({url('b')}))\n"}, "two new")
    out = tmp_path / "out"
    with MockWeb() as web:
        serve(web)
        result = _quick(tmp_path, repo / "playbooks", "HEAD~1", web)
    assert result.returncode == 3, result.stderr[-2000:]
    (failing,) = json.loads((out / "changes-failing.json").read_text(encoding="utf-8"))["items"]
    assert failing["source_url"] == url("j")
    answer = {"tool": {"verdict": "NOT_FOUND", "claimed": "4.40 %", "source_says": "", "confidence": "HIGH",
                       "note": "stub"}}
    with AnthropicStub({failing["id"]: answer}) as stub:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SV_", "ANTHROPIC"))}
        env.update(stub.env(), SV_OUTPUT_DIR=str(out))
        verify = subprocess.run([SCRAPY, "verify", "--worklist", str(out / "changes-failing.json"),
                                 "--max-cost-usd", "0.50"], cwd=PROJECT_DIR, env=env, capture_output=True,
                                text=True, timeout=120)
        calls = dict(stub.calls)
    assert verify.returncode == 0, verify.stderr[-2000:]
    assert calls == {failing["id"]: 1}  # the failing claim alone reaches the model
