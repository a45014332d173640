"""Find a claim's figures on a page, whatever the page's locale writes them like.

Claims and pages meet on canonical forms (``values.canonical_number`` and ISO dates):

* numbers: decimal comma or point; thousands grouped by space, NBSP, narrow NBSP, thin
  space, dot, comma or apostrophe, or not at all; a lone separator before exactly three
  digits is ambiguous ("1.500" is 1500 in Berlin, 1.5 in London) and stands for both;
  "2 million" / "2 Mio." / "2M" also stand for 2000000;
* boundaries: a number is read whole, so a claimed 5.81 never matches 15.81 or 5.812;
* units: a percent form (``%``, ``pour cent``, ``per cent``, ``percent``) or a currency
  symbol/code next to the number is recorded, which makes a short figure specific;
* dates: ISO, ``01/04/2025`` (and the US reading when both parts are <= 12),
  ``1 April 2025``, ``April 1, 2025``, ``1er avril 2025``, ``1. April 2025``,
  ``1 de abril de 2025``, ``April 2025`` — month names in en/fr/de/es/it/pt/nl;
* statute ids: the id itself on word boundaries, any hyphen variant.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from sv_scrapy.core.locale import GROUP_MARKS, month_number
from sv_scrapy.core.values import CURRENCY_CODES, DMY_RE, MDY_RE, MY_RE, canonical_number

_G = re.escape(GROUP_MARKS)
_NUMBER_RE = re.compile(rf"(?<![\d])(?:\d{{1,3}}(?:[{_G}.,]\d{{3}})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?)(?![\d])")
_MULT_AFTER_RE = re.compile(
    r"\s?(million|millions|mn|m|bn|billion|billions|milliard|milliards|mio\.?|mrd\.?|k)\b", re.IGNORECASE
)
_MULT = {"k": 10**3, "m": 10**6, "mn": 10**6, "million": 10**6, "millions": 10**6, "mio": 10**6,
         "bn": 10**9, "billion": 10**9, "billions": 10**9, "milliard": 10**9, "milliards": 10**9, "mrd": 10**9}
_PCT_AFTER_RE = re.compile(r"\s?(?:%|pour\s?cent|per\s?cent|percent|pct\b|pp\b|prozent|por\s?ciento)", re.IGNORECASE)
_CCY_NEAR_RE = re.compile(rf"[€£$¥₹₩₱₪฿]|\b(?:{CURRENCY_CODES})\b")
_ISO_RE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_NUMERIC_DATE_RE = re.compile(r"\b(\d{1,2})[./-](\d{1,2})[./-](\d{4})\b")


@dataclass(frozen=True)
class Hit:
    """Where a figure was found, and how the page wrote it."""

    start: int
    end: int
    written: str
    unit: bool = False  # a percent form or a currency right beside it


def _readings(written: str) -> set[str]:
    """Every canonical value a written number can stand for."""
    marks = [ch for ch in written if ch in ".,"]
    readings = {canonical_number(written)}
    if len(marks) == 1 and not any(ch in GROUP_MARKS for ch in written):
        head, _, tail = written.partition(marks[0])
        if len(tail) == 3:
            readings.add(canonical_number(written, decimal_only=True))
    return readings


def _valid(year: int, month: int, day: int | None) -> bool:
    return 1800 <= year <= 2200 and 1 <= month <= 12 and (day is None or 1 <= day <= 31)


class PageIndex:
    """Every number and date of one page text, indexed by canonical form."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.numbers: dict[str, list[Hit]] = defaultdict(list)
        self.dates: dict[str, list[Hit]] = defaultdict(list)
        self._index_numbers()
        self._index_dates()

    def _index_numbers(self) -> None:
        text = self.text
        for m in _NUMBER_RE.finditer(text):
            written, start, end = m.group(0), m.start(), m.end()
            after = text[end : end + 16]
            before = text[max(0, start - 5) : start]
            unit = bool(_PCT_AFTER_RE.match(after)) or bool(
                _CCY_NEAR_RE.search(before) or _CCY_NEAR_RE.match(after.lstrip())
            )
            readings = _readings(written)
            mult = _MULT_AFTER_RE.match(after)
            if mult:
                factor = _MULT[mult.group(1).lower().rstrip(".")]
                for reading in list(readings):
                    whole, _, frac = reading.partition(".")
                    scaled = int(whole) * factor + (int(frac) * factor // 10 ** len(frac) if frac else 0)
                    readings.add(str(scaled))
            hit = Hit(start, end, written, unit)
            for reading in readings:
                self.numbers[reading].append(hit)
            if any(ch in GROUP_MARKS for ch in written):  # "2 500" may also be two numbers
                offset = start
                for part in re.split(rf"[{_G}]", written):
                    self.numbers[canonical_number(part)].append(Hit(offset, offset + len(part), part))
                    offset += len(part) + 1

    def _add_date(self, year: int, month: int, day: int | None, start: int, end: int) -> None:
        if not _valid(year, month, day):
            return
        hit = Hit(start, end, self.text[start:end])
        self.dates[f"{year:04d}-{month:02d}"].append(hit)
        if day is not None:
            self.dates[f"{year:04d}-{month:02d}-{day:02d}"].append(hit)

    def _index_dates(self) -> None:
        text = self.text
        for m in _ISO_RE.finditer(text):
            self._add_date(int(m.group(1)), int(m.group(2)), int(m.group(3)), m.start(), m.end())
        for m in _NUMERIC_DATE_RE.finditer(text):
            first, second, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
            self._add_date(year, second, first, m.start(), m.end())  # day first: most of the world
            if first <= 12 and second != first:
                self._add_date(year, first, second, m.start(), m.end())  # the US reading
        for rx in (DMY_RE, MDY_RE):
            for m in rx.finditer(text):
                month = month_number(m.group("mon"))
                if month:
                    self._add_date(int(m.group("y")), month, int(m.group("d")), m.start(), m.end())
        for m in MY_RE.finditer(text):
            month = month_number(m.group("mon"))
            if month:
                self._add_date(int(m.group("y")), month, None, m.start(), m.end())

    def find_number(self, canonical: str) -> list[Hit]:
        return self.numbers.get(canonical, [])

    def find_date(self, norm: str) -> list[Hit]:
        return self.dates.get(norm, [])

    def find_statute(self, ident: str) -> list[Hit]:
        """The id on word boundaries; hyphens, slashes and spaces may vary."""
        parts = [re.escape(p) for p in re.split(r"[-\u2010\u2011\u2012\u2013/ .]+", ident) if p]
        if not parts:
            return []
        pattern = r"(?<![\w])" + r"\s?[-\u2010\u2011\u2012\u2013/.]?\s?".join(parts) + r"(?![\w])"
        return [Hit(m.start(), m.end(), m.group(0)) for m in re.finditer(pattern, self.text, re.IGNORECASE)]
