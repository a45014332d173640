"""Find a claim's figures on a page, whatever the page's locale writes them like.

The page decides the locale, not the claim: ``PageIndex(text, lang=…, host=…)`` takes the
page's ``lang``/``Content-Language`` and its host (ccTLD) as hints (``locale.hints_for``) and
otherwise tries every form CLDR knows. Claims and pages meet on canonical forms
(``values.canonical_number`` and ISO dates):

* text: every script's digits read as ASCII, bidi and zero-width marks dropped (offsets
  and quotes stay those of the page as written);
* numbers: decimal comma or point; thousands grouped by space, NBSP, narrow NBSP, thin
  space, dot, comma or apostrophe, or Indian lakh grouping (24,50,000); a lone separator
  before exactly three digits is ambiguous ("1.500") and stands for both, unless the page
  declares its language; compact forms of every locale ("2,5 Mio.", "1,25 mln", "1,3 mi",
  "₹32L", "10 lakh crore", "250万", "3億") stand for the whole amount;
* boundaries: a number is read whole, so a claimed 5.81 never matches 15.81 or 5.812;
* units: a percent form ("%", "٪", "Prozent", "yüzde 5", "%5") or a currency code/symbol
  ("zł", "R$", "₽", "CHF") beside the number makes a short figure specific;
* dates: numeric (Y-M-D; dotted ones are always day-first; slashed or dashed ones are
  day-first unless the page's country writes month-first, or the day-first reading is
  impossible), written with any CLDR month name in day-month-year, month-day-year,
  year-month-day (hu, lt) and year-day-month (lv) orders, CJK 年月日 / 년월일, month-year, and
  the ISO year-month ("2023-12"; "2011-12" is the fiscal year, as on the claim side);
* statute ids: the id itself on word boundaries, any hyphen variant;
* as written: ``find_written`` looks for the claim's own spelling of a figure verbatim (spaces
  may vary), so a figure that stands on the page as the claim writes it is never missed.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from sv_scrapy.core.figures.locale import (
    GROUP_MARKS,
    LETTER,
    NO_HINTS,
    Hints,
    compact_after,
    hints_for,
    month_number,
    normalize,
    sets,
)
from sv_scrapy.core.figures.values import canonical_number

_G = re.escape(GROUP_MARKS)
# Every pattern starts with a literal digit class and checks what precedes it *after* that
# first digit: a pattern opening with a lookbehind loses the regex engine's fast skip to the
# next digit (5x slower on a page). The text is normalised, so digits are ASCII.
_D1 = r"[0-9](?<![0-9.,][0-9])"  # a digit that no digit, dot or comma precedes
_NUMBER_RE = re.compile(
    rf"[0-9](?<![0-9][0-9])(?:\d?(?:,\d\d)+,\d{{3}}(?:\.\d+)?|\d{{0,2}}(?:[{_G}.,]\d{{3}})+(?:[.,]\d+)?|\d*(?:[.,]\d+)?)"
    r"(?![\d])"
)
_L = LETTER
_CODE_RE = re.compile(r"[A-Z]{3}")
_NUMERIC_DATE_RE = re.compile(rf"({_D1}\d{{0,3}})(\.\s?|/|-)(\d{{1,2}})\2(\d{{1,4}})(?![\d])")
_MON = rf"(?P<mon>(?:{'|'.join(sets()['month_words'])})\s\d{{1,2}}|{_L}++(?:[.'’-]{_L}+)*+[.׳]?)"
_DAY = r"(?P<d>[0-9](?<![\w.][0-9])\d?)(?:st|nd|rd|th|er|º|ª|\.)?"
_DMY_RE = re.compile(
    rf"{_DAY}[\s-]?(?:{_L}{{1,3}}[’']?\s)?{_MON},?\s(?:(?:de|del)\s)?(?:{_L}+(?:\.\s?{_L}+)*\.\s)?"
    rf"(?P<y>\d{{4}})(?!\d)"
)
# month-first forms ("April 1, 2025", "avril 2025") are found from their year backwards:
# a forward pattern tries every word of the page
_YEAR_RE = re.compile(r"[0-9](?<![0-9.,][0-9])\d{3}(?!\d)")
_MY_BACK_RE = re.compile(rf"(?<!{_L}){_MON}\s(?:(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s|(?:de|del)\s)?\Z")
_YEAR = r"(?P<y>[0-9](?<![0-9.][0-9])\d{3})"
_YMD_RE = re.compile(rf"{_YEAR}(?:{_L}{{1,3}})?\.?\s(?:{_L}{{1,5}}\.?\s)?{_MON}\s(?P<d>\d{{1,2}})(?!\d)")
_YDM_RE = re.compile(rf"{_YEAR}\.?\s(?:{_L}{{1,5}}\.?\s)?(?P<d>\d{{1,2}})\.?\s{_MON}")
_YEAR_MONTH_RE = re.compile(r"[12](?<![\w.,/-][12])\d{3}-(0[1-9]|1[0-2])(?![\w-])")
_SPACE_RUN_RE = re.compile(r"\s+")
_CJK_RE = re.compile(r"(?P<y>[0-9]\d{3})\s?[年년]\s?(?P<m>\d{1,2})\s?[月월](?:\s?(?P<d>\d{1,2})\s?[日일])?")


@dataclass(frozen=True)
class Hit:
    """Where a figure was found, and how the page wrote it."""

    start: int
    end: int
    written: str
    unit: bool = False  # a percent form or a currency right beside it


def _readings(written: str, hints: Hints) -> set[str]:
    """Every canonical value a written number can stand for."""
    marks = [ch for ch in written if ch in ".,"]
    if len(marks) == 1 and not any(ch in GROUP_MARKS for ch in written):
        head, _, tail = written.partition(marks[0])
        if len(tail) == 3:
            if hints.decimal:  # the page said which mark is its decimal one
                return {canonical_number(written, decimal_only=marks[0] == hints.decimal)}
            return {canonical_number(written), canonical_number(written, decimal_only=True)}
    return {canonical_number(written)}


def _valid(year: int, month: int, day: int | None) -> bool:
    return 1800 <= year <= 2200 and 1 <= month <= 12 and (day is None or 1 <= day <= 31)


_WORDS_RE = re.compile(rf"({_L}+)(?:[ \u00a0]({_L}+))?")
_LAST_WORD_RE = re.compile(rf"({_L}+)[ \u00a0]?$")


def _has_unit(text: str, start: int, end: int) -> bool:
    table = sets()
    after = text[end : end + 24].lstrip(GROUP_MARKS)
    before = text[max(0, start - 24) : start].rstrip(GROUP_MARKS)
    if after[:1] == "%" or before[-1:] == "%":
        return True
    words = _WORDS_RE.match(after)  # "Prozent", "per cent", "pour cent"
    if words:
        first = words.group(1).casefold()
        if first in table["percent_after"] or (
            words.group(2) and f"{first} {words.group(2).casefold()}" in table["percent_after"]
        ):
            return True
    last = _LAST_WORD_RE.search(before)  # "yüzde 5"
    if last and last.group(1).casefold() in table["percent_before"]:
        return True
    for size in table["symbol_sizes"]:
        if after[:size] in table["symbols"] or before[-size:] in table["symbols"]:
            return True
    code_after = _CODE_RE.match(after)
    if code_after and code_after.group(0) in table["codes"] and not after[3:4].isalpha():
        return True
    return before[-3:] in table["codes"] and not before[-4:-3].isalpha()


class PageIndex:
    """Every number and date of one page text, indexed by canonical form."""

    def __init__(self, text: str, lang: str | None = None, host: str | None = None) -> None:
        self.text = text
        self.hints = hints_for(lang, host) if (lang or host) else NO_HINTS
        self._norm = normalize(text)
        self.numbers: dict[str, list[Hit]] = defaultdict(list)
        self.dates: dict[str, list[Hit]] = defaultdict(list)
        self._index_numbers()
        self._index_dates()

    def _hit(self, start: int, end: int, unit: bool = False) -> Hit:
        lo, hi = self._norm.original(start), self._norm.original_end(end)
        return Hit(lo, hi, self.text[lo:hi], unit)

    def _index_numbers(self) -> None:
        text = self._norm.text
        for m in _NUMBER_RE.finditer(text):
            written, start, end = m.group(0), m.start(), m.end()
            readings = _readings(written, self.hints)
            compact = compact_after(text, end, self.hints)
            if compact:
                power = compact[0]
                for reading in list(readings):
                    whole, _, frac = reading.partition(".")
                    factor = 10**power
                    readings.add(str(int(whole) * factor + (int(frac) * factor // 10 ** len(frac) if frac else 0)))
            hit = self._hit(start, end, _has_unit(text, start, end))
            for reading in readings:
                self.numbers[reading].append(hit)
            if any(ch in GROUP_MARKS for ch in written):  # "2 500" may also be two numbers
                offset = start
                for part in re.split(rf"[{_G}]", written):
                    self.numbers[canonical_number(part)].append(self._hit(offset, offset + len(part)))
                    offset += len(part) + 1

    def _add_date(self, year: int, month: int | None, day: int | None, start: int, end: int) -> None:
        if month is None or not _valid(year, month, day):
            return
        hit = self._hit(start, end)
        self.dates[f"{year:04d}-{month:02d}"].append(hit)
        if day is not None:
            self.dates[f"{year:04d}-{month:02d}-{day:02d}"].append(hit)

    def _month(self, name: str) -> int | None:
        numbered = re.fullmatch(r"\D+\s(\d{1,2})", name)
        return int(numbered.group(1)) if numbered else month_number(name, self.hints)

    def _index_dates(self) -> None:
        text = self._norm.text
        for m in _NUMERIC_DATE_RE.finditer(text):
            a, sep, b, c = m.group(1), m.group(2).strip(), int(m.group(3)), m.group(4)
            if len(a) == 4:  # year first: Y-M-D everywhere
                if len(c) <= 2:
                    self._add_date(int(a), b, int(c), m.start(), m.end())
                continue
            if len(c) != 4 or len(a) > 2:
                continue
            first, year = int(a), int(c)
            month_first = sep != "." and (self.hints.month_first or b > 12)
            if month_first and first <= 12:
                self._add_date(year, first, b, m.start(), m.end())
            else:  # dots are day-first wherever they are used; so is most of the world
                self._add_date(year, b, first, m.start(), m.end())
        for rx in (_DMY_RE, _YMD_RE, _YDM_RE):
            for m in rx.finditer(text):
                day = m.group("d")
                self._add_date(int(m.group("y")), self._month(m.group("mon")), int(day) if day else None,
                               m.start(), m.end())
        for y in _YEAR_RE.finditer(text):
            back = _MY_BACK_RE.search(text, max(0, y.start() - 40), y.start())
            if back:
                day = back.group("d")
                self._add_date(int(y.group(0)), self._month(back.group("mon")), int(day) if day else None,
                               back.start(), y.end())
        for m in _YEAR_MONTH_RE.finditer(text):
            year, month = int(m.group(0)[:4]), int(m.group(1))
            if month != (year + 1) % 100:  # "2011-12": the fiscal year, not December 2011
                self._add_date(year, month, None, m.start(), m.end())
        for m in _CJK_RE.finditer(text):
            day = m.group("d")
            self._add_date(int(m.group("y")), int(m.group("m")), int(day) if day else None, m.start(), m.end())

    def find_number(self, canonical: str) -> list[Hit]:
        return self.numbers.get(canonical, [])

    def find_date(self, norm: str) -> list[Hit]:
        return self.dates.get(norm, [])

    def find_written(self, written: str) -> list[Hit]:
        """The claim's own spelling of a figure, verbatim but for runs of spaces, never inside a
        longer word or number ("5%" is not in "15%", "2023-12" not in "2023-12-05")."""
        spelling = normalize(written.strip()).text
        if not spelling:
            return []
        pattern = r"\s+".join(re.escape(part) for part in _SPACE_RUN_RE.split(spelling))
        if spelling[0].isalnum():
            pattern = r"(?<![\w.,])" + pattern
        if spelling[-1].isalnum():
            pattern += r"(?![\w-]|[.,]\d)"
        return [self._hit(m.start(), m.end()) for m in re.finditer(pattern, self._norm.text)]

    def find_statute(self, ident: str) -> list[Hit]:
        """The id on word boundaries; hyphens, slashes and spaces may vary."""
        parts = [re.escape(p) for p in re.split(r"[-\u2010\u2011\u2012\u2013/ .]+", ident) if p]
        if not parts:
            return []
        pattern = r"(?<![\w])" + r"\s?[-\u2010\u2011\u2012\u2013/.]?\s?".join(parts) + r"(?![\w])"
        return [self._hit(m.start(), m.end()) for m in re.finditer(pattern, self._norm.text, re.IGNORECASE)]
