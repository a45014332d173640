"""How the network handler holds its connections: one TLS context for every connection, and an
idle connection let go after ``IDLE_SECONDS``.

Scrapy's HTTP/1.1 handler (and scrapy-playwright's, which is one for the requests it does not
render) builds a new OpenSSL context for every connection: ~18 KB of C memory each, on top of the
connection's own, for what is the same context every time (Scrapy's TLS settings, certificates
not verified). On Twisted's TLS code since 26.4, a connection's host name (SNI) and its
verification are set on the connection, not on the context, so one context serves them all
(``tests/test_scrapy_private.py`` holds that for the installed versions).

Twisted's pool keeps an idle connection 240 s. A polite crawl of many hosts comes back to a host
only after every other host in its window had its turn: at 100 requests/s over 10,000 hosts,
every ~100 s, so every host kept a connection open it would not use again before the server's
own keep-alive (5–75 s on common servers) had closed it — 10,000 TLS connections, ~50 KB each,
at 100,000 URLs. ``IDLE_SECONDS`` still keeps the connection to a host whose turn comes back
within it (1,000 hosts at 100 requests/s: every ~10 s).

Both are set on the handler's private attributes (``_contextFactory``, ``_pool``): Scrapy has
no setting for either (``DOWNLOADER_CLIENTCONTEXTFACTORY`` is deprecated); the names are asserted
against the installed Scrapy in ``tests/test_scrapy_private.py``.
"""

from __future__ import annotations

from typing import Any

IDLE_SECONDS = 15.0


def hold_connections(handler: Any) -> None:
    """Set up ``handler`` (a Scrapy HTTP/1.1 handler, or one built on it) as above; a handler
    without a pool or a context factory (another kind of handler) is left as it is."""
    pool = getattr(handler, "_pool", None)
    if pool is not None:
        pool.cachedConnectionTimeout = IDLE_SECONDS
    factory = getattr(handler, "_contextFactory", None)
    if factory is not None and hasattr(factory, "_get_cert_options"):
        share_tls_context(factory)


def share_tls_context(factory: Any) -> None:
    """Make Scrapy's context ``factory`` hand every connection the same certificate options,
    whose OpenSSL context is built once, at the first connection."""
    options = factory._get_cert_options()
    factory._get_cert_options = lambda: options
