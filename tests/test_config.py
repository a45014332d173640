"""Config loading: the shipped files and the corpus's own validate; mistakes are one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sv_scrapy.core.errors import ConfigError
from sv_scrapy.run.config import load_config

from .conftest import PROJECT_DIR

CONFIG = PROJECT_DIR / "config"


@pytest.fixture
def config_copy(tmp_path: Path) -> Path:
    target = tmp_path / "config"
    shutil.copytree(CONFIG, target)
    return target


def edit(folder: Path, name: str, change) -> None:
    path = folder / name
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_shipped_config_loads() -> None:
    cfg = load_config(CONFIG)
    assert cfg.liveness.gov_policy.interval_ms == 1000
    assert cfg.liveness.per_host["eur-lex.europa.eu"].concurrency == 1
    assert cfg.hosts.tier("bok.or.kr") == "primary-allowlist"
    assert "{version}" not in cfg.liveness.user_agent("0.1.0")


def test_corpus_config_validates_unchanged_and_finds_its_allowlist(shared_corpus: Path) -> None:
    cfg = load_config(shared_corpus / "config")
    assert cfg.allowlist_path == shared_corpus / "scripts" / "primary-source-allowlist.txt"
    assert cfg.hosts.tier("www.centralbankbahamas.com") == "primary-allowlist"


@pytest.mark.parametrize(
    ("file", "change", "message"),
    [
        ("_source-verify.json", lambda d: d["fetch"].pop("max_body_bytes"),
         "_source-verify.json: fetch.max_body_bytes: missing required key"),
        ("_source-verify.json", lambda d: d["fetch"].update(max_body_byte=1),
         "_source-verify.json: fetch.max_body_byte: unknown key"),
        ("_source-verify.json", lambda d: d["fetch"].update(max_body_bytes="600k"),
         '_source-verify.json: fetch.max_body_bytes: expected an integer, got "600k"'),
        ("_source-verify.json", lambda d: d["extraction"].update(primary_only="yes"),
         '_source-verify.json: extraction.primary_only: expected true or false, got "yes"'),
        ("_source-verify.json", lambda d: d["extraction"].update(salient_value_types=["pct", "years"]),
         "_source-verify.json: extraction.salient_value_types[1]: must be one of"),
        ("_url-liveness.json", lambda d: d["per_host_overrides"]["eur-lex.europa.eu"].update(interval_ms=-1),
         "_url-liveness.json: per_host_overrides.eur-lex.europa.eu.interval_ms: must be >= 0"),
        ("_source-verify.json", lambda d: d.update(archive={"max_lookups": -1}),
         "_source-verify.json: archive.max_lookups: must be >= 0"),
        ("_source-verify.json", lambda d: d.update(archive={"enabled": "no"}),
         '_source-verify.json: archive.enabled: expected true or false, got "no"'),
        ("_url-liveness.json", lambda d: d["global"].update(concurrency=True),
         "_url-liveness.json: global.concurrency: expected an integer, got True"),
    ],
)
def test_bad_key_is_one_line_naming_file_and_key(config_copy: Path, file: str, change, message: str) -> None:
    edit(config_copy, file, change)
    with pytest.raises(ConfigError) as err:
        load_config(config_copy)
    text = str(err.value)
    assert message in text and "\n" not in text


def test_comment_keys_are_allowed_anywhere(config_copy: Path) -> None:
    edit(config_copy, "_source-verify.json", lambda d: d["fetch"].update(_why="documented"))
    load_config(config_copy)


def test_invalid_json_names_the_line(config_copy: Path) -> None:
    (config_copy / "_url-liveness.json").write_text('{\n  "version": 1,\n  oops\n}', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"_url-liveness.json: line 3: invalid JSON"):
        load_config(config_copy)


def test_missing_file(config_copy: Path) -> None:
    (config_copy / "_source-verify.json").unlink()
    with pytest.raises(ConfigError, match="_source-verify.json: file not found"):
        load_config(config_copy)


def test_gov_rule_override_from_config(config_copy: Path) -> None:
    edit(config_copy, "_source-verify.json", lambda d: d["extraction"].update(gov_namespaces=["gov"], gov_hosts=[]))
    cfg = load_config(config_copy)
    assert cfg.hosts.tier("www.nts.go.kr") == "secondary"


def test_the_archive_gets_a_conservative_floor_unless_the_config_names_one(config_copy: Path) -> None:
    from sv_scrapy.core.politeness import policy_for

    cfg = load_config(config_copy)
    assert (cfg.archive.enabled, cfg.archive.max_lookups) == (True, 300)
    built_in = policy_for("web.archive.org", cfg.liveness, cfg.hosts)
    assert (built_in.concurrency, built_in.interval_ms) == (1, 1500)
    edit(config_copy, "_url-liveness.json",
         lambda d: d["per_host_overrides"].update({"archive.org": {"concurrency": 2, "interval_ms": 4000}}))
    named = policy_for("web.archive.org", load_config(config_copy).liveness, cfg.hosts)
    assert (named.concurrency, named.interval_ms) == (2, 4000)


@pytest.mark.parametrize(("discover", "message"), [
    ({"bogus": 1}, "discover.bogus"),  # an unknown key inside the section, like any other
    ({"max_candidates": 0}, "discover.max_candidates"),
    ({"search": {"impots.gouv.fr": "https://www.impots.gouv.fr/recherche"}}, "discover.search: impots.gouv.fr"),  # no {q}
    ({"search": {"impots.gouv.fr": "https://evil.example/?q={q}"}}, "discover.search: impots.gouv.fr"),  # another site
])
def test_discover_mistakes_are_one_line(config_copy: Path, discover: dict, message: str) -> None:
    edit(config_copy, "_source-verify.json", lambda d: d.update(discover=discover))
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        load_config(config_copy)


def test_discover_defaults_and_a_search_template(config_copy: Path) -> None:
    assert load_config(config_copy).discover.enabled is True
    edit(config_copy, "_source-verify.json", lambda d: d.update(discover={
        "max_candidates": 3, "search": {"impots.gouv.fr": "https://www.impots.gouv.fr/recherche?q={q}"}}))
    got = load_config(config_copy).discover
    assert got.max_candidates == 3 and got.search_template("www.impots.gouv.fr").endswith("?q={q}")
