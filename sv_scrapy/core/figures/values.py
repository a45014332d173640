"""Figure tokens in a claim sentence: percentages, money, statute ids, dates, years.

Each :class:`Value` carries ``raw`` (as written), ``norm`` (a canonical form the page-side
matcher compares against: ``"5.81"``, ``"1500000 EUR"``, ``"2025-04-01"``) and
``needles`` (the seed's literal search strings, the claim's own spelling ``raw`` always among
them: the page-side matcher falls back to it, ``PageIndex.find_written``). A bare year is
never salient, nor the year in a statute's name ("Act 1993"); "ranked No. 1" is an ordinal,
but "(No. 2) Regulations" and "Circular No. 5" number an instrument, and so, in any
language, does a number over a year after a capitalised word ("DL 97/2026", "Portaria n.º 352/2024/1").

The caller masks URLs and the tracker's own stamp dates first (``claims.mask_line``), so
they can never become claim values.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sv_scrapy.core.figures.locale import GROUP_MARKS, compact_after, month_number, sets

_G = re.escape(GROUP_MARKS)
# a number as a claim writes it: grouped thousands (1,500,000 / 1.500.000 / 1 500 000),
# then an optional decimal part; or plain digits with an optional decimal part
_NUM = (
    rf"\d{{1,2}}(?:,\d\d)+,\d{{3}}(?:\.\d+)?(?!\d)"  # Indian grouping: 24,50,000.00
    rf"|\d{{1,3}}(?:[,.{_G}]\d{{3}})+(?:[.,]\d+)?(?!\d)|\d+(?:[.,]\d+)?"
)
# every ISO 4217 code in use (CLDR), checked after a three-capital match: an alternation
# of ~160 codes tried at each word is slow; "RMB" is what playbooks write for CNY
CURRENCY_CODES = frozenset(sets()["codes"]) | {"RMB"}
# local symbols (CLDR): longest first; one-letter ASCII symbols ("R", "K") are left out
_SYMBOLS = frozenset(s for s in sets()["symbols"] if not s.isalpha() or len(s) > 1)
_SYMBOL_SIZES = sorted({len(s) for s in _SYMBOLS}, reverse=True)
_SYMBOL_LAST = frozenset(s[-1] for s in _SYMBOLS)
_SYMBOL_FIRST = frozenset(s[0] for s in _SYMBOLS)
_SIGNS = "€£$¥₹₩₱₪฿₽₴₺₸₾₼₫₦₭₮₲৳៛"  # a sign with up to three capitals before it: "HK$", "CI$"

PCT_RE = re.compile(
    r"(?P<num>[0-9](?<![\w.,][0-9])\d{0,2}(?:[.,]\d+)?)\s?(?:%|pp\b|p\.p\.|percentage points?\b|per ?cent\b|pour cent\b)",
    re.IGNORECASE,
)
_NUMBER_RE = re.compile(
    rf"[0-9](?<![\w.,][0-9])(?:\d?(?:,\d\d)+,\d{{3}}(?:\.\d+)?(?!\d)|\d{{0,2}}(?:[,.{_G}]\d{{3}})+(?:[.,]\d+)?(?!\d)"
    rf"|\d*(?:[.,]\d+)?)"
)  # _NUM, with its first digit first: a leading lookbehind costs the engine its skip to digits
_SPACES = " \u00a0"
_DIGIT_NEXT_RE = re.compile(r"[ \u00a0]?\d")
_CODE_AFTER_RE = re.compile(r"[A-Z]{3}(?![\w-])")  # "COP-26" is a conference, not pesos
_HYPHEN_ID_RE = re.compile(r"[-‐–]\w")
_PEG_AFTER_RE = re.compile(r"\s?[=≈]")  # "1 USD = 7.8 HKD": a lone unit of a currency, pegged
MONEY_CODE_BEFORE_RE = re.compile(rf"(?P<ccy>[A-Z](?<!\w[A-Z])[A-Z]{{2}})\s?(?P<num>{_NUM})")
ISO_DATE_RE = re.compile(r"(?P<y>[0-9](?<!\w[0-9])\d{3})-(?P<m>\d{2})-(?P<d>\d{2})\b")
# "14-1-2026", "01/04/2025", "31.12.2024", "26/03/1426 AH": day first (dotted ones always, most
# of the world otherwise) unless only month-first can be a date; the page side reads both ways
NUMERIC_DATE_RE = re.compile(
    r"(?P<a>[0-9](?<![\w.,/-][0-9])\d?)(?P<sep>[./-])(?P<b>\d{1,2})(?P=sep)(?P<y>\d{4})(?![\w/-]|[.,]\d)"
)
# "(effective 2023-12)": a month; "2024-25" or "2011-12" is a fiscal year (checked in _date)
YEAR_MONTH_RE = re.compile(r"(?P<y>[12](?<![\w-][12])\d(?<=19|20)\d{2})-(?P<m>0[1-9]|1[0-2])(?![\w-])")
# month names: any word, checked against CLDR's month table afterwards — a regex
# alternation of thousands of month names tried at every word boundary is far slower
_MON_WORD = r"(?P<mon>[dl][’'][^\W\d_]{2,12}|[^\W\d_]{3,12})\.?"  # with an elided article: "1 d’agost 2025"
DMY_RE = re.compile(
    rf"(?P<d>[0-9](?<!\w[0-9])\d?)(?:st|nd|rd|th|er|\.)?\s(?:de\s)?{_MON_WORD},?\s(?:de\s)?(?P<y>\d{{4}})\b",
    re.IGNORECASE,
)
# month first ("April 1, 2025", "Oct 2025", "octubre de 2025"), found from their year backwards:
# a forward pattern tries every word of the line, and most words are no month
_MONTH_FIRST_RE = re.compile(
    rf"\b{_MON_WORD}\s(?:(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s|de\s)?(?P<y>\d{{4}})\Z", re.IGNORECASE
)
_YEAR_AFTER_SPACE_RE = re.compile(r"[0-9](?<=\s[0-9])\d{3}(?!\w)")
_MONTH_FIRST_REACH = 32  # "September 30th, " and a little: where a month-first date starts before its year


def _month_first(text: str) -> Iterator[re.Match[str]]:
    """Month-first dates in reading order, one regex search in a short window before each year."""
    last = 0
    for year in _YEAR_AFTER_SPACE_RE.finditer(text):
        m = _MONTH_FIRST_RE.search(text, max(last, year.start() - _MONTH_FIRST_REACH), year.end())
        if m:
            last = m.end()
            yield m


# an instrument and its number as the Commonwealth and civil-law corpora write it: the word
# or abbreviation ("Act", "Cap.", "Chap.", "s."/"ss.", "§", "Art."/"Arts", "Reg", "S.I."), an
# optional "No." ("Act No. 10", "Decreto n° 8"), then the number with what belongs to it —
# "883/2004", "70:07", "6–7", "2(1)(e)", "10 of 2017", "2024 No. 57". "Arts", "Reg" and "Chap"
# without their dot are capitalised words ("arts 3 venues" is prose); "s."/"ss." only in
# lower case ("U.S. 5" is no section)
STATUTE_RE = re.compile(
    # the first letters of every keyword, as a lookahead: the engine tests one character class at
    # each position instead of trying the whole alternation (twice as fast on a playbook)
    r"(?=[ACDGLNORS§])"
    r"(?P<kw>\b(?:(?:Loi|Law|Ley|Llei|Legge|Lei|Gesetz|Decreto|D[ée]cret|Decree|Regulation|Act|Chapter|Article"
    r"|Art[íi]culo|Artigo|Articolo|Artikel|Ordinance|Section)s?\b"
    r"|Reg\.|(?-i:Reg|Chap|Arts?)\b|Chap\.|Cap\.?|Arts?\.|No\.?|n\.?[°º]|Nr\.?|(?-i:ss?)\.|S\.\s?I\.)|§§?)"
    r"\s?(?P<no>(?:No\b\.?|n\.?[°º]|Nr\b\.?|n[úu]m\.)\s?)?"
    r"(?P<id>(?:(?-i:[A-Z]{1,4})[-\s/])?\d[\w./:\u2013-]*(?:\(\w{1,4}\))*"
    r"(?:,?\s(?:of|de|du|del)\s\d{4}(?!\d)|\sNo\.?\s?\d+)?)",
    re.IGNORECASE,
)
# "(No. 2) Regulations": the ordinal in parentheses that tells an instrument from its namesake
_ORDINAL_TITLE_RE = re.compile(
    r"\)\s?(?:Amendment\s)?(?:Regulations?|Rules?|Orders?|Acts?|Laws?|Ordinances?|Bills?|Decrees?)\b", re.IGNORECASE
)
# a civil-law instrument's id: a number (a letter may follow: "29926-A") over a four-digit year,
# an optional sub-number after ("352/2024/1"), found from the number; it names an instrument only
# after the instrument's word — any capitalised word, whatever its language ("Portaria",
# "Aviso", "Resolución"), its capitals ("DL") or a dotted abbreviation ("D.Lgs.", "L.", "Ν."),
# with an optional "n.º"/"No."/"núm." between —
# so no list of each language's instrument names is kept
_NUMBER_YEAR_RE = re.compile(r"[0-9](?<![\w./-][0-9])\d*(?:-[A-Z])?/(?:19|20)\d\d(?:/\d{1,3})?(?![\w/]|[.,]\d)")
_NAMED_BEFORE_RE = re.compile(
    r"(?<![\w.-])(?P<kw>[^\W\d_]+(?:[-.][^\W\d_]+)*\.?)\s(?:(?:No\b\.?|Nr\b\.?|n\.?[°º]|n[úu]m\.)\s?)?\Z", re.IGNORECASE
)
_NAMED_REACH = 40  # "Resolución Exenta n.º " and a little: where the instrument's word starts before its number
YEAR_RE = re.compile(r"[12](?<![\d.,][12])\d(?<=19|20)\d{2}(?![\d.,]\d)")

# a statute number "reads as a year" up to next year: "Act 1882" is named after its year,
# "Law 2090" or "Decree 2045" cannot be
_LAST_YEAR = datetime.date.today().year + 1
_ORDINAL_KEYWORDS = {"no", "no.", "n°", "nº", "n.°", "n.º", "nr", "nr."}
# "Circular No. 5", "Resolution No. 3": an instrument's word before a short "No." makes it an id
_INSTRUMENT_BEFORE_RE = re.compile(
    r"(?:Resolution|Decision|Circular|Notice|Notification|Order|Rules?|Directive|Proclamation|Instruction|Gazette"
    r"|Bill|Code|Law|Decree|Act|Regulations?|Ordinance|Royal Decree|Legal Notice)s?,?\s?\Z"
)


@dataclass(slots=True)
class Value:
    """One figure token of a claim sentence."""

    type: str  # pct | money | statute | date | year
    raw: str
    norm: str
    needles: list[str] = field(default_factory=list)
    salient: bool = True
    pos: int = 0  # span in the masked line, for nearest-link attribution
    end: int = 0

    def as_dict(self) -> dict[str, object]:
        return {"type": self.type, "raw": self.raw, "norm": self.norm, "needles": self.needles, "salient": self.salient}


# a span that is consumed but yields no value (the ordinal "No.2")
_RESERVED = Value("reserved", "", "")


def canonical_number(text: str, decimal_only: bool = False) -> str:
    """Canonical decimal string of a written number: no grouping, ``.`` as decimal mark.

    A lone separator followed by exactly three digits groups thousands ("1,500" ->
    "1500"), unless ``decimal_only`` (percentages are never in the thousands).

    >>> [canonical_number(s) for s in ("1,500,000", "1.500.000,50", "6,32", "300 000", "5.810")]
    ['1500000', '1500000.5', '6.32', '300000', '5810']
    >>> canonical_number("5.810", decimal_only=True)
    '5.81'
    """
    t = "".join(ch for ch in text if ch not in GROUP_MARKS)
    marks = [ch for ch in t if ch in ".,"]
    if not marks:
        whole, frac = t, ""
    elif len(set(marks)) == 2:  # both kinds: the last one is the decimal mark
        dec = marks[-1]
        grouping = "," if dec == "." else "."
        whole, _, frac = t.replace(grouping, "").rpartition(dec)
    elif len(marks) > 1:  # one kind repeated: grouping
        whole, frac = t.replace(marks[0], ""), ""
    else:
        head, _, tail = t.partition(marks[0])
        if not decimal_only and len(tail) == 3 and 1 <= len(head) <= 3 and not head.startswith("0"):
            whole, frac = head + tail, ""
        else:
            whole, frac = head, tail
    whole = whole.lstrip("0") or "0"
    frac = frac.rstrip("0")
    return f"{whole}.{frac}" if frac else whole


def _number_variants(num: str) -> list[str]:
    """The written core plus its other-separator and ungrouped forms (seed needles)."""
    core = num.strip(".,")
    out = {core, core.replace(",", "."), core.replace(".", ","), canonical_number(core)}
    for space in GROUP_MARKS:
        core = core.replace(space, "")
    out.add(core)
    return sorted(out, key=len, reverse=True)


class _Found:
    """A match-like record for figures found without one regex: a number and its symbol."""

    def __init__(self, text: str, span: tuple[int, int], groups: dict[str, tuple[int, int]]) -> None:
        self.string, self._span, self._groups = text, span, groups

    def start(self, name: str | None = None) -> int:
        return self._groups[name][0] if name else self._span[0]

    def end(self, name: str | None = None) -> int:
        return self._groups[name][1] if name else self._span[1]

    def group(self, name: str | int = 0) -> str:
        lo, hi = self._groups[name] if isinstance(name, str) else self._span
        return self.string[lo:hi]

    def groupdict(self) -> dict[str, str | None]:
        return {k: self.group(k) for k in self._groups}


def _symbol_before(text: str, start: int) -> tuple[int, int] | None:
    j = start - 1 if start and text[start - 1] in _SPACES else start
    if text[j - 1] in _SIGNS:
        lo = j - 1
        while lo > j - 4 and lo and text[lo - 1].isupper():
            lo -= 1
        return lo, j
    for size in _SYMBOL_SIZES:
        lo = j - size
        if lo >= 0 and text[lo:j] in _SYMBOLS and not (text[lo].isalnum() and lo and text[lo - 1].isalnum()):
            return lo, j
    return None


def _symbol_after(text: str, end: int) -> int | None:
    k = end + 1 if text[end : end + 1] in _SPACES else end
    if k >= len(text):
        return None
    code = _CODE_AFTER_RE.match(text, k)
    if code and code.group(0) in CURRENCY_CODES:
        return k + 3
    if text[k] not in _SYMBOL_FIRST:
        return None
    if text[k] in _SIGNS:
        return k + 1
    for size in _SYMBOL_SIZES:
        if k + size <= len(text) and text[k : k + size] in _SYMBOLS and not text[k + size : k + size + 1].isalnum():
            return k + size
    return None


def _symbol_money(text: str) -> Iterator[_Found]:
    """Numbers with a currency symbol before ("R$ 1,3", "HK$500") or a symbol or ISO code
    after ("1 500 ₴", "1,25 mln zł", "300,000 EUR"): anchored on the numbers, since an
    alternation of every CLDR symbol tried at each character is slow."""
    for m in _NUMBER_RE.finditer(text):
        start, end = m.span()
        # cheap tests first: a dense line holds ~10^5 numbers, few beside a symbol
        prev = text[start - 1] if start else ""
        if prev and prev in _SPACES:
            prev = text[start - 2] if start > 1 else ""
        before = _symbol_before(text, start) if prev and prev in _SYMBOL_LAST else None
        if before is not None:
            yield _Found(text, (before[0], end), {"ccy": before, "num": (start, end)})
            continue
        nxt = text[end : end + 1]
        if nxt and nxt in _SPACES:
            nxt = text[end + 1 : end + 2]
        if not nxt or not (nxt in _SYMBOL_FIRST or nxt.isalpha()):  # codes start with a letter
            continue
        compact = compact_after(text, end) if nxt.isalpha() else None
        stop = compact[1] if compact else end
        hi = _symbol_after(text, stop)
        if hi is not None and not _DIGIT_NEXT_RE.match(text, hi):  # "2025 ₩10,030": ₩ leads the next one
            ccy_lo = hi - len(text[stop:hi].lstrip(_SPACES))
            groups = {"num": (start, end), "ccy": (ccy_lo, hi)}
            if compact:
                groups["mult"] = (end, stop)
            yield _Found(text, (start, hi), groups)


def _money(m: re.Match[str] | _Found) -> Value | None:
    ccy, num = m.group("ccy"), m.group("num")
    if ccy.isalpha() and ccy.isupper() and len(ccy) == 3 and ccy not in CURRENCY_CODES:
        return None  # three capitals that are no currency: "ACT 2024"
    text, end = m.string, m.end()
    if text.startswith(ccy, m.start()) and m.start("num") == m.start() + len(ccy) and _HYPHEN_ID_RE.match(text, end):
        return None  # "SSP2-4.5", "SSP5-8.5": a glued code, number and hyphen make an identifier
    mult = m.groupdict().get("mult")
    if num == "1" and not mult and ccy.isupper() and m.start("ccy") > m.start("num") and not _PEG_AFTER_RE.match(text, end):
        # "1 SAR" (one Special Administrative Region): one unit of a currency is a peg's base
        # ("1 USD = 7.8 HKD"), never an amount on its own; a code after it is an acronym
        return None
    if mult:  # written between the number and a code/symbol after it: must be a compact form
        compact = compact_after(text, m.end("num"))
        if not compact or compact[1] < m.end("num") + len(mult.rstrip(".")):
            return None
        power = compact[0]
    else:
        compact = compact_after(text, end) if m.end("num") == end else None
        power = compact[0] if compact else 0
        end = compact[1] if compact else end
    amount = canonical_number(num)
    needles = _number_variants(num)
    if power:
        factor = 10**power
        whole, _, frac = amount.partition(".")
        scaled = int(whole) * factor + (int(frac) * factor // 10 ** len(frac) if frac else 0)
        amount = str(scaled)
        needles = sorted({*needles, str(scaled), f"{scaled:,}"}, key=len, reverse=True)
    value = Value("money", text[m.start() : end].strip(), f"{amount} {ccy}", needles)
    value.end = end
    return value


def _pct(m: re.Match[str]) -> Value:
    num = m.group("num")
    return Value("pct", m.group(0).strip(), canonical_number(num, decimal_only=True), _number_variants(num))


def _date(m: re.Match[str]) -> Value | None:
    groups = m.groupdict()
    year = int(groups["y"])
    if groups.get("m") and not groups.get("d") and int(groups["m"]) == (year + 1) % 100:
        return None  # "2011-12": the fiscal year, not December 2011
    name = groups.get("mon") or ""
    if name and m.string[m.end("mon") : m.end("mon") + 1] == ".":
        name += "."  # "avr." is an abbreviation, a bare "out" may be prose
    month = int(groups["m"]) if groups.get("m") else month_number(name)
    day = int(groups["d"]) if groups.get("d") else None
    return _date_value(m, year, month, day)


def _numeric_date(m: re.Match[str]) -> Value | None:
    first, second = int(m.group("a")), int(m.group("b"))
    month_first = m.group("sep") != "." and first <= 12 < second
    day, month = (second, first) if month_first else (first, second)
    return _date_value(m, int(m.group("y")), month, day)


def _date_value(m: re.Match[str], year: int, month: int | None, day: int | None) -> Value | None:
    if month is None or not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
        return None
    norm = f"{year:04d}-{month:02d}" + (f"-{day:02d}" if day else "")
    needles = [norm, str(year)]
    mon = m.groupdict().get("mon")
    if mon:
        needles.append(mon.rstrip("."))
    return Value("date", m.group(0).strip(), norm, needles)


def _reads_as_year(number: str, m: re.Match[str]) -> bool:
    """Up to next year it is a year; a later one only when the line also uses it as a year
    nearby ("Climate Action Plan 2050 … before 2050" — the window keeps this linear)."""
    if len(number) != 4 or not 1800 <= int(number) <= 2100:  # int() refuses past 4,300 digits
        return False
    if int(number) <= _LAST_YEAR:
        return True
    window = m.string[max(0, m.start() - 300) : m.end() + 300]
    return len(re.findall(rf"(?<![\d.,]){number}(?![\d.,]\d)", window)) > 1


_HIJRI_ERA = re.compile(r"\s?(?:AH|A\.H\.|H|هـ)(?![^\W\d_])")  # the Islamic calendar's era after a year


def _hijri_year(ident: str, m: re.Match[str]) -> bool:
    """"AML Law 1439 AH": a year of the Hijri calendar names the law, as "Act 1993" does; not an id."""
    # isdecimal, not isdigit: "art. 1²" (a footnote mark) is digits to isdigit and not to int()
    return ident.isdecimal() and len(ident) == 4 and 1300 <= int(ident) <= 1500 and bool(_HIJRI_ERA.match(m.string, m.end()))


def _instrument_number(m: re.Match[str]) -> bool:
    """A short "No. N" that numbers an instrument: in its title ("(No. 2) Regulations") or after
    the instrument's word ("Circular No. 5")."""
    text, start = m.string, m.start()
    if text[start - 1 : start] == "(" and _ORDINAL_TITLE_RE.match(text, m.end("id")):
        return True
    return bool(_INSTRUMENT_BEFORE_RE.search(text, max(0, start - 24), start))


_YEAR_IN_ID_RE = re.compile(r"\s(?:of|de|du|del)\s\d{4}\Z|/\d{4}")


def numbers_instrument(text: str, value: Value) -> bool:
    """Whether a "No." id of ``text`` (``value``, a statute) numbers an instrument, not a page or a
    record ("NTA No.15001"): its year is part of it ("No. 50 of 2024", "n.º 352/2024") or an
    instrument's word stands before it ("Circular No. 31207")."""
    if _YEAR_IN_ID_RE.search(value.raw):
        return True
    return bool(_INSTRUMENT_BEFORE_RE.search(text, max(0, value.pos - 24), value.pos))


def _statute(m: re.Match[str]) -> Value | None:
    keyword = m.group("kw").lower()
    ident = m.group("id").rstrip(".,;:")
    while ident.endswith(")") and ident.count(")") > ident.count("("):
        ident = ident[:-1]
    ordinal = keyword in _ORDINAL_KEYWORDS
    if ordinal and re.fullmatch(r"\d{1,2}", ident) and not _instrument_number(m):
        return _RESERVED  # "ranked No. 1", "No. 3 of the list": an ordinal, not an instrument
    numbered = (m.group("kw") if ordinal else m.group("no") or "").strip()
    digits = re.findall(r"\d+", ident)
    # the id as a page would search it: a short number keeps its "No." ("No. 2" is specific,
    # a bare "2" is on every page); a long one stands alone ("10 of 2017" in "Act 10 of 2017")
    norm = f"{numbered} {ident}" if numbered and len(re.sub(r"\W", "", ident)) < 3 else ident
    raw = m.string[m.start() : m.start("id") + len(ident)]
    needles = sorted({raw, norm, ident, *(d for d in digits if len(d) >= 2)}, key=len, reverse=True)
    # "Act 1993": the year names the statute; landing pages rarely restate it. Only a lone
    # number that reads as a year: "Ley 2068/2020" and "Law 2090" are ids
    salient = not (len(digits) == 1 and (_reads_as_year(digits[0], m) or _hijri_year(ident, m)))
    return Value("statute", raw, norm, needles, salient)


def _named_ids(text: str) -> Iterator[_Found]:
    """"DL 97/2026", "Portaria n.º 352/2024/1": a number/year id after a capitalised word. A
    year over a year ("2024/2025") is a range, never an id."""
    for m in _NUMBER_YEAR_RE.finditer(text):
        start, end = m.span()
        number = text[start : text.index("/", start)]
        if len(number) == 4 and number[:2] in ("19", "20"):
            continue
        name = _NAMED_BEFORE_RE.search(text, max(0, start - _NAMED_REACH), start)
        if name and name.group("kw")[0].isupper():
            yield _Found(text, (name.start(), end), {"id": (start, end)})


def _named_id(m: _Found) -> Value:
    ident = m.group("id")
    needles = sorted({m.group(0), ident, *(d for d in re.findall(r"\d+", ident) if len(d) >= 2)}, key=len, reverse=True)
    return Value("statute", m.group(0), ident, needles)


def _year(m: re.Match[str]) -> Value:
    return Value("year", m.group(0), m.group(0), [m.group(0)], salient=False)


# most specific first: each pattern reserves its span, so the digits of "€1,500" or of
# "1 Jan 2025" are not read again as a statute or a year. Dates run before statutes so
# "Nov 2024" is not "No." + "v 2024".
_Finder = Callable[[str], Iterator["re.Match[str] | _Found"]]
_EXTRACTORS: tuple[tuple[_Finder, Callable[[Any], Value | None]], ...] = (
    (_symbol_money, _money),
    (MONEY_CODE_BEFORE_RE.finditer, _money),
    (PCT_RE.finditer, _pct),
    (ISO_DATE_RE.finditer, _date),
    (NUMERIC_DATE_RE.finditer, _numeric_date),
    (DMY_RE.finditer, _date),
    (_month_first, _date),
    (_named_ids, _named_id),
    (STATUTE_RE.finditer, _statute),
    (YEAR_MONTH_RE.finditer, _date),
    (YEAR_RE.finditer, _year),
)


_LOW = (1 << 32) - 1


def has_salient(text: str, salient_types: tuple[str, ...] = ("pct", "money", "statute", "date")) -> bool:
    """Whether ``text`` holds a salient figure: ``extract_values`` stopped at the first one
    (exact — spans only ever reserve, so a value accepted early stays accepted)."""
    return bool(extract_values(text, salient_types, _first_salient=True))


def extract_values(
    text: str, salient_types: tuple[str, ...] = ("pct", "money", "statute", "date"), _first_salient: bool = False
) -> list[Value]:
    """Every figure token of ``text`` in reading order; types outside ``salient_types`` are
    kept but marked not salient.

    >>> [(v.type, v.norm, v.salient) for v in extract_values("DMTO 5,81 % since 1 April 2025 (Act 1993)")]
    [('pct', '5.81', True), ('date', '2025-04-01', True), ('statute', '1993', False)]
    """
    # reserved spans, sorted and disjoint, each packed in one int (start << 32 | end): ints
    # are not tracked by the garbage collector, 10^5 tuples are and slow it down
    taken: list[int] = []
    out: list[Value] = []
    for find, build in _EXTRACTORS:
        fresh: list[int] = []
        j = 0
        for m in find(text):
            start = m.start()
            # one pointer walks the sorted spans alongside the (ordered) matches: linear, not
            # a scan of every earlier span per match (a 5 MB line holds ~10^5 figures)
            while j < len(taken) and taken[j] & _LOW <= start:
                j += 1
            if j < len(taken) and taken[j] >> 32 < m.end():
                continue
            value = build(m)
            if value is None:  # not this kind after all: leave the span to later patterns
                continue
            end = value.end or m.end()  # a builder may take a compact form after the match
            if j < len(taken) and taken[j] >> 32 < end:
                continue
            fresh.append(start << 32 | end)
            if value is _RESERVED:
                continue
            value.pos, value.end = start, end
            if value.raw not in value.needles:  # the claim's own spelling is always one of them
                value.needles.append(value.raw)
            if value.type not in salient_types:
                value.salient = False
            out.append(value)
            if _first_salient and value.salient:
                return [value]
        if fresh:
            taken = sorted(taken + fresh)  # two sorted runs: a linear merge
    if _first_salient:
        return []
    out.sort(key=lambda v: v.pos)
    return out
