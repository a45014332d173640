"""Shared fixtures: the project root, the shared corpus slice, and the `scrapy` runner (testing.commands)."""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from testing.commands import PROJECT_DIR, SCRAPY, run_scrapy
from testing.mockweb.threaded import serve_in_thread

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
    server = serve_in_thread(record.handler(), "pings")
    yield record, f"http://127.0.0.1:{server.server_address[1]}/ping/5e1c-check"
    server.shutdown()
    server.server_close()
