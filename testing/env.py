"""The one clean environment for a subprocess of the tests, the benches and the demo.

A child sees the caller's environment minus everything that would make it read or write
somewhere the caller did not choose: sv_scrapy's own locations and switches (``SV_*``), a
CI runner's (``GITHUB_*``), an API key (``ANTHROPIC*``), and every proxy variable (``http_proxy``,
``NO_PROXY``…, any case) — then what the caller gives. The mock web's proxy comes back through
``MockWeb.env()``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

CALLERS_OWN = ("SV_", "GITHUB_", "ANTHROPIC")


def clean_env(extra: Mapping[str, str] | None = None, **more: str) -> dict[str, str]:
    """``os.environ`` without the caller's locations, keys and proxies, plus ``extra`` and ``more``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(CALLERS_OWN) and "proxy" not in k.lower()}
    env.update(extra or {})
    env.update(more)
    return env
