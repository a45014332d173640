"""Which cited hosts count as *primary* sources.

A host is ``primary-gov`` when it sits inside a government namespace, ``primary-allowlist``
when ``primary-source-allowlist.txt`` lists it, else ``secondary``.

Government namespaces come from data: the Public Suffix List snapshot that ``tldextract``
ships (read offline, never fetched). Every public suffix ``<label>.<ccTLD>`` whose label is a
government label (``gov``, ``gouv``, ``gob``, ``go``, ``govt``, ``gv``, ``gub``, ``nic``,
``admin``, ``gc``, ``gok``, ``mil``) is a namespace — ``nic.in``, ``gov.pl``, ``gob.pe``,
``go.ke`` — except a two-letter label under a ccTLD whose second level is a list of
two-letter region codes (Italy's ``go.it`` is the province of Gorizia). The unambiguous
labels also match under any ccTLD whose PSL section omits them (``gov.ky``).

The rule is label-aligned, which the reference's ``.gov|.gouv|.gob`` regex is not:

* a pattern is dot-separated labels; ``*`` stands for one two-letter country code, so
  ``go.*`` covers ``nts.go.kr`` and ``stat.go.jp`` but not ``go.com``;
* the host must *end* with the pattern's labels: ``gov.example.com`` ends in
  ``example.com`` and ``notgov.fr`` has the label ``notgov``, so neither is primary;
* ``DEFAULT_GOV_HOSTS`` names government domains that are no public suffix (``admin.ch``,
  ``bund.de``, ``europa.eu``, Andorra's ``.ad`` portals, some Cayman departments), matched
  with their subdomains.

Both lists can be replaced in ``_source-verify.json`` under ``extraction.gov_namespaces``
and ``extraction.gov_hosts``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import version
from typing import Any

from sv_scrapy.core.figures.cldr import cached

PRIMARY_GOV = "primary-gov"
PRIMARY_ALLOWLIST = "primary-allowlist"
SECONDARY = "secondary"

GOV_LABELS = frozenset({"gov", "gouv", "gob", "go", "govt", "gv", "gub", "nic", "admin", "gc", "gok", "mil"})


@lru_cache(maxsize=1)
def _extractor() -> Any:
    import tldextract  # only when needed: it pulls in requests (~0.15 s)

    # suffix_list_urls=() and no cache: the snapshot inside the package, no network ever
    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


@lru_cache(maxsize=65536)
def registrable_domain(host: str) -> str:
    """The registrable domain of ``host`` by the PSL (the host itself when the PSL has none):
    one site, and so one server, whatever its subdomains.

    >>> registrable_domain("www.rates.impots.gouv.fr"), registrable_domain("frames.example.co.uk")
    ('impots.gouv.fr', 'example.co.uk')
    >>> registrable_domain("127.0.0.1"), registrable_domain("WWW.Bopa.AD.")
    ('127.0.0.1', 'bopa.ad')
    """
    host = host.lower().rstrip(".")
    parts = _extractor()(host)
    domain = parts.top_domain_under_public_suffix if hasattr(parts, "top_domain_under_public_suffix") \
        else parts.registered_domain
    return str(domain or host)


def _psl_gov_namespaces() -> list[str]:
    suffixes = _extractor().tlds
    pairs = [s.split(".") for s in suffixes if re.fullmatch(r"[a-z0-9-]+\.[a-z]{2}", s)]
    two_letter: dict[str, int] = {}
    for label, cc in pairs:
        if len(label) == 2:
            two_letter[cc] = two_letter.get(cc, 0) + 1
    return sorted(
        f"{label}.{cc}"
        for label, cc in pairs
        if label in GOV_LABELS and not (len(label) == 2 and two_letter.get(cc, 0) > 20)
    )


def psl_gov_namespaces() -> tuple[str, ...]:
    """``<government label>.<ccTLD>`` public suffixes of tldextract's bundled PSL snapshot
    (cached on disk per tldextract version).

    >>> ns = psl_gov_namespaces(); [s in ns for s in ("nic.in", "gov.pl", "go.ke", "go.it", "co.uk")]
    [True, True, True, False, False]
    """
    labels = "-".join(sorted(GOV_LABELS))
    return tuple(cached(f"psl-gov-tldextract{version('tldextract')}-{labels}", _psl_gov_namespaces))


DEFAULT_GOV_NAMESPACES: tuple[str, ...] = (
    "gov",  # United States federal
    "mil",
    *psl_gov_namespaces(),
    # labels that mean "government" in any country, for ccTLDs whose PSL section does not
    # list them (gov.ky); the two-letter ones (go, gv, gc) come only from the PSL
    "gov.*",
    "gouv.*",
    "gob.*",
    "govt.*",
    "gub.*",
    "lg.jp",  # Japanese local government
    "gouv.qc.ca",  # Québec
)

DEFAULT_GOV_HOSTS: tuple[str, ...] = (
    # government domains that are not public suffixes
    "gc.ca",  # Government of Canada
    "canada.ca",
    "admin.ch",  # Swiss federal administration
    "fgov.be",  # Belgian federal
    "belgium.be",
    "public.lu",  # Luxembourg state portals
    "bund.de",  # German federal
    "europa.eu",  # EU institutions (EUR-Lex, ECB)
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
    "worc.ky",  # Workforce Opportunities & Residency Cayman (immigration department)
    "rcips.ky",  # Royal Cayman Islands Police Service (official crime statistics)
    "ourcayman.ky",  # Department of Tourism's business portal (licences, tourist tax)
    # Hong Kong: statutory bodies outside gov.hk
    "judiciary.hk",
    "eaa.org.hk",  # Estate Agents Authority (statutory regulator, Cap. 511)
    # Korea: the government's policy-briefing portal
    "korea.kr",
    # Saudi Arabia: Ministry of Justice e-services
    "najiz.sa",
    "sgs.org.sa",  # Saudi Geological Survey (a government agency)
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


@lru_cache(maxsize=8)
def _split_patterns(patterns: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...]]:
    exact = frozenset(p.lower() for p in patterns if "*" not in p)
    return exact, tuple(p for p in patterns if "*" in p)


@dataclass(frozen=True)
class HostRules:
    """The primary-source rule, built once from config."""

    allowlist: frozenset[str] = frozenset()
    gov_namespaces: tuple[str, ...] = DEFAULT_GOV_NAMESPACES
    gov_hosts: tuple[str, ...] = DEFAULT_GOV_HOSTS

    def is_gov(self, host: str) -> bool:
        """True for a host inside a government namespace or a listed government host.

        >>> rules = HostRules()
        >>> [rules.is_gov(h) for h in ("www.nts.go.kr", "gov.ky", "www.bopa.ad", "irs.gov", "rbi.nic.in")]
        [True, True, True, True, True]
        >>> [rules.is_gov(h) for h in ("gov.example.com", "govt-deals.com", "notgov.fr", "x.go.it")]
        [False, False, False, False]
        """
        labels = host.lower().rstrip(".").split(".")
        exact, wild = _split_patterns(self.gov_namespaces + self.gov_hosts)
        # exact patterns: one set lookup per suffix of the host, not a loop over ~250 patterns
        if any(".".join(labels[i:]) in exact for i in range(len(labels))):
            return True
        return any(_label_suffix_match(labels, p) for p in wild)

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
