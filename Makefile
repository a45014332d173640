# sv_scrapy — the two commands are `make demo` and `make test`; both set everything up first.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEPS_STAMP := $(VENV)/.deps-stamp
CACHES_STAMP := _local/caches.stamp

.PHONY: install system-deps lint docs test test-fast test-slow test-pacing fuzz demo screenshot bench clean scrapyd-start scrapyd-deploy scrapyd-schedule check-citations

install: $(DEPS_STAMP) system-deps

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# reinstall only when a requirements file changed; the bytecode compiled after the install on every core
# (pip compiles one file at a time: ~13 s of a clean clone's install, half of it on 2 cores)
$(DEPS_STAMP): requirements.txt requirements-dev.txt requirements-docs.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-compile -r requirements-dev.txt
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib > /dev/null
	touch $@

system-deps:
	@tools/install-system-deps.sh

# what a fresh checkout's first test run would otherwise build in each of a pass's 4 workers at once,
# built once before make test: the project's bytecode (on every core), the tests' rewritten asserts
# (pytest's own cache, written by one collection: 3 s of CPU a worker) and Hypothesis's table of Unicode
# characters (.hypothesis/unicode_data: 1 s a worker). Once per checkout: an edited module is recompiled
# by whichever process imports it first. Not part of install: make demo needs none of it, and the
# tutorial's make demo, run by the suite in a fresh copy, would build it all again (8 s of CPU).
$(CACHES_STAMP): export PYTHONDONTWRITEBYTECODE :=
$(CACHES_STAMP): $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(BIN)/python -m compileall -q -j 0 sv_scrapy testing
	$(BIN)/python -m pytest --collect-only -q -p no:cacheprovider > $(@D)/caches.log 2>&1 || \
		echo "make test: the tests' collection failed (the tests will say why; its log: $(@D)/caches.log)"
	$(BIN)/python -W ignore -c "from hypothesis import strategies; strategies.text().example()"
	touch $@

LINT_RUN = $(BIN)/ruff check sv_scrapy testing tests bench tools docs && $(BIN)/mypy
lint: install
	$(LINT_RUN)

# the docs (docs/, Sphinx + MyST), read afresh (-E: the reference comes from the code, not only the
# pages), every warning an error (-nW: a broken reference, an undocumented option, setting or field),
# nothing fetched; then a check of the internal links only
DOCS_OUT := _local/docs
# (the link check reads the pages the html build has just read: their doctrees, not the sources again)
DOCS_RUN = $(BIN)/sphinx-build -E -nW --keep-going -q -b html -d "$(DOCS_OUT)/doctrees" docs "$(DOCS_OUT)/html" && \
	$(BIN)/sphinx-build -nW --keep-going -q -b linkcheck -d "$(DOCS_OUT)/doctrees" -D "linkcheck_ignore=https?://.*" \
		docs "$(DOCS_OUT)/linkcheck"
docs: install
	$(DOCS_RUN)

# three passes, all always run, each test in exactly one (tests/test_makefile.py): the inner loop
# (make test-fast's selection), then two side by side: the tests a
# loaded machine could fail (marker `pacing`), one at a time, and beside them the tests that drive a
# process, a browser, tesseract or scrapyd on 4 workers (pytest-xdist, a file's tests on one worker so
# that a module's fixtures run once), with lint. That pass builds the docs: tests/test_docs.py runs
# make docs and reads the pages it built. The pacing pass mostly waits on the mock
# web's floors, so everything beside it runs at the idle scheduling class (SCHED_IDLE, `chrt -i 0`: a
# core's spare time only, never a pacing test's, which takes the core back the moment it wakes;
# `nice -n 19` where chrt is missing). Their output is held in _local/checks and printed after the
# pacing pass's; a failure of any fails make test. Each runs in a session of its own (setsid), so that
# an interrupt of make test stops it with the pacing pass: a background job of a script ignores SIGINT.
# Each pass prints its wall time and its CPU seconds (bash's `time`), and the end the CPU of them all
# (`times`): this machine's speed moves by half within minutes, and the CPU tells a slow machine from
# a slower suite.
SLOW_MARKERS := not pacing and (subprocess or browser or ocr or scrapyd)
SLOW_PYTEST = $(BIN)/python -m pytest -W error -q -n 4 --dist loadfile -m "$(SLOW_MARKERS)"
PACING_PYTEST = $(BIN)/python -m pytest -W error -q -m pacing
SPARE_CPU := $(if $(shell command -v chrt),chrt -i 0,nice -n 19)
CHECKS_LOG := _local/checks
test: install $(CACHES_STAMP)
	status=0; \
	TIMEFORMAT="make test-fast: %0R s wall, %0U s user and %0S s system CPU"; \
	time $(FAST_PYTEST) || status=$$?; \
	echo "make test-fast ended at load average $$(cut -d' ' -f1 /proc/loadavg)"; \
	mkdir -p $(CHECKS_LOG); \
	started=$$(date +%s); \
	trap 'kill -- -$$slow -$$lint 2> /dev/null; exit 130' INT TERM; \
	setsid $(SPARE_CPU) $(SHELL) -c 'TIMEFORMAT="the slow pass: %0R s wall, %0U s user and %0S s system CPU"; \
		time $(SLOW_PYTEST)' > $(CHECKS_LOG)/slow.log 2>&1 & slow=$$!; \
	setsid $(SPARE_CPU) $(SHELL) -c '$(LINT_RUN)' > $(CHECKS_LOG)/lint.log 2>&1 & lint=$$!; \
	TIMEFORMAT="the pacing pass: %0R s wall, %0U s user and %0S s system CPU (the slow pass and lint beside it)"; \
	time $(PACING_PYTEST) || status=$$?; \
	for check in slow lint; do \
		wait $${!check} || { status=$$?; echo "make test's $$check pass failed:"; }; \
		cat $(CHECKS_LOG)/$$check.log; \
	done; \
	times > $(CHECKS_LOG)/times; \
	echo "all passes: $$(( $$(date +%s) - started )) s wall from the pacing pass's start; the CPU of every pass (user, system): $$(tail -n 1 $(CHECKS_LOG)/times)"; \
	exit $$status

# the suite starts some 300 Python processes (workers, scrapy, scripts): each compiles the project and
# rewrites the tests' asserts afresh when PYTHONDONTWRITEBYTECODE is set (some machines set it), 3-4 s of
# CPU a worker; the bytecode is kept (in __pycache__, which git ignores)
test test-fast test-slow test-pacing: export PYTHONDONTWRITEBYTECODE :=

# make test's process and pacing passes alone: the jobs of .github/workflows/ci.yml, which run lint, the
# docs and the three passes side by side
test-slow: install $(CACHES_STAMP)
	$(SLOW_PYTEST)

test-pacing: install
	$(PACING_PYTEST)

# the inner loop: the pure core, the doctests and the in-process tests; no install, no lint, nothing that
# drives a process or needs Chromium, tesseract, scrapyd or an idle machine (markers in pyproject.toml).
# 4 workers on 2 cores: many in-process tests wait on the mock web or the API stub (62 s on 2, 43 s on 4);
# a file's tests on one worker, so that a module's crawl fixture runs once, not once a worker.
# `make test` runs it as its first pass.
FAST_MARKERS := not subprocess and not pacing and not browser and not ocr and not scrapyd
FAST_PYTEST = $(BIN)/python -m pytest -W error -q -n 4 --dist loadfile -m "$(FAST_MARKERS)"
test-fast:
	$(FAST_PYTEST)

# the fuzzing of every reader of outside bytes (tests/fuzz, Hypothesis): 10,000 generated inputs a reader,
# fresh ones each run, each held to its time bound; a failure is kept in _local/hypothesis and replayed
# first next time; it prints each test's count of inputs and wall time. `make test` runs the same tests on a
# short, fixed set of inputs (tests/fuzz/profiles.py). 2 workers, each test on either (one module is slow)
fuzz: install
	SV_FUZZ_PROFILE=sv-fuzz $(BIN)/python -m pytest -W error -q -n 2 tests/fuzz --durations=0 --hypothesis-show-statistics

demo: install
	@echo "== scrapy extract: claims of the bundled sample corpus (examples/corpus), no network"
	$(BIN)/scrapy extract --json _local/demo/claims.json
	@echo "== scrapy crawl audit: the sample corpus against the sample site (examples/site) on loopback"
	$(BIN)/python tools/demo.py

# report.html of the demo audit, rendered by Debian's Chromium into _local/demo/report.png (checked non-blank);
# `python tools/screenshot.py --docs` does the same for the built docs' index and config reference
screenshot: install
	$(BIN)/python tools/screenshot.py

bench: install
	$(BIN)/python bench/extract.py
	$(BIN)/python bench/crawl.py
	$(BIN)/python bench/audit.py
	$(BIN)/python bench/render.py
	$(BIN)/python bench/llm_cost.py
	$(BIN)/python bench/ocr.py
	$(BIN)/python bench/discover.py

# scrapyd: loopback, dirs under _local/scrapyd/ (scrapyd.conf); the monthly schedule is
# deploy/crontab or deploy/sv-scrapy-audit.timer calling the same entry point as scrapyd-schedule
scrapyd-start: install
	mkdir -p _local/scrapyd
	$(BIN)/scrapyd --pidfile=_local/scrapyd/scrapyd.pid > _local/scrapyd/scrapyd.log 2>&1 &
	@echo "scrapyd starting on http://127.0.0.1:6800 (log: _local/scrapyd/scrapyd.log)"

scrapyd-deploy: install
	$(BIN)/scrapyd-deploy

scrapyd-schedule: install
	$(BIN)/python -m sv_scrapy.ops.schedule --url http://127.0.0.1:6800 \
		--corpus "$${SV_CORPUS_ROOT:-examples/corpus}" --config "$${SV_CONFIG_DIR:-config}" \
		--output "$${SV_OUTPUT_DIR:-_local/source-verify}"

check-citations: install
	$(BIN)/scrapy check-citations

clean:
	rm -rf _local _ci .pytest_cache
