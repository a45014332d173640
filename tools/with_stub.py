"""Run one command with the bundled Messages API stub standing in for Anthropic's API.

``python tools/with_stub.py scrapy verify --from-audit`` starts the stub of
``testing/mockweb/anthropic_stub.py`` on loopback, points the anthropic SDK at it
(``ANTHROPIC_BASE_URL``, a placeholder ``ANTHROPIC_API_KEY``) and runs the command: no key, no
network, no cost. The stub answers ``INDETERMINATE`` for every claim: it shows the plumbing (the
cost estimate, the requests, the report), not a judgement. The tutorial uses it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

from testing.mockweb.anthropic_stub import AnthropicStub  # noqa: E402


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python tools/with_stub.py COMMAND [ARG...]", file=sys.stderr)
        return 2
    with AnthropicStub() as stub:
        return subprocess.run(argv, env={**os.environ, **stub.env()}, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
