"""The ``discover`` section of ``_source-verify.json``: its keys, defaults, bounds and docs, declared
once here as the section's model (``config.py`` validates the file with it; the docs' reference is
generated from it)."""

from __future__ import annotations

from pydantic import Field, field_validator

from sv_scrapy.core.audit.discover.rank import same_site
from sv_scrapy.core.schema import Section, shown

QUERY = "{q}"  # the placeholder of a search template


class DiscoverSettings(Section):
    """``discover``: where a figure that left its page went, searched on the cited site."""

    enabled: bool = Field(True, description="Look for a figure that left its cited page elsewhere on the cited site.")
    max_candidates: int = Field(5, ge=1, description="Candidate pages read for one claim, at most.")
    max_requests_per_host: int = Field(
        60, ge=0, description="Discovery's requests to one host in one run, at most (sitemaps, search, candidates).")
    search: dict[str, str] = Field(
        default_factory=dict,
        description="Per host: its site search, an http(s) URL on that host's site with {q} where the query goes.")

    @field_validator("search")
    @classmethod
    def _templates_on_their_sites(cls, search: dict[str, str]) -> dict[str, str]:
        for host, template in search.items():
            if QUERY not in template:
                raise ValueError(f"{host}: must be a URL template containing {QUERY}, got {shown(template)}")
            if not same_site(template.replace(QUERY, "q"), host):
                raise ValueError(f"{host}: must be an http(s) URL on {host}'s site, got {shown(template)}")
        return {host.lower(): template for host, template in search.items()}

    def search_template(self, host: str) -> str:
        """The search template configured for ``host`` ("" when none): exact host first, then a parent."""
        host = host.lower().rstrip(".")
        for name, template in sorted(self.search.items(), key=lambda kv: -len(kv[0])):
            if host == name or host.endswith("." + name):
                return template
        return ""
