"""CLDR tables: built from Babel, cached on disk, never stale in shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from sv_scrapy.core.figures import cldr
from sv_scrapy.core.figures.locale import compact_power, hints_for, month_number, normalize


def test_cache_is_written_once_and_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    calls = []

    def build() -> dict[str, int]:
        calls.append(1)
        return {"a": 1}

    assert cldr.cached("t-v1", build) == {"a": 1}
    assert cldr.cached("t-v1", build) == {"a": 1}
    assert len(calls) == 1 and (tmp_path / "sv_scrapy" / "t-v1.json").is_file()
    (tmp_path / "sv_scrapy" / "t-v1.json").write_text("{not json", encoding="utf-8")
    assert cldr.cached("t-v1", build) == {"a": 1} and len(calls) == 2  # a broken cache is rebuilt


def test_unwritable_cache_still_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # a file where the folder should be
    assert cldr.cached("t-v1", lambda: [1, 2]) == [1, 2]


def test_the_cached_tables_are_what_babel_builds() -> None:
    fresh = cldr.build()
    cached = cldr.tables()
    for key in ("months", "compact", "currency_codes", "mdy_territories", "month_words"):
        assert fresh[key] == cached[key], key


@pytest.mark.parametrize(
    ("name", "month"),
    [("kwietnia", 4), ("kwiecień", 4), ("Aralık", 12), ("január", 1), ("Jänner", 1), ("huhtikuuta", 4),
     ("באפריל", 4), ("أبريل", 4), ("अप्रैल", 4), ("เม.ย.", 4), ("avr.", 4), ("setiembre", 9), ("listopad", None)],
)
def test_month_names_of_every_language(name: str, month: int | None) -> None:
    assert month_number(name) == month


def test_hints_settle_ambiguous_words() -> None:
    assert month_number("listopad", hints_for("hr")) == 10
    assert month_number("listopad", hints_for("cs")) == 11
    assert compact_power("mil", hints_for("es")) == 3
    assert compact_power("mil", hints_for("cs")) == 6
    assert compact_power("mil") is None
    assert compact_power("bn") == 9 and compact_power("bn", hints_for("sv")) == 12


def test_normalize_maps_digits_and_drops_marks_keeping_offsets() -> None:
    text = "x \u0663\u0661\u200f/\u0660\u0663\u200f/\u0662\u0660\u0662\u0665 y"
    norm = normalize(text)
    assert norm.text == "x 31/03/2025 y"
    start = norm.text.index("31")
    end = start + len("31/03/2025")
    assert text[norm.original(start) : norm.original_end(end)] == text[2:-2]
