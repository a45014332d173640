"""`make demo`: the main job on the bundled sample corpus against the bundled sample site.

Starts the mock web on loopback serving examples/site, points the standard proxy variables
at it (so nothing leaves the machine), runs the monthly audit (`scrapy crawl audit`) over
examples/corpus, and prints the summary and where the report is.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

from testing.mockweb import MockWeb  # noqa: E402
from testing.mockweb.site import load_site  # noqa: E402


def main() -> int:
    output = PROJECT_DIR / "_local" / "demo" / "source-verify"
    scrapy = str(Path(sys.executable).with_name("scrapy"))
    with MockWeb() as web:
        load_site(web, PROJECT_DIR / "examples" / "site")
        env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and not k.startswith("SV_")}
        env.update(web.env(), SV_OUTPUT_DIR=str(output), SV_IGNORE_HTTPS_ERRORS="1")
        print(f"mock web on {web.proxy_url} serving examples/site; crawling examples/corpus "
              "(politeness is the shipped config's: 1 s between requests to a government host, "
              "10 s for eur-lex) …", flush=True)
        proc = subprocess.run([scrapy, "crawl", "audit"], cwd=PROJECT_DIR, env=env)
    if proc.returncode == 0:
        print(f"\nthe monthly audit's report: {output / 'audit' / 'report.md'} (and report.html beside it)")
        print("run `make demo` again: unchanged pages now answer 304 and come from the content store")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
