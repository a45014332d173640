"""A soft 404: a 200 page whose title or heading says the page was not found.

The reviewer must hear that the page is gone, not that its figure is absent. The phrase is looked
for in the page's ``<title>`` and its first heading lines, in the page's languages: its declared
``lang`` and the languages CLDR (through Babel, ``core.claims.locale.hints_for``) says the host's
ccTLD speaks, plus English (the language most CMS error templates fall back to).

Source of the phrases: CLDR has no "page not found" message, so this one table is written by hand,
from the 404 templates that common CMSs and government portal frameworks ship in each language
(WordPress, Drupal, Liferay, Joomla, TYPO3, Plone translations). A phrase must be the gist of the
title or heading line, not merely appear in it, so "Lost and found" or an article about missing
records does not qualify.
"""

from __future__ import annotations

import re
import unicodedata

from sv_scrapy.core.figures.locale import hints_for

NOTE = "the page says it was not found"

# language -> phrases (casefolded, accents kept); "404" alone is never enough
PHRASES: dict[str, tuple[str, ...]] = {
    "en": ("page not found", "not found", "page cannot be found", "page could not be found",
           "page you requested could not be found", "page does not exist", "page no longer exists"),
    "es": ("página no encontrada", "no se encontró la página", "la página no existe", "página no existe",
           "no encontrada"),
    "pt": ("página não encontrada", "a página não existe", "não encontrada"),
    "fr": ("page introuvable", "page non trouvée", "page non trouvee", "cette page n'existe pas",
           "la page demandée n'existe pas", "introuvable"),
    "de": ("seite nicht gefunden", "die seite wurde nicht gefunden", "seite existiert nicht", "nicht gefunden"),
    "it": ("pagina non trovata", "la pagina non esiste", "non trovata"),
    "nl": ("pagina niet gevonden", "pagina bestaat niet", "niet gevonden"),
    "pl": ("nie znaleziono strony", "strona nie została znaleziona", "strona nie istnieje", "nie znaleziono"),
    "cs": ("stránka nenalezena", "stránka nebyla nalezena", "stránka neexistuje"),
    "sk": ("stránka nebola nájdená", "stránka neexistuje"),
    "hu": ("az oldal nem található", "oldal nem található", "nem található"),
    "ro": ("pagina nu a fost găsită", "pagina nu există"),
    "sv": ("sidan hittades inte", "sidan finns inte"),
    "da": ("siden blev ikke fundet", "siden findes ikke"),
    "nb": ("siden ble ikke funnet", "siden finnes ikke"),
    "fi": ("sivua ei löytynyt", "sivua ei löydy"),
    "el": ("η σελίδα δεν βρέθηκε", "σελίδα δεν βρέθηκε"),
    "tr": ("sayfa bulunamadı", "aradığınız sayfa bulunamadı"),
    "ru": ("страница не найдена",),
    "uk": ("сторінку не знайдено", "сторінка не знайдена"),
    "ja": ("ページが見つかりません", "お探しのページは見つかりませんでした"),
    "zh": ("页面未找到", "找不到页面", "頁面不存在", "找不到網頁"),
    "ko": ("페이지를 찾을 수 없습니다",),
    "ar": ("الصفحة غير موجودة", "لم يتم العثور على الصفحة"),
    "he": ("הדף לא נמצא",),
    "id": ("halaman tidak ditemukan",),
    "ms": ("halaman tidak dijumpai",),
    "vi": ("không tìm thấy trang",),
    "th": ("ไม่พบหน้า",),
}
_LINE_MAX = 120  # a line longer than this is prose, not a "not found" title or heading
_NOISE = re.compile(r"[\s\-–—:|·.!()\[\]0-9]+")


def _languages(lang: str, host: str) -> set[str]:
    langs = {"en"}
    for hints in (hints_for(lang or None, None), hints_for(None, host or None)):
        langs.update(code.split("_")[0] for code in hints.langs)
    return langs


def _says_not_found(line: str, phrases: list[str], rest_max: int) -> bool:
    low = unicodedata.normalize("NFC", line).casefold().strip()
    if not low or len(low) > _LINE_MAX:
        return False
    for phrase in phrases:
        at = low.find(phrase)
        # the phrase is the gist: what is left around it is little more than "404", a site name or "error"
        if at >= 0 and len(_NOISE.sub("", low[:at] + low[at + len(phrase):])) <= rest_max:
            return True
    return False


def soft_404(title: str, text: str, lang: str = "", host: str = "") -> bool:
    """Does the page's title or one of its first lines say it was not found?

    >>> soft_404("Página no encontrada | Gobierno", "Inicio\\nPágina no encontrada\\nLo sentimos.", "es")
    True
    >>> soft_404("Seite nicht gefunden", "", "", "www.bund.de")
    True
    >>> soft_404("Registration fees", "Fees\\nLost items not found at the office are kept for a year.")
    False
    """
    phrases = sorted({p for code in _languages(lang, host) for p in PHRASES.get(code, ())}, key=len, reverse=True)
    # a title may carry the site's name beside the phrase; a heading line little else
    return _says_not_found(title, phrases, 48) or any(_says_not_found(line, phrases, 16)
                                                       for line in text.splitlines()[:4] if line)
