"""Words that name official bodies, per language; which languages apply to a host is CLDR's.

Which languages: the languages CLDR (through Babel's territory data, ``core.claims.locale.hints_for``)
lists for the host's ccTLD, plus English — so a ``.nl`` host is read in Dutch and Frisian, a
``.in`` host in Hindi, Marathi, Bengali, Tamil… and English. The words themselves are not in
CLDR (it has no "ministry" or "municipal corporation"): this table is written by hand from the
official names government bodies use for themselves in each language (ministries, governments,
municipalities, courts, gazettes, statistics offices, tax and land authorities, central banks).
Host labels are compared without accents, spaces or hyphens ("punecorporation", "rijksoverheid").
"""

from __future__ import annotations

import unicodedata

from sv_scrapy.core.figures.locale import hints_for

WORDS: dict[str, tuple[str, ...]] = {
    "en": ("ministry", "government", "municipal corporation", "corporation", "municipality", "reserve bank",
           "central bank", "national bank", "monetary authority", "revenue", "property tax", "propertytax",
           "tax department", "land registry", "gazette", "statistics", "parliament", "judiciary", "high court",
           "supreme court", "county council", "city council"),
    "nl": ("ministerie", "rijksoverheid", "overheid", "gemeente", "provincie", "belastingdienst", "kadaster",
           "rechtspraak", "staatscourant", "officielebekendmakingen", "centraal bureau voor de statistiek",
           "nederlandsche bank"),
    "fy": ("gemeente", "provinsje", "regear"),
    "de": ("bundesministerium", "ministerium", "regierung", "finanzamt", "statistisches", "bundesamt", "landesamt",
           "gericht", "amtsblatt", "gemeinde", "grundbuch", "bundesbank", "nationalbank"),
    "fr": ("ministère", "gouvernement", "préfecture", "mairie", "tribunal", "cour de cassation", "journal officiel",
           "impots", "cadastre", "banque centrale", "banque de france", "statistique"),
    "es": ("ministerio", "gobierno", "ayuntamiento", "municipalidad", "alcaldía", "tribunal", "boletín oficial",
           "hacienda", "catastro", "estadística", "banco central"),
    "pt": ("ministério", "governo", "prefeitura", "câmara municipal", "tribunal", "diário oficial", "receita federal",
           "banco central", "estatística"),
    "it": ("ministero", "governo", "comune", "regione", "tribunale", "gazzetta ufficiale", "agenzia delle entrate",
           "catasto", "banca d'italia", "istat"),
    "pl": ("ministerstwo", "urząd", "gmina", "sąd", "dziennik ustaw", "krajowa administracja skarbowa",
           "główny urząd statystyczny", "narodowy bank"),
    "hi": ("sarkar", "mantralaya", "nagar nigam", "mahanagarpalika", "nagarpalika", "सरकार", "मंत्रालय", "नगर निगम",
           "रिज़र्व बैंक", "न्यायालय"),
    "mr": ("mahanagarpalika", "shasan", "महानगरपालिका", "शासन"),
    "bn": ("sarkar", "সরকার", "মন্ত্রণালয়"),
    "ta": ("arasu", "அரசு", "மாநகராட்சி"),
    "id": ("kementerian", "pemerintah", "pajak", "badan pusat statistik", "pengadilan", "bank indonesia"),
    "ms": ("kementerian", "kerajaan", "majlis bandaraya", "mahkamah", "bank negara"),
    "tr": ("bakanlığı", "belediyesi", "valiliği", "mahkemesi", "resmi gazete", "gelir idaresi", "merkez bankası"),
    "sv": ("regeringen", "departementet", "kommun", "skatteverket", "lantmäteriet", "riksbank", "domstol"),
    "da": ("ministeriet", "kommune", "skattestyrelsen", "nationalbank", "domstol"),
    "nb": ("departementet", "kommune", "skatteetaten", "kartverket", "norges bank", "domstol"),
    "fi": ("ministeriö", "kaupunki", "verohallinto", "maanmittauslaitos", "suomen pankki", "tuomioistuin"),
    "el": ("υπουργείο", "κυβέρνηση", "δήμος", "δικαστήριο"),
    "ar": ("وزارة", "حكومة", "بلدية", "محكمة", "البنك المركزي"),
    "ja": ("政府", "市役所", "裁判所", "日本銀行"),
    "zh": ("政府", "法院", "人民银行"),
    "ko": ("정부", "법원", "한국은행"),
    "vi": ("bộ", "chính phủ", "ủy ban nhân dân", "tòa án", "ngân hàng nhà nước"),
    "th": ("กระทรวง", "รัฐบาล", "ศาล", "ธนาคารแห่งประเทศไทย"),
}


def fold(text: str) -> str:
    """Casefolded, accents and spaces/hyphens/apostrophes dropped: "Câmara Municipal" -> "camaramunicipal"."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch) and ch not in " -_'’.")


def languages_of(host: str) -> set[str]:
    """English, and the languages CLDR lists for the host's ccTLD.

    >>> sorted(languages_of("www.rijksoverheid.nl"))
    ['en', 'fy', 'nl']
    """
    return {"en", *(code.split("_")[0] for code in hints_for(None, host).langs)}


def official_word(text: str, host: str, in_host: bool = False) -> str:
    """The first official-body word of ``text`` in the host's languages ("" when none). In a host
    name (``in_host``) a word of five letters or more may be part of a label ("punecorporation").

    >>> official_word("propertytax.punecorporation.org", "propertytax.punecorporation.org", in_host=True)
    'property tax'
    >>> official_word("pmc.punecorporation.org", "pmc.punecorporation.org", in_host=True)
    'corporation'
    >>> official_word("Rijksoverheid", "www.rijksoverheid.nl"), official_word("Rijksoverheid", "example.com")
    ('rijksoverheid', '')
    """
    folded = fold(text)
    words = sorted({w for lang in languages_of(host) for w in WORDS.get(lang, ())}, key=len, reverse=True)
    for word in words:
        key = fold(word)
        if in_host and len(key) < 5:
            continue
        if key and key in folded and (in_host or len(key) >= 4 or f" {word.casefold()}" in f" {text.casefold()}"):
            return word
    return ""
