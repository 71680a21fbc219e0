# Each target creates .venv with pip if it is missing and installs what it needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/pip -q --disable-pip-version-check

.PHONY: demo test lint typecheck bench clean verl-venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# runtime install (no torch): enough for the demo and the CLI
$(VENV)/.core: pyproject.toml | $(BIN)/python
	$(PIP) install -e .
	touch $@

# test install: torch pinned to the CPU build (constraints-dev.txt), dev tools, Ray (CPU-only wheel)
$(VENV)/.dev: pyproject.toml constraints-dev.txt | $(BIN)/python
	$(PIP) install -c constraints-dev.txt 'torch==2.13.0'
	$(PIP) install -c constraints-dev.txt -e '.[dev,ray,server]'
	touch $(VENV)/.core $@

# the real verl 0.9.1 (CPU), in its own venv: the tests marked `verl` run it in a subprocess
VERL_VENV := .venv-verl
$(VERL_VENV)/.ok: bench/verl-constraints.txt
	$(PYTHON) -m venv $(VERL_VENV)
	$(VERL_VENV)/bin/pip -q --disable-pip-version-check install -c bench/verl-constraints.txt 'torch==2.13.0'
	$(VERL_VENV)/bin/pip -q --disable-pip-version-check install -c bench/verl-constraints.txt 'verl[math]==0.9.1'
	# rewardloop runs there from src/ (PYTHONPATH): its core dependencies verl does not pull, and what verl's agent loop imports
	$(VERL_VENV)/bin/pip -q --disable-pip-version-check install -c bench/verl-constraints.txt 'cloudpickle>=2.2' cachetools uvicorn fastapi mathruler
	touch $@

# verl's own reward tests (tests/verl_conformance) run there under pytest with pytest-asyncio
$(VERL_VENV)/.pytest: $(VERL_VENV)/.ok
	$(VERL_VENV)/bin/pip -q --disable-pip-version-check install -c bench/verl-constraints.txt pytest pytest-asyncio
	touch $@

verl-venv: $(VERL_VENV)/.ok $(VERL_VENV)/.pytest

demo: $(VENV)/.core
	$(BIN)/rewardloop score examples/rollouts.jsonl -o out/rollouts.scored.jsonl

lint: $(VENV)/.dev
	$(BIN)/ruff check src tests bench examples
	$(BIN)/ruff format --check src tests bench examples

# mypy, strict on src/ ([tool.mypy] in pyproject.toml; docs/configuration.md#type-checking says what it covers)
typecheck: $(VENV)/.dev
	$(BIN)/mypy

test: $(VENV)/.dev
	@bash scripts/install-system-deps.sh || true  # bubblewrap, chromium: optional, idempotent
	@$(MAKE) --no-print-directory verl-venv || echo "make test: could not build $(VERL_VENV); the tests marked verl will skip"
	$(BIN)/ruff check src tests bench examples
	$(BIN)/mypy
	$(BIN)/pytest -q

bench: $(VENV)/.dev
	bash bench/run_all.sh

clean:
	rm -rf out .pytest_cache .ruff_cache .mypy_cache
