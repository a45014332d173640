"""``make demo`` (tools/demo.py) ends with the one command line that reviews one of its findings;
pasted as printed (the reason edited) it works, writes the demo's copy of the config, never the
tracked ``config/`` folder, and the next demo lists the finding as reviewed. Run twice, the demo
warns of nothing and its report shows then and now (the sample web's small Wayback)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from testing.commands import PYTHON, run_command

from .conftest import PROJECT_DIR


def demo(base: Path) -> subprocess.CompletedProcess[str]:
    return run_command([PYTHON, str(PROJECT_DIR / "tools" / "demo.py"), str(base)], timeout=300)


def untracked_config() -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", "config"], cwd=PROJECT_DIR,
                          capture_output=True, text=True, check=True).stdout


def test_the_demos_review_line_works_as_printed(tmp_path: Path) -> None:
    before = untracked_config()
    first, second = demo(tmp_path / "demo"), demo(tmp_path / "demo")
    assert first.returncode == 0 and second.returncode == 0, first.stderr[-2000:]
    # a clean demo warns of nothing, and then and now works (the sample web's Wayback: examples/site/_wayback.json)
    assert not [line for run in (first, second) for line in (run.stdout + run.stderr).splitlines() if "WARNING" in line]
    report = (tmp_path / "demo" / "source-verify" / "audit" / "report.md").read_text(encoding="utf-8")
    assert "🕰️ changed since verified: the archived page of 2026-02-15 said 1 300 000, 964" in report
    lines = first.stdout.splitlines()
    hint = lines.index(next(line for line in lines if line.startswith("to review one of its findings")))
    command = lines[hint + 1].strip()
    assert "SV_OUTPUT_DIR=" in command and "SV_CONFIG_DIR=" in command and " review " in command
    assert command.endswith('--reason "…"')
    pasted = run_command(["bash", "-c", command.replace('"…"', '"checked in the demo"')], cwd=tmp_path)
    assert pasted.returncode == 0, pasted.stderr
    assert "recorded: " in pasted.stdout
    reviewed = tmp_path / "demo" / "config" / "source-verify-reviewed.json"
    assert len(json.loads(reviewed.read_text(encoding="utf-8"))["reviews"]) >= 1
    assert untracked_config() == before  # nothing written under the tracked config/
    again = demo(tmp_path / "demo")
    assert again.returncode == 0, again.stderr[-2000:]
    doc = json.loads((tmp_path / "demo" / "source-verify" / "audit" / "audit.json").read_text(encoding="utf-8"))
    assert doc["reviews"]["reviewed"] == 1 and doc["stats"]["reviewed"] == 1
