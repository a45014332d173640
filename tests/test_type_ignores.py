"""Every ``type: ignore`` in the package names its error code and says why, after it: an ignore
without a reason hides a type error nobody can judge later."""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "sv_scrapy"
IGNORE = re.compile(r"#\s*type:\s*ignore(?P<code>\[[\w\-, ]+\])?(?P<rest>.*)$")


def test_each_type_ignore_has_a_code_and_a_reason() -> None:
    bare = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            found = IGNORE.search(line)
            if found and not (found["code"] and re.match(r"\s*#\s*\S", found["rest"])):
                bare.append(f"{path.relative_to(PACKAGE.parent)}:{n}: {line.strip()}")
    assert bare == []
