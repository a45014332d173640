"""Scrapy's certificate hostname check, made once per host and certificate.

Scrapy does not verify certificates (``DOWNLOAD_VERIFY_CERTIFICATES`` is off): it checks that a
server's certificate names the host, and only warns when it does not, on the
``scrapy.core.downloader.tls`` logger. It does so for every connection, in a Python callback
OpenSSL calls for each certificate of the chain, reading the certificate's names each time (and
after Twisted's own callback, built and replaced). Above ``connections.IDLE_MOST`` hosts nearly
every request opens a connection: the check was a fiftieth of the crawl's CPU at 10,000 URLs
over 5,000 hosts.

Here the verdict is kept per host and certificate (its SHA-256, ~250 bytes an entry: 2.5 MB at
10,000 hosts): a host's next connection with the same certificate repeats the warning, if any,
word for word, without reading the names again. When that warning is silenced
(``SV_IGNORE_HTTPS_ERRORS``: the add-on sets the logger to ERROR), the check has no output at
all and is not made: no callback, and OpenSSL completes the handshake as Scrapy's callback, which
accepts every certificate, lets it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from OpenSSL import SSL
from service_identity import VerificationError
from service_identity.exceptions import CertificateError
from service_identity.hazmat import DNS_ID, IPAddress_ID, verify_service_identity
from service_identity.pyopenssl import extract_patterns
from twisted.internet._sslverify import ClientTLSOptions

if TYPE_CHECKING:
    from collections.abc import Callable

    from OpenSSL.crypto import X509

# Scrapy's logger for this warning: the add-on's silencing and a user's filters apply as before
tls_log = logging.getLogger("scrapy.core.downloader.tls")


def mismatch(cert: X509, host: str, is_dns_name: bool) -> str:
    """Why ``cert`` does not name ``host`` (Scrapy's words); "" when it does."""
    service = DNS_ID(host) if is_dns_name else IPAddress_ID(host)
    try:
        verify_service_identity(extract_patterns(cert), [service], [])
    except (CertificateError, VerificationError) as e:
        return str(e)
    return ""


class HostnameCheck:
    """The verdicts of one crawl's connections, by (host, certificate)."""

    def __init__(self) -> None:
        self._verdicts: dict[tuple[str, bytes], str] = {}

    def callback(self, host: str, is_dns_name: bool) -> Callable[[SSL.Connection, X509, int, int, int], bool]:
        """OpenSSL's verify callback for a connection to ``host``: warns, accepts every certificate."""
        verdicts = self._verdicts

        def verify(connection: SSL.Connection, cert: X509, err: int, depth: int, ok: int) -> bool:
            if depth != 0:
                return True  # only the server's own certificate names it (as Scrapy)
            key = (host, cert.digest("sha256"))
            verdict = verdicts.get(key)
            if verdict is None:
                verdict = verdicts[key] = mismatch(cert, host, is_dns_name)
            if verdict:
                tls_log.warning('Remote certificate is not valid for hostname "%s"; %s', host, verdict)
            return True

        return verify


class CheckedTLSOptions(ClientTLSOptions):
    """A connection's TLS set-up as Scrapy's (its server name sent, its certificate accepted),
    its hostname check by a crawl's ``HostnameCheck``."""

    def __init__(self, make_connection: Callable[[Any], SSL.Connection], hostname: str, check: HostnameCheck) -> None:
        super().__init__(make_connection, hostname)
        self._check = check

    def clientConnectionForTLS(self, tlsProtocol: Any) -> SSL.Connection:  # noqa: N802, N803 - Twisted's names
        connection = self._createConnection(tlsProtocol)
        if self._sendServerName:
            connection.set_tlsext_host_name(self._hostnameBytes)
        if tls_log.isEnabledFor(logging.WARNING):
            connection.set_verify(SSL.VERIFY_PEER | SSL.VERIFY_FAIL_IF_NO_PEER_CERT,
                                  self._check.callback(self._hostnameASCII, self._hostnameIsDnsName))
        else:  # the check's one output is silenced
            connection.set_verify(SSL.VERIFY_NONE)
        return connection
