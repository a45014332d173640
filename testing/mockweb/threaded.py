"""A small HTTP server on loopback in a thread of its own (the API stub, a healthcheck's pings)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# how often the serving thread looks up from its socket: ``shutdown()`` waits for that look, half a
# second a server on the standard library's default poll
SERVE_POLL_S = 0.02


def serve_in_thread(handler: type[BaseHTTPRequestHandler], name: str) -> ThreadingHTTPServer:
    """``handler`` served on 127.0.0.1 (a free port) from a daemon thread called ``name``; stop it
    with ``shutdown()`` then ``server_close()``."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": SERVE_POLL_S}, name=name,
                     daemon=True).start()
    return server
