# logkb: the two commands a newcomer needs are `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
LOGKB   = $(VENV)/bin/logkb
FIXTURE = fixtures/blackwell/out

.PHONY: setup fixture demo test test-serial typecheck lint bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[test]'
	touch $@

setup: $(VENV)/.installed

$(FIXTURE)/manifest.json: $(VENV)/.installed $(wildcard fixtures/*.py fixtures/blackwell/*.py)
	$(PY) -m fixtures.blackwell.build $(FIXTURE)

fixture: $(FIXTURE)/manifest.json

# Ingest the fixture campaign into a knowledge base of its own (never the default one,
# which is for your own sessions) and show what it holds.
DEMO_DB = $(FIXTURE)/kb.duckdb
demo: export LOGKB_DB = $(abspath $(DEMO_DB))
demo: fixture
	$(LOGKB) ingest $(FIXTURE)/session.jsonl $(FIXTURE)/session-*.jsonl
	$(LOGKB) sessions
	$(LOGKB) events --from 5214 --to 5219
	$(LOGKB) deadends
	$(LOGKB) untested
	@echo
	@echo "The demo's knowledge base is $(abspath $(DEMO_DB)) (your own sessions go to"
	@echo "the default one, \`logkb path\`).  To look at the demo:"
	@echo "  export LOGKB_DB=$(abspath $(DEMO_DB))"
	@echo "  .venv/bin/logkb tui"

# Two pytest-xdist workers (CI has 2 cores; tests/conftest.py builds the fixture
# campaign once per run and gives each worker a private copy).
test: setup
	$(PY) -m pytest -q -n 2

# The same suite in one process (to debug a test that fails only beside others).
test-serial: setup
	$(PY) -m pytest -q

# mypy: strict on logparse/, the rest with check_untyped_defs (see [tool.mypy] in pyproject.toml)
typecheck: setup
	$(VENV)/bin/mypy

lint: setup
	$(VENV)/bin/ruff check logparse kb tui tests bench fixtures
	$(VENV)/bin/lint-imports

bench: setup
	$(PY) -m bench ingest

clean:
	rm -rf $(FIXTURE) bench/data .pytest_cache
