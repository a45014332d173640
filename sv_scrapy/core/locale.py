"""Month names and number separators of the languages the cited pages are written in.

Shared by claim-side value extraction and page-side matching, so both sides agree on what
"1er avril 2025" or "1.500.000" mean.
"""

from __future__ import annotations

import re

# month number -> names (full and common abbreviations), en / fr / de / es / it / pt / nl
_MONTH_NAMES: dict[int, tuple[str, ...]] = {
    1: ("january", "jan", "janvier", "janv", "januar", "jän", "enero", "ene", "gennaio", "gen", "janeiro",
        "januari"),
    2: ("february", "feb", "février", "fevrier", "févr", "fevr", "februar", "febrero", "febbraio", "fevereiro",
        "fev", "februari"),
    3: ("march", "mar", "mars", "märz", "marz", "marzo", "março", "marco", "maart", "mrt"),
    4: ("april", "apr", "avril", "avr", "abril", "abr", "aprile"),
    5: ("may", "mai", "mayo", "maggio", "mag", "maio", "mei"),
    6: ("june", "jun", "juin", "juni", "junio", "giugno", "giu", "junho"),
    7: ("july", "jul", "juillet", "juil", "juli", "julio", "luglio", "lug", "julho"),
    8: ("august", "aug", "août", "aout", "agosto", "ago", "augustus"),
    9: ("september", "sep", "sept", "septembre", "septiembre", "setiembre", "settembre", "set", "setembro"),
    10: ("october", "oct", "octobre", "oktober", "okt", "octubre", "ottobre", "ott", "outubro", "out"),
    11: ("november", "nov", "novembre", "noviembre", "novembro"),
    12: ("december", "dec", "décembre", "decembre", "déc", "dezember", "dez", "diciembre", "dic", "dicembre", "dezembro"),
}

MONTHS: dict[str, int] = {name: num for num, names in _MONTH_NAMES.items() for name in names}

# longest first so "september" wins over "sep" inside an alternation
MONTH_ALTERNATION = "|".join(sorted((re.escape(n) for n in MONTHS), key=len, reverse=True))

ENGLISH_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)

# characters that group thousands on real pages: space, NBSP, narrow NBSP, thin space,
# apostrophe (Swiss), right single quote, dot, comma
GROUP_SPACES = " \u00a0\u202f\u2009"
GROUP_MARKS = GROUP_SPACES + "'\u2019"


def month_number(name: str) -> int | None:
    """``month_number("Avr.")`` -> 4; ``None`` for a word that is no month."""
    return MONTHS.get(name.lower().rstrip("."))
