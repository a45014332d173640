"""The pull-request check judges a change by the base's rules (issue 41): a change that re-stamps a
line whose page lacks the figure and, in the same commit, drops the cited host from the allowlist
(or excludes it, or lowers its floor to 0) still fails on that line, with a warning on the config
file naming what the edit does; the same edit merged first, on its own, is what the next check
uses. A real git repository holding both the playbooks and ``config/`` (as the workflow checks it
out), in-process crawls over the mock web, judged from the annotations and the mock web's log."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from testing.crawl import FAST_LIVENESS, make_config
from testing.gitcorpus import commit, init_repo
from testing.inprocess import InProcessCrawl, crawl_in_process
from testing.mockweb import MockWeb
from testing.mockweb.server import LogEntry

pytestmark = pytest.mark.subprocess  # drives a process: make test-fast leaves it out

FR = "playbooks/countries/fr/playbook.md"
HOST = "www.banque-france.fr"  # primary only through the shipped allowlist (no government namespace)
URL = f"https://{HOST}/levy"
FLOOR_MS = 600  # the base's floor for the host: the check must keep it whatever the change says
ALLOWLIST, LIVENESS = "config/primary-source-allowlist.txt", "config/_url-liveness.json"
PAGE = ("<html><head><title>Levy</title></head><body><h1>Levy</h1><p>The policy levy is 6.32 %.</p><p>"
        + "This page explains how the levy is assessed, who pays it and when it is due. " * 5 + "</p></body></html>")


def playbook(stamp: str) -> str:
    return f"# France\n\n## Rates\n\nPolicy levy 5.81 % ([bdf]({URL})) ({stamp} verified)\n"


LINE = 5


def drop_from_allowlist(repo: Path) -> dict[str, str]:
    text = (repo / ALLOWLIST).read_text(encoding="utf-8")
    kept = [line for line in text.splitlines() if not line.startswith("banque-france.fr")]
    assert len(kept) == len(text.splitlines()) - 1
    return {ALLOWLIST: "\n".join(kept) + "\n"}


def _liveness(repo: Path, edit: Any) -> dict[str, str]:
    data = json.loads((repo / LIVENESS).read_text(encoding="utf-8"))
    edit(data)
    return {LIVENESS: json.dumps(data, indent=1)}


def exclude(repo: Path) -> dict[str, str]:
    return _liveness(repo, lambda d: d["excluded_hosts"].append({"host": "banque-france.fr", "reason": "slow"}))


def floor_to_zero(repo: Path) -> dict[str, str]:
    return _liveness(repo, lambda d: d["per_host_overrides"]["banque-france.fr"].update(interval_ms=0))


EDITS = {  # the config edit, the file it is on, what the warning says of it
    "allowlist": (drop_from_allowlist, ALLOWLIST, f"1 claim(s) stop being claims (fr:{LINE})"),
    "excluded": (exclude, LIVENESS, f"host(s) excluded: {HOST}"),
    "floor": (floor_to_zero, LIVENESS, f"floors lowered: {HOST} {FLOOR_MS} ms x1 -> 0 ms x1"),
}


def base_repo(tmp: Path) -> Path:
    repo = init_repo(tmp / "repo")
    liveness = {**FAST_LIVENESS, "per_host_overrides": {"banque-france.fr": {"concurrency": 1, "interval_ms": FLOOR_MS}}}
    make_config(repo / "config", liveness=liveness)
    commit(repo, {FR: playbook("2026-05-01")}, "base")
    return repo


def check(repo: Path, out: Path, web: MockWeb) -> tuple[InProcessCrawl, list[LogEntry]]:
    web.clear_log()
    result = crawl_in_process("worklist", corpus=repo / "playbooks", config=repo / "config", output=out,
                              proxy_env=web.env(), args={"changed_since": "HEAD~1", "ci": "1"})
    return result, [e for e in web.log if e.method == "GET"]


def annotations(stdout: str, kind: str) -> list[tuple[str, int, str, str]]:
    return [(m["file"], int(m["line"]), m["title"], m["message"]) for m in re.finditer(
        rf"^::{kind} file=(?P<file>[^,]+),line=(?P<line>\d+),title=(?P<title>[^:]*)::(?P<message>.*)$", stdout, re.M)]


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_change_that_edits_its_own_rules_is_judged_by_the_bases(tmp_path: Path, edit: str) -> None:
    change, file, says = EDITS[edit]
    repo = base_repo(tmp_path)
    commit(repo, {FR: playbook("2026-12-01"), **change(repo)}, "re-stamp, and the rules that would judge it")
    with MockWeb() as web:
        web.route(URL, body=PAGE)
        result, gets = check(repo, tmp_path / "out", web)
    # the base's politeness: the page was asked for, at the base's floor after its robots.txt
    assert [e.url for e in gets] == [f"https://{HOST}/robots.txt", URL]
    assert gets[1].began - gets[0].began >= FLOOR_MS / 1000 - 0.01
    assert result.returncode == 3, result.stderr[-2000:]
    (error,) = annotations(result.stdout, "error")
    assert error[:3] == (FR, LINE, "figure not on the cited page"), error
    (warning,) = annotations(result.stdout, "warning")
    assert warning[:3] == (file, 1, "the change edits the rules that judge it"), warning
    assert "this change edits the rules that judge it" in warning[3] and says in warning[3], warning
    if edit != "floor":  # where the edit bites, the claim's own line says so too
        assert "judged by the base's rules" in error[3], error
    assert result.worklist()["changed_since"]["rules_edited"] == [file]
    assert "this change edits the rules that judge it" in (tmp_path / "out" / "changes.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_the_same_edit_merged_first_is_what_the_next_check_uses(tmp_path: Path, edit: str) -> None:
    change, file, _ = EDITS[edit]
    repo = base_repo(tmp_path)
    commit(repo, change(repo), "the rules change, on its own")
    with MockWeb() as web:
        web.route(URL, body=PAGE)
        alone, gets = check(repo, tmp_path / "alone", web)
        assert alone.returncode == 0 and not gets, alone.stderr[-2000:]  # no claim changed: a warning only
        assert [w[:3] for w in annotations(alone.stdout, "warning")] == [(file, 1, "the change edits the rules that judge it")]
        commit(repo, {FR: playbook("2026-12-01")}, "re-stamp")
        result, gets = check(repo, tmp_path / "next", web)
    assert "edits the rules that judge it" not in result.stdout  # the base's rules now are the merged ones
    if edit == "allowlist":  # no longer a claim: nothing to check
        assert result.returncode == 0 and "0 claim(s) checked" in result.stdout and not gets, result.stdout
    elif edit == "excluded":  # checked, never asked for: a page not read only warns
        assert result.returncode == 0 and not gets, result.stdout
        assert result.worklist()["items"][0]["fetch_status"] == "EXCLUDED"
    else:  # still failing, now at the merged floor
        assert result.returncode == 3, result.stderr[-2000:]
        assert [e.url for e in gets] == [f"https://{HOST}/robots.txt", URL]
        assert gets[1].began - gets[0].began < FLOOR_MS / 1000


def test_a_config_folder_beside_the_repository_is_read_as_it_is(tmp_path: Path) -> None:
    """No change of the corpus's repository can edit a config folder outside it: no warning."""
    from sv_scrapy.run.baserules import base_config, edited_rules
    from sv_scrapy.run.config import load_config
    from sv_scrapy.run.corpusgit import resolve_revision

    repo = init_repo(tmp_path / "repo")
    commit(repo, {FR: playbook("2026-05-01")}, "base")
    outside = make_config(tmp_path / "config")
    rev = resolve_revision(repo / "playbooks", "HEAD")
    assert edited_rules(rev, outside) == []
    assert base_config(rev, outside).hosts == load_config(outside).hosts


def test_rules_missing_at_the_base_are_one_line_naming_the_revision(tmp_path: Path) -> None:
    from sv_scrapy.core.errors import ConfigError
    from sv_scrapy.run.baserules import base_config
    from sv_scrapy.run.corpusgit import resolve_revision

    repo = init_repo(tmp_path / "repo")
    commit(repo, {FR: playbook("2026-05-01")}, "base, without config")
    make_config(repo / "config")  # added by the change, not merged: it cannot judge itself
    rev = resolve_revision(repo / "playbooks", "HEAD")
    with pytest.raises(ConfigError, match=r"^the base's rules \(HEAD at [0-9a-f]{12}\).*_source-verify.json"):
        base_config(rev, repo / "config")


def test_a_link_out_of_the_corpus_at_the_base_is_skipped_never_followed(tmp_path: Path) -> None:
    """The base's corpus is unpacked by ``git archive``: a link out of it (absolute, or climbing out)
    is skipped as the working tree's walk skips it, never followed and never a traceback."""
    from sv_scrapy.run.corpusgit import corpus_at, resolve_revision
    from testing.gitcorpus import git

    repo = init_repo(tmp_path / "repo")
    commit(repo, {FR: playbook("2026-05-01")}, "base")
    (repo / "playbooks/countries/fr/passwd.md").symlink_to("/etc/passwd")
    (repo / "playbooks/countries/de").symlink_to("../../../../../../etc")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "links out")
    root = corpus_at(resolve_revision(repo / "playbooks", "HEAD"), tmp_path / "at")
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == [
        "countries", "countries/fr", "countries/fr/playbook.md"]
