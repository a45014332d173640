"""Scrapy's private API: named in one module only, and checked against the installed Scrapy.

Scrapy is pinned, but an upgrade must not change a private name under us silently. The names
``downloadhandlers/connections.py`` relies on (the HTTP/1.1 handler's connection pool and TLS
context factory, which have no public alternative) are asserted here, so an upgrade that renames
or re-signs one fails this file with the name; and no other module of the package (or of the test
web) may reach for a name Scrapy keeps private."""

from __future__ import annotations

import ast
import functools
import inspect
from collections.abc import Sequence
from pathlib import Path

import pytest
import scrapy
from scrapy import Spider
from scrapy.core.downloader.contextfactory import _load_context_factory_from_settings
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.crawler import Crawler
from scrapy.utils.test import get_crawler
from twisted.internet.protocol import Factory, Protocol
from twisted.internet.ssl import optionsForClientTLS
from twisted.internet.task import Clock
from twisted.protocols.tls import TLSMemoryBIOFactory

from sv_scrapy.downloadhandlers.connections import share_tls_context
from testing import sources

ROOT = Path(__file__).resolve().parents[1]
THE_ONE_MODULE = ROOT / "sv_scrapy" / "downloadhandlers" / "connections.py"


@functools.cache  # two tests read them: Scrapy's 179 files parsed and walked once
def scrapy_private_names() -> frozenset[str]:
    """Every ``_name`` Scrapy's own classes define: methods and ``self._name`` attributes."""
    names: set[str] = set()
    for path in Path(scrapy.__file__).parent.rglob("*.py"):
        for node in sources.nodes(path):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("_"):
                names.add(node.name)
            elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                  and isinstance(node.value, ast.Name) and node.value.id == "self"):
                names.add(node.attr)
    return frozenset(name for name in names if name.startswith("_") and not name.startswith("__"))


def own_names(walked: Sequence[ast.AST]) -> set[str]:
    """The ``_names`` a file defines itself (its methods, functions and ``self._x =`` attributes)."""
    found: set[str] = set()
    for node in walked:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            found.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
    return found


def private_uses(walked: Sequence[ast.AST], private: frozenset[str]) -> list[tuple[int, str]]:
    """(line, name) of each private Scrapy name a file (its nodes, ``ast.walk``'s order) reaches for
    and does not define itself."""
    mine = own_names(walked)
    return [(node.lineno, node.attr) for node in walked
            if isinstance(node, ast.Attribute) and node.attr in private and node.attr not in mine]


def test_no_module_but_connections_py_names_a_private_scrapy_name() -> None:
    private = scrapy_private_names()
    files = [path for folder in ("sv_scrapy", "testing") for path in sorted((ROOT / folder).rglob("*.py"))]
    found = [f"{path.relative_to(ROOT)}:{line}: .{name}" for path in files if path != THE_ONE_MODULE
             for line, name in private_uses(sources.nodes(path), private)]
    assert not found, found


def test_the_scan_sees_a_private_name_and_not_a_name_defined_here() -> None:
    private = scrapy_private_names()
    reached = "def active(queue):\n    return queue._downloader_interface._active_downloads('h')\n"
    uses = private_uses(tuple(ast.walk(ast.parse(reached))), private)
    assert sorted(name for _, name in uses) == ["_active_downloads", "_downloader_interface"]
    defined = ("class Queue:\n    def _active_downloads(self):\n        return 0\n"
               "    def n(self):\n        return self._active_downloads()\n")
    assert private_uses(tuple(ast.walk(ast.parse(defined))), private) == []


def test_crawler_stats_raise_runtime_error_before_the_crawl_starts() -> None:
    """``extensions.outcome.stats_if_started`` reads the stats this public way, not ``crawler._stats``."""
    crawler = Crawler(Spider, {})
    with pytest.raises(RuntimeError):
        _ = crawler.stats


def test_the_network_handler_s_pool_and_context_factory_are_where_connections_py_sets_them() -> None:
    source = inspect.getsource(HTTP11DownloadHandler.__init__)
    assert "self._pool: HTTPConnectionPool = HTTPConnectionPool(" in source, THE_ONE_MODULE.name
    assert "self._contextFactory: IPolicyForHTTPS = _load_context_factory_from_settings(" in source, THE_ONE_MODULE.name
    assert "self._get_cert_options()" in inspect.getsource(type(_load_context_factory_from_settings(get_crawler())))


def test_the_hostname_check_replaces_scrapy_s_where_scrapy_does_not_verify() -> None:
    """``share_tls_context`` builds the connection's options as Scrapy's non-verifying path does."""
    factory = _load_context_factory_from_settings(get_crawler())
    assert factory._verify_certificates is False  # Scrapy's default: the check only warns
    creator = inspect.getsource(type(factory).creatorForNetloc)
    assert "if not self._verify_certificates:" in creator, THE_ONE_MODULE.name
    assert "self._get_cert_options()._makeTLSConnection," in creator, THE_ONE_MODULE.name


def test_one_tls_context_serves_every_host_each_connection_naming_its_own() -> None:
    """Shared, the context must carry nothing of one host: on this Twisted, the server name (SNI)
    and the verification are the connection's."""
    factory = _load_context_factory_from_settings(get_crawler())
    share_tls_context(factory)
    # a Clock: the factory would otherwise install Twisted's default reactor in the test process
    protocol = TLSMemoryBIOFactory(optionsForClientTLS("example.com"), True, Factory.forProtocol(Protocol),
                                   clock=Clock()).buildProtocol(None)
    a, b = (factory.creatorForNetloc(host, 443).clientConnectionForTLS(protocol) for host in (b"a.example", b"b.example"))
    assert a.get_context() is b.get_context()
    assert (a.get_servername(), b.get_servername()) == (b"a.example", b"b.example")
