"""The mock web's proxy server: plain proxied requests and CONNECT tunnels, by URL (and
direct connections, plain or TLS, to a test that maps a name to its port).

A :class:`Route` says how one URL answers: status, headers, body, a delay, a body streamed
slowly or far past any cap, a connection reset mid-body, gzip, a redirect, or a sequence of
such answers for successive hits (503 then 200). Hosts without any route fail (502), so
a test can never leak to the real internet.

Every connection is served by one asyncio event loop on one thread (TLS through memory BIOs,
reads through ``recvmsg`` for the kernel's receive time): a bench of 10,000 hosts keeps
10,000 connections alive, and a thread for each took the machine (8,825 threads, a load over
2,000) from the crawl it was meant to measure.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import gzip
import hashlib
import html
import http.client
import io
import socket
import ssl
import struct
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
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
        opened a new connection began when it was accepted (the CONNECT and the TLS set-up are
        delays on the way, not the client's pace); any other when its first bytes reached this
        machine, by the kernel's clock — not when the server got round to reading them (a
        handler waiting for the GIL on a loaded machine has read a request line 0.115 s after
        the client sent it)."""
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
        self._served: set[str] = set()  # the hosts of the routes: asked on every CONNECT
        self._listener: socket.socket | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._tls = server_context()

    # -- routes ------------------------------------------------------------------------
    def route(self, url: str, route: Route | None = None, **kwargs: Any) -> Route:
        """Serve ``url`` (scheme-agnostic; the query counts only if given)."""
        host, path, query = _split(url)
        key = f"{host}{path}" + (f"?{query}" if query else "")
        self.routes[key] = route or Route(**kwargs)
        self._served.add(host)
        return self.routes[key]

    def hosts(self) -> set[str]:
        return set(self._served)

    def serves(self, host: str) -> bool:
        return host in self._served

    def find(self, url: str) -> Route | None:
        host, path, query = _split(url)
        if query and f"{host}{path}?{query}" in self.routes:
            return self.routes[f"{host}{path}?{query}"]
        return self.routes.get(f"{host}{path}")

    # -- lifecycle ---------------------------------------------------------------------
    @property
    def port(self) -> int:
        assert self._listener is not None
        return int(self._listener.getsockname()[1])

    @property
    def proxy_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        """The standard proxy variables; loopback itself is never proxied."""
        return {"http_proxy": self.proxy_url, "https_proxy": self.proxy_url,
                "HTTP_PROXY": self.proxy_url, "HTTPS_PROXY": self.proxy_url}

    def start(self, port: int = 0) -> MockWeb:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if _STAMPED:  # the kernel stamps each received packet; accepted sockets inherit it
            listener.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(1024)
        listener.setblocking(False)
        self._listener = listener
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name="mockweb", daemon=True)
        self._thread.start()
        return self

    def _serve(self) -> None:
        loop = self._loop
        assert loop is not None
        asyncio.set_event_loop(loop)
        try:
            with contextlib.suppress(asyncio.CancelledError):  # stop() cancels it
                loop.run_until_complete(self._accept_all())
        finally:
            loop.close()

    async def _accept_all(self) -> None:
        assert self._listener is not None
        loop = asyncio.get_running_loop()
        connections: set[asyncio.Task[None]] = set()
        try:
            while True:
                sock, _ = await loop.sock_accept(self._listener)
                accepted = time.time()  # before anything of it is read: the client's pace, not ours
                sock.setblocking(False)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                task = loop.create_task(_Connection(self, sock, accepted).serve())
                connections.add(task)
                task.add_done_callback(connections.discard)
        finally:
            for task in list(connections):
                task.cancel()
            await asyncio.gather(*connections, return_exceptions=True)

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        self._loop = self._thread = None

        def cancel_all() -> None:
            for task in asyncio.all_tasks(loop):
                task.cancel()

        with contextlib.suppress(RuntimeError):  # the loop has already stopped
            loop.call_soon_threadsafe(cancel_all)
        thread.join(timeout=10)
        if self._listener is not None:
            self._listener.close()

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
_ANCILLARY = socket.CMSG_SPACE(16)
_READ = 65536
_HEAD_LIMIT = 65536  # a request head longer than this is refused (as http.server refuses a long line)

# what http.server's handler says, so a client sees the same bytes from either server
_SERVER = f"{BaseHTTPRequestHandler.server_version} {BaseHTTPRequestHandler.sys_version}"
_REASONS = {status.value: status.phrase for status in HTTPStatus}


def _stamp(ancillary: list[tuple[int, int, bytes]]) -> float:
    """The kernel's receive time carried with a read (0.0 if none came)."""
    for level, kind, value in ancillary:
        if level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS and len(value) >= 16:
            seconds, nanoseconds = struct.unpack("qq", value[:16])
            return float(seconds + nanoseconds / 1e9)
    return 0.0


class _Closed(Exception):
    """The peer went away, or the connection is to be closed."""


class _Connection:
    """One client connection: requests read and answered in turn (no pipelining), through a
    CONNECT tunnel's TLS once it is established."""

    def __init__(self, web: MockWeb, sock: socket.socket, accepted: float) -> None:
        self.web = web
        self.sock = sock
        self.loop = asyncio.get_running_loop()
        self.tls: ssl.SSLObject | None = None
        self._raw_in = ssl.MemoryBIO()
        self._raw_out = ssl.MemoryBIO()
        self.buffer = bytearray()  # bytes received (decrypted, in a tunnel) and not yet read
        self.scheme = "http"
        self.tunnel_host = ""
        # when the next request began, if it is the first on this connection or tunnel: the
        # accept (or the CONNECT); later requests began at their own first bytes
        self.began = accepted
        self.arrived: float | None = 0.0  # the kernel's receive time of the request's first bytes
        self.close_connection = True

    # -- bytes in and out --------------------------------------------------------------
    async def _readable(self) -> None:
        waiter: asyncio.Future[None] = self.loop.create_future()
        fd = self.sock.fileno()

        def ready() -> None:
            if not waiter.done():
                waiter.set_result(None)

        self.loop.add_reader(fd, ready)
        try:
            await waiter
        finally:
            self.loop.remove_reader(fd)

    async def _recv_raw(self) -> bytes:
        while True:
            try:
                data, ancillary, _, _ = self.sock.recvmsg(_READ, _ANCILLARY)
            except (BlockingIOError, InterruptedError):
                await self._readable()
                continue
            if self.arrived is None and data:  # the first bytes of a request awaited
                self.arrived = _stamp(ancillary)
            return data

    async def _fill(self) -> None:
        """More bytes into ``buffer``; raises ``_Closed`` at the end of the stream."""
        while True:
            if self.tls is None:
                data = await self._recv_raw()
                if not data:
                    raise _Closed
                self.buffer += data
                return
            try:
                plain = self.tls.read(_READ)
            except ssl.SSLWantReadError:
                data = await self._recv_raw()
                if not data:
                    raise _Closed from None
                self._raw_in.write(data)
                continue
            except ssl.SSLError as exc:  # close_notify or a broken record
                raise _Closed from exc
            if not plain:
                raise _Closed
            self.buffer += plain
            return

    async def _flush_tls(self) -> None:
        pending = self._raw_out.read()
        if pending:
            await self.loop.sock_sendall(self.sock, pending)

    async def write(self, data: bytes) -> None:
        if self.tls is None:
            await self.loop.sock_sendall(self.sock, data)
            return
        view = memoryview(data)
        while view:
            sent = self.tls.write(view[:_READ])
            view = view[sent:]
            await self._flush_tls()

    async def _handshake(self) -> None:
        assert self.tls is not None
        while True:
            try:
                self.tls.do_handshake()
            except ssl.SSLWantReadError:
                await self._flush_tls()
                data = await self._recv_raw()
                if not data:
                    raise _Closed from None
                self._raw_in.write(data)
                continue
            await self._flush_tls()
            return

    async def _read_head(self) -> bytes:
        # the request's first bytes: already here (their time unknown, as http.server's), or
        # the next read's, by the kernel's clock
        pending = bool(self.buffer) or (self.tls is not None and (self.tls.pending() or self._raw_in.pending))
        self.arrived = 0.0 if pending or not _STAMPED else None
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end >= 0:
                head = bytes(self.buffer[: end + 4])
                del self.buffer[: end + 4]
                return head
            if len(self.buffer) > _HEAD_LIMIT:
                raise _Closed
            await self._fill()

    # -- the conversation --------------------------------------------------------------
    async def _opens_tls(self) -> bool:
        """Whether the client's first byte begins a TLS handshake record (waits for it, reads nothing)."""
        while True:
            try:
                return self.sock.recv(1, socket.MSG_PEEK) == b"\x16"
            except (BlockingIOError, InterruptedError):
                await self._readable()

    async def serve(self) -> None:
        try:
            if await self._opens_tls():
                # a client that speaks TLS at once (an https:// URL connected here directly, as a
                # test's resolver maps a name to this port) is served as https, like a tunnel's bytes
                self.tls = self.web._tls.wrap_bio(self._raw_in, self._raw_out, server_side=True)
                await self._handshake()
                self.scheme = "https"
            while True:
                await self._one_request()
                if self.close_connection:
                    return
        except (_Closed, OSError, ssl.SSLError, asyncio.CancelledError):
            pass
        except Exception:  # a route's own code failed (a test's responder): as http.server, said and closed
            traceback.print_exc()
        finally:
            with contextlib.suppress(OSError):
                self.sock.close()

    async def _one_request(self) -> None:
        head = await self._read_head()
        request_line, _, header_block = head.partition(b"\r\n")
        words = request_line.decode("iso-8859-1").rstrip("\r\n").split()
        self.close_connection = True
        if len(words) != 3 or not words[2].startswith("HTTP/"):
            await self._send_error(400, "Bad request syntax", "")
            return
        command, path, version = words
        headers = http.client.parse_headers(io.BytesIO(header_block))
        if version >= "HTTP/1.1":
            self.close_connection = False
        conntype = headers.get("Connection", "").lower()
        if conntype == "close":
            self.close_connection = True
        elif conntype == "keep-alive":
            self.close_connection = False
        request = _Request(command, path, headers)
        if command == "CONNECT":
            await self._connect(request)
        elif command in ("GET", "HEAD"):
            await self._answer(request, send_body=command == "GET")
        else:
            await self._send_error(501, f"Unsupported method ({command!r})", command)

    # plain proxied requests carry an absolute URL; tunnelled ones a path
    def _url(self, request: _Request) -> str:
        if request.path.startswith(("http://", "https://")):
            return request.path
        host = self.tunnel_host or (request.headers.get("Host") or "").split(":")[0]
        return f"{self.scheme}://{host}{request.path}"

    def _take_began(self) -> float:
        """When this request began, if it is the first on its connection or tunnel (else 0)."""
        began, self.began = self.began, 0.0
        if began and self.arrived:
            began = min(began, self.arrived)  # the accept may have been late too
        return began

    async def _connect(self, request: _Request) -> None:
        host = request.path.split(":", 1)[0].lower()
        opened = self._take_began() or time.time()
        self.web.record(LogEntry(time.time(), "CONNECT", request.path, request.headers.get("User-Agent", ""), {}))
        if not self.web.serves(host):
            await self._send_error(502, "mock web does not serve this host", request.command)
            return
        await self.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        self.tls = self.web._tls.wrap_bio(self._raw_in, self._raw_out, server_side=True)
        self._raw_in.write(bytes(self.buffer))  # a client that sent its hello without waiting
        self.buffer.clear()
        await self._handshake()
        self.scheme, self.tunnel_host, self.began = "https", host, opened
        self.close_connection = False
        while not self.close_connection:  # the tunnel's requests; the connection ends with it
            await self._one_request()
        self.close_connection = True

    async def _answer(self, request: _Request, send_body: bool) -> None:
        url = self._url(request)
        began = self._take_began()
        entry = LogEntry(time.time(), request.command, url, request.headers.get("User-Agent", ""),
                         dict(request.headers.items()), tunnel_t=began, arrived=self.arrived or 0.0)
        self.web.record(entry)
        host = _split(url)[0]
        route = self.web.find(url)
        if route is None:
            status = 404 if self.web.serves(host) else 502
            entry.status = status
            body = b"not found" if status == 404 else b"mock web does not serve this host"
            await self._send(status, {"Content-Type": "text/plain"}, body, send_body)
            return
        hit = self.web.next_hit(url)
        answer = route.for_hit(hit, url)
        entry.status = answer.status if not answer.redirect else (answer.status if answer.status != 200 else 302)
        if answer.delay:
            await asyncio.sleep(answer.delay)
        headers = {"Content-Type": answer.content_type, **answer.headers}
        if answer.redirect:
            headers["Location"] = answer.redirect
        body = answer.body_bytes(hit)
        if answer.etag and entry.status == 200 and not answer.stream_bytes and answer.reset_after < 0:
            tag = '"' + hashlib.sha1(body).hexdigest()[:16] + '"'
            headers["ETag"] = tag
            if request.headers.get("If-None-Match") == tag:
                entry.status = 304
                await self._send(304, {"ETag": tag}, b"", send_body=False)
                return
        entry.size = len(body) if send_body else 0
        if answer.gzip:
            body = gzip.compress(body)
            headers["Content-Encoding"] = "gzip"
        if answer.stream_bytes:
            await self._stream(entry.status, headers, body, answer, send_body)
        elif answer.reset_after >= 0:
            await self._reset(entry.status, headers, body, answer.reset_after)
        else:
            await self._send(entry.status, headers, body, send_body, answer.chunk_delay, answer.bandwidth)

    def _head(self, status: int, headers: dict[str, str], reason: str | None = None) -> bytes:
        """The status line, http.server's Server and Date, then ``headers``."""
        lines = [f"HTTP/1.1 {status} {_REASONS.get(status, '') if reason is None else reason}",
                 f"Server: {_SERVER}", f"Date: {email.utils.formatdate(time.time(), usegmt=True)}"]
        for name, value in headers.items():
            lines.append(f"{name}: {value}")
            if name.lower() == "connection":
                self.close_connection = value.lower() == "close" or (value.lower() != "keep-alive"
                                                                   and self.close_connection)
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "strict")

    async def _send_error(self, status: int, message: str, command: str) -> None:
        """As http.server's ``send_error``: a small HTML page, and the connection closes."""
        explain = BaseHTTPRequestHandler.responses.get(status, ("", ""))[1]
        body = (BaseHTTPRequestHandler.error_message_format % {
            "code": status, "message": html.escape(message, quote=False), "explain": html.escape(explain, quote=False),
        }).encode("utf-8", "replace")
        headers = {"Connection": "close", "Content-Type": BaseHTTPRequestHandler.error_content_type,
                   "Content-Length": str(len(body))}
        await self.write(self._head(status, headers, message) + (body if command != "HEAD" else b""))
        self.close_connection = True

    async def _send(self, status: int, headers: dict[str, str], body: bytes, send_body: bool,
                    chunk_delay: float = 0, bandwidth: float = 0) -> None:
        head = self._head(status, {**headers, "Content-Length": str(len(body))})
        if not send_body:
            await self.write(head)
            return
        if bandwidth:
            await self.write(head)
            for i in range(0, len(body), 65536):
                piece = body[i : i + 65536]
                await self.write(piece)
                await asyncio.sleep(len(piece) / bandwidth)
        elif chunk_delay:
            await self.write(head)
            for i in range(0, len(body), 1024):
                await self.write(body[i : i + 1024])
                await asyncio.sleep(chunk_delay)
        else:
            await self.write(head + body)

    async def _stream(self, status: int, headers: dict[str, str], head: bytes, route: Route, send_body: bool) -> None:
        """``head`` then ``stream_bytes`` of filler, chunked; stops when the client hangs up."""
        await self.write(self._head(status, {**headers, "Transfer-Encoding": "chunked"}))
        if not send_body:
            return
        filler = b"<p>" + b"filler text " * 5000 + b"</p>\n"
        pieces = [head] if head else []
        sent = 0
        while True:
            chunk = pieces.pop(0) if pieces else filler[: max(0, min(len(filler), route.stream_bytes - sent))]
            if not chunk:
                break
            await self.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            sent += len(chunk) if chunk is not head else 0
            # a turn for the other connections even when the client reads as fast as this sends
            await asyncio.sleep(route.chunk_delay)
        await self.write(b"0\r\n\r\n")

    async def _reset(self, status: int, headers: dict[str, str], body: bytes, keep: int) -> None:
        """Promise the whole body, send ``keep`` bytes, then reset the TCP connection."""
        head = self._head(status, {**headers, "Content-Length": str(max(len(body), keep + 1000))})
        await self.write(head + body[:keep])
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()
        raise _Closed


@dataclass(frozen=True)
class _Request:
    command: str
    path: str
    headers: Any  # an email.message.Message, as http.server's: case-insensitive, every line kept
