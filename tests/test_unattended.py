"""The monthly job as a timer runs it, with nobody watching: one writer at a time, an exit
status that tells the truth, a store that heals, a corpus read only inside its root."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from sv_scrapy.core.audit.store import ContentStore, url_key
from testing.crawl import FAST_LIVENESS, crawl, make_config, write_corpus
from testing.env import clean_env
from testing.inprocess import crawl_in_process
from testing.mockweb import MockWeb, Route

from .conftest import PROJECT_DIR, SCRAPY, run_scrapy
from .test_diskfull import CORPUS as FULL_CORPUS
from .test_diskfull import ONE_HOST_SLOW, items, mount_tmpfs
from .test_diskfull import URLS as FULL_URLS
from .test_diskfull import page as full_page

pytestmark = pytest.mark.subprocess  # drives a process: make test-fast leaves it out

FILLER = "<p>" + "Background on how the duty is assessed and collected. " * 6 + "</p>"
URLS = [f"https://h{i % 3}.lock.audit.gouv.fr/p{i}" for i in range(9)]
LINES = "# L\n" + "\n".join(f"- fee €{100 + i} ([p]({u}))" for i, u in enumerate(URLS)) + "\n"


def page(i: int) -> str:
    return f"<html><body><p>Fee €{100 + i}.</p>{FILLER}</body></html>"


def serve(web: MockWeb) -> None:
    for i, u in enumerate(URLS):
        web.route(u, Route(body=page(i), delay=0.05))


def one_line_error(stderr: str) -> str:
    """The run's own last word: one line, never a traceback."""
    assert "Traceback" not in stderr, stderr[-2000:]
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines, "nothing on stderr"
    return lines[-1]


def env_for(web: MockWeb, corpus: Path, config: Path, output: Path, **extra: str) -> dict[str, str]:
    env = clean_env()
    env.update(web.env(), SV_CORPUS_ROOT=str(corpus), SV_CONFIG_DIR=str(config), SV_OUTPUT_DIR=str(output),
               SV_IGNORE_HTTPS_ERRORS="1", **extra)
    return env


def normalised(path: Path) -> list[dict[str, Any]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [{k: v for k, v in item.items() if k not in ("fetched_at",)} for item in doc["items"]]


# -- one writer ------------------------------------------------------------------------------

@pytest.mark.pacing  # times the loser's exit against a start-up measured on the same cores
def test_two_audits_at_once_one_runs_the_other_says_who_holds_the_lock(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": LINES})
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS)
    with MockWeb() as web:
        serve(web)
        # the audit to compare with, in-process: only the two at once need processes
        reference = crawl_in_process("audit", corpus=corpus, config=config, output=tmp_path / "ref",
                                     proxy_env=web.env())
        assert reference.returncode == 0, reference.stderr[-2000:]
        web.clear_log()
        env = env_for(web, corpus, config, tmp_path / "out")
        started = time.monotonic()
        procs = [subprocess.Popen([SCRAPY, "crawl", "audit"], cwd=PROJECT_DIR, env=env, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
        ended: dict[int, float] = {}
        while len(ended) < 2 and time.monotonic() - started < 120:
            for i, proc in enumerate(procs):
                if i not in ended and proc.poll() is not None:
                    ended[i] = time.monotonic() - started
            time.sleep(0.02)
        outputs = [proc.communicate() for proc in procs]
        fetched = [e.url for e in web.log if e.method == "GET" and "/p" in e.url]
    codes = sorted(proc.returncode for proc in procs)
    assert codes == [0, 75], [o[1][-1500:] for o in outputs]
    loser = next(i for i, proc in enumerate(procs) if proc.returncode == 75)
    winner = 1 - loser
    line = one_line_error(outputs[loser][1])
    assert "another run holds" in line and f"pid {procs[winner].pid}" in line and "started 20" in line
    # it leaves as soon as Scrapy has started (~1 s alone): within 2 s of what a run that does
    # nothing takes, counted twice since both start at once on the same cores
    began = time.monotonic()
    run_scrapy("crawl", "nosuchspider")
    start_up = time.monotonic() - began
    assert ended[loser] < ended[winner] and ended[loser] <= 2 * start_up + 2.0, (ended, start_up)
    assert sorted(fetched) == sorted(set(fetched)) and len(fetched) == len(URLS)  # nothing fetched twice
    assert normalised(tmp_path / "out" / "audit" / "audit.json") == normalised(tmp_path / "ref" / "audit" / "audit.json")


def test_a_lock_left_by_a_killed_run_is_taken_over(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": LINES})
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS)
    out = tmp_path / "out"
    out.mkdir()
    # what a killed run leaves: the file naming it, but no process holding the lock
    (out / ".lock").write_text(json.dumps({"pid": 999999, "host": "x", "command": "scrapy crawl audit",
                                           "started_at": "2026-01-01T00:00:00+00:00"}))
    with MockWeb() as web:
        serve(web)
        result = crawl("audit", corpus=corpus, config=config, output=out, proxy_env=web.env())
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads((out / ".lock").read_text())["pid"] != 999999


# -- disk full (moved from test_diskfull: its one line and no traceback are what a process prints) --

@pytest.mark.pacing  # judges when requests stopped from the mock web's log
@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a 1 MB tmpfs needs root")
def test_a_full_disk_stops_the_crawl_in_one_line_and_the_rerun_resumes(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", {"countries/fr/playbook.md": FULL_CORPUS})
    config = make_config(tmp_path / "config", liveness=ONE_HOST_SLOW)
    out = tmp_path / "out"
    mount_tmpfs(out, "1m")
    try:
        with MockWeb() as web:
            for i, url in enumerate(FULL_URLS):
                web.route(url, Route(body=full_page(i)))
            full = crawl("audit", corpus=corpus, config=config, output=out, proxy_env=web.env())
            ended = time.time()
            requested = [e for e in web.log if e.url in FULL_URLS]
            stored = {u for u in FULL_URLS if (out / "store" / "pages" / f"{url_key(u)}.json").exists()}
            assert full.returncode == 1, full.stderr[-2000:]
            for stream in (full.stdout, full.stderr):
                assert "Traceback" not in stream and "Logging error" not in stream
            # the audit's progress lines, then its one line
            (line,) = [line for line in full.stderr.splitlines() if line.strip() and "progress:" not in line]
            assert line.startswith("scrapy crawl audit: error: cannot write ") and str(out) in line
            assert "no space left" in line.lower()
            # requests stop at the first failed write: the page that could not be kept is the
            # last, or one of the last in flight, to be requested (floor 0.4 s: 24 pages take ~10 s)
            first_lost = next(e for e in requested if e.url not in stored)
            assert stored and len(requested) < len(FULL_URLS)
            assert all(e.t - first_lost.t < 3.0 for e in requested)
            # and the crawl ends soon after: the requests queued behind the host are refused at
            # once, not each after waiting for its 0.4 s turn (~7 s more, before)
            assert ended - requested[-1].t < 3.0, ended - requested[-1].t
            subprocess.run(["mount", "-o", "remount,size=64m", str(out)], check=True)
            web.clear_log()
            # the floor above only paces the run that fills the disk: the rerun and the undisturbed run to
            # compare with go at the test floor (the rerun's ~20 pages: 2 s, not 8)
            fast = make_config(tmp_path / "config-fast", liveness=FAST_LIVENESS)
            again = crawl("audit", corpus=corpus, config=fast, output=out, proxy_env=web.env())
            assert again.returncode == 0, again.stderr[-2000:]
            refetched = [e.url for e in web.log if e.url in FULL_URLS]
            assert not set(refetched) & stored  # what was journalled is not fetched again
            clean = crawl_in_process("audit", corpus=corpus, config=fast, output=tmp_path / "clean", proxy_env=web.env())
            assert clean.returncode == 0
        assert items(out) == items(tmp_path / "clean")
    finally:
        subprocess.run(["umount", "-l", str(out)], capture_output=True)


# -- exit status is the truth ------------------------------------------------------------------

def a_file_where_a_folder_should_be(tmp_path: Path) -> Path:
    """An output folder nobody can write, even root: its parent is a regular file."""
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder")
    return blocker / "out"


@pytest.mark.parametrize("spider", ["worklist", "audit"])
def test_an_unwritable_output_folder_fails_at_once_with_one_line(tmp_path: Path, spider: str) -> None:
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": LINES})
    with MockWeb() as web:
        serve(web)
        result = crawl(spider, corpus=corpus, config=make_config(tmp_path / "config", liveness=FAST_LIVENESS),
                       output=a_file_where_a_folder_should_be(tmp_path), proxy_env=web.env())
        requested = list(web.log)
    assert result.returncode == 1
    line = one_line_error(result.stderr)
    assert line.startswith(f"scrapy crawl {spider}: error:") and "blocker/out" in line
    assert not requested  # nothing fetched for outputs that could never be written


@pytest.mark.parametrize("unwritable", ["SV_CI_DIR", "GITHUB_OUTPUT"])
def test_an_unwritable_ci_output_fails_with_one_line(tmp_path: Path, unwritable: str) -> None:
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": LINES})
    ci_env = {"SV_CI_DIR": str(tmp_path / "ci"), unwritable: str(a_file_where_a_folder_should_be(tmp_path))}
    with MockWeb() as web:
        serve(web)
        result = crawl("audit", corpus=corpus, config=make_config(tmp_path / "config", liveness=FAST_LIVENESS),
                       output=tmp_path / "out", proxy_env=web.env(), args={"ci": "1"}, extra_env=ci_env)
    assert result.returncode == 1 and unwritable in one_line_error(result.stderr)


def test_a_report_that_cannot_be_written_after_the_crawl_fails_and_the_run_resumes(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": LINES})
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS)
    out = tmp_path / "out"
    (out / "audit").mkdir(parents=True)
    (out / "audit" / "report.md").mkdir()  # a folder where the report goes: the rename fails
    with MockWeb() as web:
        serve(web)
        failed = crawl("audit", corpus=corpus, config=config, output=out, proxy_env=web.env())
        assert failed.returncode == 1
        assert "report.md" in one_line_error(failed.stderr)
        (out / "audit" / "report.md").rmdir()
        web.clear_log()
        again = crawl("audit", corpus=corpus, config=config, output=out, proxy_env=web.env())
        refetched = [e for e in web.log if e.method == "GET" and "/p" in e.url]
    assert again.returncode == 0 and (out / "audit" / "report.md").is_file()
    assert not refetched  # the journal kept every page: the rerun only wrote the reports


def test_a_crawl_in_which_nothing_answers_fails(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": LINES})
    dead_proxy = {k: "http://127.0.0.1:9" for k in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY")}
    result = crawl("audit", corpus=corpus, config=make_config(tmp_path / "config", liveness=FAST_LIVENESS),
                   output=tmp_path / "out", proxy_env=dead_proxy)
    assert result.returncode == 1
    assert "got an answer" in one_line_error(result.stderr)


def test_a_corpus_without_playbooks_is_exit_2_naming_root_and_scope_dirs(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "repo", {"README.md": "# not a corpus\n", "docs/x.md": "# x\n"})
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS)
    for args in (["crawl", "audit"], ["crawl", "worklist"], ["extract"]):
        result = run_scrapy(*args, env={"SV_CORPUS_ROOT": str(corpus), "SV_CONFIG_DIR": str(config),
                                        "SV_OUTPUT_DIR": str(tmp_path / "out")})
        assert result.returncode == 2, args
        line = one_line_error(result.stderr)
        assert str(corpus) in line and "countries/" in line and "scope_dirs" in line


def test_a_missing_allowlist_is_one_warning_line(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": LINES})
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS)
    (config / "primary-source-allowlist.txt").unlink()
    result = run_scrapy("extract", env={"SV_CORPUS_ROOT": str(corpus), "SV_CONFIG_DIR": str(config)})
    assert result.returncode == 0
    warnings = [line for line in result.stderr.splitlines() if "allowlist not found" in line]
    assert len(warnings) == 1 and str(config / "primary-source-allowlist.txt") in warnings[0]
    assert json.loads(result.stdout)["allowlist"].startswith("missing")


@pytest.mark.parametrize("args,words,status", [
    (["crawl", "nosuchspider"], "no spider named 'nosuchspider'", 2),
    (["crawl", "audit", "-s", "SV_PROGRESS_INTERVAL=abc"], "SV_PROGRESS_INTERVAL='abc': expected a number", 2),
    (["crawl", "audit", "-s", "SV_PROGRESS_INTERVAL=-5"], "SV_PROGRESS_INTERVAL='-5': must be a number >= 0", 2),
    (["extract", "--json", "{tmp}"], "is a folder", 2),
    (["extract", "--json", "{tmp}/file.txt/x.json"], "cannot write", 1),  # a failed write, not a mistake
])
def test_bad_inputs_are_one_line_and_their_exit_status(tmp_path: Path, args: list[str], words: str,
                                                      status: int) -> None:
    (tmp_path / "file.txt").write_text("x")
    result = run_scrapy(*[a.replace("{tmp}", str(tmp_path)) for a in args],
                        env={"SV_OUTPUT_DIR": str(tmp_path / "out")})
    assert result.returncode == status
    assert words in one_line_error(result.stderr)


# -- the store heals ---------------------------------------------------------------------------

def test_a_corrupt_entry_or_text_is_set_aside_named_and_fetched_fresh(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": LINES})
    config = make_config(tmp_path / "config", liveness=FAST_LIVENESS)
    out = tmp_path / "out"
    gone = "https://gone.lock.audit.gouv.fr/p"
    corpus.joinpath("countries/xx/playbook.md").write_text(LINES + f"- fee €999 ([g]({gone}))\n")
    with MockWeb() as web:
        serve(web)
        web.route(gone, status=404)
        for _ in range(2):
            assert crawl("audit", corpus=corpus, config=config, output=out, proxy_env=web.env()).returncode == 0
        store = ContentStore(out / "store")
        before = {u: store.load(u) for u in [*URLS, gone]}
        assert before[gone] is not None and before[gone].fail_streak == 2
        # damage: a truncated entry, a truncated text, a bit flip in another text
        bad_entry, bad_text, flipped = URLS[0], URLS[1], URLS[2]
        entry_file = out / "store" / "pages" / f"{url_key(bad_entry)}.json"
        entry_file.write_text(entry_file.read_text()[:200])
        text_file = out / "store" / "text" / f"{url_key(bad_text)}.txt"
        text_file.write_text(text_file.read_text()[:-40])
        flip_file = out / "store" / "text" / f"{url_key(flipped)}.txt"
        flip_file.write_text(flip_file.read_text().replace("€102", "€103"))
        web.clear_log()
        result = crawl("audit", corpus=corpus, config=config, output=out, proxy_env=web.env())
        statuses = {e.url: e.status for e in web.log if e.method == "GET" and "/p" in e.url}
    assert result.returncode == 0, result.stderr[-2000:]
    for url in (bad_entry, bad_text, flipped):
        assert any(url in line and "set aside" in line for line in result.stderr.splitlines()), url
        assert statuses[url] == 200  # fetched fresh, no conditional request on a broken copy
    assert all(statuses[u] == 304 for u in URLS[3:])  # the rest untouched
    doc = json.loads((out / "audit" / "audit.json").read_text(encoding="utf-8"))
    assert sorted(q["url"] for q in doc["store_quarantined"]) == sorted([bad_entry, bad_text, flipped])
    report = (out / "audit" / "report.md").read_text(encoding="utf-8")
    assert "3 stored copies failed their hash check" in report and bad_entry.split("//")[1] in report  # counted
    assert all(i["prior"] == "TOKENS_PRESENT" for i in doc["items"] if i["source_url"] != gone)
    after = ContentStore(out / "store").load(gone)
    assert after is not None and after.fail_streak == 3 and after.fetch_status == "DEAD"  # streak kept
    kept, was = ContentStore(out / "store").load(URLS[5]), before[URLS[5]]
    assert kept is not None and was is not None
    assert (kept.state.stable_hash, kept.fail_streak) == (was.state.stable_hash, was.fail_streak)  # baselines kept
    assert len(list((out / "store" / "corrupt").iterdir())) == 3


# -- the corpus is read only inside its root ---------------------------------------------------

def test_a_playbook_symlink_out_of_the_corpus_is_skipped_and_warned(tmp_path: Path) -> None:
    secret = tmp_path / "outside" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("# Secret\n- token 42 % ([s](https://secret.example.gouv.fr/x))\n")
    corpus = write_corpus(tmp_path / "corpus", {"countries/xx/playbook.md": LINES})
    (corpus / "countries" / "xx" / "leak.md").symlink_to(secret)
    (corpus / "countries" / "yy").symlink_to(secret.parent, target_is_directory=True)  # never walked into
    env = {"SV_CORPUS_ROOT": str(corpus), "SV_CONFIG_DIR": str(make_config(tmp_path / "config"))}
    result = run_scrapy("extract", "--include-secondary", "--json", str(tmp_path / "claims.json"), env=env)
    assert result.returncode == 0, result.stderr
    warned = [line for line in result.stderr.splitlines() if "outside the corpus root" in line]
    assert len(warned) == 1 and "leak.md" in warned[0]
    assert json.loads(result.stdout)["outside_root_skipped"] == 1
    assert "secret.example" not in (tmp_path / "claims.json").read_text()
