"""The run's one resolver: each host resolved once, its answers checked there, and the
connection handed exactly the addresses checked.

Before, the target guard resolved a name to judge it and the download handler resolved it
again to connect: a name answering a public address first and ``127.0.0.1`` or
``169.254.169.254`` second (DNS rebinding, a zero TTL) passed the guard and reached the
runner's own ports. Now one object answers both: ``TWISTED_DNS_RESOLVER`` installs it on the
reactor, where Twisted's connections (the HTTP/1.1 handler's, each redirect hop's) ask it by
name; the guard (``downloadermiddlewares/guard.py``) and the browser's route
(``downloadhandlers/paced.py``) ask it for a refusal. A host's resolution is kept for the run, so
the answer judged is the answer connected; a name with one unsafe answer is refused whole
(``core/page/safety.py``: ``answers_reason``).

A host's first resolution asks the name twice, back to back, and judges the union of both
answers. Pinning alone makes a rebinding name harmless (it is connected at its first, checked
face), but a name whose second answer is loopback or the metadata address is an attack on the
runner, and a page read at its innocent first face would say OK about it. Two lookups show the
second face of a zero-TTL name, so the attempt is refused and recorded (EXCLUDED, one line
naming the unsafe address) instead of hidden. The cost stays small: two lookups per host per
run, not per request; a lookup that fails ends the resolution (nothing pinned, asked again
later), unless an answer already seen is unsafe, which is refused for the run.

A configured proxy's own name (``http_proxy`` and the like) is the operator's and is resolved
unchecked: it may well be on loopback; the targets behind it are the proxy's to resolve.
"""

from __future__ import annotations

import asyncio
import socket
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit
from urllib.request import getproxies

from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.misc import build_from_crawler, load_object
from scrapy.utils.reactor import is_reactor_installed
from twisted.internet.address import IPv4Address, IPv6Address
from twisted.internet.error import DNSLookupError

from sv_scrapy.core.page.safety import answers_reason

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Self

    from scrapy.crawler import Crawler

SETTING = "TWISTED_DNS_RESOLVER"
LOOKUPS = 2  # lookups of a host's first resolution, their answers judged together (see above)


class UnsafeAnswer(DNSLookupError):
    """The name resolves to an address the crawler must never connect to (``reason``)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class PinnedResolver:
    """Resolves each host once for the run (two lookups judged together), refuses unsafe
    answers, hands out only checked ones.

    *reactor* is the reactor it is installed on; *timeout* the seconds one lookup may take
    (Scrapy's ``DNS_TIMEOUT``)."""

    def __init__(self, reactor: Any, timeout: float) -> None:
        self.reactor = reactor
        self.timeout = timeout
        self.crawler: Crawler | None = None  # the crawl that uses it (resolver_for)
        self._answers: dict[str, asyncio.Future[tuple[str, ...]]] = {}

    @classmethod
    def from_crawler(cls, crawler: Any, reactor: Any) -> Self:
        """*crawler* is a Crawler, or the CrawlerProcess when Scrapy installs it at start-up."""
        return cls(reactor, crawler.settings.getfloat("DNS_TIMEOUT"))

    def install_on_reactor(self) -> None:
        # both of Twisted's roads: HostnameEndpoint (the HTTP/1.1 handler's direct connections)
        # asks the name resolver, connectTCP by name (a proxy's) the simple one Twisted derives from it
        self.reactor.installNameResolver(self)

    # -- the one lookup of a host ---------------------------------------------------------
    async def _lookup(self, host: str) -> list[str]:
        """The system's answers for ``host``, in its order (the seam a test replaces)."""
        loop = asyncio.get_running_loop()
        infos = await asyncio.wait_for(loop.getaddrinfo(host, None, type=socket.SOCK_STREAM), self.timeout)
        return [str(info[4][0]) for info in infos]

    async def answers(self, host: str) -> tuple[str, ...]:
        """The checked addresses of ``host``; ``UnsafeAnswer`` when one answer is unsafe,
        ``DNSLookupError`` when it does not resolve. Resolved once a run (``LOOKUPS`` lookups),
        callers at once sharing that resolution."""
        host = host.lower().rstrip(".")
        if host not in self._answers:
            self._answers[host] = asyncio.ensure_future(self._checked(host))
        lookup = self._answers[host]
        try:
            return await asyncio.shield(lookup)
        except UnsafeAnswer:
            raise
        except DNSLookupError:
            # no address was handed out: a retry may look again (a refusal stays for the run)
            if self._answers.get(host) is lookup:
                del self._answers[host]
            raise

    async def _checked(self, host: str) -> tuple[str, ...]:
        unchecked = host in _proxy_hosts()
        found: list[str] = []
        failure = ""
        for _ in range(1 if unchecked else LOOKUPS):  # back to back: a zero-TTL name shows its next face
            try:
                found += await self._lookup(host)
            except (OSError, TimeoutError) as exc:
                failure = f"{host}: {exc or 'timed out'}"
                break
        found = list(dict.fromkeys(found))
        reason = None if unchecked else answers_reason(host, found)
        if reason:  # refused on any face seen, even if a later lookup failed
            raise UnsafeAnswer(reason)
        if failure or not found:  # a face unseen: nothing pinned, asked again later
            raise DNSLookupError(failure or f"{host}: no address")
        return tuple(found)

    async def refusal(self, host: str) -> str | None:
        """Why ``host`` must never be connected, or None (a name that does not resolve is
        not refused here: its download fails on its own, UNAVAILABLE)."""
        try:
            await self.answers(host)
        except UnsafeAnswer as exc:
            return exc.reason
        except DNSLookupError:
            return None
        return None

    # -- what Twisted asks when it connects ------------------------------------------------
    def resolveHostName(  # noqa: N802 - Twisted's IHostnameResolver
        self,
        resolutionReceiver: Any,  # noqa: N803 - an IResolutionReceiver
        hostName: str,  # noqa: N803
        portNumber: int = 0,  # noqa: N803
        addressTypes: Sequence[type[Any]] | None = None,  # noqa: N803
        transportSemantics: str = "TCP",  # noqa: N803
    ) -> Any:
        """Exactly the checked addresses (of the types asked for); none, which fails the
        connection, when the name is refused or does not resolve."""
        resolution = _Resolution(hostName)
        resolutionReceiver.resolutionBegan(resolution)

        async def deliver() -> None:
            try:
                found: tuple[str, ...] = await self.answers(hostName)
            except DNSLookupError:
                found = ()
            for answer in found:
                address = self.address_of(answer, portNumber)
                if addressTypes is None or type(address) in addressTypes:
                    resolutionReceiver.addressResolved(address)
            resolutionReceiver.resolutionComplete()

        deferred_from_coro(deliver())
        return resolution

    def address_of(self, answer: str, port: int) -> IPv4Address | IPv6Address:
        """The Twisted address a checked answer is connected at."""
        if ":" in answer:
            return IPv6Address("TCP", answer, port)
        return IPv4Address("TCP", answer, port)


class _Resolution:
    """Twisted's IHostResolution: the name being resolved."""

    def __init__(self, name: str) -> None:
        self.name = name

    def cancel(self) -> None:  # pragma: no cover - Twisted never cancels a resolution
        raise NotImplementedError


def _proxy_hosts() -> frozenset[str]:
    """The configured proxies' own names, as Scrapy's proxy middleware reads them."""
    hosts = set()
    for url in getproxies().values():
        try:
            hosts.add((urlsplit(url if "://" in url else f"http://{url}").hostname or "").lower())
        except ValueError:
            continue
    return frozenset(hosts - {""})


def resolver_for(crawler: Crawler) -> PinnedResolver:
    """The run's resolver: the one ``scrapy crawl`` installed on the reactor at start-up, or,
    for a crawl started without it (a ``CrawlerRunner`` in a test or a script), one built and
    installed for this crawl. A ``TWISTED_DNS_RESOLVER`` that names no ``PinnedResolver``
    (Scrapy's default, in a bare crawler) is replaced: a name is never connected unchecked."""
    wanted = load_object(crawler.settings[SETTING])
    if not (isinstance(wanted, type) and issubclass(wanted, PinnedResolver)):
        wanted = PinnedResolver
    if not is_reactor_installed():  # a component built outside any crawl (a unit test): nothing connects
        unattached: PinnedResolver = build_from_crawler(wanted, crawler, reactor=None)
        return unattached
    from twisted.internet import reactor

    installed: Any = getattr(reactor, "nameResolver", None)
    if type(installed) is not wanted or installed.crawler not in (None, crawler):
        installed = build_from_crawler(wanted, crawler, reactor=reactor)
        installed.install_on_reactor()
    installed.crawler = crawler
    resolver: PinnedResolver = installed
    return resolver
