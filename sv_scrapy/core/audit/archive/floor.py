"""How hard the Wayback Machine may be asked, when ``_url-liveness.json`` does not say.

``web.archive.org`` is paced like any host: a ``per_host_overrides`` entry that matches it
(``web.archive.org`` or ``archive.org``) wins. A config that names none gets this built-in
floor: one request at a time, 1.5 s between starts (at most 40 a minute). The Internet Archive
publishes no formal quota for the CDX API; the figure its staff give to client authors is
60 requests a minute per IP, averaged over five minutes, beyond which it answers 429 (see the
``wayback`` Python client's issue edgi-govdata-archiving/wayback#153). Staying a third under it
leaves room for another client on the same address, and for the ``Retry-After`` of a 429.
"""

from __future__ import annotations

from sv_scrapy.core.audit.archive.cdx import ARCHIVE_HOST
from sv_scrapy.core.policy import HostPolicy

ARCHIVE_DEFAULT_POLICY = HostPolicy(concurrency=1, interval_ms=1500,
                                    reason="built-in Wayback default (60/min published to client authors; 40/min here)")


def with_archive_default(per_host: dict[str, HostPolicy]) -> dict[str, HostPolicy]:
    """The overrides, plus the archive's default when none of them matches its host (appended
    last, so a suffix override such as ``archive.org`` still matches first)."""
    if any(name == ARCHIVE_HOST or ARCHIVE_HOST.endswith("." + name) for name in per_host):
        return per_host
    return {**per_host, ARCHIVE_HOST: ARCHIVE_DEFAULT_POLICY}
