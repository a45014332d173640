"""The browser's own road to the network: a proxy on loopback that connects only at the
addresses the run's resolver checked.

Chromium resolves names itself; a route check before it sends a request can refuse what the
resolver refused, but Chromium's own lookup may then answer otherwise (DNS rebinding: public
when judged, ``127.0.0.1`` when connected), and the redirects it follows are not routed at
all. So when no configured proxy resolves for the crawl, the browser is pointed at this one
(``render.launch_options``'s PAC script): every connection it opens — a ``CONNECT`` tunnel for
HTTPS, an absolute-URL request for HTTP — is looked up in the run's resolver
(``sv_scrapy/resolver.py``), refused (403) when the name was refused, and connected at the
checked address, the one the HTTP/1.1 handler connects to as well. Bytes are passed on as they
are; a plain HTTP request is sent with ``Connection: close``, so that each connection carries
one host's request.
"""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet.address import IPv6Address
from twisted.internet.endpoints import TCP4ClientEndpoint, TCP6ClientEndpoint
from twisted.internet.error import ConnectError, DNSLookupError
from twisted.internet.protocol import Factory, Protocol

from sv_scrapy.resolver import UnsafeAnswer

if TYPE_CHECKING:
    from collections.abc import Callable

    from sv_scrapy.resolver import PinnedResolver

_HEAD_LIMIT = 64 * 1024  # a request head longer than this is no browser's
_HOP_BY_HOP = (b"connection", b"proxy-connection", b"keep-alive", b"proxy-authorization")


def parse_head(head: bytes) -> tuple[str, int, bytes, bool] | None:
    """(host, port, what to send upstream first, whether it is a tunnel) of a proxy request's
    head (its bytes up to the blank line); None when it is no proxy request.

    >>> parse_head(b"CONNECT www.impots.gouv.fr:443 HTTP/1.1\\r\\nHost: www.impots.gouv.fr:443")
    ('www.impots.gouv.fr', 443, b'', True)
    >>> parse_head(b"GET http://a.example:8080/x?y HTTP/1.1\\r\\nHost: a.example\\r\\nConnection: keep-alive")
    ('a.example', 8080, b'GET /x?y HTTP/1.1\\r\\nHost: a.example\\r\\nConnection: close\\r\\n\\r\\n', False)
    """
    line, _, rest = head.partition(b"\r\n")
    parts = line.decode("latin-1").split(" ")
    if len(parts) != 3:
        return None
    method, target, version = parts
    tunnel = method == "CONNECT"
    try:
        url = urlsplit(f"//{target}" if tunnel else target)
        host, port = url.hostname, url.port or (80 if url.scheme == "http" else None)
    except ValueError:
        return None
    if not host or port is None or (not tunnel and url.scheme != "http"):
        return None
    if tunnel:
        return host, port, b"", True
    path = (url.path or "/") + (f"?{url.query}" if url.query else "")
    headers = [h for h in rest.split(b"\r\n") if h and h.split(b":", 1)[0].strip().lower() not in _HOP_BY_HOP]
    upstream = b"\r\n".join([f"{method} {path} {version}".encode("latin-1"), *headers, b"Connection: close"])
    return host, port, upstream + b"\r\n\r\n", False


class _Upstream(Protocol):
    transport: Any  # Twisted's ITransport, which mypy reads without its self

    def __init__(self, browser: _Browser) -> None:
        self.browser = browser

    def dataReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted's name
        self.browser.transport.write(data)

    def connectionLost(self, reason: Any = None) -> None:  # noqa: N802
        self.browser.transport.loseConnection()


class _Browser(Protocol):
    """One connection from Chromium: its head read, then bytes passed both ways."""

    transport: Any

    def __init__(self, resolver: PinnedResolver) -> None:
        self.resolver = resolver
        self.head = b""  # the request head, then what the browser sends before the upstream is connected
        self.upstream: Any = None
        self.started = False
        self.closed = False

    def dataReceived(self, data: bytes) -> None:  # noqa: N802
        if self.upstream is not None:
            self.upstream.transport.write(data)
            return
        self.head += data
        if self.started:
            return  # kept until the upstream is connected
        if b"\r\n\r\n" not in self.head:
            if len(self.head) > _HEAD_LIMIT:
                self._answer(b"431 Request Header Fields Too Large")
            return
        self.started = True
        head, _, self.head = self.head.partition(b"\r\n\r\n")
        parsed = parse_head(head)
        if parsed is None:
            self._answer(b"400 Bad Request")
            return
        deferred_from_coro(self._connect(*parsed))

    async def _connect(self, host: str, port: int, first: bytes, tunnel: bool) -> None:
        from twisted.internet import reactor as installed

        reactor: Any = installed
        try:
            answers = await self.resolver.answers(host)
        except UnsafeAnswer:
            self._answer(b"403 Forbidden")  # the run's resolver refused the name: never connected
            return
        except DNSLookupError:
            self._answer(b"502 Bad Gateway")
            return
        address = self.resolver.address_of(answers[0], port)  # the checked answer, as the handler connects it
        kind = TCP6ClientEndpoint if isinstance(address, IPv6Address) else TCP4ClientEndpoint
        endpoint: Any = kind(reactor, address.host, address.port, timeout=30)
        try:
            self.upstream = await maybe_deferred_to_future(endpoint.connect(Factory.forProtocol(lambda: _Upstream(self))))
        except ConnectError:
            self._answer(b"502 Bad Gateway")
            return
        if self.closed:  # the browser gave up meanwhile
            self.upstream.transport.loseConnection()
            return
        if tunnel:
            self.transport.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        self.upstream.transport.write(first + self.head)
        self.head = b""

    def _answer(self, status: bytes) -> None:
        self.transport.write(b"HTTP/1.1 " + status + b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        self.transport.loseConnection()

    def connectionLost(self, reason: Any = None) -> None:  # noqa: N802
        self.closed = True
        if self.upstream is not None:
            self.upstream.transport.loseConnection()


class PinnedProxy:
    """The proxy on a free loopback port (``port``), listening from ``start`` until ``stop``.

    *resolver* gives the run's resolver when a browser connection comes. The port is bound when the
    proxy is made, without the reactor: the add-on puts it into the browser's launch options while
    Scrapy applies the settings, and a script's ``CrawlerProcess`` installs its reactor only after
    the add-ons have run (importing the reactor there would install Twisted's default one)."""

    def __init__(self, resolver: Callable[[], PinnedResolver]) -> None:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(128)
        self._socket.setblocking(False)
        self.port = int(self._socket.getsockname()[1])
        self._resolver = resolver
        self._listening: Any = None

    def start(self) -> None:
        """Listen on the bound port (the reactor is running)."""
        from twisted.internet import reactor as installed

        reactor: Any = installed
        factory = Factory.forProtocol(lambda: _Browser(self._resolver()))
        self._listening = reactor.adoptStreamPort(self._socket.fileno(), socket.AF_INET, factory)
        self._socket.close()  # the reactor listens on its own copy of the descriptor

    async def stop(self) -> None:
        if self._listening is None:
            self._socket.close()  # a crawl that never started its engine
            return
        await maybe_deferred_to_future(self._listening.stopListening())
