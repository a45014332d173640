# sv_scrapy — the two commands are `make demo` and `make test`; both set everything up first.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEPS_STAMP := $(VENV)/.deps-stamp

.PHONY: install system-deps lint test demo bench clean

install: $(DEPS_STAMP) system-deps

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# reinstall only when a requirements file changed
$(DEPS_STAMP): requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

system-deps:
	@tools/install-system-deps.sh

lint: install
	$(BIN)/ruff check sv_scrapy tests bench tools

test: install lint
	$(BIN)/python -m pytest -W error -q

demo: install
	@echo "== scrapy extract: claims of the bundled sample corpus (examples/corpus), no network"
	$(BIN)/scrapy extract --json _local/demo/claims.json
	@echo "== scrapy crawl audit: the sample corpus against the sample site (examples/site) on loopback"
	$(BIN)/python tools/demo.py

bench: install
	$(BIN)/python bench/extract.py
	$(BIN)/python bench/crawl.py
	$(BIN)/python bench/render.py
	$(BIN)/python bench/llm_cost.py

clean:
	rm -rf _local _ci .pytest_cache
