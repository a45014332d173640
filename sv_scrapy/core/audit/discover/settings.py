"""The ``discover`` section of ``_source-verify.json``, as one typed value (its keys, defaults and docs
are declared once in ``sv_scrapy/registry.py``; ``config.py`` builds this from them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

DEFAULT_MAX_CANDIDATES = 5  # candidate pages read for one claim, at most
DEFAULT_MAX_REQUESTS_PER_HOST = 60  # discovery's requests to one host in one run (sitemaps, search, candidates)
QUERY = "{q}"  # the placeholder of a search template


@dataclass(frozen=True)
class DiscoverSettings:
    enabled: bool = True
    max_candidates: int = DEFAULT_MAX_CANDIDATES
    max_requests_per_host: int = DEFAULT_MAX_REQUESTS_PER_HOST
    search: Mapping[str, str] = field(default_factory=dict)  # host -> URL template with {q}

    def search_template(self, host: str) -> str:
        """The search template configured for ``host`` ("" when none): exact host first, then a parent."""
        host = host.lower().rstrip(".")
        for name, template in sorted(self.search.items(), key=lambda kv: -len(kv[0])):
            name = name.lower()
            if host == name or host.endswith("." + name):
                return template
        return ""
