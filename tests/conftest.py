"""Shared fixtures: the project root, the shared corpus slice, and the `scrapy` runner (testing.commands)."""

from __future__ import annotations

import inspect
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import CodeType
from typing import Any

import pytest

from testing.commands import PROJECT_DIR, SCRAPY, run_command, run_scrapy
from testing.crawl import crawl

__all__ = ["PROJECT_DIR", "SCRAPY", "run_scrapy", "shared_corpus"]

SHARED_CORPUS = PROJECT_DIR.parent / "shared" / "corpus" / "property-deep-dive"


@pytest.fixture(scope="session")
def shared_corpus() -> Path:
    """The real corpus slice beside the checkout; tests needing it skip when it is absent."""
    if not (SHARED_CORPUS / "config" / "_source-verify.json").is_file():
        pytest.skip(f"shared corpus slice not found at {SHARED_CORPUS} (../shared is absent)")
    return SHARED_CORPUS


class Pings:
    """What a healthchecks-style ping server was sent: (path, body) per POST."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []  # (path, body)

    def handler(self) -> type[BaseHTTPRequestHandler]:
        pings = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8")
                pings.seen.append((self.path, body))
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"OK")

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


@pytest.fixture()
def pings() -> Iterator[tuple[Pings, str]]:
    record = Pings()
    server = ThreadingHTTPServer(("127.0.0.1", 0), record.handler())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield record, f"http://127.0.0.1:{server.server_address[1]}/ping/5e1c-check"
    server.shutdown()
    server.server_close()


# a test that drives a process (a `scrapy` command, the demo, a script) is `subprocess`: make test-fast
# leaves it out. Read from the code the test and its fixtures reach (helpers of tests/ and testing/
# included), so no test carries the marker by hand and an in-process test beside it stays fast
_DRIVERS = (subprocess, crawl, run_command, run_scrapy)


def _names(code: CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            names |= _names(const)
    return names


def _drives_a_process(func: Any, seen: set[int]) -> bool:
    func = inspect.unwrap(func)
    code = getattr(func, "__code__", None)
    if code is None or id(func) in seen:
        return False
    seen.add(id(func))
    scope = func.__globals__
    for name in _names(code):
        value = scope.get(name)
        if any(value is driver for driver in _DRIVERS) or (name == "SCRAPY" and name in scope):
            return True
        if inspect.isfunction(value) and value.__module__.startswith(("tests", "testing")) \
                and _drives_a_process(value, seen):
            return True
    return False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        function = getattr(item, "function", None)
        if function is None:
            continue  # a doctest
        info = getattr(item, "_fixtureinfo", None)
        fixtures = [d.func for defs in (info.name2fixturedefs.values() if info else []) for d in defs]
        seen: set[int] = set()
        if any(_drives_a_process(f, seen) for f in [function, *fixtures]):
            item.add_marker(pytest.mark.subprocess)
