"""`make demo`: the main job on the bundled sample corpus against the bundled sample site.

Starts the mock web on loopback serving examples/site (with its small Wayback Machine), points the standard proxy variables
at it (so nothing leaves the machine), runs the monthly audit (`scrapy crawl audit`) over
examples/corpus, and prints the summary, where the report is, and the one command line that
reviews one of its findings.

Everything the demo writes stays under its folder (`_local/demo`, or the one given as the only
argument): the audit's output in `source-verify/`, and in `config/` a copy of the shipped
`config/` (refreshed each run) that the audit and a demo review use as `SV_CONFIG_DIR`, so a
review made in the demo never writes into the tracked `config/` folder.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))

from sv_scrapy.core.audit.reviewfile import FILE_NAME as REVIEWED_FILE  # noqa: E402
from testing.env import clean_env  # noqa: E402
from testing.mockweb import MockWeb  # noqa: E402
from testing.mockweb.site import load_site  # noqa: E402

_COMMAND = re.compile(r"`(scrapy review [^`]*)`")


def demo_config(folder: Path) -> Path:
    """The demo's copy of the shipped config (its own reviews kept across runs)."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted((PROJECT_DIR / "config").iterdir()):
        if path.is_file() and path.name != REVIEWED_FILE:
            shutil.copy2(path, folder / path.name)
    return folder


def review_hint(report: Path, output: Path, config: Path, scrapy: Path) -> list[str]:
    """How to review one of the report's findings: its first review command, run with the demo's folders."""
    printed = _COMMAND.findall(report.read_text(encoding="utf-8")) if report.is_file() else []
    if not printed:
        return ["no finding to review in this audit"]
    where = os.path.relpath(scrapy, PROJECT_DIR) if scrapy.is_relative_to(PROJECT_DIR) else str(scrapy)
    line = (f"cd {shlex.quote(str(PROJECT_DIR))} && SV_OUTPUT_DIR={shlex.quote(str(output))} "
            f"SV_CONFIG_DIR={shlex.quote(str(config))} {shlex.quote(where)}{printed[0].removeprefix('scrapy')}")
    return ["to review one of its findings (each news and backlog row of the report ends with its command), "
            "run it with the demo's folders, the reason edited:",
            f"  {line}",
            f"it writes {config / REVIEWED_FILE} (the demo's copy of config/, never config/ itself); "
            "the next `make demo` lists that finding under \"Reviewed\""]


def main(argv: list[str]) -> int:
    base = Path(argv[0]).resolve() if argv else PROJECT_DIR / "_local" / "demo"
    output, config = base / "source-verify", demo_config(base / "config")
    scrapy = Path(sys.executable).with_name("scrapy")
    with MockWeb() as web:
        load_site(web, PROJECT_DIR / "examples" / "site")
        env = clean_env()
        env.update(web.env(), SV_OUTPUT_DIR=str(output), SV_CONFIG_DIR=str(config), SV_IGNORE_HTTPS_ERRORS="1")
        print(f"mock web on {web.proxy_url} serving examples/site; crawling examples/corpus "
              "(politeness is the shipped config's: 1 s between requests to a government host, "
              "10 s for eur-lex) …", flush=True)
        proc = subprocess.run([str(scrapy), "crawl", "audit"], cwd=PROJECT_DIR, env=env)
    if proc.returncode == 0:
        report = output / "audit" / "report.md"
        print(f"\nthe monthly audit's report: {report} (and report.html beside it)")
        print("run `make demo` again: unchanged pages now answer 304 and come from the content store; "
              "the TOKENS_ABSENT row shows then and now (a capture from the sample web's Wayback)")
        print("\n".join(review_hint(report, output, config, scrapy)))
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
