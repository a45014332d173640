"""How the world writes figures, read from CLDR (``cldr.tables``): shared by the claim side
(``values``) and the page side (``pagescan``) so both agree on what "1er avril 2025",
"1.500.000", "2,5 Mio." or "2025年4月1日" mean.

* ``normalize`` maps every script's decimal digits (Arabic-Indic, Extended Arabic-Indic,
  Devanagari, Bengali, Thai, fullwidth, …) to ASCII, the Arabic decimal/group/percent signs
  and fullwidth punctuation to their ASCII forms, and drops bidi and zero-width marks,
  keeping a map back to the original offsets.
* ``Hints`` are the page's language (``lang``/``Content-Language``) and the host's ccTLD.
  A word CLDR gives two meanings (Croatian "listopad" is October, Polish November; "bn" is
  10^9 in English, 10^12 in Swedish) takes the hinted languages' meaning; without a hint the
  English one, else the only one, else the one most languages agree on (at least three times
  the others) — and otherwise none: an unreadable date is never read as another month. A word
  of three ASCII letters or fewer, written without an abbreviation's dot, needs English, a
  hint or three languages ("de" is December only in Jola-Fonyi: "Ley 5 de 2024" is no date).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sv_scrapy.core.figures.cldr import tables

# characters that group thousands on real pages: space, NBSP, narrow NBSP, thin space,
# apostrophe (Swiss), right single quote; dot and comma are handled as ambiguous marks
GROUP_SPACES = " \u00a0\u202f\u2009"
GROUP_MARKS = GROUP_SPACES + "'\u2019"
# bidi controls and zero-width characters: invisible, and they split "31‏/03‏/2025"
_INVISIBLE = "\u200b\u200c\u200d\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff\u00ad"
_INVISIBLE_RE = re.compile(f"[{_INVISIBLE}]")


def _translation() -> dict[int, str]:
    table = {
        cp: str(unicodedata.decimal(chr(cp)))
        for cp in range(0x80, 0x10000)
        if unicodedata.category(chr(cp)) == "Nd"
    }
    # Arabic decimal, thousands and percent signs; fullwidth punctuation (CJK pages)
    table.update({0x066B: ".", 0x066C: ",", 0x066A: "%", 0xFF05: "%", 0xFF0C: ",", 0xFF0E: ".", 0xFF0F: "/",
                  0x2212: "-", 0x060C: ","})
    return table


_DIGITS = _translation()
_NEEDS_TRANSLATION = re.compile("[" + "".join(re.escape(chr(cp)) for cp in sorted(_DIGITS)) + "]")


def _letter_class() -> str:
    """A regex class of letters *and* combining marks: Python's ``\\w`` stops at the vowel
    signs of Devanagari or Thai ("अप्रैल", "เมษายน")."""
    ranges: list[list[int]] = []
    for cp in range(0x41, 0x10000):
        if unicodedata.category(chr(cp))[0] in "LM":
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1][1] = cp
            else:
                ranges.append([cp, cp])
    return "[" + "".join(re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "") for a, b in ranges) + "]"


LETTER = _letter_class()


@dataclass(frozen=True)
class Normalized:
    """A text with ASCII digits and no invisible marks, and the way back to the original."""

    text: str
    cuts: tuple[int, ...] = ()  # normalized index of the char after each dropped mark

    def original(self, i: int) -> int:
        return i + bisect_right(self.cuts, i) if self.cuts else i

    def original_end(self, i: int) -> int:
        return self.original(i - 1) + 1 if i else 0


def normalize(text: str) -> Normalized:
    """``normalize("٣١‏/٠٣‏/٢٠٢٥").text`` -> ``"31/03/2025"``; offsets map back."""
    if _NEEDS_TRANSLATION.search(text):
        text = text.translate(_DIGITS)
    if not _INVISIBLE_RE.search(text):
        return Normalized(text)
    cuts: list[int] = []
    parts: list[str] = []
    last = 0
    for m in _INVISIBLE_RE.finditer(text):
        parts.append(text[last : m.start()])
        last = m.end()
        cuts.append(m.start() - len(cuts))
    parts.append(text[last:])
    return Normalized("".join(parts), tuple(cuts))


@dataclass(frozen=True)
class Hints:
    """The languages a page is likely written in, and whether its numeric dates are M/D/Y."""

    langs: frozenset[str] = frozenset()
    month_first: bool = False
    decimal: str | None = None  # the declared language's decimal mark: "1.500" is 1500 in German


NO_HINTS = Hints()
_GENERIC_US = {"gov", "mil", "us"}


@lru_cache(maxsize=1024)
def hints_for(lang: str | None = None, host: str | None = None) -> Hints:
    """Hints from a ``lang`` attribute ("de-CH", "pt_BR") and a host's top-level domain.

    >>> h = hints_for("pl", "www.gov.pl"); (sorted(h.langs), h.month_first, h.decimal)
    (['pl'], False, ',')
    >>> hints_for(None, "www.irs.gov").month_first
    True
    """
    data = tables()
    langs: set[str] = set()
    territory = None
    decimal = None
    if lang:
        parts = re.split(r"[-_]", lang.strip().lower())
        if parts[0] in data["decimal"]:
            langs.add(parts[0])
            decimal = data["decimal"][parts[0]]
        langs.update(f"{parts[0]}_{p.title()}" for p in parts[1:] if len(p) == 4)  # sr-Latn
        regions = [p.upper() for p in parts[1:] if len(p) == 2 and p.isalpha()]
        territory = regions[0] if regions else None
    tld = (host or "").lower().rstrip(".").rpartition(".")[2]
    if tld in _GENERIC_US:
        host_territory: str | None = "US"
    else:
        host_territory = {"uk": "GB"}.get(tld, tld.upper()) if len(tld) == 2 else None
    if not langs and host_territory:
        langs.update(data["territory_languages"].get(host_territory, ()))
    territory = territory or host_territory
    return Hints(frozenset(langs), territory in data["mdy_territories"], decimal)


def _resolve(entry: dict[str, list[str]] | None, hints: Hints, word: str, short: int = 1) -> int | None:
    if not entry:
        return None
    if hints.langs:
        hinted = {int(n) for n, langs in entry.items() if hints.langs.intersection(langs)}
        if hinted:
            return hinted.pop() if len(hinted) == 1 else None
    english = [int(n) for n, langs in entry.items() if "en" in langs]
    if english:
        return english[0]
    if len(word) <= short and word.isascii() and sum(map(len, entry.values())) < 3:
        return None  # "de", "any", "a", "g": a short word of one or two languages meets prose by chance
    if len(entry) == 1:
        return int(next(iter(entry)))
    ranked = sorted(((len(langs), int(n)) for n, langs in entry.items()), reverse=True)
    return ranked[0][1] if ranked[0][0] >= 3 * ranked[1][0] else None


def fold(word: str) -> str:
    return unicodedata.normalize("NFC", word).casefold().rstrip(".")


def month_number(name: str, hints: Hints = NO_HINTS) -> int | None:
    """``month_number("Avr.")`` -> 4; ``None`` for a word that is no month (or is one only
    ambiguously and the hints cannot settle it)."""
    key = fold(name)
    # an abbreviation written with its dot ("avr.") is a month; a bare short word may be prose
    return _resolve(tables()["months"].get(key), hints, key, short=1 if name.endswith(".") else 3)


def compact_power(word: str, hints: Hints = NO_HINTS) -> int | None:
    """The power of ten a compact word stands for: "Mio." -> 6, "lakh" -> 5, "億" -> 8."""
    key = fold(word)
    return _resolve(tables()["compact"].get(key), hints, key)


@lru_cache(maxsize=1)
def sets() -> dict[str, Any]:
    """Lookup sets over the CLDR tables (built once per process)."""
    data = tables()
    # one-letter ASCII symbols ("R", "K", "E") are left out: a letter beside a number is no unit.
    # "$" is kept: dropping every one-character ASCII symbol (8a31568) made "$7" a weak match
    symbols = {s for s in data["currency_symbols"] if not (len(s) == 1 and s.isascii() and s.isalpha())}
    return {
        "codes": frozenset(data["currency_codes"]),
        "symbols": frozenset(symbols),
        "symbol_max": max(map(len, symbols)),
        "symbol_sizes": tuple(sorted({len(s) for s in symbols})),
        "percent_after": frozenset(data["percent_after"]),
        "percent_before": frozenset(data["percent_before"]),
        "month_words": tuple(data["month_words"]),
        "fillers": frozenset(data["fillers"]) | frozenset(data["eras"]),
    }


_WORDS_AFTER_RE = re.compile(rf"[ \u00a0\u202f\u2009]?({LETTER}+(?:\.{LETTER}+)*)(\.?)(?:[ \u00a0\u202f\u2009]({LETTER}+)(\.?))?")


def _is_cjk(word: str) -> bool:
    return ord(word[0]) >= 0x2E80


def compact_after(text: str, end: int, hints: Hints = NO_HINTS) -> tuple[int, int] | None:
    """(power of ten, end) of a compact form right after a number: "2,5 Mio." -> 6,
    "10 lakh Cr" -> 12, "250万円" -> 4 (the 円 is left alone), "2 mil millones" -> 9.

    >>> compact_after("2,5 Mio. Euro", 3)
    (6, 8)
    """
    m = _WORDS_AFTER_RE.match(text, end)
    if not m:
        return None
    first, second = m.group(1), m.group(3)
    if second:
        both = compact_power(f"{first} {second}", hints)
        if both:
            return both, m.end()
    power = compact_power(first, hints)
    if power is None:
        if not _is_cjk(first):
            return None
        for size in (2, 1):
            power = compact_power(first[:size], hints) if len(first) > size else None
            if power:
                return power, m.start(1) + size
        return None
    stop = m.end(2)
    if second and not _is_cjk(first):
        more = compact_power(second, hints)
        if more:  # "10 lakh Cr": the units multiply
            return power + more, m.end()
    return power, stop
