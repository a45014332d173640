"""`scrapy verify` against the stub's copy of the real API's rules: stop reasons, the forced
tool refused, batch limits, error types, cost as billed, an unreachable API, reports per run,
and verifying straight from an audit's flags."""

from __future__ import annotations

import json
import re
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest

from sv_scrapy.commands.verify import Command
from sv_scrapy.core.clock import clock_from
from sv_scrapy.run.config import load_config
from testing.mockweb.anthropic_stub import AnthropicStub
from testing.mockweb.pdfgen import scanned_pdf

from .conftest import PROJECT_DIR
from .test_extract_command import one_line_error
from .test_verify import CASES, HONEST, make_workspace, report, verify

Cases = dict[str, tuple[dict[str, Any], dict[str, Any], str]]


def config_with(tmp: Path, **llm: Any) -> dict[str, str]:
    """A copy of the project's config folder with ``llm`` keys overridden; the env that selects it."""
    folder = tmp / "config"
    shutil.copytree(PROJECT_DIR / "config", folder)
    path = folder / "_source-verify.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["llm"].update(llm)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return {"SV_CONFIG_DIR": str(folder)}


def scripts(cases: Cases) -> dict[str, dict[str, Any]]:
    return {cid: script for cid, (_, script, _) in cases.items()}


def verdicts(out: Path, scope: str = "xx") -> dict[str, dict[str, Any]]:
    return {v["id"]: v for v in report(out, scope)[0]["verdicts"]}


STOPS: Cases = {
    "xx:1:cutonce": ({}, {**HONEST, "cut": 2000}, "MATCH"),  # cut at 1,024, answered with 4,096
    "xx:2:cuttwice": ({}, {**HONEST, "cut": 10_000}, "INDETERMINATE"),
    "xx:3:refusal": ({}, {**HONEST, "refusal": True}, "INDETERMINATE"),
    # a 400 at claim time never reshapes the request (the shape comes from the model, before any claim)
    "xx:4:forced": ({}, {**HONEST, "reject_forced_tool": True}, "INDETERMINATE"),
    "xx:5:big": ({"prior": "PDF_NO_TEXT", "_pdf": scanned_pdf(101)}, HONEST, "INDETERMINATE"),
}


@pytest.mark.parametrize("mode", ["sync", "batch"])
def test_stop_reasons_and_the_forced_tool(tmp_path: Path, mode: str) -> None:
    out = make_workspace(tmp_path / "out", STOPS)
    with AnthropicStub(scripts(STOPS), polls_before_end=1) as stub:
        result = verify(out, stub, "--mode", mode, env={"SV_LLM_POLL_SECONDS": "0.05"})
        calls, refusals, requests = dict(stub.calls), list(stub.refusals), list(stub.requests)
    assert result.returncode == 0, result.stderr[-3000:]
    got = verdicts(out)
    assert {k: v["verdict"] for k, v in got.items()} == {k: exp for k, (_, _, exp) in STOPS.items()}
    assert calls["xx:1:cutonce"] == 2 and "asked again with 4096" in got["xx:1:cutonce"]["attempts"][0]
    budgets = [r["max_tokens"] for r in requests if "xx:1:cutonce" in r["messages"][0]["content"][0]["text"]]
    assert budgets == [1024, 4096]
    assert calls["xx:2:cuttwice"] == 2 and "answer cut off at max_tokens 4096" in got["xx:2:cuttwice"]["note"]
    assert calls["xx:3:refusal"] == 1 and "model refused" in got["xx:3:refusal"]["note"]
    assert calls["xx:4:forced"] == 1 and any("forcing a tool" in m for _, m in refusals)
    assert got["xx:4:forced"]["no_verdict_why"] in ("invalid_request", "invalid_request_error")
    assert "xx:5:big" not in calls and "over the API's limits" in got["xx:5:big"]["note"]  # 101 pages: not sent


def test_batch_split_by_size_each_part_saved_and_resumed(tmp_path: Path) -> None:
    out = make_workspace(tmp_path / "out", CASES)
    env = {**config_with(tmp_path, batch_max_bytes=12_000), "SV_LLM_POLL_SECONDS": "0.05"}
    with AnthropicStub(scripts(CASES), polls_before_end=1) as stub:
        result = verify(out, stub, "--mode", "batch", env=env)
        sizes = [len(b["results"]) for b in stub.batches.values()]
        assert result.returncode == 0, result.stderr[-3000:]
        assert len(sizes) > 1 and sum(sizes) == len(CASES) - 1  # the unread page: no call
        assert max(b["bytes"] for b in stub.batches.values()) <= 12_000 and not stub.refusals
        parts = sorted((out.parent / "reports").glob("verify-batch-*.json"))
        assert len(parts) == len(sizes)
        first = verdicts(out)
        last_part = json.loads(parts[-1].read_text(encoding="utf-8"))["batch_id"]
        again = verify(out, stub, "--resume", last_part, env=env)  # any part's id collects every part
        assert again.returncode == 0, again.stderr[-3000:]
        assert len(stub.batches) == len(sizes)  # nothing resubmitted
    reports = sorted((out.parent / "reports").glob("source-verify-xx-*.json"))
    second = {v["id"]: v["verdict"] for v in json.loads(reports[-1].read_text(encoding="utf-8"))["verdicts"]}
    assert second == {k: v["verdict"] for k, v in first.items()} and first["xx:1:honest"]["verdict"] == "MATCH"


def test_a_413_on_create_splits_and_retries(tmp_path: Path) -> None:
    out = make_workspace(tmp_path / "out", CASES)
    with AnthropicStub(scripts(CASES), polls_before_end=1, batch_max_bytes=10_000) as stub:
        result = verify(out, stub, "--mode", "batch", env={"SV_LLM_POLL_SECONDS": "0.05"})
        too_large = [s for s, _ in stub.refusals if s == 413]
        created = len(stub.batches)
    assert result.returncode == 0, result.stderr[-3000:]
    assert too_large and created > 1 and "413" in result.stdout
    got = verdicts(out)
    assert got["xx:1:honest"]["verdict"] == "MATCH" and len(got) == len(CASES)


def test_only_retryable_batch_errors_are_resubmitted(tmp_path: Path) -> None:
    cases: Cases = {
        "xx:1:invalid": ({}, {**HONEST, "batch_fail": "errored", "batch_error": "invalid_request_error",
                              "batch_fail_times": 9}, "INDETERMINATE"),
        "xx:2:overloaded": ({}, {**HONEST, "batch_fail": "errored", "batch_error": "overloaded_error"}, "MATCH"),
        "xx:3:expired": ({}, {**HONEST, "batch_fail": "expired"}, "MATCH"),
        "xx:4:canceled": ({}, {**HONEST, "batch_fail": "canceled"}, "INDETERMINATE"),
    }
    out = make_workspace(tmp_path / "out", cases)
    with AnthropicStub(scripts(cases), polls_before_end=1) as stub:
        result = verify(out, stub, "--mode", "batch", env={"SV_LLM_POLL_SECONDS": "0.05"})
        calls = dict(stub.calls)
    assert result.returncode == 0, result.stderr[-3000:]
    got = verdicts(out)
    assert {k: v["verdict"] for k, v in got.items()} == {k: exp for k, (_, _, exp) in cases.items()}
    assert calls == {"xx:1:invalid": 1, "xx:2:overloaded": 2, "xx:3:expired": 2, "xx:4:canceled": 1}
    assert "invalid_request_error" in got["xx:1:invalid"]["note"]


@pytest.mark.parametrize(("mode", "ttl"), [("sync", "5m"), ("batch", "1h")])
def test_cost_is_the_usage_as_billed(tmp_path: Path, mode: str, ttl: str) -> None:
    """Cached prefix written then read, at 1.25x/2x and 0.1x; the report's cost is the stub's usage x prices."""
    out = make_workspace(tmp_path / "out", CASES)
    env = {**config_with(tmp_path, cache_min_tokens=200, concurrency=1), "SV_LLM_POLL_SECONDS": "0.05"}
    with AnthropicStub(scripts(CASES), polls_before_end=1, cache_min_tokens=200) as stub:
        result = verify(out, stub, "--mode", mode, env=env)
        billed = list(stub.usages)
        counted = stub.count_calls
    assert result.returncode == 0, result.stderr[-3000:]
    doc, markdown = report(out)
    p = load_config(env["SV_CONFIG_DIR"]).llm.prices_usd_per_mtok
    expected = sum((u["usage"]["input_tokens"] * p["input"] + u["usage"]["output_tokens"] * p["output"]
                    + u["usage"]["cache_read_input_tokens"] * p["cache_read"]
                    + u["usage"]["cache_creation"]["ephemeral_5m_input_tokens"] * p["input"] * 1.25
                    + u["usage"]["cache_creation"]["ephemeral_1h_input_tokens"] * p["input"] * 2.0)
                   / 1e6 * (0.5 if u["batch"] else 1.0) for u in billed)
    assert doc["usage"]["cost_usd"] == pytest.approx(expected, rel=0.01)
    writes = sum(u["usage"]["cache_creation"][f"ephemeral_{ttl}_input_tokens"] for u in billed)
    reads = sum(u["usage"]["cache_read_input_tokens"] for u in billed)
    assert writes > 0 and reads > writes and doc["usage"]["cache_read_input_tokens"] == reads
    assert doc["prompt_cache"] == ttl and 0 < doc["usage"]["cache_hit_share"] < 1
    # input_tokens already excludes the cache lines: nothing is subtracted twice
    assert doc["usage"]["input_tokens"] == sum(u["usage"]["input_tokens"] for u in billed)
    assert counted == len(CASES) - 1 and doc["estimate"]["counted_by_api"]  # the estimate used count_tokens
    assert "as billed" in markdown


def error_line(result: Any) -> str:
    """Exit 1, no traceback, exactly one line on stderr."""
    assert result.returncode == 1, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("mode", ["sync", "batch"])
def test_api_unreachable_exits_1_with_one_line(tmp_path: Path, mode: str) -> None:
    out = make_workspace(tmp_path / "out", CASES)
    env = {**config_with(tmp_path, max_retries=1), "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{_closed_port()}",
           "ANTHROPIC_API_KEY": "sk-test-not-a-real-key", "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}
    line = error_line(verify(out, None, "--mode", mode, env=env))
    assert "unreachable" in line and "no verdict could be had" in line and "sk-" not in line
    doc, markdown = report(out)  # the report is kept, and says it is partial
    assert doc["partial"] and "Partial report" in markdown


def test_auth_failure_exits_1(tmp_path: Path) -> None:
    out = make_workspace(tmp_path / "out", CASES)
    with AnthropicStub(scripts(CASES), reject_key=True) as stub:
        result = verify(out, stub, env=config_with(tmp_path, concurrency=1))
        refused = list(stub.unauthorized)
    assert "401" in error_line(result)
    # the model is looked up first: its 401 stops everything, no token count, no message
    assert refused == ["/v1/models/claude-haiku-5-5"]


def test_two_runs_two_reports(tmp_path: Path) -> None:
    cases = {"xx:1:honest": CASES["xx:1:honest"]}
    out = make_workspace(tmp_path / "out", cases)
    with AnthropicStub(scripts(cases)) as stub:
        for _ in range(2):
            assert verify(out, stub).returncode == 0
    reports = sorted((out.parent / "reports").glob("source-verify-xx-*"))
    assert len(reports) == 4 and len({p.stem for p in reports}) == 2  # .md + .json, twice
    assert all(re.fullmatch(r"source-verify-xx-\d{8}-\d{6}(-\d+)?\.(md|json)", p.name) for p in reports)


def test_a_report_is_never_overwritten_within_the_second(tmp_path: Path) -> None:
    doc = {"generated_at": "2026-12-03T10:00:00+00:00", "scope": "xx", "model": "m", "mode": "sync",
           "usage": {"calls": 0, "prompt_tokens": 0, "input_tokens": 0, "cache_write_5m_tokens": 0,
                     "cache_write_1h_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0},
           "estimate": {"cost_usd": 0.0}, "partial": False, "verdicts": []}
    paths = {Command().write_report(tmp_path / "out", "xx", doc, clock_from("")) for _ in range(3)}
    assert len(paths) == 3 and all(p.is_file() and p.with_suffix(".json").is_file() for p in paths)


AUDIT = [  # (id, prior, stale_changed, content_changed)
    ("fr:1:absent", "TOKENS_ABSENT", False, False),
    ("fr:2:stale", "TOKENS_PRESENT", True, True),
    ("fr:3:changed", "TOKENS_PRESENT", False, True),
    ("fr:4:quiet", "TOKENS_PRESENT", False, False),
    ("de:5:absent", "TOKENS_ABSENT", False, False),
]


@pytest.mark.parametrize(("args", "expected"), [
    (["--only", "TOKENS_ABSENT,stale_changed"], {"fr:1:absent", "fr:2:stale", "de:5:absent"}),
    (["--only", "CONTENT_CHANGED", "--country", "fr"], {"fr:2:stale", "fr:3:changed"}),
    (["--country", "fr"], {"fr:1:absent", "fr:2:stale", "fr:3:changed"}),
    (["--only", "tokens_absent", "--count", "1"], {"fr:1:absent"}),
])
def test_from_audit_selects_exactly_the_flagged_claims(tmp_path: Path, args: list[str], expected: set[str]) -> None:
    out = tmp_path / "out"
    cases: Cases = {cid: ({"scope": cid[:2], "prior": prior, "stale_changed": stale, "content_changed": changed},
                          HONEST, "") for cid, prior, stale, changed in AUDIT}
    make_workspace(out, cases)
    items = json.loads((out / "worklist.json").read_text(encoding="utf-8"))["items"]
    (out / "audit").mkdir()
    (out / "audit" / "audit.json").write_text(json.dumps({"stats": {}, "items": items}), encoding="utf-8")
    (out / "worklist.json").unlink()
    with AnthropicStub(scripts(cases)) as stub:
        result = verify(out, stub, "--from-audit", *args)
        sent = set(stub.calls)
    assert result.returncode == 0, result.stderr[-3000:]
    scope = "fr" if "--country" in args else "all"
    doc, _ = report(out, scope)
    assert {v["id"] for v in doc["verdicts"]} == expected and sent == expected
    assert doc["source"]["audit"].endswith("audit/audit.json")


@pytest.mark.parametrize(("args", "expected"), [
    (["--from-audit", "--only", "NEW"], "--only 'NEW'"),
    (["--only", "TOKENS_ABSENT"], "use it with --from-audit"),
    (["--from-audit", "/nonexistent/audit.json"], "audit not found"),
    (["--country", "f r"], "--country 'f r'"),
])
def test_from_audit_mistakes_are_one_line(tmp_path: Path, args: list[str], expected: str) -> None:
    out = make_workspace(tmp_path / "out", {"xx:1:honest": CASES["xx:1:honest"]})
    with AnthropicStub() as stub:
        result = verify(out, stub, *args)
    assert result.returncode == 2 and expected in one_line_error(result)


def test_some_calls_failing_is_a_partial_report_exit_0(tmp_path: Path) -> None:
    cases: Cases = {"xx:1:honest": CASES["xx:1:honest"],
                    "xx:2:down": ({}, {**HONEST, "fail": [529] * 9}, "INDETERMINATE")}  # past the SDK's retries
    out = make_workspace(tmp_path / "out", cases)
    with AnthropicStub(scripts(cases)) as stub:
        result = verify(out, stub, env=config_with(tmp_path, max_retries=1))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "partial report" in result.stderr and "Traceback" not in result.stderr
    doc, markdown = report(out)
    got = {v["id"]: v for v in doc["verdicts"]}
    assert got["xx:1:honest"]["verdict"] == "MATCH" and got["xx:2:down"]["no_verdict_reason"] == "api"
    assert doc["partial"] and "1 claim(s) without a verdict (1 overloaded)" in doc["partial_reason"]
    assert doc["complete"] is False and doc["incomplete"] == {"overloaded": 1} and "Partial report" in markdown


def test_llm_keys_are_optional_and_checked(tmp_path: Path) -> None:
    from sv_scrapy.core.errors import ConfigError
    from sv_scrapy.run.llmconfig import llm_settings

    defaults = llm_settings({})
    assert (defaults.thinking, defaults.max_tokens, defaults.batch_max_requests,
            defaults.batch_max_bytes) == ("off", 1024, 100_000, 256_000_000)
    assert llm_settings({"max_output_tokens": 700}).max_tokens == 700  # the older key still reads
    assert llm_settings({"prices_usd_per_mtok": {"input": 2.0, "output": 8.0}}).prices_usd_per_mtok[
        "cache_write_5m"] == 2.5
    config_with(tmp_path)
    path = tmp_path / "config" / "_source-verify.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    del doc["llm"]  # a playbook repo's config has no llm section
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert load_config(tmp_path / "config").llm.thinking == "off"
    doc["llm"] = {"thinking": "maybe"}
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ConfigError, match="llm.thinking: must be one of off, default, adaptive"):
        load_config(tmp_path / "config")
