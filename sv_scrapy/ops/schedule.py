"""Schedule the monthly audit on scrapyd, wait for it, and fail loudly if it failed.

::

    python -m sv_scrapy.ops.schedule [--url http://127.0.0.1:6800] [--project sv_scrapy]
        [--corpus DIR] [--config DIR] [--output DIR] [--arg KEY=VALUE ...] [--timeout SECONDS]
    python -m sv_scrapy.ops.schedule --parts N --node URL [--node URL ...] --output DIR [...]

scrapyd has no cron of its own: a crontab line or a systemd timer (see ``deploy/``) runs
this. It posts ``schedule.json`` for spider ``audit`` with the corpus, config and output
locations as settings (an egg has no checkout beside it), polls ``listjobs.json`` until the
job has finished, then reads the job's log and exits with **the audit's own status** — the
same as ``scrapy crawl audit`` run directly (0 complete, 1 failed or partial because something
failed, 2 a bad argument or config, 75 another run held the output folder), printing the
audit's one line. The crawl writes that status as the last line of its log
(``sv_scrapy outcome: exit=N: …``, see ``sv_scrapy/extensions/monitor.py``); a log without it
(the process died) is a failure. Standard library only.

With ``--parts N`` the audit runs as N host-partitioned parts (``-a part=I/N``), part I on node
``(I-1) mod len(nodes)`` (round robin), each into ``<output>/parts/part-I`` — a folder on a
filesystem this scheduler reads too (a shared mount when the nodes are other machines). Each
part starts from the last merged store (``<output>/store``, copied in unless the part has an
unfinished run to resume); once all have finished, ``scrapy merge`` joins them into
``<output>`` and this exits with the merge's status (0, 1 naming the failed parts and their
hosts, 75). A node that does not answer is one line and exit 1 before anything is scheduled.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from sv_scrapy.core.environment import child_environment


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


def seed_part(merged_store: Path, part_dir: Path) -> None:
    """Give a part the last merged store, unless it holds an unfinished run of its own (resumed)."""
    store = part_dir / "store"
    try:
        unfinished = not json.loads((store / "run.json").read_text(encoding="utf-8")).get("finished", True)
    except (OSError, ValueError, AttributeError):
        unfinished = False
    if unfinished or not merged_store.is_dir():
        return
    shutil.rmtree(store, ignore_errors=True)
    shutil.copytree(merged_store, store, ignore=shutil.ignore_patterns(".lock"))


def run_parts(opts: argparse.Namespace, settings: dict[str, str], args: dict[str, str]) -> int:
    """The parts over the nodes, waited for, then merged; the merge's exit status."""
    nodes = [n.rstrip("/") for n in opts.node or [opts.url]]
    for node in nodes:  # every node answers before anything is scheduled
        _call(f"{node}/daemonstatus.json", timeout=10)
    output = (opts.output or Path("_local/source-verify")).resolve()
    jobs: list[tuple[int, str, str]] = []
    for index in range(1, opts.parts + 1):
        folder = output / "parts" / f"part-{index}"
        seed_part(output / "store", folder)
        node = nodes[(index - 1) % len(nodes)]
        job = schedule(node, opts.project, opts.spider, {**settings, "SV_OUTPUT_DIR": str(folder)},
                       {**args, "part": f"{index}/{opts.parts}"})
        print(f"scheduled part {index}/{opts.parts} as job {job} on {node}", flush=True)
        jobs.append((index, node, job))
    deadline = time.monotonic() + opts.timeout
    for index, node, job in jobs:
        try:
            check_log(node, wait(node, opts.project, job, max(0.0, deadline - time.monotonic()), opts.poll))
        except ScheduleError as exc:  # the merge names the part and its hosts
            print(f"schedule: warning: part {index}/{opts.parts}: {exc}", file=sys.stderr)
    env = child_environment({"SCRAPY_SETTINGS_MODULE": "sv_scrapy.settings",
                             **{k: v for k, v in settings.items() if k != "SV_OUTPUT_DIR"}})
    folders = [str(output / "parts" / f"part-{i}") for i in range(1, opts.parts + 1)]
    merged = subprocess.run([sys.executable, "-m", "scrapy", "merge", *folders, "--into", str(output)], env=env,
                            check=False)
    return merged.returncode


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
    ap.add_argument("--parts", type=int, default=0, metavar="N", help="run the audit as N parts, then merge them")
    ap.add_argument("--node", action="append", default=[], metavar="URL", help="a scrapyd node for the parts")
    opts = ap.parse_args(argv)
    if opts.parts and not 1 <= opts.parts <= 256 or (opts.node and not opts.parts):
        print("schedule: error: --parts N (1 to 256) with --node URL ..., for the audit in parts", file=sys.stderr)
        return 2
    base = opts.url.rstrip("/")
    settings = {name: str(path.resolve()) for name, path in
                (("SV_CORPUS_ROOT", opts.corpus), ("SV_CONFIG_DIR", opts.config), ("SV_OUTPUT_DIR", opts.output))
                if path is not None}
    try:
        args = dict(a.split("=", 1) for a in opts.arg)
    except ValueError:
        print(f"schedule: error: --arg expects KEY=VALUE, got {opts.arg}", file=sys.stderr)
        return 2
    if opts.parts:
        try:
            return run_parts(opts, settings, args)
        except ScheduleError as exc:
            print(f"schedule: error: {exc}", file=sys.stderr)
            return exc.code
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
