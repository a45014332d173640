"""Primary-source gating: the government-namespace rule and the allowlist."""

from __future__ import annotations

import pytest

from sv_scrapy.core.hosts import PRIMARY_ALLOWLIST, PRIMARY_GOV, SECONDARY, HostRules

RULES = HostRules(allowlist=frozenset({"centralbankbahamas.com", "bok.or.kr"}))


@pytest.mark.parametrize(
    "host",
    [
        "www.impots.gouv.fr", "www.nts.go.kr", "stat.go.jp", "bmf.gv.at", "stats.govt.nz",
        "www.sat.gob.mx", "ine.gub.uy", "www.estv.admin.ch", "www.canada.ca", "statcan.gc.ca",
        "eur-lex.europa.eu", "www.irs.gov", "www.gov.uk", "gov.ky", "legislation.gov.ky",
        "inlandrevenue.finance.gov.bs", "www.bopa.ad", "www.tributs.ad",
        # namespaces read from the Public Suffix List snapshot (issue #12)
        "www.rbi.nic.in", "incometaxindia.gov.in", "www.podatki.gov.pl", "www.fbr.gok.pk", "kra.go.ke",
    ],
)
def test_government_hosts_are_primary(host: str) -> None:
    assert RULES.tier(host) == PRIMARY_GOV


@pytest.mark.parametrize(
    "host",
    ["gov.example.com", "govt-deals.com", "notgov.fr", "go.com", "www.example-gov.org", "mygov.kr",
     "shop.go.it"],  # go.it is the province of Gorizia in the PSL, not a government namespace
)
def test_lookalikes_are_not_primary(host: str) -> None:
    assert RULES.tier(host) == SECONDARY


def test_allowlist_matches_exactly_and_ignores_www() -> None:
    assert RULES.tier("www.centralbankbahamas.com") == PRIMARY_ALLOWLIST
    assert RULES.tier("bok.or.kr") == PRIMARY_ALLOWLIST
    assert RULES.tier("news.centralbankbahamas.com") == SECONDARY


def test_rule_is_replaceable_from_config() -> None:
    only_gov = HostRules(gov_namespaces=("gov",), gov_hosts=())
    assert only_gov.tier("www.irs.gov") == PRIMARY_GOV
    assert only_gov.tier("www.nts.go.kr") == SECONDARY
    assert only_gov.tier("www.bopa.ad") == SECONDARY


def test_government_namespaces_come_from_the_public_suffix_list() -> None:
    from sv_scrapy.core.hosts import DEFAULT_GOV_NAMESPACES, psl_gov_namespaces

    psl = psl_gov_namespaces()
    assert {"nic.in", "gov.in", "gob.pe", "go.jp", "gv.at", "govt.nz"} <= set(psl)
    assert set(psl) <= set(DEFAULT_GOV_NAMESPACES)
    assert not {"co.uk", "ac.in", "or.kr", "go.it"} & set(psl)
