"""The GitHub Actions workflows: monthly, the documented commands, nothing written back."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from .conftest import PROJECT_DIR
from .test_makefile import dry_run, marker_expressions

AUDIT = "audit"  # the parts (a matrix over SV_PARTS)
MERGE = "merge"  # their merge: the rolling issue and the store

WORKFLOWS = PROJECT_DIR / ".github" / "workflows"


def load(name: str) -> dict[str, Any]:
    return yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))


def steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def test_source_verify_runs_monthly_and_on_demand() -> None:
    wf = load("source-verify.yml")
    triggers = wf.get("on") or wf.get(True)  # YAML 1.1 reads a bare `on` as true
    (cron,) = [entry["cron"] for entry in triggers["schedule"]]
    minute, hour, day, month, weekday = cron.split()
    assert day.isdigit() and 1 <= int(day) <= 28 and month == "*" and weekday == "*"
    assert "workflow_dispatch" in triggers


def test_source_verify_calls_the_documented_commands() -> None:
    runs = "\n".join(step.get("run", "") for step in steps(load("source-verify.yml")))
    assert "make install" in runs
    assert 'scrapy crawl audit -a "part=$PART"' in runs and "scrapy merge" in runs and "--ci" in runs
    uses = [step.get("uses", "") for step in steps(load("source-verify.yml"))]
    assert any(u.startswith("actions/upload-artifact@") for u in uses)


@pytest.mark.parametrize("name", ["source-verify.yml", "ci.yml"])
def test_actions_are_pinned_by_sha(name: str) -> None:
    for step in steps(load(name)):
        if "uses" in step:
            assert re.fullmatch(r"[\w./-]+@[0-9a-f]{40}", step["uses"]), step["uses"]


@pytest.mark.parametrize("name", ["source-verify.yml", "ci.yml"])
def test_no_step_writes_to_the_repository(name: str) -> None:
    wf = load(name)
    assert wf["permissions"].get("contents") == "read"
    for job in wf["jobs"].values():
        assert job.get("permissions", {}).get("contents", "read") == "read"
    for step in steps(wf):
        run = step.get("run", "")
        assert not re.search(r"\bgit\s+(push|commit|tag)\b|gh\s+(pr|release)\s+create|gh\s+api\s+.*contents", run), run
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step.get("with", {}).get("persist-credentials") is False


@pytest.mark.subprocess  # drives make -n
def test_ci_runs_every_part_of_the_readme_test_command_side_by_side() -> None:
    """ci.yml's jobs are make test's parts (lint, docs, its three passes) as a matrix, and the
    three passes' selections are make test's own; .ci/run runs make test itself."""
    check = load("ci.yml")["jobs"]["check"]
    assert check["strategy"]["matrix"]["target"] == ["lint", "docs", "test-fast", "test-slow", "test-pacing"]
    assert check["strategy"]["fail-fast"] is False
    passes = "".join(dry_run(target) for target in ("test-fast", "test-slow", "test-pacing"))
    assert marker_expressions(passes) == marker_expressions(dry_run("test"))
    assert "ruff" in dry_run("lint") and "sphinx-build" in dry_run("docs")
    assert "make test" in (PROJECT_DIR / ".ci" / "run").read_text(encoding="utf-8")


def test_the_rolling_issue_posts_issue_md_whole() -> None:
    (step,) = [s for s in steps(load("source-verify.yml")) if "gh issue" in s.get("run", "")]
    assert "head -c" not in step["run"] and step["run"].count('--body-file "$ISSUE_BODY"') == 2
    assert step["env"]["ISSUE_BODY"] == "${{ steps.audit.outputs.issue }}"
    for job in (AUDIT, MERGE):
        (audit,) = [s for s in load("source-verify.yml")["jobs"][job]["steps"] if s.get("id") == "audit"]
        assert "SV_CORPUS_COMMIT=$(git -C corpus rev-parse HEAD)" in audit["run"]
    assert audit["env"]["SV_CORPUS_REPOSITORY"] == "${{ vars.SV_CORPUS_REPO }}"


# -- the store across months -------------------------------------------------------------------

def test_the_store_travels_as_an_artifact_of_the_last_successful_run_never_a_cache() -> None:
    wf = load("source-verify.yml")
    job, merge = wf["jobs"][AUDIT], wf["jobs"][MERGE]
    assert not [s for s in steps(wf) if s.get("uses", "").startswith("actions/cache")]  # evicted after 7 days
    assert job["permissions"]["actions"] == "read"
    (restore,) = [s for s in job["steps"] if "restore-store.sh" in s.get("run", "")]
    assert restore["run"].split()[1] == "_local/source-verify/store"  # each part starts from the merged store
    script = (PROJECT_DIR / "deploy" / "actions" / "restore-store.sh").read_text(encoding="utf-8")
    assert "--status success" in script and "gh run download" in script and "sv_scrapy.ops.storecheck" in script
    (upload,) = [s for s in merge["steps"] if s.get("with", {}).get("name") == "sv-store"]
    assert upload["uses"].startswith("actions/upload-artifact@") and int(upload["with"]["retention-days"]) >= 35
    assert upload["with"]["path"].rstrip("/").endswith("_local/source-verify/store")
    assert upload["if"] == "steps.audit.outcome == 'success'"  # only a good month's store is next month's
    order = [s.get("id") or s.get("name") for s in merge["steps"]]
    assert order.index("audit") < order.index(upload["name"])


def test_a_failed_month_reaches_the_rolling_issue_and_the_job_stays_red() -> None:
    job = load("source-verify.yml")["jobs"][MERGE]
    (failed,) = [s for s in job["steps"] if "failed-month.sh" in s.get("run", "")]
    assert failed["if"] == "failure() && steps.audit.outcome == 'failure'"
    assert "steps.store.outputs.last_complete" in failed["run"]
    assert "continue-on-error" not in next(s for s in job["steps"] if s.get("id") == "audit")
    script = (PROJECT_DIR / "deploy" / "actions" / "failed-month.sh").read_text(encoding="utf-8")
    assert "gh issue edit" in script and "sv_scrapy.ops.failedmonth" in script


def test_the_schedule_is_kept_alive() -> None:
    wf = load("source-verify.yml")
    keep = wf["jobs"]["keepalive"]
    assert keep["permissions"] == {"actions": "write"} and keep["if"] == "vars.SV_KEEPALIVE == 'true'"
    assert "/actions/workflows/source-verify.yml/enable" in keep["steps"][0]["run"]
    assert "60 days" in (WORKFLOWS / "source-verify.yml").read_text(encoding="utf-8")


# -- the audit in parts (SV_PARTS) ---------------------------------------------------------------

def test_the_parts_are_a_matrix_from_sv_parts_each_its_own_artifact_and_one_merge() -> None:
    wf = load("source-verify.yml")
    plan, audit, merge = wf["jobs"]["plan"], wf["jobs"][AUDIT], wf["jobs"][MERGE]
    (matrix,) = plan["steps"][1:]
    assert matrix["env"]["SV_PARTS"] == "${{ vars.SV_PARTS || '1' }}" and "parts-matrix.sh" in matrix["run"]
    assert audit["strategy"]["matrix"]["part"] == "${{ fromJSON(needs.plan.outputs.parts) }}"
    assert audit["strategy"]["fail-fast"] is False
    (hand,) = [s for s in audit["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert hand["with"]["name"] == "sv-part-${{ matrix.part }}" and hand["if"] == "always()"
    assert "gh issue" not in "".join(s.get("run", "") for s in audit["steps"])  # only the merge speaks
    assert merge["needs"] == ["plan", AUDIT] and merge["if"] == "always() && needs.plan.result == 'success'"
    (download,) = [s for s in merge["steps"] if s.get("uses", "").startswith("actions/download-artifact@")]
    assert download["with"]["pattern"] == "sv-part-*"
    assert sum("gh issue edit" in s.get("run", "") for s in steps(wf)) == 1
