"""Rendering JavaScript-only pages with scrapy-playwright and Debian's Chromium.

* The browser is Debian's (``SV_CHROMIUM_PATH``; ``playwright install`` cannot download
  here), launched headless with flags that work as root and keep it off the network except
  for the page: no background networking, component updates, sync or QUIC.
* It is started lazily by :class:`LazyBrowserProvider`: a crawl in which no page needs a
  browser never starts Playwright's driver or Chromium.
* Its proxy settings are a PAC script (:func:`proxy_pac`): pages go through
  ``https_proxy``/``http_proxy``, or, where the run resolves names (no proxy, or hosts that
  bypass it), through the pinned proxy on loopback (``pinnedproxy.py``), while the calls Chromium makes on its own
  behalf — the component updater and account checks on Google's service domains, which
  no flag fully stops in Debian's Chromium 156 — are sent to a closed loopback port and
  never leave. ``ignore_https_errors`` only with ``SV_IGNORE_HTTPS_ERRORS=1``; images,
  fonts, media and any sub-request to an unsafe target (a private or link-local address,
  a local name) are aborted; pages are closed by scrapy-playwright
  (``playwright_include_page`` is never set).
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from scrapy_playwright.provider import PlaywrightBrowserProvider

from sv_scrapy.core.page.safety import unsafe_target_reason
from sv_scrapy.run.registry import env

DEBIAN_CHROMIUM = ("/usr/lib/chromium/chromium", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",  # we run as root in CI; the sandbox refuses to start there
    "--disable-gpu",
    "--disable-dev-shm-usage",
    # the browser reads the page and nothing else: no calls home of its own
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--no-pings",
    "--disable-default-apps",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--disable-breakpad",
    "--disable-field-trial-config",
    "--metrics-recording-only",
    "--safebrowsing-disable-auto-update",
    "--password-store=basic",
    "--allow-browser-signin=false",
    "--disable-component-extensions-with-background-pages",
    "--disable-extensions",
    "--disable-features=NetworkTimeServiceQuerying,CertificateTransparencyComponentUpdater,Translate,MediaRouter,"
    "OptimizationHints,AutofillServerCommunication,DialMediaRouteProvider,SigninInterceptBubble",
]
ABORTED_RESOURCES = frozenset({"image", "font", "media"})
# where Chromium calls home on its own (component updates, account checks, variations);
# blocked for the browser only: no playbook cites them as the source of a figure
BROWSER_SERVICE_DOMAINS = ("google.com", "googleapis.com", "gvt1.com", "gvt2.com", "googleusercontent.com")
BLACKHOLE = "PROXY 127.0.0.1:9"  # the discard port: nothing listens, the call fails at once


def chromium_path() -> str:
    configured = env("SV_CHROMIUM_PATH")
    if configured:
        return configured
    for candidate in DEBIAN_CHROMIUM:
        if Path(candidate).exists():
            return candidate
    return DEBIAN_CHROMIUM[0]


def proxy_from_env() -> dict[str, str] | None:
    server = next((v for k in ("https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY") if (v := env(k))), None)
    if not server:
        return None
    proxy = {"server": server}
    bypass = env("no_proxy") or env("NO_PROXY")
    if bypass:
        proxy["bypass"] = bypass
    return proxy


def _bypassed(proxy: dict[str, str] | None) -> list[str]:
    """The domains the browser reaches directly although a proxy is set (``no_proxy``)."""
    return [b.strip().lstrip(".").lower() for b in (proxy or {}).get("bypass", "").split(",") if b.strip()]


def resolved_here(host: str | None = None) -> bool:
    """Whether the run resolves ``host`` for the browser (any host, when None): no configured
    proxy, or the host bypasses it. Those requests go through the pinned proxy
    (``sv_scrapy/downloadhandlers/pinnedproxy.py``), and the route refuses what the run's resolver refused."""
    proxy = proxy_from_env()
    if not proxy:
        return True
    bypass = _bypassed(proxy)
    if host is None:
        return bool(bypass)
    host = host.lower().rstrip(".")
    return any(b == "*" or host == b or host.endswith("." + b) for b in bypass)


def proxy_pac(proxy: dict[str, str] | None, pinned: int | None = None) -> str:
    """A PAC script (as a ``data:`` URL) that blackholes Chromium's own service calls and
    sends everything else the way the crawler goes: through the proxy, or direct — through the
    pinned proxy on loopback port ``pinned`` when one runs, where the run resolves."""
    direct_route = f"PROXY 127.0.0.1:{pinned}" if pinned else "DIRECT"
    route = direct_route
    if proxy:
        parts = urlsplit(proxy["server"] if "://" in proxy["server"] else f"http://{proxy['server']}")
        route = f"PROXY {parts.hostname}:{parts.port or 80}"
    bypass = _bypassed(proxy)
    blocked = " || ".join(f'host == "{d}" || dnsDomainIs(host, ".{d}")' for d in BROWSER_SERVICE_DOMAINS)
    direct = " || ".join(f'host == "{b}" || dnsDomainIs(host, ".{b}")' for b in bypass if b != "*") or "false"
    script = (f"function FindProxyForURL(url, host) {{\n  if ({blocked}) return \"{BLACKHOLE}\";\n"
              f"  if ({direct}) return \"{direct_route}\";\n  return \"{route}\";\n}}\n")
    return "data:application/x-ns-proxy-autoconfig;base64," + base64.b64encode(script.encode()).decode()


def launch_options(timeout_s: float, pinned: int | None = None) -> dict[str, Any]:
    """Chromium's launch options; ``pinned``: the pinned proxy's loopback port, if one runs."""
    proxy = proxy_from_env()
    args = list(CHROMIUM_FLAGS)
    options: dict[str, Any] = {"executable_path": chromium_path(), "headless": True, "timeout": timeout_s * 1000}
    if proxy and ("@" in proxy["server"] or "*" in proxy.get("bypass", "")):
        options["proxy"] = proxy  # credentials or a wildcard bypass: only Playwright's own option carries them
    else:
        args.append(f"--proxy-pac-url={proxy_pac(proxy, pinned)}")
    options["args"] = args
    return options


def abort_heavy(request: Any) -> bool:
    """PLAYWRIGHT_ABORT_REQUEST: images, fonts and media are not needed to read text, and a
    page's script may not reach an unsafe target (the navigation itself is guarded by the
    target guard middleware; its sub-requests are checked here)."""
    if request.resource_type in ABORTED_RESOURCES:
        return True
    # data: and blob: URLs are the page's own memory; only network targets are judged
    return request.url.startswith(("http:", "https:")) and bool(unsafe_target_reason(request.url))


class LazyBrowserProvider(PlaywrightBrowserProvider):  # type: ignore[misc]  # untyped base
    """Start Playwright's driver only when the first page needs a browser."""

    async def start(self) -> None:
        return None

    async def launch_browser(self) -> Any:
        if self.playwright is None:
            await super().start()
        return await super().launch_browser()
