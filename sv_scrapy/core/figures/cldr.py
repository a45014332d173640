"""The CLDR data sv_scrapy reads figures with, taken from Babel once and cached on disk.

Built from the locales of every language that is official somewhere (CLDR's territory
data), so the tables cover the jurisdictions the corpus cites without the thousand minor
locales whose month abbreviations collide with common words:

* ``months`` — every month name CLDR has (wide and abbreviated, format/genitive and
  stand-alone), case-folded, with the letters a date pattern glues to it ("באפריל",
  "apirilaren"); each name maps to ``{month: [languages]}`` so an ambiguous name
  (Croatian "listopad" is October, Polish November) can be settled by the page's language;
* ``month_words`` — words that make a month from a number (Vietnamese "tháng 4");
* ``compact`` — thousand/million/billion words and abbreviations of the compact decimal
  formats, short and long, every plural form ("Millionen", "mln", "mi", "lakh", "Cr", "万",
  "億"), as ``{word: {power of ten: [languages]}}``;
* ``percent_after`` / ``percent_before`` — the percent sign's forms and the unit's words
  ("Prozent", "yüzde" before the number);
* ``currency_codes`` (ISO 4217 codes in use in some territory today) and
  ``currency_symbols`` (every locale's symbol for them: "zł", "R$", "₽", "₴", "Kč");
* ``decimal`` — each language's decimal mark; ``mdy_territories`` — where a numeric date
  is month-first; ``territory_languages`` — a country's official languages (ccTLD hints);
* ``eras`` and ``fillers`` — the short words date patterns put between the fields
  ("ค.ศ.", "m.", "gada", "de").

The JSON cache lives under ``$XDG_CACHE_HOME/sv_scrapy`` (``~/.cache``), keyed by the
Babel version and the table layout; an unwritable cache only costs the build (~1 s).
"""

from __future__ import annotations

import contextlib
import datetime
import json
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import babel
from babel import Locale, localedata
from babel.core import get_global
from babel.numbers import get_territory_currencies

from sv_scrapy.core.atomic import write_text
from sv_scrapy.core.environment import read
from sv_scrapy.core.errors import OutputError

SCHEMA = 5  # bump when the layout of the tables changes
_OFFICIAL = ("official", "de_facto_official", "official_regional")
_FIELD_RE = re.compile(r"'[^']*'|[A-Za-z]+|[^A-Za-z']+")


def _is_name(word: str) -> bool:
    """Letters and combining marks (Devanagari and Thai vowel signs are marks), inner dots,
    apostrophes and hyphens: "अप्रैल", "เม.ย", "d’abril"."""
    return (
        len(word) >= 2
        and unicodedata.category(word[0])[0] == "L"
        and all(unicodedata.category(ch)[0] in "LM" or ch in ".'’-׳" for ch in word)
    )


def _fold(word: str) -> str:
    return unicodedata.normalize("NFC", word).casefold().strip().rstrip(".")


def _plain(word: str) -> str:
    """The word without accents: "février" -> "fevrier" (pages and playbooks drop them)."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", word) if not unicodedata.combining(ch))


def _languages() -> list[str]:
    available = set(localedata.locale_identifiers())
    langs = {
        lang
        for info in get_global("territory_languages").values()
        for lang, data in info.items()
        if data.get("official_status") in _OFFICIAL
    }
    return sorted(lang for lang in langs if lang in available)


def _locales(langs: list[str]) -> list[tuple[Locale, str]]:
    """(locale, language) for each official language, and for it in each country where it is
    official (de_AT writes "Jänner", en_IN "lakh", es_PE "setiembre")."""
    available = set(localedata.locale_identifiers())
    known = set(langs)
    out = [(Locale.parse(lang), lang) for lang in langs]
    for territory, info in sorted(get_global("territory_languages").items()):
        for lang, data in info.items():
            if data.get("official_status") in _OFFICIAL and lang in known and f"{lang}_{territory}" in available:
                out.append((Locale.parse(f"{lang}_{territory}"), lang))
    return out


def _glued(pattern: str) -> tuple[set[str], set[str]]:
    """Letters a date pattern glues before/after the month field: ("ב", ""), ("", "ren")."""
    before, after = set(), set()
    tokens = _FIELD_RE.findall(pattern)
    for i, tok in enumerate(tokens):
        if tok[:1] in "ML" and len(tok) >= 3 and tok.strip("ML") == "":
            if i and not tokens[i - 1][-1:].isspace() and not tokens[i - 1].startswith("'"):
                lit = tokens[i - 1].strip()
                if lit and lit.isalpha():
                    before.add(lit)
            if i + 1 < len(tokens) and tokens[i + 1].startswith("'") and len(tokens[i + 1]) > 2:
                after.add(tokens[i + 1].strip("'"))
    return before, after


def _fillers(pattern: str) -> set[str]:
    """Quoted words a date pattern puts between fields: "de", "gada", "m", "г"."""
    return {_fold(t.strip("'")) for t in re.findall(r"'[^']+'", pattern) if t.strip("'").strip(" .")}


def _months(locales: list[tuple[Locale, str]]) -> tuple[dict[str, dict[int, set[str]]], set[str], set[str]]:
    names: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    month_words: set[str] = set()
    fillers: set[str] = set()
    for loc, lang in locales:
        glue_before, glue_after = {""}, {""}
        for width in ("long", "medium", "full"):
            pattern = loc.date_formats[width].pattern
            before, after = _glued(pattern)
            glue_before |= before
            glue_after |= after
            fillers |= _fillers(pattern)
        for ctx in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                for month, name in loc.months[ctx][width].items():
                    folded = _fold(name)
                    numbered = re.fullmatch(r"([^\W\d_]+) (\d{1,2})", folded)
                    if numbered and int(numbered.group(2)) == month:
                        month_words.add(numbered.group(1))
                        continue
                    if not _is_name(folded):
                        continue
                    for head in glue_before:
                        for tail in glue_after:
                            for form in {folded, _plain(folded)}:
                                names[head.casefold() + form + tail.casefold()][month].add(lang)
    return names, month_words, fillers


def _compact(locales: list[tuple[Locale, str]]) -> dict[str, dict[int, set[str]]]:
    words: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    for loc, lang in locales:
        formats = loc.compact_decimal_formats
        for width in ("short", "long"):
            for forms in formats.get(width, {}).values():
                for magnitude, pattern in forms.items():
                    text = (pattern.pattern if hasattr(pattern, "pattern") else str(pattern)).split(";")[0]
                    zeros = text.count("0")
                    power = len(magnitude) - 1 - (zeros - 1)
                    word = _fold(re.sub(r"[\s\u00a0\u202f]+", " ", re.sub(r"[0#'¤\u200e\u200f]", "", text)))
                    if zeros and power > 0 and word:
                        for form in {word, _plain(word)}:
                            words[form][power].add(lang)
    return words


def _percent(locales: list[tuple[Locale, str]]) -> tuple[set[str], set[str]]:
    after: set[str] = {"%"}
    before: set[str] = {"%"}
    for loc, _lang in locales:
        patterns = loc._data.get("unit_patterns", {}).get("concentr-percent", {})
        for width in ("long", "short"):
            for form in patterns.get(width, {}).values():
                if not isinstance(form, str) or "{0}" not in form:
                    continue
                head, _, tail = form.partition("{0}")
                if _fold(tail) and not _fold(head):
                    after.add(_fold(tail))
                elif _fold(head) and not _fold(tail):
                    before.add(_fold(head))
    return after, before


def _currencies(locales: list[tuple[Locale, str]]) -> tuple[set[str], set[str]]:
    today = datetime.date.today()
    codes: set[str] = set()
    for territory in get_global("territory_currencies"):
        codes.update(get_territory_currencies(territory, start_date=today, tender=True))
    symbols: set[str] = set()
    for loc, _lang in locales:
        for code, symbol in loc.currency_symbols.items():
            symbol = symbol.strip("\u200e\u200f\u061c ")
            if code in codes and symbol != code and not symbol.isdigit() and symbol:
                symbols.add(symbol)
    return codes, symbols


def _territories(langs: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    """A country's official languages, most spoken first; the countries whose main official
    language writes numeric dates month-first (US, PH: not IN, CA)."""
    official: dict[str, list[str]] = {}
    mdy: set[str] = set()
    known = set(langs)
    for territory, info in get_global("territory_languages").items():
        spoken = sorted(
            (lang for lang, data in info.items() if data.get("official_status") in _OFFICIAL and lang in known),
            key=lambda lang: -float(info[lang].get("population_percent") or 0),
        )
        if not spoken:
            continue
        official[territory] = spoken
        try:
            pattern = Locale.parse(f"{spoken[0]}_{territory}").date_formats["short"].pattern
        except (ValueError, babel.UnknownLocaleError):
            continue
        if pattern.lstrip("'").startswith("M"):
            mdy.add(territory)
    return official, sorted(mdy)


def _eras(langs: list[str]) -> set[str]:
    eras: set[str] = set()
    for lang in langs:
        for width in ("abbreviated", "narrow"):
            eras.update(_fold(name) for name in Locale.parse(lang).eras[width].values() if len(name) > 1)
    return eras


def _jsonable(table: dict[str, dict[int, set[str]]]) -> dict[str, dict[str, list[str]]]:
    return {k: {str(n): sorted(v) for n, v in d.items()} for k, d in sorted(table.items())}


def build() -> dict[str, Any]:
    """Every table, fresh from Babel (about a second)."""
    langs = _languages()
    locales = _locales(langs)
    months, month_words, fillers = _months(locales)
    percent_after, percent_before = _percent(locales)
    codes, symbols = _currencies(locales)
    official, mdy = _territories(langs)
    return {
        "months": _jsonable(months),
        "month_words": sorted(month_words),
        "fillers": sorted(fillers),
        "eras": sorted(_eras(langs)),
        "compact": _jsonable(_compact(locales)),
        "percent_after": sorted(percent_after),
        "percent_before": sorted(percent_before),
        "currency_codes": sorted(codes),
        "currency_symbols": sorted(symbols),
        "decimal": {lang: Locale.parse(lang).number_symbols.get("latn", {}).get("decimal", ".") for lang in langs},
        "mdy_territories": mdy,
        "territory_languages": official,
        "languages": langs,
    }


def _cache_dir() -> Path:
    return Path(read("XDG_CACHE_HOME") or Path.home() / ".cache") / "sv_scrapy"


def cached(name: str, build: Callable[[], Any]) -> Any:
    """``build()``'s JSON result, kept in the cache folder under ``name`` (which must carry
    the versions it depends on); an unreadable or unwritable cache only costs the build."""
    path = _cache_dir() / f"{name}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    data = build()
    with contextlib.suppress(OSError, OutputError):  # a read-only home: rebuilt per process, still correct
        write_text(path, json.dumps(data, ensure_ascii=False))
    return data


@lru_cache(maxsize=1)
def tables() -> dict[str, Any]:
    """The tables: from the on-disk cache when it is there, else built (and cached)."""
    data: dict[str, Any] = cached(f"cldr-babel{babel.__version__}-v{SCHEMA}", build)
    return data
