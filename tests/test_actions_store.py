"""The Actions workflow's store steps, run here as the runner runs them: deploy/actions/*.sh with
a fake ``gh`` on PATH that serves an artifact folder (what actions/upload-artifact kept of each
successful run) and keeps one rolling issue. Month 2 starts from month 1's store; a failed
month 3 puts its ⚠️ line on top of month 2's issue."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sv_scrapy.core.audit.storeformat import FORMAT
from testing.crawl import FAST_LIVENESS, crawl, make_config, write_corpus
from testing.mockweb import MockWeb, Route

from .conftest import PROJECT_DIR

pytestmark = pytest.mark.subprocess  # drives a process: make test-fast leaves it out

FAKE_GH = r'''#!PYTHON
"""A fake gh: `run list`, `run download`, `issue list/view/edit/create`, `label create`, on STATE."""
import json, shutil, sys
from pathlib import Path
state = Path(__file__).resolve().parent.parent / "gh-state"
args = sys.argv[1:]
def opt(name, default=None):
    return args[args.index(name) + 1] if name in args else default
runs = json.loads((state / "runs.json").read_text()) if (state / "runs.json").exists() else []
if args[:2] == ["run", "list"]:
    assert opt("--status") == "success" and opt("--workflow") == "source-verify.yml"
    good = [r for r in runs if r["conclusion"] == "success"]
    if good:  # the one expression restore-store.sh asks for
        print(f'{good[-1]["databaseId"]} {good[-1]["createdAt"]}')
elif args[:2] == ["run", "download"]:
    src = state / "artifacts" / args[2] / opt("--name")
    if not src.is_dir():
        print("no artifact", file=sys.stderr); sys.exit(1)
    shutil.copytree(src, opt("--dir"), dirs_exist_ok=True)
elif args[:2] == ["label", "create"]:
    pass
elif args[:2] == ["issue", "list"]:
    if (state / "issue.md").exists():
        print(1)
elif args[:2] == ["issue", "view"]:
    print((state / "issue.md").read_text(), end="")
elif args[:2] in (["issue", "edit"], ["issue", "create"]):
    shutil.copy(opt("--body-file"), state / "issue.md")
    with (state / "issue-writes.log").open("a") as log:
        log.write(args[1] + "\n")
else:
    print("fake gh: unknown call", args, file=sys.stderr); sys.exit(2)
'''

URL = "https://www.impots.gouv.fr/taux"
FILLER = "<p>" + "How the duty is assessed, who pays it and when it falls due. " * 6 + "</p>"


@pytest.fixture()
def runner(tmp_path: Path) -> dict[str, Any]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text(FAKE_GH.replace("PYTHON", sys.executable), encoding="utf-8")
    gh.chmod(0o755)
    (tmp_path / "gh-state").mkdir()
    return {"tmp": tmp_path, "env": {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}",
                                      "GITHUB_REPOSITORY": "owner/tools", "SV_PYTHON": sys.executable}}


def step(runner: dict[str, Any], script: str, *args: str, outputs: Path) -> subprocess.CompletedProcess[str]:
    env = {**runner["env"], "GITHUB_OUTPUT": str(outputs)}
    return subprocess.run(["bash", str(PROJECT_DIR / "deploy" / "actions" / script), *args], cwd=PROJECT_DIR,
                          env=env, capture_output=True, text=True, timeout=60)


def outputs_of(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines() if "=" in line)


def month(runner: dict[str, Any], n: int, web: MockWeb, up: bool = True) -> tuple[Any, dict[str, str]]:
    """One workflow run on a fresh runner: restore, audit, and (if green) keep the store."""
    tmp = runner["tmp"]
    work = tmp / f"runner-{n}"  # nothing survives between runs but the artifacts
    out, gh_out = work / "_local" / "source-verify", work / "github_output"
    work.mkdir()
    gh_out.touch()
    restored = step(runner, "restore-store.sh", str(out / "store"), outputs=gh_out)
    assert restored.returncode == 0, restored.stderr
    web.route(URL, Route(body=f"<html><body><p>Taux 5,81 %.</p>{FILLER}</body></html>") if up else Route(reset_after=0))
    web.route("https://www.impots.gouv.fr/robots.txt", Route(status=404) if up else Route(reset_after=0))
    corpus = write_corpus(tmp / "corpus", {"countries/fr/playbook.md": f"# T\n- Duty 5.81 % ([t]({URL}))\n"})
    config = tmp / "config"
    if not config.exists():
        make_config(config, liveness=FAST_LIVENESS)
    result = crawl("audit", corpus=corpus, config=config, output=out, proxy_env=web.env(),
                   extra_env={"SV_NOW": f"2027-{n:02d}-01T03:17:00Z"})
    (work / "audit-stderr.txt").write_text(result.stderr, encoding="utf-8")
    state = tmp / "gh-state"
    runs = json.loads((state / "runs.json").read_text()) if (state / "runs.json").exists() else []
    run_id = str(1000 + n)
    if result.returncode == 0:  # actions/upload-artifact of a green run
        shutil.copytree(out / "store", state / "artifacts" / run_id / "sv-store")
        shutil.copy(out / "audit" / "issue.md", state / "issue.md")  # the rolling issue step
    runs.append({"databaseId": run_id, "createdAt": f"2027-{n:02d}-01T03:17:05Z",
                 "conclusion": "success" if result.returncode == 0 else "failure"})
    (state / "runs.json").write_text(json.dumps(runs))
    return result, {**outputs_of(gh_out), "work": str(work), "stdout": restored.stdout}


def test_month_2_starts_from_month_1s_store_and_a_failed_month_3_says_so(runner: dict[str, Any]) -> None:
    with MockWeb() as web:
        first, info1 = month(runner, 1, web)
        assert first.returncode == 0, first.stderr[-2000:]
        assert info1["store_note"].startswith("no previous store") and "last_complete" not in info1
        doc1 = json.loads((Path(info1["work"]) / "_local/source-verify/audit/audit.json").read_text())
        assert "No previous store: this audit starts a new baseline" in (runner["tmp"] / "gh-state" / "issue.md").read_text()
        web.clear_log()
        second, info2 = month(runner, 2, web)
        assert second.returncode == 0, second.stderr[-2000:]
        assert info2["store_note"].startswith(f"store restored from run 1001 of 2027-01-01: format {FORMAT}, 1 entr(y/ies)")
        assert info2["last_complete"] == "2027-01-01"
        doc2 = json.loads((Path(info2["work"]) / "_local/source-verify/audit/audit.json").read_text())
        assert doc2["news_since"] == doc1["generated_at"] and doc2["stats"]["not_modified_urls"] == 1
        assert [e.status for e in web.log if e.url == URL] == [304]
        issue2 = (runner["tmp"] / "gh-state" / "issue.md").read_text()
        third, info3 = month(runner, 3, web, up=False)
    assert third.returncode == 1
    assert info3["store_note"].startswith("store restored from run 1002")
    failed = step(runner, "failed-month.sh", str(Path(info3["work"]) / "audit-stderr.txt"), info3["last_complete"],
                  outputs=Path(info3["work"]) / "github_output")
    assert failed.returncode == 0, failed.stderr
    issue3 = (runner["tmp"] / "gh-state" / "issue.md").read_text()
    head, _, rest = issue3.partition("\n\n")
    assert head.startswith("> ⚠️ **The audit of ") and "got an answer" in head and "last complete audit 2027-02-01" in head
    assert rest.strip() == issue2.strip()  # last month's report kept below


def test_an_expired_artifact_is_a_new_baseline_and_a_newer_releases_store_fails_the_month(runner: dict[str, Any]) -> None:
    state = runner["tmp"] / "gh-state"
    (state / "runs.json").write_text(json.dumps([{"databaseId": "7", "createdAt": "2027-01-01T00:00:00Z",
                                                   "conclusion": "success"}]))
    gh_out = runner["tmp"] / "out.txt"
    gh_out.touch()
    expired = step(runner, "restore-store.sh", str(runner["tmp"] / "store"), outputs=gh_out)
    assert expired.returncode == 0 and "could not be downloaded" in outputs_of(gh_out)["store_note"]
    newer = state / "artifacts" / "7" / "sv-store"
    newer.mkdir(parents=True)
    (newer / "FORMAT.json").write_text('{"format": 99}')
    refused = step(runner, "restore-store.sh", str(runner["tmp"] / "store"), outputs=gh_out)
    # a rollback: the newer release's memory is not replaced by a new baseline; the month fails
    assert refused.returncode == 1 and "newer sv_scrapy" in outputs_of(gh_out)["store_note"]
    assert "not starting a new baseline" in outputs_of(gh_out)["store_note"]
    assert not (runner["tmp"] / "store").exists()
