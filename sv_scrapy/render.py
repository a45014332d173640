"""Rendering JavaScript-only pages with scrapy-playwright and Debian's Chromium.

* The browser is Debian's (``SV_CHROMIUM_PATH``; ``playwright install`` cannot download
  here), launched headless with flags that work as root and keep it off the network except
  for the page: no background networking, component updates, sync or QUIC.
* It is started lazily by :class:`LazyBrowserProvider`: a crawl in which no page needs a
  browser never starts Playwright's driver or Chromium.
* The proxy comes from ``https_proxy``/``http_proxy``; ``ignore_https_errors`` only with
  ``SV_IGNORE_HTTPS_ERRORS=1``; images, fonts and media are aborted; pages are closed by
  scrapy-playwright (``playwright_include_page`` is never set).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from scrapy_playwright.provider import PlaywrightBrowserProvider

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


def chromium_path() -> str:
    configured = os.environ.get("SV_CHROMIUM_PATH")
    if configured:
        return configured
    for candidate in DEBIAN_CHROMIUM:
        if Path(candidate).exists():
            return candidate
    return DEBIAN_CHROMIUM[0]


def proxy_from_env() -> dict[str, str] | None:
    server = next((os.environ[k] for k in ("https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY") if os.environ.get(k)),
                  None)
    if not server:
        return None
    proxy = {"server": server}
    bypass = os.environ.get("no_proxy") or os.environ.get("NO_PROXY")
    if bypass:
        proxy["bypass"] = bypass
    return proxy


def launch_options(timeout_s: float) -> dict[str, Any]:
    options: dict[str, Any] = {
        "executable_path": chromium_path(),
        "headless": True,
        "args": CHROMIUM_FLAGS,
        "timeout": timeout_s * 1000,
    }
    proxy = proxy_from_env()
    if proxy:
        options["proxy"] = proxy
    return options


def abort_heavy(request: Any) -> bool:
    """PLAYWRIGHT_ABORT_REQUEST: images, fonts and media are not needed to read text."""
    return request.resource_type in ABORTED_RESOURCES


class LazyBrowserProvider(PlaywrightBrowserProvider):  # type: ignore[misc]  # untyped base
    """Start Playwright's driver only when the first page needs a browser."""

    async def start(self) -> None:
        return None

    async def launch_browser(self) -> Any:
        if self.playwright is None:
            await super().start()
        return await super().launch_browser()
