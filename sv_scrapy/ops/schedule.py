"""Schedule the monthly audit on scrapyd, wait for it, and fail loudly if it failed.

    python -m sv_scrapy.ops.schedule [--url http://127.0.0.1:6800] [--project sv_scrapy]
        [--corpus DIR] [--config DIR] [--output DIR] [--arg KEY=VALUE ...] [--timeout SECONDS]

scrapyd has no cron of its own: a crontab line or a systemd timer (see ``deploy/``) runs
this. It posts ``schedule.json`` for spider ``audit`` with the corpus, config and output
locations as settings (an egg has no checkout beside it), polls ``listjobs.json`` until the
job has finished, then reads the job's log and exits with **the audit's own status** — the
same as ``scrapy crawl audit`` run directly (0 complete, 1 failed or partial because something
failed, 2 a bad argument or config, 75 another run held the output folder), printing the
audit's one line. The crawl writes that status as the last line of its log
(``sv_scrapy outcome: exit=N: …``, see ``sv_scrapy/extensions/monitor.py``); a log without it
(the process died) is a failure. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any


class ScheduleError(Exception):
    """The job could not be scheduled, did not finish, or finished badly (``code``: the exit status)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def _call(url: str, data: dict[str, Any] | list[tuple[str, str]] | None = None, timeout: float = 30) -> Any:
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=body), timeout=timeout) as resp:  # noqa: S310
            payload = resp.read().decode("utf-8", "replace")
    except (urllib.error.URLError, OSError) as exc:
        raise ScheduleError(f"scrapyd at {url} is not reachable: {exc}") from None
    try:
        return json.loads(payload)
    except ValueError:
        return payload


def schedule(base: str, project: str, spider: str, settings: dict[str, str], args: dict[str, str]) -> str:
    fields = [("project", project), ("spider", spider)]
    fields += [("setting", f"{k}={v}") for k, v in settings.items()]
    fields += list(args.items())
    answer = _call(f"{base}/schedule.json", fields)
    if not isinstance(answer, dict) or answer.get("status") != "ok":
        raise ScheduleError(f"scrapyd refused the job: {answer}")
    return str(answer["jobid"])


def wait(base: str, project: str, job: str, timeout: float, poll: float = 2.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        jobs = _call(f"{base}/listjobs.json?project={urllib.parse.quote(project)}")
        for finished in (jobs or {}).get("finished", []) if isinstance(jobs, dict) else []:
            if finished.get("id") == job:
                return dict(finished)
        time.sleep(poll)
    raise ScheduleError(f"job {job} did not finish within {timeout:g} s")


OUTCOME = re.compile(r"^sv_scrapy outcome: exit=(\d+)(?:: (.*))?$", re.MULTILINE)


def job_outcome(log: str) -> tuple[int, str] | None:
    """(exit status, one line) the crawl recorded as its log's outcome; None if it recorded none.

    >>> job_outcome("...\\nsv_scrapy outcome: exit=1: none of 9 request(s) got an answer\\n")
    (1, 'none of 9 request(s) got an answer')
    >>> job_outcome("'finish_reason': 'finished'") is None
    True
    """
    found = OUTCOME.findall(log)
    if not found:
        return None
    code, line = found[-1]
    return int(code), line


def check_log(base: str, finished: dict[str, Any]) -> None:
    """Raise :class:`ScheduleError` with the audit's own status unless the job recorded exit 0."""
    job = finished.get("id")
    log_url = finished.get("log_url")
    if not log_url:
        raise ScheduleError(f"job {job} did not finish cleanly: it left no log "
                            "(the process died before logging; see scrapyd's own log)")
    log = _call(urllib.parse.urljoin(base + "/", str(log_url).lstrip("/")))
    text = log if isinstance(log, str) else json.dumps(log)
    outcome = job_outcome(text)
    if outcome is None:
        last = [line for line in text.splitlines() if line.strip()][-1:] or ["(empty log)"]
        raise ScheduleError(f"job {job} did not finish cleanly (no outcome recorded); last log line: {last[0][:200]}")
    code, line = outcome
    if code != 0:
        raise ScheduleError(f"job {job} failed: {line or 'exit status ' + str(code)}", code)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Schedule the monthly sv_scrapy audit on scrapyd and wait for it.")
    ap.add_argument("--url", default="http://127.0.0.1:6800")
    ap.add_argument("--project", default="sv_scrapy")
    ap.add_argument("--spider", default="audit")
    ap.add_argument("--corpus", type=Path, help="SV_CORPUS_ROOT for the job")
    ap.add_argument("--config", type=Path, help="SV_CONFIG_DIR for the job")
    ap.add_argument("--output", type=Path, help="SV_OUTPUT_DIR for the job")
    ap.add_argument("--arg", action="append", default=[], metavar="KEY=VALUE", help="a spider argument")
    ap.add_argument("--timeout", type=float, default=6 * 3600)
    ap.add_argument("--poll", type=float, default=5.0)
    opts = ap.parse_args(argv)
    base = opts.url.rstrip("/")
    settings = {name: str(path.resolve()) for name, path in
                (("SV_CORPUS_ROOT", opts.corpus), ("SV_CONFIG_DIR", opts.config), ("SV_OUTPUT_DIR", opts.output))
                if path is not None}
    try:
        args = dict(a.split("=", 1) for a in opts.arg)
    except ValueError:
        print(f"schedule: error: --arg expects KEY=VALUE, got {opts.arg}", file=sys.stderr)
        return 2
    try:
        job = schedule(base, opts.project, opts.spider, settings, args)
        print(f"scheduled {opts.spider} as job {job} on {base}", flush=True)
        check_log(base, wait(base, opts.project, job, opts.timeout, opts.poll))
    except ScheduleError as exc:
        print(f"schedule: error: {exc}", file=sys.stderr)
        return exc.code
    report = (opts.output or Path("_local/source-verify")) / "audit" / "report.md"
    if opts.spider == "audit" and args.get("ci") not in ("1", "true", "yes") and not report.is_file():
        print(f"schedule: error: the job finished but {report} is missing", file=sys.stderr)
        return 1
    print(f"job {job} finished; report: {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
