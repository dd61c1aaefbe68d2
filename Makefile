# Assay's developer entry points. `make demo` and `make test` are the README's two commands: each sets up
# everything it needs on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
UV_VERSION := 0.13.9
EXAMPLE := examples/support-desk
OUT := out

.PHONY: setup demo demo-local test test-unit lint format typecheck lock crds clean

# A virtualenv with the pinned, locked dependencies and Assay installed in development mode.
$(BIN)/assay: pyproject.toml requirements/dev.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	VIRTUAL_ENV=$(VENV) $(BIN)/uv pip install --quiet --compile-bytecode -r requirements/dev.lock
	VIRTUAL_ENV=$(VENV) $(BIN)/uv pip install --quiet --no-deps -e .
	touch $(BIN)/assay

setup: $(BIN)/assay

# Score both example brains' recorded answers (model judge replayed from cassettes).
demo: setup
	@for brain in v0 v1; do \
	  echo "== brain $$brain"; \
	  $(BIN)/assay score $(EXAMPLE) --answers $(EXAMPLE)/answers/$$brain --run-name $$brain \
	    --cassettes $(EXAMPLE)/cassettes --judge-model example-judge --out $(OUT)/demo/$$brain; \
	  echo "exit code $$? (0 Pass, 1 Blocked)"; \
	done

test: setup lint
	$(BIN)/pytest

test-unit: setup
	$(BIN)/pytest tests/unit

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: setup
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Re-pin every transitive dependency from pyproject.toml.
lock: setup
	$(BIN)/uv pip compile pyproject.toml --extra dev --extra runner --extra operator --python-version 3.11 \
	  -o requirements/dev.lock --quiet --custom-compile-command "make lock"

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache .mypy_cache .ruff_cache
