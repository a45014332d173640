"""A mock web on loopback: an HTTP(S) proxy that serves cited URLs from a route table.

Tests, benchmarks and ``make demo`` point ``http_proxy``/``https_proxy`` at it, so the real
URLs of the corpus (``https://www.impots.gouv.fr/…``) are answered locally and any host it
does not serve fails — nothing can reach the real internet. ``CONNECT`` tunnels are
terminated with a self-signed certificate made at start-up; every request is logged.
"""

from testing.mockweb.server import MockWeb, Route, gets_by_host

__all__ = ["MockWeb", "Route", "gets_by_host"]
