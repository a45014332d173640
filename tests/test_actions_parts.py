"""The workflow's audit in parts, run as the runner runs it (the fake ``gh`` of
``test_actions_store``): the matrix from ``SV_PARTS``, each part restoring the last successful
run's merged store and handing its folder over as ``sv-part-<I>``, the merge job downloading
``sv-part-*``, merging, updating the rolling issue once and keeping ``sv-store``. Month 2 runs in
three parts (month 1 in two) and one part's runner dies: the merge fails, and the failure path
puts its one line, naming the part and its hosts, on top of the issue."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest
import yaml

from sv_scrapy.core.audit.parts import owner_of
from testing.crawl import FAST_ANY_HOST, crawl, make_config, write_corpus
from testing.mockweb import MockWeb, Route

from .conftest import PROJECT_DIR, run_scrapy
from .test_actions_store import outputs_of, runner, step

pytestmark = pytest.mark.subprocess  # drives a process: make test-fast leaves it out

__all__ = ["runner"]  # the fixture, shared

FILLER = "<p>" + "How the duty is assessed, who pays it and when it falls due. " * 6 + "</p>"
HOSTS = [f"www.dept{k}.gouv.fr" for k in range(1, 9)]


def workflow_step(job: str, name_part: str) -> dict[str, Any]:
    wf = yaml.safe_load((PROJECT_DIR / ".github" / "workflows" / "source-verify.yml").read_text(encoding="utf-8"))
    (found,) = [s for s in wf["jobs"][job]["steps"] if name_part in s.get("name", "")]
    return dict(found)


def month(runner: dict[str, Any], n: int, parts: int, web: MockWeb, dead_part: int = 0) -> dict[str, Any]:
    tmp, state = runner["tmp"], runner["tmp"] / "gh-state"
    run_id, now = str(2000 + n), f"2027-{n:02d}-01T03:17:00Z"
    plan_out = tmp / f"plan-{n}"
    plan_out.touch()
    plan = subprocess.run(["bash", "-c", workflow_step("plan", "SV_PARTS")["run"]], cwd=PROJECT_DIR,
                          env={**runner["env"], "SV_PARTS": str(parts), "GITHUB_OUTPUT": str(plan_out)},
                          capture_output=True, text=True, timeout=30)
    assert plan.returncode == 0, plan.stderr
    matrix = json.loads(outputs_of(plan_out)["parts"])
    assert matrix == list(range(1, parts + 1))
    corpus = write_corpus(tmp / "corpus", {"countries/fr/playbook.md": "# T\n" + "".join(
        f"- Duty {k} {k}.25 % ([t](https://{h}/taux))\n" for k, h in enumerate(HOSTS, start=1))})
    config = tmp / "config"
    if not config.exists():
        make_config(config, liveness=FAST_ANY_HOST)
    for k, host in enumerate(HOSTS, start=1):
        web.route(f"https://{host}/taux", Route(body=f"<html lang='fr'><body><p>Taux {k},25 %.</p>{FILLER}</body></html>"))
    green = True
    for part in matrix:
        work = tmp / f"runner-{n}-part-{part}"  # a fresh runner per matrix job
        out, gh_out = work / "_local" / "source-verify", work / "github_output"
        work.mkdir()
        gh_out.touch()
        assert step(runner, "restore-store.sh", str(out / "store"), outputs=gh_out).returncode == 0
        if part == dead_part:
            green = False
            continue  # the runner died: nothing uploaded
        result = crawl("audit", corpus=corpus, config=config, output=out, proxy_env=web.env(),
                       args={"part": f"{part}/{parts}"}, extra_env={"SV_NOW": now})
        green &= result.returncode == 0
        shutil.copytree(out, state / "artifacts" / run_id / f"sv-part-{part}")  # upload-artifact, if: always()
    # the merge job: download pattern sv-part-*, merge, one issue update, the merged store kept
    work = tmp / f"runner-{n}-merge"
    gh_out = work / "github_output"
    (work / "_local" / "parts").mkdir(parents=True)
    gh_out.touch()
    for artifact in sorted((state / "artifacts" / run_id).glob("sv-part-*")):
        shutil.copytree(artifact, work / "_local" / "parts" / artifact.name)
    last = step(runner, "restore-store.sh", str(work / "_local" / "last-store"), outputs=gh_out)
    assert last.returncode == 0
    folders = sorted(str(p) for p in (work / "_local" / "parts").glob("sv-part-*"))
    merged = run_scrapy("merge", *folders, "--into", str(work / "_local" / "source-verify"), "--ci",
                        env={"SV_CONFIG_DIR": str(config), "SV_CORPUS_ROOT": str(corpus), "SV_NOW": now,
                             "GITHUB_OUTPUT": str(gh_out), "SV_CI_DIR": str(work / "_ci" / "source-verify")})
    (work / "audit-stderr.txt").write_text(merged.stderr, encoding="utf-8")
    outputs = outputs_of(gh_out)
    if merged.returncode == 0:
        shutil.copytree(work / "_local" / "source-verify" / "store", state / "artifacts" / run_id / "sv-store")
        issue = workflow_step("merge", "create or update the rolling issue")
        posted = subprocess.run(["bash", "-c", issue["run"]], cwd=PROJECT_DIR, capture_output=True, text=True,
                                env={**runner["env"], "ISSUE_BODY": outputs["issue"]}, timeout=30)
        assert posted.returncode == 0, posted.stderr
    else:
        failed = step(runner, "failed-month.sh", str(work / "audit-stderr.txt"), outputs.get("last_complete", ""),
                      outputs=gh_out)
        assert failed.returncode == 0, failed.stderr
    runs = json.loads((state / "runs.json").read_text()) if (state / "runs.json").exists() else []
    runs.append({"databaseId": run_id, "createdAt": f"2027-{n:02d}-01T03:17:05Z",
                 "conclusion": "success" if green and merged.returncode == 0 else "failure"})
    (state / "runs.json").write_text(json.dumps(runs))
    return {"merge": merged, "outputs": outputs, "work": work}


def test_the_parts_run_as_a_matrix_merge_once_and_a_dead_part_reaches_the_issue(runner: dict[str, Any]) -> None:
    state = runner["tmp"] / "gh-state"
    dead = 2
    assert any(owner_of(h, 3) == dead for h in HOSTS)
    with MockWeb() as web:
        first = month(runner, 1, 2, web)
        assert first["merge"].returncode == 0, first["merge"].stderr
        assert (state / "issue-writes.log").read_text().splitlines() == ["create"]  # one update for the run
        doc = json.loads((first["work"] / "_ci" / "source-verify" / "audit.json").read_text(encoding="utf-8"))
        assert doc["stats"]["claims"] == len(HOSTS) and doc["complete"]
        assert (state / "artifacts" / "2001" / "sv-store" / "claims.json").is_file()
        assert first["outputs"]["new_findings"] == "0"
        web.clear_log()
        second = month(runner, 2, 3, web, dead_part=dead)
    assert second["merge"].returncode == 1
    line = second["merge"].stderr.strip()
    assert "part 2/3 missing" in line
    assert all(h in line for h in HOSTS if owner_of(h, 3) == dead)
    assert not (state / "artifacts" / "2002" / "sv-store").exists()  # a failed month keeps no store
    assert (state / "issue-writes.log").read_text().splitlines() == ["create", "edit"]
    issue = (state / "issue.md").read_text(encoding="utf-8")
    assert issue.startswith("> ⚠️ **The audit of ") and "part 2/3 missing" in issue
    assert "last complete audit 2027-01-01" in issue
    # the parts that ran started from month 1's merged store: their pages answered 304
    assert {e.status for e in web.log if e.url.endswith("/taux")} == {304}
