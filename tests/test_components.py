"""Scrapy components built from a test crawler: the target guard's refusals, the pacer's book."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from scrapy import Request
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from sv_scrapy.downloadermiddlewares.guard import TargetGuardMiddleware
from sv_scrapy.exceptions import TargetRefused

from .conftest import PROJECT_DIR


@pytest.fixture
def gate() -> TargetGuardMiddleware:
    crawler = get_crawler(settings_dict={"SV_CONFIG_DIR": str(PROJECT_DIR / "config"), "SV_REQ_PER_SEC": 1000})
    crawler.stats.open_spider()
    return build_from_crawler(TargetGuardMiddleware, crawler)


def run(coro):
    return asyncio.run(coro)


def loopback_alias() -> str | None:
    """A name in /etc/hosts that points at loopback but is not spelled "localhost"."""
    try:
        lines = Path("/etc/hosts").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split("#", 1)[0].split()
        if len(fields) >= 2 and (fields[0].startswith("127.") or fields[0] == "::1"):
            for name in fields[1:]:
                if "localhost" not in name:
                    return name
    return None


def test_name_resolving_to_loopback_is_refused_without_a_proxy(gate: TargetGuardMiddleware) -> None:
    alias = loopback_alias()
    if alias is None:
        pytest.skip("no loopback alias in /etc/hosts to resolve")
    with pytest.raises(TargetRefused, match=f"{alias} resolves to a loopback"):
        run(gate.process_request(Request(f"http://{alias}/")))


def test_localhost_with_a_trailing_dot_is_refused(gate: TargetGuardMiddleware) -> None:
    with pytest.raises(TargetRefused, match="local name"):
        run(gate.process_request(Request("http://localhost./")))


def test_with_a_proxy_nothing_is_resolved_locally(gate: TargetGuardMiddleware) -> None:
    run(gate.process_request(Request("https://www.impots.gouv.fr/x", meta={"proxy": "http://127.0.0.1:9"})))
    assert gate.resolver._answers == {}


@pytest.mark.parametrize("url", ["http://169.254.169.254/latest", "https://www.linkedin.com/in/x", "http://[::1]/"])
def test_refused_targets(gate: TargetGuardMiddleware, url: str) -> None:
    with pytest.raises(TargetRefused):
        run(gate.process_request(Request(url, meta={"proxy": "http://127.0.0.1:9"})))
    assert gate.crawler.stats.get_value("sv/guard/refused") == 1


