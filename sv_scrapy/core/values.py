"""Figure tokens in a claim sentence: percentages, money, statute ids, dates, years.

Each :class:`Value` carries ``raw`` (as written), ``norm`` (a canonical form the page-side
matcher compares against: ``"5.81"``, ``"1500000 EUR"``, ``"2025-04-01"``) and
``needles`` (the seed's literal search strings). A bare year is never salient, nor the year
in a statute's name ("Act 1993"), and "(No.2) Regulations" is an ordinal, not a statute.

The caller masks URLs and the tracker's own stamp dates first (``claims.mask_line``), so
they can never become claim values.
"""

from __future__ import annotations

import datetime
import heapq
import re
from dataclasses import dataclass, field

from sv_scrapy.core.locale import GROUP_MARKS, compact_after, month_number, sets

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
_CODE = r"(?P<ccy>[A-Z]{3})(?![\w-])"  # "COP-26" is a conference, not pesos
# local symbols (CLDR): longest first; one-letter ASCII symbols ("R", "K") are left out
_SYMBOLS = sorted((s for s in sets()["symbols"] if not s.isalpha() or len(s) > 1), key=len, reverse=True)
_SYMBOL = r"(?:[A-Z]{1,3})?[€£$¥₹₩₱₪฿₽₴₺₸₾₼₫₦₭₮₲৳៛]|" + "|".join(re.escape(s) for s in _SYMBOLS)

PCT_RE = re.compile(
    r"(?<![\w.,])(?P<num>\d{1,3}(?:[.,]\d+)?)\s?(?:%|pp\b|p\.p\.|percentage points?\b|per ?cent\b|pour cent\b)",
    re.IGNORECASE,
)
_MULT = r"(?P<mult>\s?[^\W\d_]{1,12}\.?(?:\s[^\W\d_]{1,8}\.?)?)??"  # checked against CLDR compact forms
MONEY_SYMBOL_RE = re.compile(rf"(?P<ccy>{_SYMBOL})\s?(?P<num>{_NUM})")
MONEY_CODE_BEFORE_RE = re.compile(rf"\b(?P<ccy>[A-Z]{{3}})\s?(?P<num>{_NUM})")
MONEY_CODE_AFTER_RE = re.compile(rf"(?<![\w.,])(?P<num>{_NUM}){_MULT}\s?{_CODE}")
MONEY_SYMBOL_AFTER_RE = re.compile(rf"(?<![\w.,])(?P<num>{_NUM}){_MULT}\s?(?P<ccy>{_SYMBOL})(?!\w)")
ISO_DATE_RE = re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b")
# "(effective 2023-12)": a month; "2024-25" or "2011-12" is a fiscal year (checked in _date)
YEAR_MONTH_RE = re.compile(r"(?<![\w-])(?P<y>(?:19|20)\d{2})-(?P<m>0[1-9]|1[0-2])(?![\w-])")
# month names: any word, checked against CLDR's month table afterwards — a regex
# alternation of thousands of month names tried at every word boundary is far slower
_MON_WORD = r"(?P<mon>[^\W\d_]{3,12})\.?"
DMY_RE = re.compile(
    rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th|er|\.)?\s(?:de\s)?{_MON_WORD},?\s(?:de\s)?(?P<y>\d{{4}})\b", re.IGNORECASE
)
MDY_RE = re.compile(rf"\b{_MON_WORD}\s(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s(?P<y>\d{{4}})\b", re.IGNORECASE)
MY_RE = re.compile(rf"\b{_MON_WORD}\s(?:de\s)?(?P<y>\d{{4}})\b", re.IGNORECASE)
STATUTE_RE = re.compile(
    r"(?P<kw>\b(?:(?:Loi|Law|Ley|Legge|Lei|Gesetz|Decreto|D[ée]cret|Decree|Regulation|Act|Chapter|Article|Ordinance)s?\b"
    r"|Reg\.|Cap\.?|Art\.|No\.?|n°|nº|Nr\.?)|§)"
    r"\s?(?P<id>(?:(?-i:[A-Z]{1,4})[-\s/])?\d[\w./-]*)",
    re.IGNORECASE,
)
YEAR_RE = re.compile(r"(?<![\d.,])(?:19|20)\d{2}(?![\d.,]\d)")

# a statute number "reads as a year" up to next year: "Act 1882" is named after its year,
# "Law 2090" or "Decree 2045" cannot be
_LAST_YEAR = datetime.date.today().year + 1
_ORDINAL_KEYWORDS = {"no", "no.", "n°", "nº", "nr", "nr."}


@dataclass
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


def _money(m: re.Match[str]) -> Value | None:
    ccy, num = m.group("ccy"), m.group("num")
    if ccy.isalpha() and ccy.isupper() and len(ccy) == 3 and ccy not in CURRENCY_CODES:
        return None  # three capitals that are no currency: "ACT 2024"
    text, end = m.string, m.end()
    if text.startswith(ccy, m.start()) and m.start("num") == m.start() + len(ccy) and re.match(r"[-‐–]\w", text[end:]):
        return None  # "SSP2-4.5", "SSP5-8.5": a glued code, number and hyphen make an identifier
    mult = m.groupdict().get("mult")
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
    month = int(groups["m"]) if groups.get("m") else month_number(groups.get("mon") or "")
    day = int(groups["d"]) if groups.get("d") else None
    if month is None or not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
        return None
    norm = f"{year:04d}-{month:02d}" + (f"-{day:02d}" if day else "")
    needles = [norm, str(year)]
    if groups.get("mon"):
        needles.append(groups["mon"].rstrip("."))
    return Value("date", m.group(0).strip(), norm, needles)


def _reads_as_year(number: str, m: re.Match[str]) -> bool:
    """Up to next year it is a year; a later one only when the line also uses it as a year
    nearby ("Climate Action Plan 2050 … before 2050" — the window keeps this linear)."""
    if not 1800 <= int(number) <= 2100:
        return False
    if int(number) <= _LAST_YEAR:
        return True
    window = m.string[max(0, m.start() - 300) : m.end() + 300]
    return len(re.findall(rf"(?<![\d.,]){number}(?![\d.,]\d)", window)) > 1


def _statute(m: re.Match[str]) -> Value | None:
    keyword = m.group("kw").lower()
    ident = m.group("id").rstrip(".,;:")
    while ident.endswith(")") and ident.count(")") > ident.count("("):
        ident = ident[:-1]
    digits = re.findall(r"\d+", ident)
    if keyword in _ORDINAL_KEYWORDS and re.fullmatch(r"\d{1,2}", ident):
        return _RESERVED  # "(No.2) Regulations": an ordinal in a title, not a statute id
    needles = sorted({ident, *(d for d in digits if len(d) >= 2)}, key=len, reverse=True)
    # "Act 1993": the year names the statute; landing pages rarely restate it. Only a lone
    # number that reads as a year: "Ley 2068/2020" and "Law 2090" are ids
    salient = not (len(digits) == 1 and _reads_as_year(digits[0], m))
    return Value("statute", f"{m.group('kw')} {ident}".strip(), ident, needles, salient)


def _year(m: re.Match[str]) -> Value:
    return Value("year", m.group(0), m.group(0), [m.group(0)], salient=False)


# most specific first: each pattern reserves its span, so the digits of "€1,500" or of
# "1 Jan 2025" are not read again as a statute or a year. Dates run before statutes so
# "Nov 2024" is not "No." + "v 2024".
_EXTRACTORS = (
    (MONEY_SYMBOL_RE, _money),
    (MONEY_CODE_BEFORE_RE, _money),
    (MONEY_CODE_AFTER_RE, _money),
    (MONEY_SYMBOL_AFTER_RE, _money),
    (PCT_RE, _pct),
    (ISO_DATE_RE, _date),
    (DMY_RE, _date),
    (MDY_RE, _date),
    (MY_RE, _date),
    (STATUTE_RE, _statute),
    (YEAR_MONTH_RE, _date),
    (YEAR_RE, _year),
)


def extract_values(text: str, salient_types: tuple[str, ...] = ("pct", "money", "statute", "date")) -> list[Value]:
    """Every figure token of ``text`` in reading order; types outside ``salient_types`` are
    kept but marked not salient.

    >>> [(v.type, v.norm, v.salient) for v in extract_values("DMTO 5,81 % since 1 April 2025 (Act 1993)")]
    [('pct', '5.81', True), ('date', '2025-04-01', True), ('statute', '1993', False)]
    """
    taken: list[tuple[int, int]] = []  # reserved spans, sorted and disjoint
    out: list[Value] = []
    for regex, build in _EXTRACTORS:
        fresh: list[tuple[int, int]] = []
        j = 0
        for m in regex.finditer(text):
            start = m.start()
            # one pointer walks the sorted spans alongside the (ordered) matches: linear, not
            # a scan of every earlier span per match (a 5 MB line holds ~10^5 figures)
            while j < len(taken) and taken[j][1] <= start:
                j += 1
            if j < len(taken) and taken[j][0] < m.end():
                continue
            value = build(m)
            if value is None:  # not this kind after all: leave the span to later patterns
                continue
            end = value.end or m.end()  # a builder may take a compact form after the match
            if j < len(taken) and taken[j][0] < end:
                continue
            fresh.append((start, end))
            if value is _RESERVED:
                continue
            value.pos, value.end = start, end
            if value.type not in salient_types:
                value.salient = False
            out.append(value)
        if fresh:
            taken = list(heapq.merge(taken, fresh))
    out.sort(key=lambda v: v.pos)
    return out
