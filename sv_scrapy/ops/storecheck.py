"""Check a content store before it is used (the Actions workflow runs it on the store it
restored from last month's artifact):

    python -m sv_scrapy.ops.storecheck STORE_DIR

Prints one line (format, entries, texts, damaged files) and exits 0 when the store can be used
(damaged files are named; the audit sets them aside and fetches those pages fresh), 2 when it
cannot (no such folder, or a newer release's store). Reads only; writes nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path

from sv_scrapy.core.audit.storeformat import survey
from sv_scrapy.core.errors import SvError
from sv_scrapy.run.runtime import new_clock


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("storecheck: error: usage: python -m sv_scrapy.ops.storecheck STORE_DIR", file=sys.stderr)
        return 2
    try:
        result = survey(Path(args[0]), new_clock())
    except SvError as exc:  # no such folder, or a newer release's store (StoreFormatError)
        print(f"storecheck: error: {exc}", file=sys.stderr)
        return 2
    print(result.line() + "".join(f"; damaged: {d['file']} ({d['why']})" for d in result.damaged[:5]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
