"""A user's values, parsed in one place: spider arguments (``-a name=value``) and command
options (``--count 3``) alike. A bad value is an ``ArgumentError`` with one line naming it;
``label`` is how the user wrote the name (``"-a sample="`` or ``"--count "``)."""

from __future__ import annotations

from datetime import date

from sv_scrapy.core.errors import ArgumentError


def parse_bool(label: str, raw: object) -> bool:
    """
    >>> parse_bool("-a ci=", "yes"), parse_bool("-a ci=", "0")
    (True, False)
    """
    low = str(raw).strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off", ""):
        return False
    raise ArgumentError(f"{label}{raw!r}: expected 1/0, true/false or yes/no")


def parse_int(label: str, raw: object, minimum: int = 0) -> int:
    """
    >>> parse_int("--count ", "3", minimum=1)
    3
    >>> parse_int("-a sample=", "-1")
    Traceback (most recent call last):
    sv_scrapy.core.errors.ArgumentError: -a sample='-1': must be >= 0
    """
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise ArgumentError(f"{label}{raw!r}: expected a whole number") from None
    if value < minimum:
        raise ArgumentError(f"{label}{raw!r}: must be >= {minimum}")
    return value


def parse_amount(label: str, raw: object) -> float:
    """An amount in USD, not negative.

    >>> parse_amount("--max-cost-usd ", "0.50")
    0.5
    """
    try:
        value = float(str(raw).strip())
    except ValueError:
        raise ArgumentError(f"{label}{raw!r}: expected an amount in USD, like 0.50") from None
    if value < 0:
        raise ArgumentError(f"{label}{raw!r}: must be >= 0")
    return value


def parse_date(label: str, raw: object) -> date:
    """
    >>> parse_date("--as-of ", "2026-12-01")
    datetime.date(2026, 12, 1)
    """
    try:
        return date.fromisoformat(str(raw).strip())
    except ValueError:
        raise ArgumentError(f"{label}{raw!r}: expected a date YYYY-MM-DD") from None
