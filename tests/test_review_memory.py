"""Review memory, month by month through the mock web: audit -> review -> audit -> the page
changes -> audit, with ``SV_NOW`` a month apart. Judged from ``audit.json``, ``issue.md``,
``$GITHUB_OUTPUT`` and the exit status, as the maintainer and the workflow read them."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from sv_scrapy.core.audit.news import new_findings, news
from testing.commands import scrapy_in_process
from testing.crawl import FAST_LIVENESS, make_config, write_corpus
from testing.env import clean_env
from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb, Route
from testing.mockweb.anthropic_stub import AnthropicStub

FILLER = "<p>" + "How the duty is assessed, who pays it and when it falls due. " * 6 + "</p>"
ABSENT = "https://www.impots.gouv.fr/taux"  # never states the figure; reviewed; unchanged; its line moves
CHANGING = "https://www.impots.gouv.fr/frais"  # never states it; reviewed; changes in month 2, confirmed in 3
UNTIL = "https://www.impots.gouv.fr/timbre"  # never states it; reviewed until 2027-02-15
FAILING = "https://www.impots.gouv.fr/droit"  # read in month 1, a 404 from month 2: reviewed as wont_fix
VERIFIED = "https://www.impots.gouv.fr/plafond"  # never states it; a verify verdict; the page changes in month 3
MONTHS = ["2027-01-01T03:17:00Z", "2027-02-01T03:17:00Z", "2027-03-01T03:17:00Z", "2027-04-01T03:17:00Z"]


def page(text: str) -> str:
    return f"<html lang='fr'><body><h1>Barème</h1><p>{text}</p>{FILLER}</body></html>"


def playbook(month: int) -> str:
    moved = "" if month < 3 else "- A note added in month 3 pushes every line below it down.\n"
    return ("# France\n\n**Last verified**: 2026-12-15\n\n## Tax\n\n" + moved +
            f"- Transfer duty 5.81 % ([taux]({ABSENT}))\n"
            f"- Filing fee €90 ([frais]({CHANGING}))\n"
            f"- Stamp duty €125 ([timbre]({UNTIL}))\n"
            f"- Registration duty 0.715 % ([droit]({FAILING}))\n"
            f"- Ceiling €4,000 ([plafond]({VERIFIED}))\n")


def serve(web: MockWeb, month: int) -> None:
    web.route(ABSENT, Route(body=page("Le taux applicable est de 6,20 %.")))
    web.route(CHANGING, Route(body=page("Les frais sont publiés chaque année." if month < 2
                                        else "Les frais ont été revus au 1er mars.")))
    web.route(UNTIL, Route(body=page("Le timbre est payé en ligne.")))
    web.route(FAILING, Route(body=page("Le droit est de 0,715 %.")) if month == 1
              else Route(status=404, body="<html><body>Introuvable</body></html>"))
    web.route(VERIFIED, Route(body=page("Le plafond est fixé par arrêté." if month < 3
                                        else "Le plafond a été relevé par arrêté.")))


def scrapy(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return scrapy_in_process(*args, env=env)


def outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines())


@pytest.fixture(scope="module")
def story(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("reviews")
    config = make_config(tmp / "config", liveness=FAST_LIVENESS)
    out, corpus = tmp / "local" / "out", tmp / "corpus"
    base = clean_env()
    base.update(SV_CORPUS_ROOT=str(corpus), SV_CONFIG_DIR=str(config), SV_OUTPUT_DIR=str(out))
    told: dict[str, Any] = {"months": [], "config": config, "out": out, "env": base, "cmd": {}}

    def remember(name: str, result: subprocess.CompletedProcess[str]) -> None:
        told["cmd"][name] = result

    with MockWeb() as web, AnthropicStub(default={"tool": {"verdict": "NOT_FOUND", "claimed": "€4,000",
                                                            "source_says": "", "confidence": "HIGH",
                                                            "note": "stub"}}) as stub:
        for n, now in enumerate(MONTHS, start=1):
            write_corpus(corpus, {"countries/fr/playbook.md": playbook(n)})
            serve(web, n)
            gh = tmp / f"gh_output_{n}"
            result = crawl_in_process("audit", corpus=corpus, config=config, output=out, proxy_env=web.env(), args={"ci": "1"},
                           extra_env={"SV_NOW": now, "SV_CI_DIR": str(out / "audit"), "GITHUB_OUTPUT": str(gh)})
            assert result.returncode == 0, (n, result.stderr[-2000:])
            doc = json.loads((out / "audit" / "audit.json").read_text(encoding="utf-8"))
            told["months"].append({"doc": doc, "issue": (out / "audit" / "issue.md").read_text(encoding="utf-8"),
                                   "html": (out / "audit" / "report.html").read_text(encoding="utf-8"),
                                   "items": {i["source_url"]: i for i in doc["items"]}, "gh": outputs(gh),
                                   "stdout": result.stdout})
            env = {**base, "SV_NOW": now.replace("T03:17", "T09:00")}
            items = told["months"][-1]["items"]
            if n == 1:
                # the maintainer's first reviews, and the mistakes the command refuses
                line = items[ABSENT]["line_no"]
                remember("unknown", scrapy("review", "fr:99:deadbeef", "--as", "false_positive", "--reason", "x",
                                           env=env))
                remember("no_reason", scrapy("review", items[ABSENT]["id"], "--as", "false_positive", env=env))
                remember("bad_decision", scrapy("review", items[ABSENT]["id"], "--as", "fine", "--reason", "ok",
                                                env=env))
                remember("absent", scrapy("review", f"fr:{line}", "--as", "figure_elsewhere", "--reason",
                                          "the rate is in the PDF this page links to", "--reviewer", "mk", env=env))
                remember("changing", scrapy("review", items[CHANGING]["id"], "--as", "figure_elsewhere",
                                            "--reason", "the fee schedule PDF states it", env=env))
                remember("until", scrapy("review", items[UNTIL]["id"], "--as", "fix_pending", "--reason",
                                         "a better source is on its way", "--until", "2027-02-15", env=env))
                remember("verify", scrapy("verify", "--from-audit", "--only", "TOKENS_ABSENT", "--count", "9",
                                          env={**env, **stub.env()}))
            if n == 2:
                remember("failing", scrapy("review", items[FAILING]["id"], "--as", "wont_fix", "--reason",
                                           "the ministry blocks robots; checked by hand", env=env))
                lock = os.open(out / ".lock", os.O_RDWR | os.O_CREAT)
                try:  # as an audit does while it runs
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    before = (config / "source-verify-reviewed.json").read_bytes()
                    remember("locked", scrapy("review", items[UNTIL]["id"], "--as", "accepted", "--reason", "x",
                                              env=env))
                    told["unchanged_while_locked"] = before == (config / "source-verify-reviewed.json").read_bytes()
                finally:
                    os.close(lock)
                remember("list", scrapy("review", "--list", env=env))
            if n == 3:
                remember("list_expired", scrapy("review", "--list", "--expired", env=env))
    told["file"] = (config / "source-verify-reviewed.json").read_text(encoding="utf-8")
    if os.environ.get("SV_TEST_DUMP"):
        for n, m in enumerate(told["months"], start=1):
            Path(os.environ["SV_TEST_DUMP"], f"issue-{n}.md").write_text(m["issue"], encoding="utf-8")
            Path(os.environ["SV_TEST_DUMP"], f"report-{n}.html").write_text(m["html"], encoding="utf-8")
        Path(os.environ["SV_TEST_DUMP"], "reviewed.json").write_text(told["file"], encoding="utf-8")
    return told


def month(story: dict[str, Any], n: int) -> dict[str, Any]:
    return story["months"][n - 1]


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def in_news(issue: str, url_or_id: str) -> bool:
    """Is the claim listed before the counts (the news)?"""
    return url_or_id in issue.split("## Counts", 1)[0]


def test_the_command_records_what_it_was_made_on(story: dict[str, Any]) -> None:
    for name in ("absent", "changing", "until", "failing"):
        assert story["cmd"][name].returncode == 0, story["cmd"][name].stderr
    first = month(story, 1)["items"]
    recorded = story["cmd"]["absent"].stdout
    assert f"recorded: {first[ABSENT]['id']} TOKENS_ABSENT as figure_elsewhere on 2027-01-01" in recorded
    data = json.loads(story["file"])
    assert data["format"] == 1
    by_claim = {r["claim"]: r for r in data["reviews"]}
    absent = by_claim[first[ABSENT]["id"]]
    assert absent["content_hash"] == first[ABSENT]["content_hash"] and absent["figures"] == ["5.81"]
    assert absent["reviewer"] == "mk" and absent["date"] == "2027-01-01" and absent["decision"] == "figure_elsewhere"
    # one review per line, sorted: a pull request's diff reads one line per review
    lines = story["file"].splitlines()
    assert [json.loads(line.rstrip(","))["claim"] for line in lines[3:-2]] == [r["claim"] for r in data["reviews"]]
    assert data["reviews"] == sorted(data["reviews"], key=lambda r: (r["key"], r["claim"]))


def test_the_command_refuses_mistakes_in_one_line(story: dict[str, Any]) -> None:
    cmd = story["cmd"]
    assert cmd["unknown"].returncode == 2 and "'fr:99:deadbeef': no such claim" in one_line(cmd["unknown"])
    assert cmd["no_reason"].returncode == 2 and "--reason: required" in one_line(cmd["no_reason"])
    assert cmd["bad_decision"].returncode == 2 and "--as 'fine': expected one of" in one_line(cmd["bad_decision"])
    assert cmd["locked"].returncode == 75 and "another run holds" in one_line(cmd["locked"])
    assert story["unchanged_while_locked"]


def test_a_reviewed_finding_is_quiet_for_the_next_two_audits(story: dict[str, Any]) -> None:
    for n in (2, 3):
        m = month(story, n)
        item = m["items"][ABSENT]
        assert item["prior"] == "TOKENS_ABSENT"
        assert item["review"]["decision"] == "figure_elsewhere" and item["review"]["quiet"]
        assert item["review"]["expired"] is False and item["review"]["why_expired"] is None
        body, reviewed = m["issue"].split("<summary>Reviewed (", 1)
        assert item["id"] not in body and ABSENT not in body  # neither news nor backlog
        assert f"fr:{item['line_no']}" in reviewed and "the rate is in the PDF this page links to" in reviewed
        assert "Reviewed (" in m["html"] and "the rate is in the PDF this page links to" in m["html"]


def test_a_moved_line_keeps_its_review(story: dict[str, Any]) -> None:
    before, after = month(story, 2)["items"][ABSENT], month(story, 3)["items"][ABSENT]
    assert after["line_no"] == before["line_no"] + 1 and after["id"] != before["id"]
    assert after["review"]["quiet"]


def test_a_review_on_a_page_that_changed_comes_back_as_news(story: dict[str, Any]) -> None:
    two = month(story, 2)["items"][CHANGING]  # the new text seen once: not a change yet
    assert two["in_flux"] and not two["content_changed"] and two["review"]["quiet"]
    m3 = month(story, 3)
    item = m3["items"][CHANGING]
    assert item["review"]["expired"] and item["review"]["why_expired"] == "the page changed since"
    assert not item["review"]["quiet"] and item["review"]["news"]
    # one change, news once: the review expires on the audit that confirms the change
    assert item["content_changed"] and item["stale_changed"]
    assert m3["issue"].split("## Counts", 1)[0].count(f"`fr:{item['line_no']}`") == 1
    assert "Review expired — the finding is back" in m3["issue"]
    assert "reviewed 2027-01-01 as figure_elsewhere — the page changed since" in m3["issue"]
    assert in_news(m3["issue"], f"fr:{item['line_no']}")
    assert m3["doc"]["stats"]["review_expired"] == 2 and m3["gh"]["review_expired"] == "2"
    # news once: the next audit keeps it in the open, not in the news of expired reviews
    m4 = month(story, 4)
    assert m4["items"][CHANGING]["review"]["expired"] and not m4["items"][CHANGING]["review"]["news"]
    assert "Review expired" not in m4["issue"]


def test_a_review_past_its_until_date_is_expired(story: dict[str, Any]) -> None:
    assert month(story, 2)["items"][UNTIL]["review"]["quiet"]  # 2027-02-01: before the 15th
    review = month(story, 3)["items"][UNTIL]["review"]  # SV_NOW 2027-03-01
    assert review["expired"] and review["why_expired"] == "its until date 2027-02-15 has passed"
    assert "its until date 2027-02-15 has passed" in story["cmd"]["list_expired"].stdout


def test_a_review_of_a_failing_page_holds_through_its_death(story: dict[str, Any]) -> None:
    m2, m4 = month(story, 2), month(story, 4)
    assert m2["items"][FAILING]["transition"] == "newly_unavailable"
    dead = m4["items"][FAILING]
    assert dead["fetch_status"] == "DEAD" and dead["transition"] == "newly_dead"
    assert dead["review"]["quiet"] and not in_news(m4["issue"], FAILING)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_new_findings_and_reviewed_add_up(story: dict[str, Any], n: int) -> None:
    m = month(story, n)
    items = m["doc"]["items"]
    quiet = [i for i in items if i["review"] and i["review"]["quiet"]]
    back = [i for i in items if i["review"] and i["review"]["news"]]
    unreviewed_news = new_findings(news(items))  # what the audit would say with no review at all
    quiet_news = new_findings(news(quiet))
    open_news = new_findings(news([i for i in items if i not in quiet and i not in back]))
    assert int(m["gh"]["new_findings"]) == m["doc"]["stats"]["new_findings"] == open_news + len(back)
    assert int(m["gh"]["reviewed"]) == m["doc"]["stats"]["reviewed"] == len(quiet)
    assert open_news + quiet_news + len([i for i in back if new_findings(news([i]))]) == unreviewed_news
    if n == 4:
        assert quiet_news == 1  # the 404 turned DEAD: news nobody needs to read again


def test_a_verify_verdict_shows_beside_the_flag_and_goes_stale(story: dict[str, Any]) -> None:
    assert story["cmd"]["verify"].returncode == 0, story["cmd"]["verify"].stderr
    two, three = month(story, 2)["items"][VERIFIED], month(story, 3)["items"][VERIFIED]
    assert two["verdict"]["verdict"] == "NOT_FOUND" and two["verdict"]["date"] == "2027-01-01"
    assert two["verdict"]["stale"] is False and two["review"] is None
    assert "model `NOT_FOUND` 2027-01-01" in month(story, 2)["issue"]
    assert three["verdict"]["stale"] and three["verdict"]["why_stale"] == "the page changed since the verdict"
    assert "(stale: the page changed since the verdict)" in month(story, 3)["issue"]
    assert "model <code>NOT_FOUND</code> 2027-01-01" in month(story, 3)["html"]
    # a verdict never reviews anything: the claim stays in the open
    assert "fr:" + str(three["line_no"]) in month(story, 3)["issue"].split("<summary>Reviewed", 1)[0]


def test_every_open_row_carries_its_review_command(story: dict[str, Any]) -> None:
    m3 = month(story, 3)
    verified = m3["items"][VERIFIED]
    assert f"`scrapy review {verified['id']} --as figure_elsewhere --reason \"…\"`" in m3["issue"]
    assert f"<code>scrapy review {verified['id']} --as figure_elsewhere --reason &quot;…&quot;</code>" in m3["html"]


def test_list_shows_how_each_review_stands(story: dict[str, Any]) -> None:
    listed = story["cmd"]["list"].stdout
    assert story["cmd"]["list"].returncode == 0
    assert listed.count("[live]") == 4 and "4 of 4 review(s)" in listed
    expired = story["cmd"]["list_expired"].stdout
    assert "the page changed since" in expired and "2 of 4 review(s)" in expired


def test_an_unconfirmed_page_change_never_expires_a_review(tmp_path: Path) -> None:
    """The review's page-change expiry is settle-confirmed like the audit's: a text seen once (a
    flip that reverts, a page that differs on every run) leaves the review live and the claim quiet."""
    flip, ticker = "https://www.impots.gouv.fr/bascule", "https://www.impots.gouv.fr/compteur"
    texts = {flip: ["Le barème est publié.", "Le barème est en cours de révision.", "Le barème est publié."],
             ticker: [f"Consultations ce mois-ci : {n}." for n in (101, 202, 303)]}
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS)
    out, corpus = tmp_path / "out", tmp_path / "corpus"
    write_corpus(corpus, {"countries/fr/playbook.md": "# France\n\n**Last verified**: 2026-12-15\n\n## Tax\n\n"
                          f"- Transfer duty 5.81 % ([bascule]({flip}))\n- Filing fee €90 ([compteur]({ticker}))\n"})
    env = clean_env()
    env.update(SV_CORPUS_ROOT=str(corpus), SV_CONFIG_DIR=str(config), SV_OUTPUT_DIR=str(out))
    seen = []
    with MockWeb() as web:
        for n, now in enumerate(MONTHS[:3]):
            for url, bodies in texts.items():
                web.route(url, Route(body=page(bodies[n])))
            result = crawl_in_process("audit", corpus=corpus, config=config, output=out, proxy_env=web.env(),
                           extra_env={"SV_NOW": now})
            assert result.returncode == 0, result.stderr[-2000:]
            doc = json.loads((out / "audit" / "audit.json").read_text(encoding="utf-8"))
            seen.append({i["source_url"]: i for i in doc["items"]} | {"stats": doc["stats"]})
            if n == 0:
                reviewed = scrapy("review", "--from-audit", "--only", "TOKENS_ABSENT", "--as", "figure_elsewhere",
                                  "--reason", "in the annex", env={**env, "SV_NOW": now.replace("T03", "T09")})
                assert reviewed.returncode == 0 and reviewed.stdout.count("recorded:") == 2, reviewed.stderr
    for n in (1, 2):
        assert seen[n]["stats"]["reviewed"] == 2 and seen[n]["stats"]["review_expired"] == 0
        for url in texts:
            item = seen[n][url]
            assert item["prior"] == "TOKENS_ABSENT" and not item["content_changed"]
            assert item["review"]["quiet"] and not item["review"]["expired"], (n, url, item["review"])
    assert seen[1][flip]["in_flux"] and seen[2][ticker]["in_flux"]
