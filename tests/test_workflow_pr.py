"""The pull-request check's workflow (YAML read), and every workflow against GitHub's workflow schema
(check-jsonschema's vendored copy) and zizmor's static analysis (no medium or high finding)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import PROJECT_DIR

WORKFLOWS = PROJECT_DIR / ".github" / "workflows"
BIN = Path(sys.executable).parent


def workflow() -> dict[str, Any]:
    return yaml.safe_load((WORKFLOWS / "source-verify-pr.yml").read_text(encoding="utf-8"))


def job() -> dict[str, Any]:
    (only,) = workflow()["jobs"].values()
    return only


def step(run_contains: str) -> dict[str, Any]:
    (found,) = [s for s in job()["steps"] if run_contains in s.get("run", "")]
    return found


def test_runs_on_pull_requests_touching_the_playbooks_and_on_demand() -> None:
    triggers = workflow().get("on") or workflow()[True]  # YAML 1.1 reads a bare `on` as true
    assert set(triggers) == {"pull_request", "workflow_dispatch"}  # never pull_request_target
    paths = triggers["pull_request"]["paths"]
    assert [p for p in paths if p.endswith(".md")] == ["**/countries/**/*.md", "**/shared/**/*.md"]
    # and the rules that judge a change (SV_CONFIG_DIR, the allowlist beside it): their edit is a warning
    assert job()["env"]["SV_CONFIG_DIR"] == "${{ github.workspace }}/corpus/config"
    assert set(paths) - {"**/countries/**/*.md", "**/shared/**/*.md"} == {"config/**", "scripts/primary-source-allowlist.txt"}
    assert "base" in triggers["workflow_dispatch"]["inputs"]


def test_the_base_revision_is_fetched_and_the_command_compares_with_it() -> None:
    corpus_checkout = job()["steps"][0]
    assert corpus_checkout["uses"].startswith("actions/checkout@") and corpus_checkout["with"]["fetch-depth"] == 0
    check = step("scrapy crawl worklist")
    assert '-a changed_since="$BASE"' in check["run"] and "-a ci=1" in check["run"]
    assert check["env"]["BASE"] == "${{ github.event.pull_request.base.sha || inputs.base }}"
    assert "${{" not in check["run"]  # the revision reaches the shell as data, never as script


def test_the_job_status_is_the_commands() -> None:
    check = step("scrapy crawl worklist")
    assert "continue-on-error" not in check and "||" not in check["run"] and "set +e" not in check["run"]
    assert "continue-on-error" not in job()


def test_read_only_contents_and_actions_and_nothing_else() -> None:
    assert workflow()["permissions"] == {"contents": "read", "actions": "read"}  # actions: the store's artifact
    assert "permissions" not in job()
    for s in job()["steps"]:
        if s.get("uses", "").startswith("actions/checkout@"):
            assert s["with"]["persist-credentials"] is False
        if "uses" in s:
            assert re.fullmatch(r"[\w./-]+@[0-9a-f]{40}", s["uses"]), s["uses"]


def test_the_store_is_restored_and_never_uploaded() -> None:
    steps = job()["steps"]
    restore = step("restore-store.sh")
    assert "source-verify.yml" in restore["run"]  # the monthly workflow's last successful store
    assert steps.index(restore) < steps.index(step("scrapy crawl worklist"))
    assert not [s for s in steps if s.get("uses", "").startswith("actions/cache")]
    uploads = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert uploads and all("store" not in s["with"]["path"] and s["with"]["name"] != "sv-store" for s in uploads)


# gh as GitHub answers a token with the workflow's permissions: a repository's runs and their artifacts
# need actions: read (FAKE_GH_PERMISSIONS); one successful monthly run whose sv-store is FAKE_GH_STORE
FAKE_GH = r'''#!PYTHON
import json, os, shutil, sys
args = sys.argv[1:]
if json.loads(os.environ["FAKE_GH_PERMISSIONS"]).get("actions") not in ("read", "write"):
    print("HTTP 403: Resource not accessible by integration", file=sys.stderr); sys.exit(1)
if args[:2] == ["run", "list"]:
    print("1001 2027-01-01T03:17:05Z")
elif args[:2] == ["run", "download"] and args[args.index("--name") + 1] == "sv-store":
    shutil.copytree(os.environ["FAKE_GH_STORE"], args[args.index("--dir") + 1], dirs_exist_ok=True)
else:
    sys.exit(2)
'''


@pytest.mark.parametrize("permissions", ["the workflow's", "contents: read alone"])
@pytest.mark.subprocess
def test_the_restore_step_restores_the_monthly_store(tmp_path: Path, permissions: str) -> None:
    """The step's own command, run as the runner runs it (in the tool's checkout, with its env),
    against a gh that refuses what the token may not read."""
    from sv_scrapy.core.audit.storeformat import FORMAT

    restore = step("restore-store.sh")
    tool, bin_dir, artifact = tmp_path / "tool", tmp_path / "bin", tmp_path / "artifact"
    tool.mkdir()
    (tool / "deploy").symlink_to(PROJECT_DIR / "deploy")
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(FAKE_GH.replace("PYTHON", sys.executable), encoding="utf-8")
    (bin_dir / "gh").chmod(0o755)
    artifact.mkdir()
    (artifact / "FORMAT.json").write_text(json.dumps({"format": FORMAT}), encoding="utf-8")
    granted = workflow()["permissions"] if permissions == "the workflow's" else {"contents": "read"}
    outputs = tmp_path / "github_output"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "GH_TOKEN": "token", "GITHUB_REPOSITORY": "owner/playbooks",
           "GITHUB_OUTPUT": str(outputs), "SV_PYTHON": sys.executable, "FAKE_GH_STORE": str(artifact),
           "FAKE_GH_PERMISSIONS": json.dumps(granted), "PYTHONPATH": str(PROJECT_DIR)}  # the tool checkout
    assert restore["working-directory"] == "tool" and set(restore["env"]) == {"GH_TOKEN"}
    proc = subprocess.run(["bash", "-c", restore["run"]], cwd=tool, env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    note = outputs.read_text(encoding="utf-8")
    if permissions == "the workflow's":
        assert "store restored from run 1001" in note and (tool / "_local/source-verify/store/FORMAT.json").is_file()
    else:  # what the workflow did before actions: read: every check ran without its 304s
        assert "no previous store" in note and not (tool / "_local").exists()


def test_the_model_layer_is_off_for_forks_and_without_a_key() -> None:
    gate = [s for s in job()["steps"] if s.get("id") == "llm"][0]
    assert gate["env"]["KEY"] == "${{ secrets.ANTHROPIC_API_KEY }}"
    assert "github.event.pull_request.head.repo.full_name == github.repository" in gate["env"]["SAME_REPO"]
    verify = step("scrapy verify")
    assert verify["if"] == "failure() && steps.llm.outputs.on == 'true'" and "--max-cost-usd" in verify["run"]
    assert "changes-failing.json" in verify["run"]


def _tool(name: str) -> str:
    path = BIN / name
    if not path.exists() and not shutil.which(name):
        pytest.skip(f"{name} not installed (requirements-dev.txt)")
    return str(path) if path.exists() else name


@pytest.mark.subprocess
def test_every_workflow_matches_githubs_schema() -> None:
    files = sorted(str(p) for p in WORKFLOWS.glob("*.yml"))
    proc = subprocess.run([_tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", *files],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.subprocess
def test_zizmor_finds_nothing_medium_or_high() -> None:
    proc = subprocess.run([_tool("zizmor"), "--offline", "--format", "json", "--min-severity", "medium", str(WORKFLOWS)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert json.loads(proc.stdout or "[]") == []
