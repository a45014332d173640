"""sv_scrapy's own crawler signals (sent with ``crawler.signals``, like Scrapy's)."""

from __future__ import annotations

# Nothing more may leave: a write to the output folder failed, so no page fetched from now on
# could be kept. Args: ``reason`` (str). The paced download handler, which holds every request
# waiting for its turn, fails those and any later ones without sending them.
stop_sending = object()
