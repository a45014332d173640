"""Pinned addresses: the run's one resolver judges a name once and the connection gets exactly
the addresses it judged (issue #41), against DNS rebinding (public, then loopback) and a name
that answers both.

No packet may leave loopback, whatever a bug does: the scripted resolver stands for DNS, hands
Twisted only loopback addresses (the "public" answer is mapped to a mock web standing for the
public site; a loopback answer is kept, and reaches the mock web standing for the runner's own
port), and a socket guard refuses any other address. Judged from that local mock web's own
request log: it must never see the hosts under test.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from scrapy.utils.defer import deferred_from_coro
from twisted.internet.address import IPv4Address

from sv_scrapy.render import chromium_path
from sv_scrapy.resolver import PinnedResolver
from testing.crawl import FAST_LIVENESS, make_config, write_corpus
from testing.inprocess import crawl_in_process, reactor_thread
from testing.mockweb import MockWeb

PUBLIC = "198.41.0.4"  # a global address, never connected: mapped to the public mock web below
LOOPBACK = "127.0.0.1"
SCRIPT: dict[str, list[list[str]]] = {}  # name -> its answers, lookup after lookup (the last repeats)
PUBLIC_PORT = [0]  # where the "public" answer is really served
HOSTS = ("rebind.test", "both.test", "hop.test", "first-loopback.test", "page.test")


class ScriptedResolver(PinnedResolver):
    """The run's resolver with DNS replaced by ``SCRIPT``: what each lookup of a name answers."""

    lookups: dict[str, int] = {}

    async def _lookup(self, host: str) -> list[str]:
        answers = SCRIPT.get(host)
        if answers is None:
            raise OSError(f"{host}: not in the test's DNS")
        ScriptedResolver.lookups[host] = n = ScriptedResolver.lookups.get(host, 0) + 1
        return answers[min(n, len(answers)) - 1]

    def address_of(self, answer: str, port: int) -> Any:
        if answer == PUBLIC:
            return IPv4Address("TCP", LOOPBACK, PUBLIC_PORT[0])
        assert ipaddress.ip_address(answer).is_loopback, f"the test's DNS never answers {answer}"
        return super().address_of(answer, port)


@pytest.fixture(autouse=True)
def fresh_dns() -> Iterator[None]:
    SCRIPT.clear()
    ScriptedResolver.lookups.clear()
    yield
    SCRIPT.clear()


@pytest.fixture()
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A socket guard: a connection anywhere but loopback fails before a packet is sent."""
    for name in ("connect", "connect_ex"):
        original = getattr(socket.socket, name)

        def guarded(sock: socket.socket, address: Any, _original: Any = original) -> Any:
            host = address[0] if isinstance(address, tuple) else ""
            if host and not ipaddress.ip_address(host.split("%")[0]).is_loopback:
                raise AssertionError(f"a test connected to {address}")
            return _original(sock, address)

        monkeypatch.setattr(socket.socket, name, guarded)


def resolver() -> ScriptedResolver:
    return ScriptedResolver(None, 5.0)


class Receiver:
    def __init__(self) -> None:
        self.addresses: list[Any] = []
        self.done = asyncio.Event()

    def resolutionBegan(self, resolution: Any) -> None:  # noqa: N802
        pass

    def addressResolved(self, address: Any) -> None:  # noqa: N802
        self.addresses.append((address.host, address.port))

    def resolutionComplete(self) -> None:  # noqa: N802
        self.done.set()


async def connected_at(pinned: PinnedResolver, host: str, port: int = 443) -> list[tuple[str, int]]:
    """What Twisted's HostnameEndpoint would connect to: the resolver's answer to it."""
    receiver = Receiver()
    pinned.resolveHostName(receiver, host, port)
    await receiver.done.wait()
    return receiver.addresses


# -- the resolver alone -------------------------------------------------------------------------

def test_a_rebinding_name_is_resolved_once_and_connected_only_at_its_checked_answer() -> None:
    SCRIPT["rebind.example"] = [[PUBLIC], [LOOPBACK]]
    pinned = resolver()

    async def run() -> tuple[Any, ...]:
        judged = await pinned.refusal("rebind.example")
        first = await connected_at(pinned, "rebind.example")
        second = await connected_at(pinned, "REBIND.example.")  # another spelling, a redirect hop, a retry
        return judged, first, second

    judged, first, second = asyncio.run(run())
    assert judged is None
    assert first == second == [(LOOPBACK, PUBLIC_PORT[0])]  # the public answer, mapped (never 127.0.0.1:443)
    assert ScriptedResolver.lookups == {"rebind.example": 1}


def test_a_name_that_answers_public_and_loopback_is_refused_and_never_connected() -> None:
    SCRIPT["both.example"] = [[PUBLIC, LOOPBACK]]
    pinned = resolver()

    async def run() -> tuple[Any, ...]:
        return await pinned.refusal("both.example"), await connected_at(pinned, "both.example")

    reason, addresses = asyncio.run(run())
    assert reason == "unsafe target: both.example resolves to a loopback address 127.0.0.1"
    assert addresses == []


def test_a_refusal_holds_for_the_run_and_a_failed_lookup_is_asked_again() -> None:
    SCRIPT["first-loopback.example"] = [[LOOPBACK], [PUBLIC]]
    pinned = resolver()

    async def run() -> tuple[Any, ...]:
        refused = [await pinned.refusal("first-loopback.example") for _ in range(2)]
        missing = [await pinned.refusal("nowhere.example") for _ in range(2)]
        return refused, missing

    refused, missing = asyncio.run(run())
    assert all(r and "loopback" in r for r in refused) and ScriptedResolver.lookups == {"first-loopback.example": 1}
    assert missing == [None, None]  # not refused: the download fails on its own (UNAVAILABLE)


def test_callers_at_once_share_one_lookup() -> None:
    SCRIPT["busy.example"] = [[PUBLIC], [LOOPBACK]]
    pinned = resolver()

    async def run() -> list[str | None]:
        return list(await asyncio.gather(*(pinned.refusal("busy.example") for _ in range(5))))

    assert asyncio.run(run()) == [None] * 5 and ScriptedResolver.lookups == {"busy.example": 1}


def test_the_configured_proxy_is_the_operators_and_resolved_unchecked(monkeypatch: pytest.MonkeyPatch) -> None:
    SCRIPT["proxy.internal"] = [["10.0.0.8"]]
    SCRIPT["target.internal"] = [["10.0.0.9"]]
    monkeypatch.setenv("https_proxy", "http://proxy.internal:3128")
    pinned = resolver()

    async def run() -> tuple[Any, ...]:
        return await pinned.refusal("proxy.internal"), await pinned.refusal("target.internal")

    assert asyncio.run(run()) == (None, "unsafe target: target.internal resolves to a private address 10.0.0.9")


# -- a crawl: the HTTP/1.1 handler, each redirect hop ------------------------------------------

PAGE = "<html><body><p>Le taux est de 5,81 % depuis 2024. " + "Texte. " * 40 + "</p></body></html>"


@pytest.fixture()
def webs() -> Iterator[tuple[MockWeb, MockWeb]]:
    """(the runner's own local port, the public site): two mock webs on loopback."""
    with MockWeb() as local, MockWeb() as public:
        PUBLIC_PORT[0] = public.port
        for web in (local, public):  # served wherever they land, so that a connection shows in a log
            for host in HOSTS:
                web.route(f"http://{host}/rates", body=PAGE)
                web.route(f"http://{host}/robots.txt", status=404, body="")
        public.route("http://hop.test/old", redirect=f"http://both.test:{local.port}/rates")
        yield local, public


def audit(tmp_path: Path, lines: list[str], js_spa_hosts: tuple[str, ...] = (),
          extra_env: dict[str, str] | None = None, **settings: Any) -> Any:
    corpus = write_corpus(tmp_path / "corpus", {"countries/fr/playbook.md": "# T\n\n" + "\n".join(lines) + "\n"})
    config = make_config(tmp_path / "config", liveness={**FAST_LIVENESS, "per_host_overrides": {}},
                         source_verify={"fetch": {"js_spa_hosts": list(js_spa_hosts)}})
    with (config / "primary-source-allowlist.txt").open("a", encoding="utf-8") as allowlist:
        allowlist.write("".join(f"{host}\n" for host in HOSTS))  # reserved names (RFC 6761), cited as primary
    return crawl_in_process("audit", corpus=corpus, config=config, output=tmp_path / "out", proxy_env={},
                            settings={"TWISTED_DNS_RESOLVER": f"{__name__}.ScriptedResolver",
                                      "SV_RENDER_ENABLED": False, **settings}, extra_env=extra_env, timeout=120)


def by_url(result: Any) -> dict[str, dict[str, Any]]:
    return {item["source_url"]: item for item in result.audit()["items"]}


def test_the_audit_connects_only_at_checked_addresses(tmp_path: Path, webs: tuple[MockWeb, MockWeb],
                                                       loopback_only: None) -> None:
    local, public = webs
    port = local.port  # every URL names the runner's own port: a loopback answer connected reaches it
    SCRIPT.update({
        "rebind.test": [[PUBLIC], [LOOPBACK]],  # DNS rebinding: public while judged, loopback after
        "both.test": [[PUBLIC, LOOPBACK]],
        "first-loopback.test": [[LOOPBACK], [PUBLIC]],
        "hop.test": [[PUBLIC]],
    })
    urls = {
        "rebind": f"http://rebind.test:{port}/rates",
        "both": f"http://both.test:{port}/rates",
        "both_tls": f"https://both.test:{port}/rates",
        "first_loopback_tls": f"https://first-loopback.test:{port}/rates",
        "hop": f"http://hop.test:{port}/old",  # redirects to both.test
    }
    result = audit(tmp_path, [f"- taux 5,81 % ([s]({url}))" for url in urls.values()])
    items = by_url(result)
    assert result.returncode in (0, 3), result.stderr[-3000:]
    assert not [e.url for e in local.log], "a name under test was connected on loopback"
    # pinned at its checked (public) answer for the whole run, the page read there
    assert items[urls["rebind"]]["fetch_status"] == "OK"
    assert ScriptedResolver.lookups["rebind.test"] == 1
    # refused with one line, HTTP, HTTPS and a redirect hop alike
    for key in ("both", "both_tls", "hop"):
        item = items[urls[key]]
        assert item["fetch_status"] == "EXCLUDED", item
        assert item["note"] == "unsafe target: both.test resolves to a loopback address 127.0.0.1", item
    first = items[urls["first_loopback_tls"]]
    assert first["fetch_status"] == "EXCLUDED" and "first-loopback.test resolves to a loopback" in first["note"]
    assert [e.url for e in public.log if "hop.test" in e.url] == ["http://hop.test/robots.txt", "http://hop.test/old"]
    assert "Traceback" not in result.stderr


# -- a rendered page: the browser's own requests -----------------------------------------------

def chromium_answering_loopback(folder: Path) -> str:
    """Chromium with every name it would look up itself answering loopback (a host-resolver rule):
    the worst a rebinding name can do to it, and no lookup of a test name leaves the machine."""
    wrapper = folder / "chromium"
    wrapper.write_text(f'#!/bin/sh\nexec {chromium_path()} "--host-resolver-rules=MAP * {LOOPBACK}" "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


@pytest.mark.browser
@pytest.mark.skipif(not Path(chromium_path()).exists(), reason="Debian chromium is not installed")
def test_a_rendered_page_connects_only_at_checked_addresses(tmp_path: Path, webs: tuple[MockWeb, MockWeb],
                                                            loopback_only: None) -> None:
    """The browser goes through the pinned proxy: a rebinding name is rendered from its checked
    (public) answer, a refused name is never navigated, and a page's own request to one is
    refused before any connection."""
    local, public = webs
    port = local.port
    SCRIPT.update({"rebind.test": [[PUBLIC], [LOOPBACK]], "both.test": [[PUBLIC, LOOPBACK]]})
    script = (f"fetch('http://both.test:{port}/rates').catch(() => null); "
              f"document.getElementById('app').textContent = 'Le taux est de 5,81 % depuis 2024. {'Texte. ' * 40}';")
    public.route("http://rebind.test/app", body=f"<html><body><div id='app'></div><script>{script}</script></body></html>")
    urls = {"rebind": f"http://rebind.test:{port}/app", "both": f"http://both.test:{port}/rates"}
    result = audit(tmp_path, [f"- taux 5,81 % ([s]({url}))" for url in urls.values()], SV_RENDER_ENABLED=True,
                   js_spa_hosts=("rebind.test", "both.test"),
                   extra_env={"SV_CHROMIUM_PATH": chromium_answering_loopback(tmp_path)})
    items = by_url(result)
    assert not [e.url for e in local.log], "a name under test was connected on loopback by the browser"
    rebind = items[urls["rebind"]]
    assert rebind["fetch_status"] == "OK" and rebind["rendered"], rebind
    assert "http://rebind.test/app" in [e.url for e in public.log]
    assert ScriptedResolver.lookups["rebind.test"] == 1
    both = items[urls["both"]]
    assert both["fetch_status"] == "EXCLUDED" and "both.test resolves to a loopback" in both["note"]
    assert result.stats.get("sv/guard/browser_refused") == 1  # the page's own request, aborted in the route


def test_the_pinned_proxy_tunnels_only_to_checked_addresses(webs: tuple[MockWeb, MockWeb],
                                                             loopback_only: None) -> None:
    """Chromium's HTTPS goes through ``CONNECT``: a refused name gets 403 and no connection, a
    rebinding name a tunnel to its checked answer (the bytes inside are the mock web's plain HTTP)."""
    from twisted.internet.threads import blockingCallFromThread

    from sv_scrapy.pinnedproxy import PinnedProxy

    local, public = webs
    SCRIPT.update({"rebind.test": [[PUBLIC], [LOOPBACK]], "both.test": [[PUBLIC, LOOPBACK]]})
    reactor = reactor_thread()
    proxy = blockingCallFromThread(reactor, PinnedProxy, resolver())

    def through(target: str, then: bytes = b"") -> bytes:
        with socket.create_connection((LOOPBACK, proxy.port), timeout=10) as conn:
            conn.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
            answer = conn.recv(65536)
            if then and answer.startswith(b"HTTP/1.1 200"):
                conn.sendall(then)
                while chunk := conn.recv(65536):
                    answer += chunk
            return answer

    try:
        refused = through(f"both.test:{local.port}")
        tunnelled = through(f"rebind.test:{local.port}", b"GET /rates HTTP/1.1\r\nHost: rebind.test\r\nConnection: close\r\n\r\n")
    finally:
        blockingCallFromThread(reactor, lambda: deferred_from_coro(proxy.stop()))
    assert refused.startswith(b"HTTP/1.1 403")
    assert tunnelled.startswith(b"HTTP/1.1 200 Connection established") and b"5,81 %" in tunnelled
    assert not local.log and [e.url for e in public.log] == ["http://rebind.test/rates"]
