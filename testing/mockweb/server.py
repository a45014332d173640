"""The mock web's proxy server: plain proxied requests and CONNECT tunnels, by URL (and
direct connections, plain or TLS, to a test that maps a name to its port).

A :class:`Route` says how one URL answers: status, headers, body, a delay, a body streamed
slowly or far past any cap, a connection reset mid-body, gzip, a redirect, or a sequence of
such answers for successive hits (503 then 200). Hosts without any route fail (502), so
a test can never leak to the real internet.
"""

from __future__ import annotations

import gzip
import hashlib
import socket
import ssl
import struct
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from testing.mockweb.tls import server_context


@dataclass
class Route:
    """How one URL answers."""

    status: int = 200
    body: bytes | str = b""
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before the status line
    chunk_delay: float = 0.0  # seconds between body chunks (slow bodies)
    stream_bytes: int = 0  # send this many filler bytes, chunked, after ``body``
    reset_after: int = -1  # send this many body bytes, then reset the connection
    gzip: bool = False
    redirect: str = ""  # Location; status defaults to 302
    sequence: list[Route] = field(default_factory=list)  # answers for hit 1, 2, …; the last repeats
    dynamic: Callable[[int], bytes | str] | None = None  # body computed from the hit number
    etag: bool = True  # send an ETag and answer a matching If-None-Match with 304
    bandwidth: float = 0.0  # bytes per second for the body (0: as fast as loopback goes)
    responder: Callable[[str, int], Route] | None = None  # the answer computed from the full URL and hit (an API)

    def for_hit(self, hit: int, url: str = "") -> Route:
        if self.responder:
            return self.responder(url, hit)
        if self.sequence:
            return self.sequence[min(hit, len(self.sequence)) - 1]
        return self

    def body_bytes(self, hit: int) -> bytes:
        body = self.dynamic(hit) if self.dynamic else self.body
        return body.encode("utf-8") if isinstance(body, str) else body


@dataclass
class LogEntry:
    t: float  # wall clock at the request line (comparable across processes)
    method: str
    url: str
    user_agent: str
    headers: dict[str, str]
    status: int = 0
    tunnel_t: float = 0.0  # the first request on a new connection: when that connection began
    size: int = 0  # body bytes sent (before gzip); a 304 sends none
    arrived: float = 0.0  # the kernel's receive time of the request's first bytes (0: unknown)

    @property
    def began(self) -> float:
        """When the client began this request, as near as the server can tell: a request that
        opened a new connection began when it was accepted (the CONNECT, the TLS set-up and a
        handler thread's start are delays on the way, not the client's pace); any other when
        its first bytes reached this machine, by the kernel's clock — not when a handler thread
        got round to reading them (one waiting for the GIL on a loaded machine has read a
        request line 0.115 s after the client sent it)."""
        return self.tunnel_t or self.arrived or self.t


def gets_by_host(log: list[LogEntry], key: Callable[[LogEntry], float] = lambda e: e.began) -> dict[str, list[LogEntry]]:
    """The log's GET requests by host, each host's in the order they began (or by ``key``):
    what politeness is judged on."""
    by_host: dict[str, list[LogEntry]] = {}
    for entry in log:
        if entry.method == "GET":
            by_host.setdefault(urlsplit(entry.url).netloc, []).append(entry)
    return {host: sorted(entries, key=key) for host, entries in by_host.items()}


def _split(url: str) -> tuple[str, str, str]:
    parts = urlsplit(url)
    path = parts.path or "/"
    return (parts.hostname or "").lower(), path, parts.query


class MockWeb:
    """Start with :meth:`start` (or as a context manager); ``proxy_url`` goes into the env."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.log: list[LogEntry] = []
        self.hits: dict[str, int] = {}
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._tls = server_context()

    # -- routes ------------------------------------------------------------------------
    def route(self, url: str, route: Route | None = None, **kwargs: Any) -> Route:
        """Serve ``url`` (scheme-agnostic; the query counts only if given)."""
        host, path, query = _split(url)
        key = f"{host}{path}" + (f"?{query}" if query else "")
        self.routes[key] = route or Route(**kwargs)
        return self.routes[key]

    def hosts(self) -> set[str]:
        return {key.split("/", 1)[0] for key in self.routes}

    def find(self, url: str) -> Route | None:
        host, path, query = _split(url)
        if query and f"{host}{path}?{query}" in self.routes:
            return self.routes[f"{host}{path}?{query}"]
        return self.routes.get(f"{host}{path}")

    # -- lifecycle ---------------------------------------------------------------------
    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.server_address[1])

    @property
    def proxy_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        """The standard proxy variables; loopback itself is never proxied."""
        return {"http_proxy": self.proxy_url, "https_proxy": self.proxy_url,
                "HTTP_PROXY": self.proxy_url, "HTTPS_PROXY": self.proxy_url}

    def start(self, port: int = 0) -> MockWeb:
        handler = type("BoundHandler", (_ProxyHandler,), {"web": self})
        self._server = _TimedServer(("127.0.0.1", port), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="mockweb", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> MockWeb:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- log ---------------------------------------------------------------------------
    def record(self, entry: LogEntry) -> None:
        with self._lock:
            self.log.append(entry)

    def next_hit(self, url: str) -> int:
        with self._lock:
            self.hits[url] = self.hits.get(url, 0) + 1
            return self.hits[url]

    def requests_for(self, url_prefix: str) -> list[LogEntry]:
        return [e for e in self.log if e.url.startswith(url_prefix)]

    def clear_log(self) -> None:
        with self._lock:
            self.log.clear()


# Linux's SO_TIMESTAMPNS (asm-generic/socket.h; Python 3.11 does not name it): the kernel
# stamps each received packet, and the stamp comes with the bytes as a struct timespec
_SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
_STAMPED = sys.platform == "linux"


def _arrival(sock: socket.socket) -> float:
    """The kernel's receive time of the next bytes waiting on ``sock`` (a TLS socket's raw
    bytes), without taking them; 0.0 if the peer closed, or if no time came with them. Waits
    for them, as the read that follows would."""
    if not _STAMPED:
        return 0.0
    try:
        data, ancillary, _, _ = socket.socket.recvmsg(sock, 1, socket.CMSG_SPACE(16), socket.MSG_PEEK)
    except OSError:
        return 0.0
    for level, kind, value in ancillary:
        if data and level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS and len(value) >= 16:
            seconds, nanoseconds = struct.unpack("qq", value[:16])
            return float(seconds + nanoseconds / 1e9)
    return 0.0


def _opens_tls(sock: socket.socket) -> bool:
    """Whether the client's first byte on ``sock`` begins a TLS handshake record (waits for it)."""
    try:
        return sock.recv(1, socket.MSG_PEEK) == b"\x16"
    except OSError:
        return False


class _TimedServer(ThreadingHTTPServer):
    """Notes when each connection was accepted, before its handler thread starts, and has the
    kernel stamp each received packet (``SO_TIMESTAMPNS``, inherited by accepted sockets)."""

    accepted_at: dict[Any, float]

    def server_bind(self) -> None:
        if _STAMPED:
            self.socket.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
        super().server_bind()

    def process_request(self, request: Any, client_address: Any) -> None:
        if not hasattr(self, "accepted_at"):
            self.accepted_at = {}
        self.accepted_at[request] = time.time()
        super().process_request(request, client_address)


class _ProxyHandler(BaseHTTPRequestHandler):
    web: MockWeb
    protocol_version = "HTTP/1.1"
    scheme = "http"
    tunnel_host = ""
    tunnel_t = 0.0  # when this connection was accepted; reset once its first request is logged

    arrived = 0.0  # the kernel's receive time of the request being handled
    unreadable = False  # a direct TLS connection whose handshake failed: nothing to serve

    def setup(self) -> None:
        # a client that speaks TLS at once (an https:// URL connected here directly, as a test's
        # resolver maps a name to this port) is served as https, like a CONNECT tunnel's bytes
        if self.scheme == "http" and _opens_tls(self.request):
            accepted = self.server.accepted_at.pop(self.request, None)  # type: ignore[attr-defined]
            try:
                self.request = self.web._tls.wrap_socket(self.request, server_side=True)
            except (ssl.SSLError, OSError):
                self.unreadable = True
            else:
                self.scheme = "https"
                if accepted:
                    self.server.accepted_at[self.request] = accepted  # type: ignore[attr-defined]
        super().setup()

    def handle(self) -> None:
        if not self.unreadable:
            super().handle()

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            if self.scheme == "https" and not self.tunnel_host:
                self.request.close()  # the direct TLS socket: wrapping detached the one the server closes

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # the structured log is enough

    def handle_one_request(self) -> None:
        # nothing is buffered above the socket here: a client sends its next request only
        # after the answer to the last (no pipelining), and a TLS record is read whole
        pending = getattr(self.connection, "pending", None)
        self.arrived = 0.0 if pending is not None and pending() else _arrival(self.connection)
        super().handle_one_request()

    # plain proxied requests carry an absolute URL; tunnelled ones a path
    def _url(self) -> str:
        if self.path.startswith(("http://", "https://")):
            return self.path
        host = self.tunnel_host or (self.headers.get("Host") or "").split(":")[0]
        return f"{self.scheme}://{host}{self.path}"

    def do_CONNECT(self) -> None:  # noqa: N802 - stdlib naming
        host = self.path.split(":", 1)[0].lower()
        opened = self.server.accepted_at.pop(self.connection, None) or time.time()  # type: ignore[attr-defined]
        opened = min(opened, self.arrived or opened)  # the accept thread may have been late too
        self.web.record(LogEntry(time.time(), "CONNECT", self.path, self.headers.get("User-Agent", ""), {}))
        if host not in self.web.hosts():
            self.send_error(502, "mock web does not serve this host")
            self.close_connection = True
            return
        self.send_response_only(200, "Connection established")
        self.end_headers()
        self.wfile.flush()
        try:
            tls = self.web._tls.wrap_socket(self.connection, server_side=True)
        except (ssl.SSLError, OSError):
            self.close_connection = True
            return
        inner = type("TunnelHandler", (type(self),), {"scheme": "https", "tunnel_host": host, "tunnel_t": opened})
        try:
            inner(tls, self.client_address, self.server)
        except (ssl.SSLError, OSError):
            pass
        finally:
            tls.close()  # wrap_socket detached the original socket: this one owns the fd
        self.close_connection = True

    def do_GET(self) -> None:  # noqa: N802
        self._answer(send_body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        self._answer(send_body=False)

    def _answer(self, send_body: bool) -> None:
        url = self._url()
        # the first request on a connection began when that connection was accepted
        began = self.tunnel_t or self.server.accepted_at.pop(self.connection, 0.0)  # type: ignore[attr-defined]
        if began and self.arrived:
            began = min(began, self.arrived)  # the accept thread may have been late too
        entry = LogEntry(time.time(), self.command, url, self.headers.get("User-Agent", ""), dict(self.headers.items()),
                         tunnel_t=began, arrived=self.arrived)
        self.tunnel_t = 0.0  # later requests on this tunnel began at their own request line
        self.web.record(entry)
        host = _split(url)[0]
        route = self.web.find(url)
        if route is None:
            status = 404 if host in self.web.hosts() else 502
            entry.status = status
            body = b"not found" if status == 404 else b"mock web does not serve this host"
            self._send(status, {"Content-Type": "text/plain"}, body, send_body)
            return
        hit = self.web.next_hit(url)
        answer = route.for_hit(hit, url)
        entry.status = answer.status if not answer.redirect else (answer.status if answer.status != 200 else 302)
        if answer.delay:
            time.sleep(answer.delay)
        headers = {"Content-Type": answer.content_type, **answer.headers}
        if answer.redirect:
            headers["Location"] = answer.redirect
        body = answer.body_bytes(hit)
        if answer.etag and entry.status == 200 and not answer.stream_bytes and answer.reset_after < 0:
            tag = '"' + hashlib.sha1(body).hexdigest()[:16] + '"'
            headers["ETag"] = tag
            if self.headers.get("If-None-Match") == tag:
                entry.status = 304
                self._send(304, {"ETag": tag}, b"", send_body=False)
                return
        entry.size = len(body) if send_body else 0
        if answer.gzip:
            body = gzip.compress(body)
            headers["Content-Encoding"] = "gzip"
        try:
            if answer.stream_bytes:
                self._stream(entry.status, headers, body, answer, send_body)
            elif answer.reset_after >= 0:
                self._reset(entry.status, headers, body, answer.reset_after)
            else:
                self._send(entry.status, headers, body, send_body, answer.chunk_delay, answer.bandwidth)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            self.close_connection = True

    def _send(self, status: int, headers: dict[str, str], body: bytes, send_body: bool, chunk_delay: float = 0,
              bandwidth: float = 0) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not send_body:
            return
        if bandwidth:
            for i in range(0, len(body), 65536):
                piece = body[i : i + 65536]
                self.wfile.write(piece)
                self.wfile.flush()
                time.sleep(len(piece) / bandwidth)
        elif chunk_delay:
            for i in range(0, len(body), 1024):
                self.wfile.write(body[i : i + 1024])
                self.wfile.flush()
                time.sleep(chunk_delay)
        else:
            self.wfile.write(body)

    def _stream(self, status: int, headers: dict[str, str], head: bytes, route: Route, send_body: bool) -> None:
        """``head`` then ``stream_bytes`` of filler, chunked; stops when the client hangs up."""
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if not send_body:
            return
        filler = b"<p>" + b"filler text " * 5000 + b"</p>\n"
        pieces = [head] if head else []
        sent = 0
        while True:
            chunk = pieces.pop(0) if pieces else filler[: max(0, min(len(filler), route.stream_bytes - sent))]
            if not chunk:
                break
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            sent += len(chunk) if chunk is not head else 0
            if route.chunk_delay:
                time.sleep(route.chunk_delay)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _reset(self, status: int, headers: dict[str, str], body: bytes, keep: int) -> None:
        """Promise the whole body, send ``keep`` bytes, then reset the TCP connection."""
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(max(len(body), keep + 1000)))
        self.end_headers()
        self.wfile.write(body[:keep])
        self.wfile.flush()
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True
