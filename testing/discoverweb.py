"""A held-out web for "where the figure went" (issue #38; tests/test_discover_heldout.py): fourteen
government-like sites, one claim each, written apart from the discovery code so that nothing in
it is tuned to that code.

Each site is one case. The cited page no longer states the claim's figure (or never did: a root
citation), and the figure now stands on another page of the same site, reached the way real
government sites make it reachable: a sitemap named by robots.txt, the default ``/sitemap.xml``, a
sitemap index with a gzip child, a sitemap of 50,000 URLs, a link on the cited page, the site's
own search. Four sites have nothing a person should be pointed at: a decoy page where the figure
stands for another instrument, a site with nothing to find, a page that states the figure under a
path robots.txt disallows, and a control whose cited page still states its figure.

The Wayback holds the cited pages as they stood near their ``Last verified`` date (the words the
site itself used around the figure: the French and Spanish sites write in their own language).
The 50,000-URL sitemap is generated here, in memory, never committed.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime
from html import escape
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from testing.crawl import write_corpus
from testing.mockweb import MockWeb, Route
from testing.mockweb.wayback import MockCapture, MockWayback

STAMP = "2026-05-20"  # every playbook's Last verified
CAPTURED = "20260510000000"  # the cited pages as the archive holds them, ten days before
BIG_SITEMAP_URLS = 50_000  # the sitemap protocol's most URLs a file
BIG_TARGET_AT = 31_457  # where in it the moved page is listed

FILLER = {
    "en": "This page explains who must pay, how the amount is worked out and when payment falls due. "
          "Keep your records and receipts: an officer may ask for them during a review of your return.",
    "fr": "Cette page explique qui doit payer, comment le montant est calculé et à quelle date le paiement "
          "est exigible. Conservez vos justificatifs : ils peuvent vous être demandés lors d'un contrôle.",
    "es": "Esta página explica quién debe pagar, cómo se calcula el importe y cuándo vence el pago. Conserve "
          "sus comprobantes: la autoridad puede solicitarlos durante una revisión de su declaración.",
}


@dataclass(frozen=True)
class Case:
    """One site and its one claim."""

    name: str
    country: str  # the playbook's folder under countries/
    line: str  # the playbook lines of the claim (its link is the cited URL; a table row under its header)
    cited: str
    expected: str | None  # the page to propose; None: no page may be proposed
    figure: str  # the figure as the sites write it (on ``expected``, or on the page that must not be proposed)
    via: str  # how ``expected`` is reached: the route a person would take
    never: tuple[str, ...] = ()  # pages stating the figure that must never be proposed
    disallowed: tuple[str, ...] = ()  # robots.txt-disallowed pages that state the figure

    @property
    def host(self) -> str:
        return urlsplit(self.cited).netloc

    @property
    def findable(self) -> bool:
        return self.expected is not None


@dataclass
class DiscoverWeb:
    corpus: Path
    cases: list[Case] = field(default_factory=list)
    search: dict[str, str] = field(default_factory=dict)  # discover.search: host -> template with {q}
    robots: dict[str, str] = field(default_factory=dict)  # host -> its robots.txt
    sitemaps: dict[str, bytes] = field(default_factory=dict)  # URL -> the sitemap file as served (a .gz: gzip)
    redirects: dict[str, str] = field(default_factory=dict)  # cited URL -> where it redirects

    def case(self, name: str) -> Case:
        return next(c for c in self.cases if c.name == name)


def page(title: str, body: str, lang: str = "en", modified: str = "") -> str:
    """A government page: a title, a heading, ``body`` (HTML), a paragraph of the site's boilerplate."""
    stamp = f"<p class='updated'>Last updated: {modified}</p>" if modified and lang == "en" else ""
    return (f"<!DOCTYPE html><html lang='{lang}'><head><meta charset='utf-8'><title>{escape(title)}</title></head>"
            f"<body><nav><a href='/'>Home</a></nav><main><h1>{escape(title)}</h1>{body}"
            f"<p>{FILLER[lang]}</p>{stamp}</main></body></html>")


def urlset(entries: list[tuple[str, str]]) -> str:
    """A sitemap: (URL, lastmod) pairs; an empty lastmod is left out."""
    rows = "".join(f"<url><loc>{escape(u)}</loc>" + (f"<lastmod>{m}</lastmod>" if m else "") + "</url>\n"
                   for u, m in entries)
    return ("<?xml version='1.0' encoding='UTF-8'?>\n"
            f"<urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>\n{rows}</urlset>\n")


def sitemap_index(entries: list[tuple[str, str]]) -> str:
    rows = "".join(f"<sitemap><loc>{escape(u)}</loc><lastmod>{m}</lastmod></sitemap>\n" for u, m in entries)
    return ("<?xml version='1.0' encoding='UTF-8'?>\n"
            f"<sitemapindex xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>\n{rows}</sitemapindex>\n")


def http_date(day: str) -> str:
    """``2026-03-02`` as an HTTP date (Last-Modified)."""
    return format_datetime(datetime.fromisoformat(day).replace(hour=9, tzinfo=UTC), usegmt=True)


class _Site:
    """One host's routes, its robots.txt, its sitemaps and its pages' text (for its search)."""

    def __init__(self, web: MockWeb, built: DiscoverWeb, host: str) -> None:
        self.web, self.built, self.host = web, built, host
        self.base = f"https://{host}"
        self.pages: dict[str, tuple[str, str]] = {}  # path -> (title, text) for the site's search

    def url(self, path: str) -> str:
        return self.base + path

    def robots(self, *lines: str) -> None:
        text = "User-agent: *\n" + "".join(f"{line}\n" for line in lines)
        self.built.robots[self.host] = text
        self.web.route(self.url("/robots.txt"), Route(body=text, content_type="text/plain; charset=utf-8"))

    def page(self, path: str, title: str, body: str, lang: str = "en", modified: str = "") -> None:
        """A page of the site; ``modified`` (a day) its Last-Modified and its "Last updated" line."""
        headers = {"Last-Modified": http_date(modified)} if modified else {}
        self.web.route(self.url(path), Route(body=page(title, body, lang, modified), headers=headers, etag=False))
        self.pages[path] = (title, re.sub(r"<[^>]+>", " ", body))

    def sitemap(self, path: str, xml: str, *, packed: bool = False, encoded: bool = False) -> None:
        """Serve a sitemap: ``packed`` a ``.xml.gz`` file, ``encoded`` XML sent with Content-Encoding gzip."""
        data = xml.encode("utf-8")
        if packed:
            body = gzip.compress(data, mtime=0)
            self.web.route(self.url(path), Route(body=body, content_type="application/x-gzip"))
        else:
            body = data
            self.web.route(self.url(path), Route(body=data, content_type="application/xml", gzip=encoded))
        self.built.sitemaps[self.url(path)] = body

    def search(self, path: str) -> str:
        """The site's own search at ``path?q=…``: pages holding the query's words, the most first."""
        self.web.route(self.url(path), Route(responder=self._answer, etag=False))
        return f"{self.url(path)}?q={{q}}"

    def _answer(self, url: str, hit: int) -> Route:
        query = parse_qs(urlsplit(url).query).get("q", [""])[0]
        words = {w for w in re.findall(r"\w+", query.lower()) if len(w) > 2 or w.isdigit()}
        scored = []
        for path, (title, text) in self.pages.items():
            said = set(re.findall(r"\w+", f"{title} {text}".lower()))
            score = len(words & said)
            if score:
                scored.append((-score, path, title))
        results = "".join(f"<li><a href='{p}'>{escape(t)}</a></li>" for _, p, t in sorted(scored)[:10])
        body = f"<ol class='results'>{results}</ol>" if results else "<p>No results matched your search.</p>"
        return Route(body=page(f"Search results for {query}", body), etag=False)


def _filler_paths() -> Callable[[int], str]:
    """The 50,000-URL sitemap's other pages: notices, tenders, releases of a revenue authority."""
    sections = ("news", "notices", "tenders", "publications", "media-centre", "careers", "downloads", "legislation")
    topics = ("public-notice", "tender-award", "press-release", "gazette-notice", "vacancy", "circular",
              "taxpayer-education-forum", "withholding-vat-agents-appointed", "tax-amnesty-extension",
              "customs-auction", "excise-stamps-update", "itax-system-maintenance", "pin-registration-drive")

    def path(i: int) -> str:
        return f"/{sections[i % len(sections)]}/{topics[(i // 7) % len(topics)]}-{i:05d}"

    return path


def build(web: MockWeb, root: Path) -> DiscoverWeb:
    """Route the fourteen sites (and the Wayback's captures) and write the corpus under ``root``."""
    built = DiscoverWeb(root / "corpus")
    wayback = MockWayback(web)
    for make in (_robots_sitemap, _default_sitemap, _index_gzip, _big_sitemap, _link, _search, _root,
                 _redirect_root, _dead, _two_pages, _decoy, _nothing, _disallowed, _control):
        case, captured = make(web, built)
        built.cases.append(case)
        if captured:
            wayback.add(case.cited, MockCapture(CAPTURED, captured))
    files = {}
    for case in built.cases:
        files[f"countries/{case.country}/playbook.md"] = (
            f"# {case.country.upper()}\n\n**Last verified**: {STAMP}\n\n## Taxes and duties\n\n{case.line}\n")
    write_corpus(built.corpus, files)
    return built


# -- the sites, one case each -----------------------------------------------------------------------------

Made = tuple[Case, str]  # the case, and the cited page as the archive holds it ("" when it holds none)


def _robots_sitemap(web: MockWeb, built: DiscoverWeb) -> Made:
    s = _Site(web, built, "www.landduty.govt.nz")
    s.robots("Disallow: /admin/", f"Sitemap: {s.url('/sitemaps/main.xml')}")  # no /sitemap.xml on this site
    cited, target = s.url("/rates/overseas-buyers"), s.url("/guidance/overseas-buyer-levy")
    s.page("/rates/overseas-buyers", "Overseas buyers",
           "<p>Who counts as an overseas buyer, and when the levy applies to residential land. "
           "The levy is reviewed in each Budget.</p>")
    s.page("/guidance/overseas-buyer-levy", "Overseas buyer levy",
           "<p>The overseas buyer levy is 12 % of the purchase price of residential land.</p>"
           "<p>The buyer pays it on settlement, with the land transfer.</p>", modified="2026-02-11")
    s.page("/guidance/bright-line-test", "The bright-line test",
           "<p>The bright-line test taxes a gain on residential land sold within two years of its purchase.</p>")
    s.page("/about/our-role", "Our role", "<p>We collect duties on land transfers on behalf of the Crown.</p>")
    s.sitemap("/sitemaps/main.xml", urlset([(s.url("/"), ""), (cited, "2025-07-01"),
                                            (s.url("/guidance/bright-line-test"), "2025-11-20"),
                                            (target, "2026-02-11"), (s.url("/about/our-role"), "2024-03-05")]))
    line = ("- **Overseas buyer levy**: 12 % of the purchase price of residential land, paid on settlement "
            f"([Land duty — overseas buyers]({cited}))")
    then = page("Overseas buyers", "<p>The overseas buyer levy is 12 % of the purchase price of residential land.</p>")
    return Case("robots.txt sitemap", "nz", line, cited, target, "12 %", "sitemap"), then


def _default_sitemap(web: MockWeb, built: DiscoverWeb) -> Made:
    s = _Site(web, built, "www.transferduty.gov.za")
    s.robots("Disallow: /cgi-bin/")
    cited, target = s.url("/duty/transfer-duty-table-2024"), s.url("/duty/transfer-duty-rates")
    s.page("/duty/transfer-duty-table-2024", "Transfer duty table",
           "<p>Transfer duty is payable by the buyer of immovable property. The tables change with each "
           "national budget.</p>")
    s.page("/duty/transfer-duty-rates", "Transfer duty rates",
           "<p>No transfer duty is payable on residential property valued up to R1 210 000. Above it the "
           "duty rises in bands.</p>", modified="2026-03-01")
    s.page("/duty/exemptions", "Exemptions from transfer duty",
           "<p>Transfers to public benefit organisations and between spouses are exempt.</p>")
    s.page("/news/budget-speech-2026", "Budget speech",
           "<p>The Minister announced adjustments to the transfer duty bands in the budget speech.</p>",
           modified="2026-02-26")
    s.sitemap("/sitemap.xml", urlset([(s.url("/"), "2026-01-05"), (cited, "2024-03-01"),
                                      (s.url("/news/budget-speech-2026"), "2026-02-26"),
                                      (s.url("/duty/exemptions"), "2025-04-01"), (target, "2026-03-01")]))
    line = f"- Transfer duty: nil on residential property up to ZAR 1,210,000 ([transfer duty table]({cited}))"
    then = page("Transfer duty table", "<p>No transfer duty is payable on property valued up to R1 210 000.</p>")
    return Case("default /sitemap.xml", "za", line, cited, target, "R1 210 000", "sitemap"), then


def _index_gzip(web: MockWeb, built: DiscoverWeb) -> Made:
    s = _Site(web, built, "www.fiscalite-logement.gouv.fr")
    s.robots("Disallow: /recherche", f"Sitemap: {s.url('/sitemap_index.xml')}")
    cited, target = s.url("/taxes/logements-vacants"), s.url("/taxes/logements-vacants/taux-et-calcul")
    s.page("/taxes/logements-vacants", "Taxe sur les logements vacants",
           "<p>La taxe sur les logements vacants concerne les communes situées en zone tendue. Les "
           "propriétaires sont informés par un avis d'imposition.</p>", lang="fr")
    s.page("/taxes/logements-vacants/taux-et-calcul", "Taxe sur les logements vacants : taux et calcul",
           "<h2>Taux</h2><p>Le taux de la taxe sur les logements vacants (TLV) est fixé à 17\u00a0% de la valeur "
           "locative la première année d'imposition, puis à 34\u00a0% à compter de la deuxième année.</p>",
           lang="fr", modified="2026-01-15")
    s.page("/taxes/taxe-fonciere", "Taxe foncière",
           "<p>Le taux de la taxe foncière est voté chaque année par la commune et l'intercommunalité.</p>",
           lang="fr")
    s.page("/actualites/2026/campagne-declarative", "Campagne déclarative",
           "<p>La déclaration des biens immobiliers doit être faite avant le 1er juillet.</p>", lang="fr",
           modified="2026-04-02")
    s.sitemap("/sitemap_index.xml", sitemap_index([(s.url("/sitemaps/actualites.xml"), "2026-04-02"),
                                                   (s.url("/sitemaps/pages.xml.gz"), "2026-01-15")]))
    s.sitemap("/sitemaps/actualites.xml", urlset([(s.url("/actualites/2026/campagne-declarative"), "2026-04-02")]))
    s.sitemap("/sitemaps/pages.xml.gz", urlset([(cited, "2025-09-12"), (s.url("/taxes/taxe-fonciere"), "2025-10-01"),
                                                (target, "2026-01-15")]), packed=True)
    line = ("- TLV (taxe sur les logements vacants): 17 % of the cadastral rental value in the first year "
            f"([impots — TLV]({cited}))")
    then = page("Taxe sur les logements vacants",
                "<p>Le taux de la taxe sur les logements vacants est fixé à 17\u00a0% de la valeur locative la "
                "première année d'imposition.</p>", lang="fr")
    return Case("sitemap index, gzip child", "fr", line, cited, target, "17\u00a0%", "sitemap"), then


def _big_sitemap(web: MockWeb, built: DiscoverWeb) -> Made:
    s = _Site(web, built, "www.revenueauthority.go.ke")
    s.robots("Disallow: /portal/", f"Sitemap: {s.url('/sitemap.xml')}")
    cited = s.url("/withholding/non-residents-2024")
    target = s.url("/tax-types/withholding-tax/rates-for-non-residents")
    s.page("/withholding/non-residents-2024", "Withholding tax for non-residents",
           "<p>Withholding tax is deducted at source by the payer and remitted by the 20th of the following "
           "month.</p>")
    s.page("/tax-types/withholding-tax/rates-for-non-residents", "Withholding tax rates for non-residents",
           "<p>Withholding tax on dividends paid to non-residents is 15 % of the gross amount.</p>",
           modified="2026-02-18")
    s.page("/tax-types/withholding-tax/rates-for-residents", "Withholding tax rates for residents",
           "<p>Withholding tax on dividends paid to residents is 5 % of the gross amount.</p>", modified="2026-02-18")
    s.page("/tax-types/withholding-tax/withholding-vat", "Withholding VAT",
           "<p>Withholding VAT is charged at 2 % of the taxable value of supplies.</p>", modified="2025-08-30")
    filler = _filler_paths()
    entries = [(s.url(filler(i)), f"20{20 + i % 6}-{1 + i % 12:02d}-{1 + i % 28:02d}") for i in range(BIG_SITEMAP_URLS)]
    entries[BIG_TARGET_AT] = (target, "2026-02-18")
    entries[BIG_TARGET_AT - 2] = (s.url("/tax-types/withholding-tax/rates-for-residents"), "2026-02-18")
    entries[BIG_TARGET_AT + 3] = (s.url("/tax-types/withholding-tax/withholding-vat"), "2025-08-30")
    entries[7] = (cited, "2024-01-10")
    s.sitemap("/sitemap.xml", urlset(entries), encoded=True)
    line = f"- Withholding tax on dividends paid to non-residents: 15 % ([KRA — withholding]({cited}))"
    then = page("Withholding tax for non-residents",
                "<p>Withholding tax on dividends paid to non-residents is 15 % of the gross amount.</p>")
    return Case("50,000-URL sitemap", "ke", line, cited, target, "15 %", "sitemap"), then


def _link(web: MockWeb, built: DiscoverWeb) -> Made:
    s = _Site(web, built, "www.stamps.go.ug")
    s.robots("Allow: /")
    cited, target = s.url("/duty/transfer-of-land"), s.url("/duty/transfer-of-land/rates")
    s.page("/duty/transfer-of-land", "Stamp duty on the transfer of land",
           "<p>Stamp duty is charged on the market value of the land transferred. See "
           "<a href='/duty/transfer-of-land/rates'>current stamp duty rates on land transfers</a>.</p>"
           "<ul><li><a href='/forms'>Forms</a></li><li><a href='/contact'>Contact us</a></li></ul>")
    s.page("/duty/transfer-of-land/rates", "Stamp duty rates on land transfers",
           "<p>Stamp duty on the transfer of land is 1.5 % of the market value.</p>", modified="2026-01-28")
    s.page("/forms", "Forms", "<p>Download the transfer forms and the valuation request.</p>")
    s.page("/contact", "Contact us", "<p>Write to the Commissioner, or visit a service centre.</p>")
    line = f"- Stamp duty on land transfers: 1.5 % of the market value ([URA — stamp duty]({cited}))"
    then = page("Stamp duty on the transfer of land",
                "<p>Stamp duty on the transfer of land is 1.5 % of the market value.</p>")
    return Case("link on the cited page", "ug", line, cited, target, "1.5 %", "link"), then


def _search(web: MockWeb, built: DiscoverWeb) -> Made:
    s = _Site(web, built, "www.propertytax.gov.sg")
    s.robots("Disallow: /secure/")  # no sitemap at all: the site's search is the way in
    cited = s.url("/stamp-duty/absd-rates-2023")
    target = s.url("/stamp-duty/for-property/buying-or-acquiring-property/absd")
    s.page("/stamp-duty/absd-rates-2023", "Additional buyer's stamp duty",
           "<p>Additional buyer's stamp duty (ABSD) is payable on top of buyer's stamp duty. The rate depends on "
           "the buyer's profile and the number of properties owned.</p>")
    s.page("/stamp-duty/for-property/buying-or-acquiring-property/absd", "Additional buyer's stamp duty (ABSD)",
           "<p>Foreigners buying any residential property pay ABSD at 60 % of the purchase price or the market "
           "value, whichever is higher.</p>", modified="2026-02-09")
    s.page("/stamp-duty/for-property/buying-or-acquiring-property/bsd", "Buyer's stamp duty (BSD)",
           "<p>Buyer's stamp duty is charged on the purchase price at rates up to 6 % for residential "
           "property.</p>", modified="2025-12-01")
    s.page("/news/2023/absd-rates-revised", "ABSD rates revised",
           "<p>The rates of additional buyer's stamp duty were revised on 27 April 2023; see the ABSD "
           "page for the rates in force.</p>", modified="2023-04-27")
    built.search[s.host] = s.search("/search")
    line = ("- ABSD (additional buyer's stamp duty) for foreigners buying any residential property: 60 % "
            f"([IRAS — ABSD]({cited}))")
    then = page("Additional buyer's stamp duty",
                "<p>Foreigners buying any residential property pay ABSD at 60 % of the purchase price.</p>")
    return Case("the site's search", "sg", line, cited, target, "60 %", "search"), then


def _root(web: MockWeb, built: DiscoverWeb) -> Made:
    s = _Site(web, built, "www.taxportal.gov.jm")
    s.robots("Disallow: /eservices/")
    cited, target = s.url("/"), s.url("/transfer-tax/rates")
    s.page("/", "Tax Administration",
           "<p>Welcome to the tax portal. File, pay and find guidance on every tax we administer.</p><ul>"
           "<li><a href='/property-tax'>Property tax</a></li><li><a href='/transfer-tax'>Transfer tax</a></li>"
           "<li><a href='/news'>News</a></li></ul>")
    s.page("/property-tax", "Property tax", "<p>Property tax is charged each year on the unimproved value of "
                                            "land.</p>")
    s.page("/transfer-tax", "Transfer tax", "<p>Transfer tax is charged when land or shares change hands. The "
                                            "seller pays it.</p>")
    s.page("/transfer-tax/rates", "Transfer tax rates",
           "<p>Transfer tax on the sale of land is 2 % of the consideration or the market value, whichever is "
           "higher.</p>", modified="2026-01-20")
    s.page("/news", "News", "<p>Tax amnesty for penalties on property tax arrears announced.</p>")
    s.sitemap("/sitemap.xml", urlset([(cited, "2026-04-01"), (s.url("/property-tax"), "2025-05-06"),
                                      (s.url("/transfer-tax"), "2025-05-06"), (target, "2026-01-20"),
                                      (s.url("/news"), "2026-04-01")]))
    line = ("| Tax | Rate | Source |\n|---|---|---|\n"  # a table row, as many playbooks write their rates
            f"| Transfer tax on the sale of land | 2 % of the consideration | [TAJ]({cited}) |")
    return Case("root citation", "jm", line, cited, target, "2 %", "sitemap"), ""


def _redirect_root(web: MockWeb, built: DiscoverWeb) -> Made:
    s = _Site(web, built, "www.landsduty.gov.gh")
    s.robots(f"Sitemap: {s.url('/sitemap-pages.xml')}")
    cited, target = s.url("/stamp-duty/lease-rates-2022"), s.url("/stamp-duty/leases")
    web.route(cited, Route(status=301, redirect=s.url("/")))
    built.redirects[cited] = s.url("/")
    s.page("/", "Lands and Stamp Duty Office",
           "<p>Welcome. Register a title, stamp an instrument or search the land register.</p>")
    s.page("/stamp-duty/leases", "Stamp duty on leases",
           "<p>Stamp duty on a lease of more than 21 years is 0.25 % of the premium paid.</p>", modified="2026-02-02")
    s.page("/stamp-duty/conveyances", "Stamp duty on conveyances",
           "<p>Stamp duty on a conveyance of land is 0.5 % of the consideration.</p>", modified="2025-06-11")
    s.page("/about", "About the office", "<p>The office keeps the land register and stamps instruments.</p>")
    s.sitemap("/sitemap-pages.xml", urlset([(s.url("/"), "2026-03-01"), (s.url("/stamp-duty/conveyances"), "2025-06-11"),
                                            (target, "2026-02-02"), (s.url("/about"), "2024-09-09")]))
    line = ("- Stamp duty on long leases (over 21 years): 0.25 % of the premium "
            f"([Lands Commission — leases]({cited}))")
    then = page("Stamp duty on leases", "<p>Stamp duty on a lease of more than 21 years is 0.25 % of the premium "
                                        "paid.</p>")
    return Case("redirect to the root", "gh", line, cited, target, "0.25 %", "sitemap"), then


def _dead(web: MockWeb, built: DiscoverWeb) -> Made:
    s = _Site(web, built, "www.predial-federal.gob.mx")
    s.robots("Disallow: /tramites/en-linea/")
    cited, target = s.url("/isai/tarifa-2023"), s.url("/isai/tasa-vigente")
    web.route(cited, Route(status=410, body=page("Página no disponible", "<p>Esta página ya no existe.</p>", "es"),
                           etag=False))
    s.page("/isai", "Impuesto sobre Adquisición de Inmuebles",
           "<p>El ISAI se paga al adquirir un inmueble, dentro de los quince días siguientes a la firma.</p>", "es")
    s.page("/isai/tasa-vigente", "Impuesto sobre Adquisición de Inmuebles (ISAI): tasa vigente",
           "<p>La tasa del impuesto sobre adquisición de inmuebles es del 4,5 % sobre el valor más alto entre el "
           "precio pactado y el valor catastral.</p>", "es", modified="2026-01-08")
    s.page("/predial/tarifas", "Impuesto predial: tarifas",
           "<p>La tarifa del impuesto predial se calcula por rangos de valor catastral.</p>", "es")
    s.sitemap("/sitemap.xml", urlset([(s.url("/"), ""), (s.url("/isai"), "2025-03-03"), (target, "2026-01-08"),
                                      (s.url("/predial/tarifas"), "2026-01-02")]))
    line = ("- ISAI (impuesto sobre adquisición de inmuebles): 4.5 % of the higher of the agreed price and the "
            f"cadastral value ([SAT — ISAI]({cited}))")
    then = page("Impuesto sobre Adquisición de Inmuebles: tarifa 2023",
                "<p>La tasa del impuesto sobre adquisición de inmuebles es del 4,5 % sobre el valor más alto entre "
                "el precio pactado y el valor catastral.</p>", "es")
    return Case("page gone (410)", "mx", line, cited, target, "4,5 %", "sitemap"), then


def _two_pages(web: MockWeb, built: DiscoverWeb) -> Made:
    s = _Site(web, built, "www.revenue-duties.gov.au")
    s.robots("Disallow: /api/", f"Sitemap: {s.url('/sitemap.xml')}")
    cited = s.url("/surcharge/foreign-purchaser")
    news, target = s.url("/news/2019/surcharge-duty-rises"), s.url("/guidance/surcharge-purchaser-duty")
    s.page("/surcharge/foreign-purchaser", "Foreign purchasers",
           "<p>Surcharge purchaser duty applies to foreign persons acquiring residential land, in addition to "
           "transfer duty.</p>")
    s.page("/news/2019/surcharge-duty-rises", "Surcharge purchaser duty rises",
           "<p>Media release, 14 June 2019. From 1 July 2019 surcharge purchaser duty for foreign persons rises "
           "to 8 % of the dutiable value.</p>", modified="2019-06-14")
    s.page("/guidance/surcharge-purchaser-duty", "Surcharge purchaser duty",
           "<p>Surcharge purchaser duty for foreign persons is 8 % of the dutiable value of residential land.</p>",
           modified="2026-03-02")
    s.sitemap("/sitemap.xml", urlset([(news, "2019-06-14"), (cited, "2024-02-01"), (target, "2026-03-02")]))
    line = f"- Surcharge purchaser duty for foreign persons: 8 % of the dutiable value ([Revenue — surcharge]({cited}))"
    then = page("Foreign purchasers", "<p>Surcharge purchaser duty for foreign persons is 8 % of the dutiable "
                                      "value.</p>")
    return Case("old release and current guidance", "au", line, cited, target, "8 %", "sitemap", never=(news,)), then


def _decoy(web: MockWeb, built: DiscoverWeb) -> Made:
    s = _Site(web, built, "www.localrevenue.gov.ph")
    s.robots()
    cited, decoy = s.url("/idle-land-tax"), s.url("/real-property-tax/payment")
    s.page("/idle-land-tax", "Idle land tax",
           "<p>Idle land tax is imposed by local government units on idle lands. Each ordinance sets the "
           "rate for its territory.</p>")
    s.page("/real-property-tax/payment", "Paying real property tax",
           "<h2>Discount for early payment</h2><p>Owners who pay the basic real property tax for the whole year "
           "before the end of January get a discount of 5 % of the tax due.</p>"
           "<h2>Idle land tax</h2><p>Idle land tax is billed separately by the city or municipality where "
           "the land lies.</p>", modified="2026-04-01")
    s.page("/real-property-tax/assessment-levels", "Assessment levels",
           "<p>Assessment levels for residential land are set by ordinance, up to a ceiling.</p>")
    s.sitemap("/sitemap.xml", urlset([(s.url("/"), ""), (cited, "2023-08-08"), (decoy, "2026-04-01"),
                                      (s.url("/real-property-tax/assessment-levels"), "2025-01-15")]))
    line = f"- Idle land tax: 5 % of the assessed value of idle land, yearly ([BLGF — idle land]({cited}))"
    then = page("Idle land tax", "<p>Idle land tax is 5 % of the assessed value of idle land, every year.</p>")
    return Case("decoy: another instrument", "ph", line, cited, None, "5 %", "none", never=(decoy,)), then


def _nothing(web: MockWeb, built: DiscoverWeb) -> Made:
    s = _Site(web, built, "www.landtax.go.tz")
    s.robots("Disallow: /eardhi/")
    cited = s.url("/land-rent/residential")
    s.page("/land-rent/residential", "Land rent: residential plots",
           "<p>Land rent is payable every year by each holder of a right of occupancy. The Minister sets the "
           "rates by notice.</p>")
    s.page("/land-rent/how-to-pay", "How to pay land rent",
           "<p>Pay land rent through the government electronic payment gateway, with a control number.</p>")
    s.page("/news/land-rent-penalty-waiver", "Land rent penalty waiver",
           "<p>Penalties on land rent arrears are waived for holders who pay before the end of June.</p>",
           modified="2026-03-15")
    s.sitemap("/sitemap.xml", urlset([(s.url("/"), ""), (cited, "2023-01-01"), (s.url("/land-rent/how-to-pay"), ""),
                                      (s.url("/news/land-rent-penalty-waiver"), "2026-03-15")]))
    line = f"- Land rent on residential plots: TZS 400 per square metre a year ([Ministry of Lands]({cited}))"
    then = page("Land rent: residential plots", "<p>Land rent on residential plots is TZS 400 per square metre "
                                                "a year.</p>")
    return Case("nothing to find", "tz", line, cited, None, "TZS 400", "none"), then


def _disallowed(web: MockWeb, built: DiscoverWeb) -> Made:
    s = _Site(web, built, "www.customs-tariff.gov.tt")
    s.robots("Disallow: /internal/", f"Sitemap: {s.url('/sitemap.xml')}")
    cited, hidden = s.url("/tariff/motor-vehicles"), s.url("/internal/tariff-notes/motor-vehicle-duty-rates")
    s.page("/tariff/motor-vehicles", "Motor vehicles",
           "<p>Motor vehicles are classified in the chapter on vehicles of the tariff. Duty is computed on the "
           "CIF value.</p>")
    s.page("/internal/tariff-notes/motor-vehicle-duty-rates", "Motor vehicle duty rates (staff notes)",
           "<p>Import duty on motor vehicles is 45 % of the CIF value.</p>", modified="2026-04-20")
    s.page("/tariff/vehicles-chapter", "Vehicles: the tariff chapter",
           "<p>The chapter covers cars, buses, lorries and their parts.</p>")
    s.sitemap("/sitemap.xml", urlset([(s.url("/"), ""), (cited, "2024-05-05"), (hidden, "2026-04-20"),
                                      (s.url("/tariff/vehicles-chapter"), "2025-02-02")]))
    line = f"- Import duty on motor vehicles: 45 % of the CIF value ([Customs — tariff]({cited}))"
    then = page("Motor vehicles", "<p>Import duty on motor vehicles is 45 % of the CIF value.</p>")
    return Case("robots.txt-disallowed candidate", "tt", line, cited, None, "45 %", "none",
                disallowed=(hidden,)), then


def _control(web: MockWeb, built: DiscoverWeb) -> Made:
    s = _Site(web, built, "www.propertyduty.gov.ie")
    s.robots(f"Sitemap: {s.url('/sitemap.xml')}")
    cited = s.url("/stamp-duty/residential")
    s.page("/stamp-duty/residential", "Stamp duty on residential property",
           "<p>Stamp duty on residential property is 1 % of the price up to €1,000,000 and 2 % on the "
           "excess.</p>", modified="2025-10-10")
    s.page("/stamp-duty/non-residential", "Stamp duty on non-residential property",
           "<p>Stamp duty on non-residential property is charged at a single rate.</p>")
    s.sitemap("/sitemap.xml", urlset([(cited, "2025-10-10"), (s.url("/stamp-duty/non-residential"), "2025-10-10")]))
    line = f"- Stamp duty on residential property: 1 % up to €1,000,000 ([Revenue — stamp duty]({cited}))"
    return Case("control: figure on its page", "ie", line, cited, None, "€1,000,000", "none"), ""
