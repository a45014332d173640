"""Scrapy's certificate hostname check, made once per host and certificate
(``downloadhandlers/hostcheck.py``): the same warning on every connection to a host its
certificate does not name, the names read once; no check at all when that warning is silenced.
Handshakes in memory: no socket, no reactor."""

from __future__ import annotations

import contextlib
import datetime
import logging
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from OpenSSL import SSL
from scrapy.core.downloader.contextfactory import _load_context_factory_from_settings
from scrapy.utils.test import get_crawler
from twisted.internet.protocol import Factory, Protocol
from twisted.internet.ssl import optionsForClientTLS
from twisted.internet.task import Clock
from twisted.protocols.tls import TLSMemoryBIOFactory

from sv_scrapy.downloadhandlers import hostcheck
from sv_scrapy.downloadhandlers.connections import share_tls_context

TLS_LOGGER = "scrapy.core.downloader.tls"


def server_context() -> SSL.Context:
    """A self-signed certificate naming ``localhost`` only, as the mock web's."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
            .sign(key, hashes.SHA256()))
    context = SSL.Context(SSL.TLS_METHOD)
    context.use_certificate(cert)
    context.use_privatekey(key)
    return context


SERVER = server_context()


def connect(factory: Any, host: bytes) -> SSL.Connection:
    """A handshake of ``factory``'s connection to ``host`` with the server above, in memory."""
    protocol = TLSMemoryBIOFactory(optionsForClientTLS("example.com"), True, Factory.forProtocol(Protocol),
                                   clock=Clock()).buildProtocol(None)
    client = factory.creatorForNetloc(host, 443).clientConnectionForTLS(protocol)
    server = SSL.Connection(SERVER, None)
    client.set_connect_state()
    server.set_accept_state()
    for _ in range(10):
        for side, other in ((client, server), (server, client)):
            with contextlib.suppress(SSL.WantReadError):
                side.do_handshake()
            with contextlib.suppress(SSL.WantReadError):
                other.bio_write(side.bio_read(1 << 16))
    assert client.get_peer_certificate() is not None and client.get_state_string() == b"SSL negotiation finished successfully"
    return client


def ours() -> Any:
    factory = _load_context_factory_from_settings(get_crawler())
    share_tls_context(factory)
    return factory


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    messages = [r.getMessage() for r in caplog.records if r.name == TLS_LOGGER]
    caplog.clear()
    return messages


def test_every_connection_to_a_host_the_certificate_does_not_name_warns_as_scrapy_s(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    caplog.set_level(logging.WARNING, logger=TLS_LOGGER)
    connect(_load_context_factory_from_settings(get_crawler()), b"a.example")  # Scrapy's own check
    scrapys = warnings_of(caplog)
    # (twice: OpenSSL asks about a self-signed certificate at depth 0 for its error, then for the end)
    assert scrapys and all('not valid for hostname "a.example"' in m for m in scrapys)
    read = []
    monkeypatch.setattr(hostcheck, "mismatch", lambda *args: read.append(args) or scrapys[0].split("; ", 1)[1])
    factory = ours()
    for _ in range(3):
        connect(factory, b"a.example")
        assert warnings_of(caplog) == scrapys
    assert len(read) == 1  # the certificate's names read once for the host


def test_the_verdict_is_the_certificate_s_for_that_host(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger=TLS_LOGGER)
    factory = ours()
    connect(factory, b"localhost")
    assert warnings_of(caplog) == []
    connect(factory, b"b.example")
    said = warnings_of(caplog)
    assert said and all('not valid for hostname "b.example"' in m for m in said)
    assert connect(factory, b"localhost").get_verify_mode() == SSL.VERIFY_PEER | SSL.VERIFY_FAIL_IF_NO_PEER_CERT
    assert warnings_of(caplog) == []


def test_silenced_the_check_is_not_made_and_every_certificate_is_still_accepted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logging.getLogger(TLS_LOGGER), "level", logging.ERROR)  # the add-on's SV_IGNORE_HTTPS_ERRORS
    monkeypatch.setattr(hostcheck, "mismatch", lambda *args: pytest.fail("checked"))
    assert connect(ours(), b"a.example").get_verify_mode() == SSL.VERIFY_NONE
