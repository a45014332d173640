"""The audit in parts over two real scrapyd instances on loopback: ``ops.schedule --parts 2 --node A
--node B`` schedules a part on each, waits, merges, and exits with the merged outcome; a node
that does not answer is one line and exit 1, before anything is scheduled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from sv_scrapy.core.audit.parts import owner_of
from testing.crawl import FAST_ANY_HOST, make_config, write_corpus
from testing.mockweb import MockWeb

from .conftest import PROJECT_DIR
from .test_scrapyd import free_port, start_scrapyd

pytestmark = pytest.mark.subprocess  # drives a process: make test-fast leaves it out

HOSTS = [f"www.office{k}.gouv.fr" for k in range(1, 9)]


@pytest.fixture(scope="module")
def nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("scrapyd-parts")
    with MockWeb() as web:
        for k, host in enumerate(HOSTS, start=1):
            web.route(f"https://{host}/taux", body=f"<p>Le taux de {k},25 % s'applique. " + "Texte. " * 40 + "</p>")
        env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and not k.startswith("SV_")}
        env.update(web.env(), SV_IGNORE_HTTPS_ERRORS="1", NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
        started = [start_scrapyd(tmp / name, env) for name in ("a", "b")]
        corpus = write_corpus(tmp / "corpus", {"countries/fr/playbook.md": "# T\n" + "".join(
            f"- Duty {k} {k}.25 % ([t](https://{h}/taux))\n" for k, h in enumerate(HOSTS, start=1))})
        yield {"tmp": tmp, "env": env, "bases": [b for _, b in started], "web": web, "corpus": corpus,
               "config": make_config(tmp / "config", liveness=FAST_ANY_HOST)}
        for proc, _ in started:
            proc.terminate()
            proc.wait(timeout=20)


def schedule_parts(nodes: dict[str, Any], *node_urls: str, output: str) -> subprocess.CompletedProcess[str]:
    tmp = nodes["tmp"]
    cmd = [sys.executable, "-m", "sv_scrapy.ops.schedule", "--parts", "2", "--corpus", str(nodes["corpus"]),
           "--config", str(nodes["config"]), "--output", str(tmp / output), "--timeout", "150", "--poll", "0.5"]
    for url in node_urls:
        cmd += ["--node", url]
    return subprocess.run(cmd, cwd=PROJECT_DIR, env=nodes["env"], capture_output=True, text=True, timeout=300)


def test_two_parts_on_two_nodes_make_one_merged_report(nodes: dict[str, Any]) -> None:
    a, b = nodes["bases"]
    result = schedule_parts(nodes, a, b, output="out")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "part 1/2 as job" in result.stdout and f"on {a}" in result.stdout and f"on {b}" in result.stdout
    out = nodes["tmp"] / "out"
    doc = json.loads((out / "audit" / "audit.json").read_text(encoding="utf-8"))
    assert doc["complete"] and doc["stats"]["claims"] == len(HOSTS) and doc["part"] is None
    assert {i["prior"] for i in doc["items"]} == {"TOKENS_PRESENT"}
    assert (out / "audit" / "report.md").is_file() and (out / "metrics.prom").is_file()
    assert (out / "store" / "claims.json").is_file()
    for part in (1, 2):  # each part wrote into its own folder, on its node
        part_doc = json.loads((out / "parts" / f"part-{part}" / "audit" / "audit.json").read_text(encoding="utf-8"))
        assert part_doc["part"] == f"{part}/2"
        assert {i["source_host"] for i in part_doc["items"]} == {h for h in HOSTS if owner_of(h, 2) == part}


def test_a_node_down_is_one_line_and_exit_1(nodes: dict[str, Any]) -> None:
    a, _ = nodes["bases"]
    result = schedule_parts(nodes, a, f"http://127.0.0.1:{free_port()}", output="out-down")
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1 and "not reachable" in result.stderr
    assert not (nodes["tmp"] / "out-down" / "parts").exists()  # nothing was scheduled
