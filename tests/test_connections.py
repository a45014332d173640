"""The network handler's connections: one TLS context for all of them, an idle one let go
after ``IDLE_SECONDS`` (``downloadhandlers/connections.py``). Kept 240 s, every host of a polite
crawl kept one, ~50 KB each: the 894 MB of an audit of 100,000 URLs over 10,000 hosts."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from scrapy.core.downloader.contextfactory import _load_context_factory_from_settings
from scrapy.utils.test import get_crawler
from twisted.web.client import HTTPConnectionPool

from sv_scrapy.downloadhandlers.connections import IDLE_SECONDS, hold_connections


def test_the_handler_s_pool_lets_idle_connections_go_and_its_hosts_share_one_context() -> None:
    """(That one context leaves each connection its own server name: tests/test_scrapy_private.py.)"""
    pool = HTTPConnectionPool(reactor=None)  # type: ignore[no-untyped-call]
    assert pool.cachedConnectionTimeout > 60  # Twisted's own: 240 s
    handler: Any = SimpleNamespace(_pool=pool, _contextFactory=_load_context_factory_from_settings(get_crawler()))
    hold_connections(handler)
    assert pool.cachedConnectionTimeout == IDLE_SECONDS <= 30
    factory = handler._contextFactory
    assert factory._get_cert_options() is factory._get_cert_options()  # one set of options: one OpenSSL context


def test_another_kind_of_handler_is_left_as_it_is() -> None:
    handler = SimpleNamespace(download_request=None)
    hold_connections(handler)
    assert vars(handler) == {"download_request": None}
