"""Which cited hosts count as *primary* sources.

A host is ``primary-gov`` when it sits inside a government namespace, ``primary-allowlist``
when ``primary-source-allowlist.txt`` lists it, else ``secondary``.

The government rule is label-aligned, which the reference's ``.gov|.gouv|.gob`` regex is
not, and knows the namespaces real governments use:

* a pattern is dot-separated labels; ``*`` stands for one two-letter country code, so
  ``go.*`` covers ``nts.go.kr`` and ``stat.go.jp`` but not ``go.com``;
* the host must *end* with the pattern's labels: ``gov.example.com`` ends in
  ``example.com`` and ``notgov.fr`` has the label ``notgov``, so neither is primary;
* ``DEFAULT_GOV_HOSTS`` names government hosts that live straight under a ccTLD with no
  namespace at all (Andorra's ``.ad`` portals, some Cayman departments), matched with their
  subdomains.

Both lists can be replaced in ``_source-verify.json`` under ``extraction.gov_namespaces``
and ``extraction.gov_hosts``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

PRIMARY_GOV = "primary-gov"
PRIMARY_ALLOWLIST = "primary-allowlist"
SECONDARY = "secondary"

DEFAULT_GOV_NAMESPACES: tuple[str, ...] = (
    "gov",  # United States federal
    "gov.*",  # gov.uk, gov.hk, gov.sg, gov.sa, gov.bs, gov.ky, gov.au, ...
    "gouv.*",  # gouv.fr, gouv.ci
    "gob.*",  # gob.es, gob.mx, gob.ar
    "go.*",  # go.kr, go.jp, go.th, go.id, go.ke
    "govt.*",  # govt.nz
    "gub.*",  # gub.uy
    "gv.*",  # gv.at
    "lg.jp",  # Japanese local government
    "gouv.qc.ca",  # Québec
    "gc.ca",  # Government of Canada
    "canada.ca",
    "admin.ch",  # Swiss federal administration
    "fgov.be",  # Belgian federal
    "belgium.be",
    "public.lu",  # Luxembourg state portals
    "bund.de",  # German federal
    "europa.eu",  # EU institutions (EUR-Lex, ECB)
)

DEFAULT_GOV_HOSTS: tuple[str, ...] = (
    # Andorra: the Govern publishes under plain .ad hosts
    "govern.ad",
    "bopa.ad",  # Butlletí Oficial del Principat d'Andorra (official gazette)
    "tributs.ad",  # tax department
    "estadistica.ad",  # statistics department
    "immigracio.ad",
    "portaljuridicandorra.ad",  # the Govern's legal portal
    "consellgeneral.ad",  # parliament
    # Cayman Islands government departments outside gov.ky
    "eso.ky",  # Economics and Statistics Office
    "caymanlandinfo.ky",  # Lands & Survey land registry
    "judicial.ky",
    "cima.ky",  # Cayman Islands Monetary Authority (regulator)
    # Korea: the government's policy-briefing portal
    "korea.kr",
    # Saudi Arabia: Ministry of Justice e-services
    "najiz.sa",
)


def _label_suffix_match(host_labels: list[str], pattern: str) -> bool:
    pattern_labels = pattern.lower().split(".")
    if len(host_labels) < len(pattern_labels):
        return False
    tail = host_labels[len(host_labels) - len(pattern_labels) :]
    for have, want in zip(tail, pattern_labels, strict=True):
        if want == "*":
            if not (len(have) == 2 and have.isalpha()):
                return False
        elif have != want:
            return False
    return True


@dataclass(frozen=True)
class HostRules:
    """The primary-source rule, built once from config."""

    allowlist: frozenset[str] = frozenset()
    gov_namespaces: tuple[str, ...] = DEFAULT_GOV_NAMESPACES
    gov_hosts: tuple[str, ...] = DEFAULT_GOV_HOSTS

    def is_gov(self, host: str) -> bool:
        """True for a host inside a government namespace or a listed government host.

        >>> rules = HostRules()
        >>> [rules.is_gov(h) for h in ("www.nts.go.kr", "gov.ky", "www.bopa.ad", "irs.gov")]
        [True, True, True, True]
        >>> [rules.is_gov(h) for h in ("gov.example.com", "govt-deals.com", "notgov.fr")]
        [False, False, False]
        """
        labels = host.lower().rstrip(".").split(".")
        return any(_label_suffix_match(labels, p) for p in self.gov_namespaces) or any(
            _label_suffix_match(labels, h) for h in self.gov_hosts
        )

    @lru_cache(maxsize=4096)  # noqa: B019 - rules are frozen and few; hosts repeat a lot
    def tier(self, host: str) -> str:
        """``primary-gov``, ``primary-allowlist`` or ``secondary`` for one host."""
        host = host.lower().rstrip(".")
        if self.is_gov(host):
            return PRIMARY_GOV
        bare = host[4:] if host.startswith("www.") else host
        if host in self.allowlist or bare in self.allowlist:
            return PRIMARY_ALLOWLIST
        return SECONDARY
