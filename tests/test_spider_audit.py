"""`scrapy crawl audit` through the mock web, over consecutive runs of one content store."""

from __future__ import annotations

import hashlib
import html
import json
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from testing.crawl import FAST_LIVENESS, make_config, write_corpus
from testing.inprocess import InProcessCrawl, crawl_in_process
from testing.mockweb import MockWeb, Route

TODAY = datetime.now(UTC).date().isoformat()
FILLER = "<p>" + "Background on how the duty is assessed and collected. " * 6 + "</p>"
# what the page *shows*: markup-looking text a hostile or careless page could carry
INJECTION = html.escape('Taux 5,81 % | <script>alert(1)</script> [click](https://evil.example/x) @maintainer '
                        '`code` <img src=x onerror=alert(1)> ![img](https://evil.example/i.png)')


def body(text: str) -> str:
    return f"<html><body><h1>Rates</h1><p>{text}</p>{FILLER}</body></html>"


PAGES: dict[str, Route] = {
    # changes after run 1, then stays: confirmed (flagged) on run 3, not on run 2
    "https://change.audit.gouv.fr/rate": Route(dynamic=lambda hit: body("Taux 5,81 %.") if hit == 1 else body(INJECTION)),
    # differs on every run: never settles, never flagged
    "https://ticker.audit.gouv.fr/rate": Route(dynamic=lambda hit: body(f"Taux 5,81 %. Cours du jour {hit * 7}.")),
    # A, B, A: a revert to the baseline is no change
    "https://revert.audit.gouv.fr/rate": Route(dynamic=lambda hit: body("Taux 5,81 %." if hit != 2 else "Taux 6,10 %.")),
    # the same text, re-indented and with a rotating banner hidden from view: no change
    "https://cosmetic.audit.gouv.fr/rate": Route(dynamic=lambda hit: (
        f"<html><body>{'  ' * hit}<h1>Rates</h1>\n<p>Taux   5,81 %.</p>{FILLER}"
        f"<div hidden>banner {hit}</div><input type=hidden name=csrf value=t{hit}></body></html>")),
    "https://static.audit.gouv.fr/rate": Route(body=body("Taux 5,81 %.")),
    "https://gone.audit.gouv.fr/rate": Route(status=404),
    # drops the claimed figure after run 1 and keeps the new one: news on run 3, when it settles
    "https://drop.audit.gouv.fr/dmto": Route(dynamic=lambda hit: body(
        "Le taux des DMTO est de 5,81 % depuis 2024." if hit == 1 else "Le taux des DMTO est de 6,45 % depuis mars.")),
    # a portal root that never had the figure: standing backlog, never news
    "https://portal.audit.gouv.fr/": Route(body=body("Bienvenue sur le portail des impôts.")),
}
LINES = [
    "- before (2020-01-01 verified): DMTO 5.81 % ([a](https://change.audit.gouv.fr/rate))",
    f"- after ({TODAY} verified): DMTO 5.81 % ([a](https://change.audit.gouv.fr/rate))",
    "- ticker (2020-01-01 verified): 5.81 % ([a](https://ticker.audit.gouv.fr/rate))",
    "- revert (2020-01-01 verified): 5.81 % ([a](https://revert.audit.gouv.fr/rate))",
    "- cosmetic (2020-01-01 verified): 5.81 % ([a](https://cosmetic.audit.gouv.fr/rate))",
    "- static (2020-01-01 verified): 5.81 % ([a](https://static.audit.gouv.fr/rate))",
    "- gone (2020-01-01 verified): 5.81 % ([a](https://gone.audit.gouv.fr/rate))",
    "- drop (2020-01-01 verified): DMTO 5.81 % ([a](https://drop.audit.gouv.fr/dmto))",
    "- portal (2020-01-01 verified): DMTO 7.25 % ([impots](https://portal.audit.gouv.fr/))",
]


def by_line(result: InProcessCrawl) -> dict[int, dict[str, Any]]:
    doc = json.loads((result.output_dir / "audit" / "audit.json").read_text(encoding="utf-8"))
    return {item["line_no"]: item for item in doc["items"]}


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory: pytest.TempPathFactory):
    tmp: Path = tmp_path_factory.mktemp("audit")
    corpus = write_corpus(tmp / "corpus", {"countries/xx/playbook.md": "# Audit\n\n" + "\n".join(LINES) + "\n"})
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in corpus.rglob("*")  if p.is_file()}
    config = make_config(tmp / "config", liveness=FAST_LIVENESS)
    runs, logs = [], []
    with MockWeb() as web:
        for route_url, route in PAGES.items():
            web.route(route_url, route)
        for n in range(3):
            web.clear_log()
            # ci=1 into the usual report folder: $GITHUB_OUTPUT is written on every run
            result = crawl_in_process("audit", corpus=corpus, config=config, output=tmp / "out", proxy_env=web.env(),
                           args={"ci": "1"}, extra_env={"SV_CI_DIR": str(tmp / "out" / "audit"),
                                                        "GITHUB_OUTPUT": str(tmp / f"gh_output_{n + 1}")})
            assert result.returncode == 0, result.stderr[-3000:]
            runs.append(by_line(result))
            logs.append(list(web.log))
            shutil.copytree(tmp / "out" / "audit", tmp / f"reports_{n + 1}")
    after = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in corpus.rglob("*") if p.is_file()}
    return runs, logs, before == after, tmp / "out"


CHANGE_BEFORE, CHANGE_AFTER, TICKER, REVERT, COSMETIC, STATIC, GONE, DROP, PORTAL = range(3, 12)


def test_a_change_is_flagged_on_the_run_it_settles(three_runs) -> None:
    runs = three_runs[0]
    assert [r[CHANGE_BEFORE]["content_changed"] for r in runs] == [False, False, True]
    assert runs[1][CHANGE_BEFORE]["in_flux"] is True


def test_pages_that_never_settle_or_revert_or_only_reflow_are_never_flagged(three_runs) -> None:
    runs = three_runs[0]
    for line in (TICKER, REVERT, COSMETIC, STATIC):
        assert [r[line]["content_changed"] for r in runs] == [False, False, False], line


def test_stale_changed_depends_on_the_stamp(three_runs) -> None:
    last = three_runs[0][2]
    assert last[CHANGE_BEFORE]["stale_changed"] is True  # verified in 2020, changed since
    assert last[CHANGE_AFTER]["stale_changed"] is False  # verified today, on the new page
    assert last[CHANGE_BEFORE]["changed_at"][:10] == TODAY


def test_what_changed_around_the_figure(three_runs) -> None:
    item = three_runs[0][2][CHANGE_BEFORE]
    assert any("Taux 5,81 %." in e for e in item["previous_excerpts"])
    assert any("<script>" in e for e in item["excerpts"])  # the JSON keeps the page as written
    assert any(line.startswith("-") for line in item["change_diff"])


def test_run_2_of_an_unchanged_site_is_304s_and_says_so(tmp_path: Path) -> None:
    urls = [f"https://h{i % 4}.warm.audit.gouv.fr/p{i}" for i in range(12)]
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": "# W\n" + "\n".join(
        f"- fee €{100 + i} ([p]({u}))" for i, u in enumerate(urls)) + "\n"})
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS)
    with MockWeb() as web:
        for i, u in enumerate(urls):
            web.route(u, body=body(f"Fee €{100 + i}."))
        first = crawl_in_process("audit", corpus=corpus, config=config, output=tmp_path / "out", proxy_env=web.env())
        web.clear_log()
        second = crawl_in_process("audit", corpus=corpus, config=config, output=tmp_path / "out", proxy_env=web.env())
        statuses = [e.status for e in web.log if e.method == "GET" and "/p" in e.url]
    assert first.returncode == second.returncode == 0
    assert len(statuses) == len(urls) and statuses.count(304) / len(statuses) >= 0.9
    doc = json.loads((tmp_path / "out" / "audit" / "audit.json").read_text(encoding="utf-8"))
    assert doc["stats"]["not_modified_urls"] == statuses.count(304)
    assert all(item["prior"] == "TOKENS_PRESENT" for item in doc["items"])  # read from the store
    assert f"unchanged (HTTP 304): {statuses.count(304)}" in (tmp_path / "out" / "audit" / "report.md").read_text()


def test_dead_only_after_the_configured_streak(three_runs) -> None:
    runs = three_runs[0]
    assert [r[GONE]["fetch_status"] for r in runs] == ["UNAVAILABLE", "UNAVAILABLE", "DEAD"]
    assert runs[0][GONE]["note"].startswith("failing (1 of 3)")
    assert runs[1][GONE]["note"].startswith("failing (2 of 3)")


def test_reports_escape_page_text(three_runs) -> None:
    out = three_runs[3]
    report_md = (out / "audit" / "report.md").read_text(encoding="utf-8")
    report_html = (out / "audit" / "report.html").read_text(encoding="utf-8")
    assert "&lt;script>alert(1)&lt;/script>" in report_md and "\\[click\\]" in report_md  # the excerpt is shown…
    for raw in ("<script>", "<img", "[click](https://evil", "@maintainer", "![img]"):
        assert raw not in report_md, raw  # …but inert
    assert "&lt;script&gt;" in report_html and "<script>" not in report_html and "<img src=x" not in report_html
    assert "<svg" in report_html and "http://" not in report_html.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_the_corpus_is_byte_identical_after_audits(three_runs) -> None:
    assert three_runs[2] is True


def test_ci_mode_writes_ci_dir_and_github_output(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": "# C\n- 5.81 % ([a](https://ci.audit.gouv.fr/r))\n"})
    gh_output = tmp_path / "gh_output"
    with MockWeb() as web:
        web.route("https://ci.audit.gouv.fr/r", body=body("Taux 6,32 %."))
        result = crawl_in_process("audit", corpus=corpus, config=make_config(tmp_path / "config", liveness=FAST_LIVENESS),
                       output=tmp_path / "out", proxy_env=web.env(), args={"ci": "1"},
                       extra_env={"SV_CI_DIR": str(tmp_path / "ci"), "GITHUB_OUTPUT": str(gh_output),
                                  "GITHUB_SERVER_URL": "https://github.example", "GITHUB_REPOSITORY": "acme/pb",
                                  "GITHUB_SHA": "c" * 40})
    assert result.returncode == 0, result.stderr[-2000:]
    assert (tmp_path / "ci" / "report.md").is_file() and (tmp_path / "ci" / "audit.json").is_file()
    lines = dict(line.split("=", 1) for line in gh_output.read_text(encoding="utf-8").splitlines())
    assert lines["tokens_absent"] == "1" and lines["stale_changed"] == "0" and lines["new_findings"] == "0"
    assert {"content_changed", "unavailable", "report", "issue"} <= set(lines)
    # in Actions every `where` links to the playbook line
    blob = f"https://github.example/acme/pb/blob/{'c' * 40}/countries/xx/playbook.md#L2"
    (item,) = json.loads((tmp_path / "ci" / "audit.json").read_text(encoding="utf-8"))["items"]
    assert item["source_line_url"] == blob
    for name in ("report.md", "issue.md"):
        text = (tmp_path / "ci" / name).read_text(encoding="utf-8")
        wheres = re.findall(r"(.)`xx:(\d+)`(.{0,120})", text)
        assert wheres and all(pre == "[" and post.startswith(f"]({blob[:-1]}{n})") for pre, n, post in wheres), name
    assert f'href="{blob}"' in (tmp_path / "ci" / "report.html").read_text(encoding="utf-8")


def _normalised(path: Path) -> list[dict[str, Any]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [{k: v for k, v in item.items() if k not in ("fetched_at",)} for item in doc["items"]]


# -- issue #14: the month's news first -------------------------------------------------------

def test_transitions_over_three_runs(three_runs) -> None:
    runs = three_runs[0]
    assert [r[DROP]["prior"] for r in runs] == ["TOKENS_PRESENT", "TOKENS_ABSENT", "TOKENS_ABSENT"]
    # run 2: the page is still changing, so the vanished figure waits for confirmation
    assert [r[DROP]["transition"] for r in runs] == [None, None, "vanished"]
    assert runs[1][DROP]["transition_pending"] == "vanished"
    assert runs[2][DROP]["previous_prior"] == "TOKENS_PRESENT"
    assert [r[GONE]["transition"] for r in runs] == [None, None, "newly_dead"]
    assert [r[PORTAL]["transition"] for r in runs] == [None, None, None]
    assert [r[REVERT]["transition"] for r in runs] == [None, None, None]  # a flip back is never news
    assert {r[STATIC]["text_method"] for r in runs} == {"html"}


def test_run_3_opens_with_the_vanished_figure_in_the_pages_words(three_runs) -> None:
    report = (three_runs[3] / "audit" / "report.md").read_text(encoding="utf-8")
    news = report.split("## New since ", 1)[1].split("\n## ", 1)[0]
    assert news.index("### Figure vanished") < news.index("### ⚠️ Page changed")  # the strongest signal first
    vanished = news.split("### Figure vanished", 1)[1].split("\n### ", 1)[0]
    assert "`xx:10`" in vanished and "DMTO **5.81 %**" in vanished
    before, now = vanished.split("  - before: ", 1)[1].split("\n  - now", 1)
    assert "DMTO est de 5,81 % depuis 2024." in before and "6,45" not in before
    assert "DMTO est de 6,45 % depuis mars." in now
    assert "page now says **6,45 %** _(a hint, not a verdict)_" in vanished
    assert "`xx:11`" not in news and "`xx:11`" in report  # the standing portal root: backlog only
    html_report = (three_runs[3] / "audit" / "report.html").read_text(encoding="utf-8")
    assert html_report.index("Figure vanished") < html_report.index("<details>")
    assert "page now says <mark>6,45 %</mark>" in html_report


def test_new_findings_in_github_output(three_runs) -> None:
    tmp = three_runs[3].parent
    outputs = [dict(line.split("=", 1) for line in (tmp / f"gh_output_{n}").read_text().splitlines())
               for n in (1, 2, 3)]
    # run 1 is the baseline; run 3: the vanished figure, the stale change, the newly DEAD page
    assert [o["new_findings"] for o in outputs] == ["0", "0", "3"]
    assert outputs[2]["issue"].endswith("issue.md")
    first = (tmp / "reports_1" / "report.md").read_text(encoding="utf-8")
    assert "first audit over this store" in first


def test_counts_beside_the_previous_audit(three_runs) -> None:
    report = (three_runs[3] / "audit" / "report.md").read_text(encoding="utf-8")
    counts = report.split("## Counts, this audit beside the previous", 1)[1].split("\n## ", 1)[0]
    assert "| DEAD | 0 | 1 | +1 |" in counts and "| new findings | 0 | 3 | +3 |" in counts
    html_report = (three_runs[3] / "audit" / "report.html").read_text(encoding="utf-8")
    assert html_report.count("<polyline") == 5 and "<script" not in html_report


def test_without_github_variables_where_is_plain_text(three_runs) -> None:
    report = (three_runs[3] / "audit" / "report.md").read_text(encoding="utf-8")
    assert "/blob/" not in report and "[`xx:" not in report
    assert all(item["source_line_url"] is None for item in three_runs[0][2].values())


def test_a_thousand_claim_corpus_gives_an_issue_that_fits(tmp_path: Path) -> None:
    urls = [f"https://h{i % 10}.big.audit.gouv.fr/p{i}" for i in range(50)]
    lines = [f"- Droits d'enregistrement ✓ {i} (barème 😀 « é ») : {i % 90 + 1},5 % ([a]({urls[i % 50]}))"
             for i in range(1000)]
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS)
    with MockWeb() as web:
        for n, url in enumerate(urls):
            web.route(url, body=body(f"Taux {n % 90 + 1},5 % et {n % 7 + 1},5 %."))
        for corpus_lines in (lines[:1], lines):  # the baseline knows one claim; then 999 are new
            corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": "# Big\n" + "\n".join(corpus_lines) + "\n"})
            result = crawl_in_process("audit", corpus=corpus, config=config, output=tmp_path / "out", proxy_env=web.env(),
                           args={"ci": "1"}, extra_env={"SV_CI_DIR": str(tmp_path / "ci"),
                                                        "GITHUB_OUTPUT": str(tmp_path / "gh_output")})
            assert result.returncode == 0, result.stderr[-2000:]
    raw = (tmp_path / "ci" / "issue.md").read_bytes()
    issue = raw.decode("utf-8")  # strict: valid UTF-8
    assert len(issue) <= len(issue.encode("utf-16-le")) // 2 <= 65_536
    *body_lines, blank, note = issue.rstrip("\n").splitlines()
    assert blank == "" and re.fullmatch(r"_… \d+ more row\(s\) in the artifact \(report\.md, report\.html, "
                                        r"audit\.json\)\._", note)
    assert body_lines[-1].startswith("| ") and body_lines[-1].endswith(" |")  # a whole row last
    report = (tmp_path / "ci" / "report.md").read_text(encoding="utf-8")
    assert report.startswith(issue[: issue.rindex("\n\n_… ")]) and len(report) > 65_536
    doc = json.loads((tmp_path / "ci" / "audit.json").read_text(encoding="utf-8"))
    new = [i for i in doc["items"] if i["transition"] == "new_claim"]
    assert len(new) == 999
    absent_new = sum(1 for i in new if i["prior"] == "TOKENS_ABSENT")
    assert 0 < absent_new < 999
    findings = [line for line in (tmp_path / "gh_output").read_text(encoding="utf-8").splitlines()
                if line.startswith("new_findings=")]
    assert findings == ["new_findings=0", f"new_findings={absent_new}"]


def test_every_field_of_an_audit_record_is_in_the_one_schema(three_runs) -> None:
    # core/claims/record.py::ClaimRecord is the only schema of a claim record: a field written
    # without being declared there is read by no type checker
    from sv_scrapy.core.claims.record import ClaimRecord

    written = {key for run in three_runs[0] for item in run.values() for key in item}
    assert written and written <= set(ClaimRecord.__annotations__), sorted(written - set(ClaimRecord.__annotations__))
