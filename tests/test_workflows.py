"""The GitHub Actions workflows: monthly, the documented commands, nothing written back."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from .conftest import PROJECT_DIR

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
    assert "scrapy crawl audit -a ci=1" in runs
    uses = [step.get("uses", "") for step in steps(load("source-verify.yml"))]
    assert any(u.startswith("actions/cache/restore@") for u in uses) and any(u.startswith("actions/cache/save@") for u in uses)
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
    for step in steps(wf):
        run = step.get("run", "")
        assert not re.search(r"\bgit\s+(push|commit|tag)\b|gh\s+(pr|release)\s+create|gh\s+api\s+.*contents", run), run
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step.get("with", {}).get("persist-credentials") is False


def test_ci_runs_the_readme_test_command() -> None:
    runs = "\n".join(step.get("run", "") for step in steps(load("ci.yml")))
    assert "make test" in runs
    assert "make test" in (PROJECT_DIR / ".ci" / "run").read_text(encoding="utf-8")


def test_the_rolling_issue_posts_issue_md_whole() -> None:
    (step,) = [s for s in steps(load("source-verify.yml")) if "gh issue" in s.get("run", "")]
    assert "head -c" not in step["run"] and step["run"].count('--body-file "$ISSUE_BODY"') == 2
    assert step["env"]["ISSUE_BODY"] == "${{ steps.audit.outputs.issue }}"
    (audit,) = [s for s in steps(load("source-verify.yml")) if s.get("id") == "audit"]
    assert "SV_CORPUS_COMMIT=$(git -C corpus rev-parse HEAD)" in audit["run"]
    assert audit["env"]["SV_CORPUS_REPOSITORY"] == "${{ vars.SV_CORPUS_REPO }}"
