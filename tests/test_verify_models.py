"""`scrapy verify` against the models that exist (issue #20): the model looked up before any
claim, the request shape from what it supports, errors by type (fatal for the run or for one
claim), the cost cap enforced while running, and the prompt cache that happens — all against
the stub holding the real API's rules."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from sv_scrapy.llm.cost import Usage, billed, call_cost
from sv_scrapy.run.config import load_config
from testing.mockweb.anthropic_rules import MODELS
from testing.mockweb.anthropic_stub import AnthropicStub

from .test_extract_command import one_line_error
from .test_verify import CASES, HONEST, make_workspace, report, verify
from .test_verify_api import Cases, config_with, error_line, scripts

MANY: Cases = {f"xx:{n}:claim{n}": ({}, HONEST, "MATCH") for n in range(1, 41)}


def posted_messages(stub: AnthropicStub) -> list[tuple[str, str]]:
    return [entry for entry in stub.log if entry == ("POST", "/v1/messages")]


def truth_usd(billed_usages: list[dict[str, Any]], prices: dict[str, Any]) -> float:
    """The stub's usage priced independently, request by request, at Haiku 5.5's tiers."""
    total = 0.0
    for entry in billed_usages:
        u = entry["usage"]
        prompt = (u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation"]["ephemeral_5m_input_tokens"]
                  + u["cache_creation"]["ephemeral_1h_input_tokens"])
        p = {**prices, **prices["long_context"]} if prompt > prices["long_context"]["threshold_tokens"] else prices
        total += (u["input_tokens"] * p["input"] + u["output_tokens"] * p["output"]
                  + u["cache_read_input_tokens"] * p["cache_read"]
                  + u["cache_creation"]["ephemeral_5m_input_tokens"] * p["cache_write_5m"]
                  + u["cache_creation"]["ephemeral_1h_input_tokens"] * p["cache_write_1h"]) / 1e6 \
            * (prices["batch_discount"] if entry["batch"] else 1.0)
    return total


def test_an_unknown_model_is_exit_2_before_any_claim(tmp_path: Path) -> None:
    out = make_workspace(tmp_path / "out", CASES)
    with AnthropicStub(scripts(CASES)) as stub:
        line = one_line_error(verify(out, stub, "--model", "claude-haiku-5.5"))
        log = list(stub.log)
    assert "'claude-haiku-5.5'" in line and "claude-haiku-5-5" in line and "claude-sonnet-5-5" in line
    assert ("GET", "/v1/models/claude-haiku-5.5") in log
    assert not [e for e in log if e[1].startswith("/v1/messages")]  # no claim, no token count
    assert not (out.parent / "reports").exists() or not list((out.parent / "reports").glob("source-verify-*"))


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "claude-sonnet-like"])
def test_the_sonnet_like_model_gets_the_shape_it_takes(tmp_path: Path, model: str) -> None:
    """It refuses thinking disabled and a forced tool (400). Sonnet 5.5 has its config entry; the
    other has prices only, and the Models API's capabilities decide its shape."""
    out = make_workspace(tmp_path / "out", CASES)
    env = config_with(tmp_path, models={"claude-sonnet-like": {"prices_usd_per_mtok": {"input": 2.0, "output": 10.0}}})
    with AnthropicStub(scripts(CASES), models={**MODELS, "claude-sonnet-like": MODELS["claude-sonnet-5-5"]}) as stub:
        result = verify(out, stub, "--model", model, env=env)
        refusals, requests = list(stub.refusals), list(stub.requests)
    assert result.returncode == 0, result.stderr[-3000:]
    assert refusals == []  # no 400 seen by the stub
    doc, markdown = report(out)
    got = {v["id"]: v["verdict"] for v in doc["verdicts"]}
    assert got == {cid: exp for cid, (_, _, exp) in CASES.items()}  # real verdicts, the guardrails the same
    assert all(r["thinking"] == {"type": "adaptive"} for r in requests)
    assert all(r["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True} for r in requests)
    assert doc["tool_forced"] is False and doc["request_shape"].startswith("thinking adaptive, tool_choice auto")
    if model == "claude-sonnet-like":
        assert "the Models API says it does not take thinking disabled" in doc["request_shape"]
    assert doc["complete"] is True and "Request shape" in markdown


def test_a_model_without_prices_is_refused_unless_asked(tmp_path: Path) -> None:
    cases = {"xx:1:honest": CASES["xx:1:honest"]}
    out = make_workspace(tmp_path / "out", cases)
    models = {**MODELS, "claude-new-6": MODELS["claude-haiku-5-5"]}
    with AnthropicStub(scripts(cases), models=models) as stub:
        line = one_line_error(verify(out, stub, "--model", "claude-new-6"))
        assert "no prices in config" in line and "--price-unknown-ok" in line and not posted_messages(stub)
        both = one_line_error(verify(out, stub, "--model", "claude-new-6", "--price-unknown-ok",
                                     "--max-cost-usd", "1"))
        assert "a cost cap needs the model's prices" in both
        ok = verify(out, stub, "--model", "claude-new-6", "--price-unknown-ok")
    assert ok.returncode == 0, ok.stderr[-3000:]
    doc, markdown = report(out)
    assert doc["usage"]["cost_usd"] is None and doc["estimate"]["cost_usd"] is None
    assert "cost not reported" in markdown and doc["verdicts"][0]["verdict"] == "MATCH"


@pytest.mark.parametrize(("limit", "reason"), [("spend_limit_after", "spend_limit"),
                                               ("tier_cap_after", "spend_limit")])
def test_a_spend_limit_stops_the_run(tmp_path: Path, limit: str, reason: str) -> None:
    """The owner's limit (400) and the tier's cap (429, no retry-after): no more than the requests
    already in flight follow the first such answer, none is retried; exit 1, report partial."""
    out = make_workspace(tmp_path / "out", MANY)
    concurrency = 4
    with AnthropicStub(scripts(MANY), **{limit: 5}) as stub:
        result = verify(out, stub, env=config_with(tmp_path, concurrency=concurrency))
        answered, after = stub.answered, list(stub.after_stop)
    line = error_line(result)
    assert "stopped sending" in line and ("usage limits" in line or "enforced_spend_limit_reached" in line)
    assert answered == 5
    assert 1 <= len(after) <= concurrency  # the first refusal plus those already in flight, no retry
    doc, markdown = report(out)
    assert doc["partial"] and doc["complete"] is False and doc["stopped_by"] == reason
    assert sum(v["verdict"] == "MATCH" for v in doc["verdicts"]) == 5
    assert sum(doc["incomplete"].values()) == len(MANY) - 5 and "Partial report" in markdown


@pytest.mark.pacing  # a 1.5 s client timeout: every other answer must come back within it, so not under load
def test_a_hanging_claim_is_indeterminate_timeout_and_the_rest_judged(tmp_path: Path) -> None:
    cases: Cases = {**{k: CASES[k] for k in ("xx:1:honest", "xx:15:mismatch", "xx:5:secondary")},
                    "xx:20:hangs": ({}, {**HONEST, "hang": 3}, "INDETERMINATE")}  # twice the timeout
    out = make_workspace(tmp_path / "out", cases)
    with AnthropicStub(scripts(cases)) as stub:
        result = verify(out, stub, env=config_with(tmp_path, timeout_seconds=1.5))
        calls = dict(stub.calls)
    assert result.returncode == 0, result.stderr[-3000:]  # the report was written: not a stopped run
    assert "partial report" in result.stderr and "1 timeout" in result.stderr
    doc, _ = report(out)
    got = {v["id"]: v for v in doc["verdicts"]}
    assert {k: v["verdict"] for k, v in got.items()} == {k: exp for k, (_, _, exp) in cases.items()}
    assert got["xx:20:hangs"]["no_verdict_why"] == "timeout" and "timeout" in got["xx:20:hangs"]["note"]
    assert calls["xx:20:hangs"] == 1  # a timeout is not sent again (it would hang again)
    assert doc["complete"] is False and doc["incomplete"] == {"timeout": 1} and not doc["stopped"]


def test_529s_at_a_rate_are_retried_and_every_claim_judged(tmp_path: Path) -> None:
    out = make_workspace(tmp_path / "out", MANY)
    with AnthropicStub(scripts(MANY), overload_every=4) as stub:
        result = verify(out, stub)
        overloads = stub.message_posts - stub.answered
    assert result.returncode == 0, result.stderr[-3000:]
    doc, _ = report(out)
    # every 4th request is refused, a retry of a refused one never is: of the first len(MANY) requests'
    # len(MANY) // 4 refusals at most half can be let-through retries, so at least len(MANY) // 8 happen
    assert overloads >= len(MANY) // 8, (overloads, doc["incomplete"])
    assert doc["complete"] is True, doc["incomplete"]
    assert all(v["verdict"] == "MATCH" for v in doc["verdicts"])


def test_the_prefix_is_cached_and_the_cost_is_the_billed_truth(tmp_path: Path) -> None:
    out = make_workspace(tmp_path / "out", MANY)
    env = config_with(tmp_path)  # the default model and the stub's own floor (Haiku 5.5: 512)
    with AnthropicStub(scripts(MANY)) as stub:
        result = verify(out, stub, env=env)
        usages = list(stub.usages)
    assert result.returncode == 0, result.stderr[-3000:]
    assert usages[0]["usage"]["cache_creation_input_tokens"] > 0
    assert all(u["usage"]["cache_read_input_tokens"] > 0 for u in usages[1:])  # every request after the first
    doc, _ = report(out)
    prices = load_config(env["SV_CONFIG_DIR"]).llm.prices_usd_per_mtok
    assert doc["usage"]["cost_usd"] == pytest.approx(truth_usd(usages, prices), rel=0.01)
    assert doc["usage"]["cache_hit_share"] > 0.8
    est = doc["estimate"]  # expected and worst case side by side; the expected one near the truth
    assert est["cost_usd"] < est["worst_cost_usd"] and 0.5 < est["cost_usd"] / doc["usage"]["cost_usd"] < 2.0


def test_the_cost_cap_is_enforced_while_running(tmp_path: Path) -> None:
    many: Cases = {f"xx:{n}:claim{n}": ({}, HONEST, "MATCH") for n in range(1, 121)}
    out = make_workspace(tmp_path / "out", many)
    with AnthropicStub(scripts(many)) as stub:
        full = verify(out, stub)
        assert full.returncode == 0, full.stderr[-3000:]
        normal = report(out)[0]["usage"]["cost_usd"]
        for path in (out.parent / "reports").glob("source-verify-*"):
            path.unlink()
        before = len(stub.usages)
        cap = normal / 2
        result = verify(out, stub, "--max-cost-usd", f"{cap:.6f}")
        second = stub.usages[before:]
    line = error_line(result)
    assert "--max-cost-usd" in line and "reached" in line
    doc, _ = report(out)
    prices = load_config(Path(__file__).resolve().parent.parent / "config").llm.prices_usd_per_mtok
    spent = truth_usd(second, prices)
    assert spent <= cap and doc["usage"]["cost_usd"] <= cap  # stopped before the spent cost passed it
    judged = sum(v["verdict"] == "MATCH" for v in doc["verdicts"])
    assert len(many) * 0.25 <= judged < len(many)  # a good part of the claims, not a refusal to start
    assert doc["stopped_by"] == "cost_cap" and doc["incomplete"] == {"cost_cap": len(many) - judged}


def test_long_context_requests_are_priced_at_their_tier() -> None:
    prices = load_config(Path(__file__).resolve().parent.parent / "config").llm.prices_usd_per_mtok
    short, long = Usage(90_000, 100, 0, 0, 0, 1), Usage(110_000, 100, 0, 0, 0, 1)
    assert call_cost(short, prices, batch=False) == pytest.approx((90_000 * 0.10 + 100 * 0.50) / 1e6)
    assert call_cost(long, prices, batch=False) == pytest.approx((110_000 * 0.50 + 100 * 2.50) / 1e6)
    assert billed([short, long], prices, batch=True) == pytest.approx(
        0.5 * (call_cost(short, prices, False) + call_cost(long, prices, False)))
    cached = Usage(2_000, 100, 99_000, 0, 0, 1)  # the cache lines count toward the threshold
    assert call_cost(cached, prices, False) == pytest.approx((2_000 * 0.5 + 99_000 * 0.05 + 100 * 2.5) / 1e6)


def test_a_timeout_is_per_claim_and_unreachable_is_fatal() -> None:
    import anthropic
    import httpx2 as httpx

    from sv_scrapy.llm.client import from_exception

    request = httpx.Request("POST", "http://127.0.0.1/v1/messages")
    timeout = from_exception(anthropic.APITimeoutError(request=request))
    down = from_exception(anthropic.APIConnectionError(request=request))
    assert (timeout.fatal, timeout.reason) == (False, "timeout")
    assert (down.fatal, down.reason) == (True, "unreachable")


def test_config_models_table_is_checked(tmp_path: Path) -> None:
    from sv_scrapy.core.errors import ConfigError

    env = config_with(tmp_path, models={"claude-x": {"thinking": "sometimes"}})
    with pytest.raises(ConfigError, match="thinking"):
        load_config(env["SV_CONFIG_DIR"])
    doc = json.loads((PathConfig := Path(env["SV_CONFIG_DIR"]) / "_source-verify.json").read_text(encoding="utf-8"))
    doc["llm"]["models"] = {"claude-x": {"prices_usd_per_mtok": {"input": 1, "output": 5, "long_context": {
        "threshold_tokens": 200000, "input": 2, "output": 10}}, "cache_min_tokens": 1024, "forced_tool": False}}
    PathConfig.write_text(json.dumps(doc), encoding="utf-8")
    llm = load_config(env["SV_CONFIG_DIR"]).llm
    assert llm.models["claude-x"]["cache_min_tokens"] == 1024 and "claude-sonnet-5-5" in llm.models


@pytest.mark.parametrize("mode", ["sync", "batch"])
def test_structured_output_where_the_config_asks(tmp_path: Path, mode: str) -> None:
    """``llm.models.<id>.output: json``: the verdict comes back as the answer itself through
    ``output_config.format`` (no tool), and passes the same guardrails."""
    cases = {k: CASES[k] for k in ("xx:1:honest", "xx:2:fabricated", "xx:9:textonly", "xx:15:mismatch")}
    out = make_workspace(tmp_path / "out", cases)
    env = {**config_with(tmp_path, models={"claude-sonnet-5-5": {
        "prices_usd_per_mtok": {"input": 2.0, "output": 10.0}, "thinking": "adaptive", "output": "json"}}),
        "SV_LLM_POLL_SECONDS": "0.05"}
    with AnthropicStub(scripts(cases), polls_before_end=1) as stub:
        result = verify(out, stub, "--model", "claude-sonnet-5-5", "--mode", mode, env=env)
        refusals, requests = list(stub.refusals), list(stub.requests)
    assert result.returncode == 0, result.stderr[-3000:]
    assert refusals == [] and all("tools" not in r and r["output_config"]["format"]["type"] == "json_schema"
                                  for r in requests)
    doc, _ = report(out)
    got = {v["id"]: v["verdict"] for v in doc["verdicts"]}
    assert got == {k: exp for k, (_, _, exp) in cases.items()}
    assert doc["output"] == "json" and "structured output" in doc["request_shape"]


@pytest.mark.parametrize("mode", ["sync", "batch"])
def test_scans_go_once_through_the_files_api(tmp_path: Path, mode: str) -> None:
    """The scan is uploaded once; the token count, the send and the larger-budget retry name its
    file_id; the file is deleted after the run; the requests carry far fewer bytes than base64."""
    from testing.mockweb.pdfgen import scanned_pdf

    cases: Cases = {"xx:13:scan": ({"prior": "PDF_NO_TEXT", "_pdf": scanned_pdf(3)},
                                   {**CASES["xx:13:scan"][1], "cut": 2000}, "INDETERMINATE"),
                    "xx:1:honest": CASES["xx:1:honest"]}
    sent: dict[bool, int] = {}
    for files_api in (False, True):
        out = make_workspace(tmp_path / f"w-{files_api}" / "out", cases)
        env = {**config_with(tmp_path / f"c-{files_api}", files_api=files_api), "SV_LLM_POLL_SECONDS": "0.05"}
        with AnthropicStub(scripts(cases), polls_before_end=1) as stub:
            result = verify(out, stub, "--mode", mode, env=env)
            assert result.returncode == 0, result.stderr[-3000:]
            scans = [r for r in stub.requests if r["messages"][0]["content"][0]["type"] == "document"]
            assert len(scans) == 2  # cut at 1,024, asked again with 4,096
            sources = {json.dumps(r["messages"][0]["content"][0]["source"]["type"]) for r in scans}
            sent[files_api] = sum(n for path, n in stub.body_bytes.items() if path.startswith("/v1/messages"))
            if files_api:
                assert len(stub.files) == 1 and sources == {'"file"'} and stub.deleted == stub.files
            else:
                assert stub.files == [] and sources == {'"base64"'}
        got = {v["id"]: v for v in report(out)[0]["verdicts"]}
        assert got["xx:13:scan"]["sent_as"] == "pdf-scan" and got["xx:1:honest"]["verdict"] == "MATCH"
    b64 = len(base64.b64encode(scanned_pdf(3)))
    assert sent[False] - sent[True] >= 3 * b64 - 600  # the count, the send and the retry each carried it


def test_a_retired_model_is_exit_2_and_the_budget_fits_the_model(tmp_path: Path) -> None:
    cases: Cases = {"xx:1:cut": ({}, {**HONEST, "cut": 2000}, "MATCH")}  # cut at 1,024, asked again
    out = make_workspace(tmp_path / "out", cases)
    small = {**MODELS["claude-haiku-5-5"], "max_tokens": 3000}  # under llm.max_tokens_retry (4,096)
    models = {**MODELS, "claude-haiku-5-5": small, "claude-old-3": {**small, "lifecycle": "retired"}}
    env = config_with(tmp_path, models={"claude-old-3": {"prices_usd_per_mtok": {"input": 1.0, "output": 5.0}}})
    with AnthropicStub(scripts(cases), models=models) as stub:
        line = one_line_error(verify(out, stub, "--model", "claude-old-3", env=env))
        assert "retired" in line and not posted_messages(stub)
        result = verify(out, stub, env=env)
        budgets = [r["max_tokens"] for r in stub.requests]
        refusals = list(stub.refusals)
    assert result.returncode == 0, result.stderr[-3000:]
    assert budgets == [1024, 3000] and refusals == []  # the retry's budget held under the model's max_tokens
    assert report(out)[0]["verdicts"][0]["verdict"] == "MATCH"
