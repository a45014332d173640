"""Pinned addresses: the run's one resolver judges a name once (two lookups, their answers
together) and the connection gets exactly the addresses it judged (issue #41), against DNS
rebinding (public, then loopback: refused and recorded) and a name that answers both.

No packet may leave loopback, whatever a bug does: the scripted resolver stands for DNS, hands
Twisted only loopback addresses (the "public" answer is mapped to a mock web standing for the
public site; a loopback answer is kept, and reaches the mock web standing for the runner's own
port; both serve plain HTTP and TLS), and a socket guard refuses any other address. Judged from that local mock web's own
request log: it must never see the hosts under test.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from scrapy.utils.defer import deferred_from_coro
from twisted.internet.address import IPv4Address

from sv_scrapy.downloadhandlers.render import chromium_path
from sv_scrapy.resolver import PinnedResolver
from testing.crawl import FAST_LIVENESS, make_config, write_corpus
from testing.inprocess import crawl_in_process, reactor_thread
from testing.mockweb import MockWeb

PUBLIC = "198.41.0.4"  # a global address, never connected: mapped to the public mock web below
LOOPBACK = "127.0.0.1"
SCRIPT: dict[str, list[list[str] | None]] = {}  # name -> its answers, lookup after lookup (the last
# repeats); None: that lookup fails
PUBLIC_PORT = [0]  # where the "public" answer is really served
HOSTS = ("rebind.test", "both.test", "hop.test", "first-loopback.test", "page.test", "safe.test")
REFUSED = "unsafe target: {} resolves to a loopback address 127.0.0.1"  # the audit's one line


class ScriptedResolver(PinnedResolver):
    """The run's resolver with DNS replaced by ``SCRIPT``: what each lookup of a name answers."""

    lookups: dict[str, int] = {}

    async def _lookup(self, host: str) -> list[str]:
        ScriptedResolver.lookups[host] = n = ScriptedResolver.lookups.get(host, 0) + 1
        answers = SCRIPT.get(host)
        answer = None if answers is None else answers[min(n, len(answers)) - 1]
        if answer is None:
            raise OSError(f"{host}: not in the test's DNS")
        return answer

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

def test_a_rebinding_name_shows_its_second_face_and_is_refused_for_the_run() -> None:
    SCRIPT["rebind.example"] = [[PUBLIC], [LOOPBACK]]
    pinned = resolver()

    async def run() -> tuple[Any, ...]:
        judged = await pinned.refusal("rebind.example")
        first = await connected_at(pinned, "rebind.example")
        second = await connected_at(pinned, "REBIND.example.")  # another spelling, a redirect hop, a retry
        return judged, first, second

    judged, first, second = asyncio.run(run())
    assert judged == REFUSED.format("rebind.example")
    assert first == second == []  # never connected, not even at its public face
    assert ScriptedResolver.lookups == {"rebind.example": 2}  # twice at its first resolution, never again


def test_a_safe_name_is_looked_up_twice_and_connected_only_at_its_checked_answer() -> None:
    SCRIPT["safe.example"] = [[PUBLIC], [PUBLIC], [LOOPBACK]]  # a third lookup would turn
    pinned = resolver()

    async def run() -> tuple[Any, ...]:
        judged = await pinned.refusal("safe.example")
        return judged, await connected_at(pinned, "safe.example"), await connected_at(pinned, "Safe.example.")

    judged, first, second = asyncio.run(run())
    assert judged is None
    assert first == second == [(LOOPBACK, PUBLIC_PORT[0])]  # the public answer, mapped (never 127.0.0.1:443)
    assert ScriptedResolver.lookups == {"safe.example": 2}


def test_a_name_that_answers_public_and_loopback_is_refused_and_never_connected() -> None:
    SCRIPT["both.example"] = [[PUBLIC, LOOPBACK]]
    pinned = resolver()

    async def run() -> tuple[Any, ...]:
        return await pinned.refusal("both.example"), await connected_at(pinned, "both.example")

    reason, addresses = asyncio.run(run())
    assert reason == "unsafe target: both.example resolves to a loopback address 127.0.0.1"
    assert addresses == []


def test_a_refusal_holds_for_the_run_and_a_failed_lookup_is_asked_again() -> None:
    SCRIPT.update({
        "first-loopback.example": [[LOOPBACK], [PUBLIC]],
        "loopback-then-fails.example": [[LOOPBACK], None],  # refused on the face it showed
        "fails-second.example": [[PUBLIC], None, [PUBLIC]],  # a face unseen: nothing pinned yet
    })
    pinned = resolver()

    async def run() -> tuple[Any, ...]:
        refused = [await pinned.refusal(host) for host in ("first-loopback.example", "loopback-then-fails.example")
                   for _ in range(2)]
        missing = [await pinned.refusal("nowhere.example") for _ in range(2)]
        unseen = [await connected_at(pinned, "fails-second.example") for _ in range(3)]
        return refused, missing, unseen

    refused, missing, unseen = asyncio.run(run())
    assert all(r and "loopback" in r for r in refused)
    assert missing == [None, None]  # not refused: the download fails on its own (UNAVAILABLE)
    assert unseen == [[], [(LOOPBACK, PUBLIC_PORT[0])], [(LOOPBACK, PUBLIC_PORT[0])]]
    assert ScriptedResolver.lookups == {"first-loopback.example": 2, "loopback-then-fails.example": 2,
                                        "nowhere.example": 2,  # one failed lookup each time it is asked
                                        "fails-second.example": 4}  # asked again once, then pinned


def test_callers_at_once_share_one_resolution() -> None:
    SCRIPT["busy.example"] = [[PUBLIC], [LOOPBACK]]
    pinned = resolver()

    async def run() -> list[str | None]:
        return list(await asyncio.gather(*(pinned.refusal("busy.example") for _ in range(5))))

    assert asyncio.run(run()) == [REFUSED.format("busy.example")] * 5
    assert ScriptedResolver.lookups == {"busy.example": 2}


def test_the_configured_proxy_is_the_operators_and_resolved_unchecked(monkeypatch: pytest.MonkeyPatch) -> None:
    SCRIPT["proxy.internal"] = [["10.0.0.8"]]
    SCRIPT["target.internal"] = [["10.0.0.9"]]
    monkeypatch.setenv("https_proxy", "http://proxy.internal:3128")
    pinned = resolver()

    async def run() -> tuple[Any, ...]:
        return await pinned.refusal("proxy.internal"), await pinned.refusal("target.internal")

    assert asyncio.run(run()) == (None, "unsafe target: target.internal resolves to a private address 10.0.0.9")
    assert ScriptedResolver.lookups == {"proxy.internal": 1, "target.internal": 2}  # the operator's: looked up once


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
        public.route("http://hop.test/old", redirect=f"http://rebind.test:{local.port}/rates")
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
        "rebind.test": [[PUBLIC], [LOOPBACK]],  # DNS rebinding: public at the first lookup, loopback after
        "both.test": [[PUBLIC, LOOPBACK]],
        "first-loopback.test": [[LOOPBACK], [PUBLIC]],
        "hop.test": [[PUBLIC]],
        "safe.test": [[PUBLIC], [PUBLIC], [LOOPBACK]],  # a third lookup would turn
    })
    urls = {
        "rebind": f"http://rebind.test:{port}/rates",
        "rebind_tls": f"https://rebind.test:{port}/rates",
        "hop": f"http://hop.test:{port}/old",  # redirects to rebind.test
        "both": f"http://both.test:{port}/rates",
        "both_tls": f"https://both.test:{port}/rates",
        "first_loopback_tls": f"https://first-loopback.test:{port}/rates",
        "safe_tls": f"https://safe.test:{port}/rates",  # TLS straight to the public mock web
    }
    result = audit(tmp_path, [f"- taux 5,81 % ([s]({url}))" for url in urls.values()])
    items = by_url(result)
    assert result.returncode in (0, 3), result.stderr[-3000:]
    assert not [e.url for e in local.log], "a name under test was connected on loopback"
    # refused with one line naming the unsafe address: HTTP, HTTPS and a redirect hop alike
    for key, host in (("rebind", "rebind.test"), ("rebind_tls", "rebind.test"), ("hop", "rebind.test"),
                      ("both", "both.test"), ("both_tls", "both.test"),
                      ("first_loopback_tls", "first-loopback.test")):
        item = items[urls[key]]
        assert (item["fetch_status"], item["note"]) == ("EXCLUDED", REFUSED.format(host)), item
    # a safe name over TLS: pinned at its checked answer, read there
    assert items[urls["safe_tls"]]["fetch_status"] == "OK", items[urls["safe_tls"]]
    assert [e.url for e in public.log if "safe.test" in e.url] == ["https://safe.test/robots.txt",
                                                                    "https://safe.test/rates"]
    assert [e.url for e in public.log if "hop.test" in e.url] == ["http://hop.test/robots.txt", "http://hop.test/old"]
    assert not [e.url for e in public.log if "rebind.test" in e.url]  # not even at its public face
    assert ScriptedResolver.lookups == {host: 2 for host in SCRIPT}  # twice a run, never more
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
    """The browser goes through the pinned proxy: a safe name is rendered from its checked
    (public) answer, a rebinding name is refused with its one line and never navigated, a
    page's own request to it is aborted in the route, and a redirect Chromium follows to it
    (never routed) is refused by the pinned proxy."""
    local, public = webs
    port = local.port
    SCRIPT.update({"rebind.test": [[PUBLIC], [LOOPBACK]], "page.test": [[PUBLIC]]})
    script = (f"fetch('http://rebind.test:{port}/rates').catch(() => null); "
              f"fetch('http://page.test:{port}/jump').catch(() => null); "
              f"document.getElementById('app').textContent = 'Le taux est de 5,81 % depuis 2024. {'Texte. ' * 40}';")
    public.route("http://page.test/jump", redirect=f"http://rebind.test:{port}/rates")
    public.route("http://page.test/app", body=f"<html><body><div id='app'></div><script>{script}</script></body></html>")
    urls = {"page": f"http://page.test:{port}/app", "rebind": f"http://rebind.test:{port}/rates"}
    result = audit(tmp_path, [f"- taux 5,81 % ([s]({url}))" for url in urls.values()], SV_RENDER_ENABLED=True,
                   js_spa_hosts=("page.test", "rebind.test"),
                   extra_env={"SV_CHROMIUM_PATH": chromium_answering_loopback(tmp_path)})
    items = by_url(result)
    assert not [e.url for e in local.log], "a name under test was connected on loopback by the browser"
    page = items[urls["page"]]
    assert page["fetch_status"] == "OK" and page["rendered"], page
    assert {"http://page.test/app", "http://page.test/jump"} <= {e.url for e in public.log}
    assert not [e.url for e in public.log if "rebind.test" in e.url]
    rebind = items[urls["rebind"]]
    assert (rebind["fetch_status"], rebind["note"]) == ("EXCLUDED", REFUSED.format("rebind.test")), rebind
    assert result.stats.get("sv/guard/browser_refused") == 1  # the page's own request, aborted in the route
    assert ScriptedResolver.lookups == {"rebind.test": 2, "page.test": 2}


def test_the_pinned_proxy_tunnels_only_to_checked_addresses(webs: tuple[MockWeb, MockWeb],
                                                             loopback_only: None) -> None:
    """Chromium's HTTPS goes through ``CONNECT``: a refused name (answering both, or rebinding) gets
    403 and no connection, a safe name a tunnel to its checked answer, where the mock web's TLS
    answers as the public site would."""
    from twisted.internet.threads import blockingCallFromThread

    from sv_scrapy.downloadhandlers.pinnedproxy import PinnedProxy

    local, public = webs
    SCRIPT.update({"rebind.test": [[PUBLIC], [LOOPBACK]], "both.test": [[PUBLIC, LOOPBACK]],
                   "safe.test": [[PUBLIC], [PUBLIC], [LOOPBACK]]})
    reactor = reactor_thread()
    pinned = resolver()
    proxy = PinnedProxy(lambda: pinned)
    blockingCallFromThread(reactor, proxy.start)

    def through(target: str, request: bytes = b"") -> bytes:
        with socket.create_connection((LOOPBACK, proxy.port), timeout=10) as conn:
            conn.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
            answer = conn.recv(65536)
            if request and answer.startswith(b"HTTP/1.1 200"):
                context = ssl.create_default_context()
                context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # the mock web's throwaway certificate
                with context.wrap_socket(conn, server_hostname=target.split(":")[0]) as tls:
                    tls.sendall(request)
                    with contextlib.suppress(ssl.SSLEOFError):  # the mock web closes without close_notify
                        while chunk := tls.recv(65536):
                            answer += chunk
            return answer

    try:
        refused = [through(f"{host}:{local.port}") for host in ("both.test", "rebind.test")]
        tunnelled = through(f"safe.test:{local.port}", b"GET /rates HTTP/1.1\r\nHost: safe.test\r\nConnection: close\r\n\r\n")
    finally:
        blockingCallFromThread(reactor, lambda: deferred_from_coro(proxy.stop()))
    assert [answer.split(b"\r\n")[0] for answer in refused] == [b"HTTP/1.1 403 Forbidden"] * 2
    assert tunnelled.startswith(b"HTTP/1.1 200 Connection established") and b"5,81 %" in tunnelled
    assert not local.log and [e.url for e in public.log] == ["https://safe.test/rates"]
    assert ScriptedResolver.lookups == {"both.test": 2, "rebind.test": 2, "safe.test": 2}
