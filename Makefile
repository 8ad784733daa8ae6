# gpufabric: every set-up step lives here, so a fresh machine needs only `make demo` / `make test`.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: help venv test unit lint typecheck demo plan-all clean

help:
	@echo "make demo   - set up, start the lab and run playbooks/tune-fabric.yml on it"
	@echo "make test   - set up and run every test and linter"
	@echo "make unit   - only the tests that need no root"
	@echo "make lint   - ruff, pyright, yamllint, ansible-lint"

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

venv: $(STAMP)

unit: $(STAMP)
	$(BIN)/pytest -q -m "not lab"

lint: $(STAMP)
	$(BIN)/ruff check src infra tests benchmarks
	$(BIN)/pyright

test: $(STAMP)
	$(MAKE) lint
	$(BIN)/pytest -q

plan-all: $(STAMP)
	for s in stacks/Pulumi.*.yaml; do s=$${s#stacks/Pulumi.}; $(BIN)/gpufabric plan -s $${s%.yaml} >/dev/null || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
