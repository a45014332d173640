"""The network handler's connections: one TLS context for all of them, at most ``IDLE_MOST``
idle ones (``downloadhandlers/connections.py``). Kept 240 s each, every host of a polite crawl
kept one, ~50 KB each: the 894 MB of an audit of 100,000 URLs over 10,000 hosts."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from OpenSSL import SSL
from scrapy.core.downloader.contextfactory import _load_context_factory_from_settings
from scrapy.utils.test import get_crawler
from twisted.internet.task import Clock
from twisted.web.client import HTTPConnectionPool

from sv_scrapy.downloadhandlers.connections import IDLE_MOST, IDLE_SECONDS, cap_idle, hold_connections


class Connection:
    """An idle ``HTTP11ClientProtocol`` as the pool sees it (hashable, as a protocol is)."""

    def __init__(self, name: str, closed: list[str]) -> None:
        self.state, self.name = "QUIESCENT", name
        self.transport = SimpleNamespace(loseConnection=lambda: closed.append(name))


def test_the_handler_s_pool_lets_idle_connections_go_and_its_hosts_share_one_context() -> None:
    """(That one context leaves each connection its own server name: tests/test_scrapy_private.py.)"""
    pool: Any = HTTPConnectionPool(reactor=Clock())  # type: ignore[no-untyped-call]
    assert pool.cachedConnectionTimeout > 60  # Twisted's own: 240 s
    handler: Any = SimpleNamespace(_pool=pool, _contextFactory=_load_context_factory_from_settings(get_crawler()))
    hold_connections(handler)
    assert pool.cachedConnectionTimeout == IDLE_SECONDS <= 120
    closed: list[str] = []
    for i in range(IDLE_MOST + 1):
        pool._putConnection(("https", f"h{i}".encode(), 443), Connection(f"h{i}", closed))
    assert closed == ["h0"]  # the most idle connections, kept
    factory = handler._contextFactory
    assert factory._get_cert_options() is factory._get_cert_options()  # one set of options: one OpenSSL context


def test_another_kind_of_handler_is_left_as_it_is() -> None:
    handler = SimpleNamespace(download_request=None)
    hold_connections(handler)
    assert vars(handler) == {"download_request": None}


def test_the_pool_keeps_the_most_idle_connections_letting_go_the_one_idle_longest() -> None:
    pool: Any = HTTPConnectionPool(reactor=Clock(), persistent=True)  # type: ignore[no-untyped-call]
    assert IDLE_MOST <= 2000  # ~50 KB each
    cap_idle(pool, 2)
    closed: list[str] = []

    for name in ("a", "b", "c"):
        pool._putConnection(("https", name.encode(), 443), Connection(name, closed))
    assert closed == ["a"]
    assert sorted(c.name for conns in pool._connections.values() for c in conns) == ["b", "c"]
    assert len(pool._timeouts) == 2


def test_the_shared_context_releases_an_idle_connection_s_buffers() -> None:
    """The ~49 KB an idle connection holds (``connections.py``) is with OpenSSL's read and write
    buffers released while it waits: Twisted sets that mode on the context, not sv_scrapy, so
    an upgrade that stopped would grow every kept connection unseen."""
    factory = _load_context_factory_from_settings(get_crawler())
    hold_connections(SimpleNamespace(_contextFactory=factory))
    # the one context, asked before any connection is made from it (after, pyOpenSSL refuses
    # even a set_mode that adds nothing, which is how it says the mode)
    context = factory._get_cert_options().getContext()
    assert context.set_mode(0) & SSL.MODE_RELEASE_BUFFERS
