"""Registers the fuzzing profiles (``profiles.py``: ``sv-fuzz-short`` for ``make test``, ``sv-fuzz``
for ``make fuzz``, chosen with ``SV_FUZZ_PROFILE``)."""

from __future__ import annotations

from tests.fuzz.profiles import register

register()
