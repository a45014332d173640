"""How the network handler holds its connections: one TLS context for every connection, and
at most ``IDLE_MOST`` idle ones, none longer than ``IDLE_SECONDS``.

Scrapy's HTTP/1.1 handler (and scrapy-playwright's, which is one for the requests it does not
render) builds a new OpenSSL context for every connection: ~18 KB of C memory each, on top of the
connection's own, for what is the same context every time (Scrapy's TLS settings, certificates
not verified). On Twisted's TLS code since 26.4, a connection's host name (SNI) and its
verification are set on the connection, not on the context, so one context serves them all
(``tests/test_scrapy_private.py`` holds that for the installed versions).

Twisted's pool keeps every idle connection 240 s. A polite crawl of many hosts comes back to a
host only after every other host in its window had its turn: at 100 requests/s over 10,000
hosts, every ~100 s, so every host kept a connection open, ~50 KB each: 500 MB at 100,000 URLs.
A shorter time alone (15 s was tried) also closed the connections of a crawl over 1,000 hosts
whenever a loaded machine took longer than that to come back (2.45 × its bound instead of 2.02,
and more memory, from the handshakes). A cap on the number keeps every connection of a crawl of
up to ``IDLE_MOST`` hosts, and ~50 MB at most of any larger one: the connection let go is the one
idle longest (a server's own keep-alive, 5–75 s on common ones, has often closed it anyway).

Above ``IDLE_MOST`` hosts nearly every request opens a connection: at 10,000 hosts a host comes
back after ~100 s, past ``IDLE_SECONDS`` as well as past the cap (and past a real server's own
keep-alive). Each is a CONNECT and a TLS handshake: ~1–2 ms more of the crawl's CPU a request and
~1 ms of the mock web's (5,000 URLs over 1,000 hosts, loaded machine: with the cap at 100, 5,000
connections and 10.1–10.9 ms of the crawl's CPU a request; at 1,000, 1,000 and 8.4–9.6 ms).
Keeping every host's is not within 400 MB: an idle connection holds ~49 KB, ~8 KB of it Python
objects, with its OpenSSL buffers already released (Twisted sets ``MODE_RELEASE_BUFFERS`` on the
context). Offering each host its last TLS session to resume was tried: it cuts the client's
handshake from ~1.1 to ~0.65 ms of CPU, but a session holds ~14 KB with a real server's
two-certificate chain (~1 KB with the mock web's), 140 MB at 10,000 hosts, for a saving the
crawl's CPU a request did not show; it was left out.

Both are set on private attributes of Scrapy's handler (``_contextFactory``, ``_pool``) and of
Twisted's pool (``_putConnection``, ``_timeouts``, ``_removeConnection``): Scrapy has no setting
for either (``DOWNLOADER_CLIENTCONTEXTFACTORY`` is deprecated); the names are asserted against
the installed versions in ``tests/test_scrapy_private.py`` and ``tests/test_connections.py``.
So is the context factory's choice of a connection's options (``_verify_certificates``, the
options' ``_makeTLSConnection``), where ``hostcheck.py`` makes Scrapy's hostname check.
"""

from __future__ import annotations

from typing import Any

from sv_scrapy.downloadhandlers.hostcheck import CheckedTLSOptions, HostnameCheck

IDLE_SECONDS = 60.0
IDLE_MOST = 1000


def hold_connections(handler: Any) -> None:
    """Set up ``handler`` (a Scrapy HTTP/1.1 handler, or one built on it) as above; a handler
    without a pool or a context factory (another kind of handler) is left as it is."""
    pool = getattr(handler, "_pool", None)
    if pool is not None:
        pool.cachedConnectionTimeout = IDLE_SECONDS
        cap_idle(pool, IDLE_MOST)
    factory = getattr(handler, "_contextFactory", None)
    if factory is not None and hasattr(factory, "_get_cert_options"):
        share_tls_context(factory)


def share_tls_context(factory: Any) -> None:
    """Make Scrapy's context ``factory`` hand every connection the same certificate options,
    whose OpenSSL context is built once, at the first connection; where it does not verify
    certificates (Scrapy's default), its hostname check is made once per host and certificate
    (``hostcheck.py``)."""
    options = factory._get_cert_options()
    factory._get_cert_options = lambda: options
    if not factory._verify_certificates:
        check = HostnameCheck()
        factory.creatorForNetloc = lambda hostname, port: CheckedTLSOptions(
            options._makeTLSConnection, hostname.decode("ascii"), check)


def cap_idle(pool: Any, most: int) -> None:
    """Let Twisted's connection ``pool`` keep at most ``most`` idle connections, letting go the
    one idle longest (its ``_timeouts`` are in the order the connections came back)."""
    put = pool._putConnection

    def put_and_cap(key: Any, connection: Any) -> None:
        put(key, connection)
        while len(pool._timeouts) > most:
            expiry = next(iter(pool._timeouts.values()))
            oldest_key, oldest = expiry.args  # what the expiry would have removed
            expiry.cancel()
            pool._removeConnection(oldest_key, oldest)

    pool._putConnection = put_and_cap
