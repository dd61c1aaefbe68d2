# Assay's developer entry points. `make demo` and `make test` are the README's two commands: each sets up
# everything it needs on a fresh machine.
SHELL := /bin/bash
# The virtualenv's interpreter: Debian's python3.11 where the machine has it with its venv module, which is
# the interpreter the runner image runs (images/base/debian-python.sh; UBI's base has a distribution build
# too), so the tests and the benchmarks run what users run; else the first python3.11 on PATH. A source
# build without profile-guided optimisation (pyenv's default) starts `assay` 10-30 ms slower
# (bench/run_overhead.py names the interpreter it measured). An existing .venv keeps the one it was made
# with: `rm -rf .venv` to change it.
DISTRO_PYTHON := /usr/bin/python3.11
PYTHON ?= $(if $(shell $(DISTRO_PYTHON) -c 'import ensurepip, venv' 2>/dev/null && echo yes),$(DISTRO_PYTHON),python3.11)
VENV := .venv
BIN := $(VENV)/bin
UV_VERSION := 0.13.9
EXAMPLE := examples/support-desk
OUT := out

.PHONY: setup launcher test-deps system-packages agents demo-agent browser k8s go-tools container-tools images push k8s-shell chart chart-check demo demo-local test test-builds test-first test-unit test-cluster lint format lock crds crds-check clean

# A virtualenv with the pinned, locked dependencies and Assay installed in development mode.
$(BIN)/assay: pyproject.toml dev/pyproject.toml requirements/dev.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	VIRTUAL_ENV=$(VENV) $(BIN)/uv pip install --quiet --compile-bytecode -r requirements/dev.lock
	VIRTUAL_ENV=$(VENV) $(BIN)/uv pip install --quiet --no-deps -e . -e dev
	# Bytecode for the checkout too, as an installed package has (PYTHONDONTWRITEBYTECODE would otherwise
	# leave every run compiling the sources again).
	$(BIN)/python -m compileall -q runner operator dev
	touch $(BIN)/assay

setup: $(BIN)/assay launcher

# The cell sandbox's launcher (runner/assay_runner/sandbox/launcher.c), where the runner looks for it: each
# confined agent then starts with vfork instead of a fork of the runner (docs/trust-model.md). Without a C
# compiler the runner confines each agent in a forked child instead: as confined, slower; setup goes on.
LAUNCHER := runner/assay_runner/sandbox/assay-confine
$(LAUNCHER): runner/assay_runner/sandbox/launcher.c scripts/build-launcher.sh
	bash scripts/build-launcher.sh $@ any

launcher:
	@$(MAKE) --no-print-directory $(LAUNCHER) || echo "note: no sandbox launcher built; agents start by fork (slower)"

# The example evaluation of both brains without a cluster: `assay run` with the replay agent (the example's
# hand-written answers) and the model judge replayed from cassettes, so it runs offline; one MLflow run
# each in out/demo/mlflow.db, an HTML report each.
demo-local: setup
	@mkdir -p $(OUT)/demo
	@for brain in v0 v1; do \
	  echo "== brain $$brain"; \
	  $(BIN)/assay run $(EXAMPLE) --brain $(EXAMPLE)/brains/$$brain --agent replay \
	    --answers $(EXAMPLE)/answers/$$brain --run-name support-desk-$$brain --judge-model example-judge \
	    --cassettes $(EXAMPLE)/cassettes --mlflow sqlite:///$(CURDIR)/$(OUT)/demo/mlflow.db \
	    --experiment assay-demo --out $(OUT)/demo/$$brain; \
	  echo "exit code $$? (0 Pass, 1 Blocked)"; \
	done
	@echo "reports: $(OUT)/demo/v0/report.html $(OUT)/demo/v1/report.html"
	@echo "MLflow:  $(BIN)/mlflow ui --backend-store-uri sqlite:///$(CURDIR)/$(OUT)/demo/mlflow.db"

# The example suite answered by a real agent CLI (AGENT=opencode, claude-code or codex; pinned in agents/)
# against the scripted model server on loopback, judged as in demo-local: offline, about a minute.
AGENT ?= opencode
demo-agent: setup agents
	$(BIN)/python scripts/demo_agent.py $(AGENT)

# The real product on a local control plane: the operator and runner images (make images), a networked
# node (pods on their own network, kube-router enforcing NetworkPolicy), helm install, two Evaluations,
# `kubectl get evaluations` as they run, the network probe's finding, the reports from MLflow; everything
# it starts is stopped at the end. Needs root; the first run builds the control plane (about 30 minutes on
# 2 cores), the images (about 3 minutes), the CNI plugins and kube-router (Go module proxy); later runs take
# about one and a half minutes on a quiet 2-core machine, two or more on a busy one.
demo: setup k8s images
	ASSAY_K8S_BIN_DIR=$$(bash scripts/build-k8s.sh | tail -1) $(BIN)/python scripts/demo_cluster.py

# The agent CLIs pinned in agents/package-lock.json, into agents/node_modules (tests/agents, demo-agent);
# about 35 s and 1.2 GB when cold, a checksum comparison when present.
agents:
	bash scripts/install-agents.sh

# Debian's Chromium for the report's browser test (skipped when already installed).
browser:
	bash scripts/install-browser.sh

# etcd, kube-apiserver, kube-controller-manager, kubectl and helm, built from the Go module proxy into a
# versioned cache (~/.cache/assay/k8s/...); a no-op when cached. Cold: see docs/control-plane.md.
k8s:
	$(NICE) bash scripts/build-k8s.sh

# kstatus, the operator-framework's bundle validator, promtool, syft, the Kueue controller, the local-path
# provisioner, the CNI plugins, kube-router and an OCI registry (the suite-artifact tests), each built from its helper module in tools/ (Go module proxy) into ~/.cache/assay/go-tools; a
# no-op when cached. Cold: see docs/control-plane.md.
go-tools:
	$(NICE) bash scripts/build-go-tools.sh

# Debian's buildah, runc, mmdebstrap, umoci, uidmap and catatonit (skipped when installed).
container-tools:
	bash scripts/install-container-tools.sh

# The operator and runner images (and the runner with the pinned agent CLIs), built with buildah from
# images/*/Containerfile, cached by content, digests and SBOMs in out/images/ (docs/images.md). Cold: about
# 3 minutes on 2 cores; warm: a few seconds.
# IMAGES_DEPS: what it waits for; `make test` adds the Go tools (syft writes the SBOMs) and has the apt
# installs in one job.
IMAGES_DEPS ?= container-tools
images: setup $(IMAGES_DEPS)
	$(NICE) $(BIN)/python -m assay_dev.images

# The built images pushed by digest to REGISTRY (HOST[:PORT][/PREFIX]; REGISTRY_CA: its CA when private),
# signed and their SBOMs attested with the cosign key SIGN_KEY when set (its password in COSIGN_PASSWORD);
# out/images/pushed.json records the references by digest (docs/images.md).
push: setup
	$(NICE) $(BIN)/python -m assay_dev.images push --registry $(REGISTRY) \
	  $(if $(REGISTRY_CA),--ca $(REGISTRY_CA)) $(if $(SIGN_KEY),--sign-key $(SIGN_KEY))

# What the tests need that takes long on a fresh machine, side by side: a Go build keeps both cores busy only
# about two thirds of its time (module downloads, single-threaded links), and the npm and apt installs wait on
# the network. The apt installs stay in one job (dpkg takes one lock).
test-deps: setup
	$(MAKE) --no-print-directory -j4 --output-sync=target k8s go-tools agents system-packages

# One after the other: apt-get takes dpkg's lock and does not wait for it.
system-packages:
	bash scripts/install-container-tools.sh
	bash scripts/install-browser.sh

# The whole suite in two phases, so that what a fresh machine builds for long (the control plane, Go tools,
# then the images: test-builds) overlaps the tests that need none of it:
#   1. test-first: `pytest -m 'not builds'`, beside test-builds (niced: the tests keep the cores they ask
#      for). ASSAY_NO_BUILDS makes scripts/build-k8s.sh, scripts/build-go-tools.sh and the image build
#      refuse, so a test that needs them but lacks the marker fails here (never waits, never skips).
#   2. `pytest -m builds`, once test-builds is done.
# tests/conftest.py gives the `builds` marker to every `cluster` and `images` test and to the users of the
# fixtures that locate those builds; the two selections are complements, so every test runs exactly once.
# A failure in the first phase does not stop the second; `make test` fails on either. The first phase's
# output is live (its line is a `+` line, so --output-sync leaves it alone, and `make -n` runs it); each
# build's appears in one piece when it ends.
TEST_FIRST_FAILED := $(OUT)/.test-first-failed
# Property tests draw the same examples on every `make test` (tests/conftest.py's `deterministic` profile),
# so CI cannot fail by the luck of a draw; `pytest` run by hand draws new ones.
PYTEST_PROFILE := --hypothesis-profile=deterministic
# The cluster tests mostly wait (deadlines, pod GC, the operator's retry delays): two pytest-xdist workers,
# each with its own control plane and local kubelet, nearly halve the second phase on 2 cores. A module whose
# tests share a module-scoped fixture (its own control plane, a registry, Kueue) is one group on one worker
# (tests/conftest.py: SHARED_FIXTURE_MODULES); every other test is scheduled on its own. See
# docs/control-plane.md, Two workers. Tests marked `alone` (their agents ask every loopback listener of the
# host) run after, on one worker, with nothing beside them.
CLUSTER_WORKERS := -n 2 --dist loadgroup

test: setup
	@mkdir -p $(OUT) && rm -f $(TEST_FIRST_FAILED)
	$(MAKE) --no-print-directory -j6 --output-sync=target NICE="nice -n 10" \
	  IMAGES_DEPS="system-packages go-tools" test-builds test-first
	export ASSAY_K8S_BIN_DIR=$$(bash scripts/build-k8s.sh | tail -1); \
	$(BIN)/pytest $(PYTEST_PROFILE) $(CLUSTER_WORKERS) -m 'builds and not alone'; second=$$?; \
	$(BIN)/pytest $(PYTEST_PROFILE) -m 'builds and alone'; alone=$$?; \
	if [[ -e $(TEST_FIRST_FAILED) ]]; then \
	  echo "make test: the first phase (pytest -m 'not builds') failed: see above" >&2; exit 1; \
	fi; \
	if [[ $$second -ne 0 ]]; then exit $$second; fi; \
	exit $$alone

test-builds: k8s go-tools images chart-check

test-first: setup agents system-packages lint crds-check
	+ASSAY_NO_BUILDS=1 $(BIN)/pytest $(PYTEST_PROFILE) -m 'not builds' || touch $(TEST_FIRST_FAILED)

test-unit: setup
	$(BIN)/pytest tests/unit

test-cluster: setup k8s go-tools agents images
	export ASSAY_K8S_BIN_DIR=$$(bash scripts/build-k8s.sh | tail -1); \
	$(BIN)/pytest $(CLUSTER_WORKERS) -m 'cluster and not alone'; workers=$$?; \
	$(BIN)/pytest -m 'cluster and alone' && exit $$workers

# A control plane for poking at by hand: prints the KUBECONFIG export, runs until Ctrl-C.
k8s-shell: setup k8s
	PYTHON=$(BIN)/python bash scripts/k8s-shell.sh

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: setup
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Every generated file, each saying at its top that it is generated and by what, in the order they read each
# other: the CRDs from the operator's typed API; the chart's CRD copies, RBAC and approval files; manifests/base,
# rendered from the chart by helm (the control plane's build, scripts/build-k8s.sh: a no-op when cached); the
# OLM bundle, which reads manifests/base; the images' dependency lists from pyproject.toml; the homoglyph
# table from Unicode's confusables. `make chart` is the same. crds-check (no build: `make test`'s first phase)
# and chart-check (helm: its second) check exactly these (tests/unit/test_generated_files.py keeps the three
# lists equal).
HELM_ENV = ASSAY_K8S_BIN_DIR=$$(bash scripts/build-k8s.sh | tail -1)

crds: setup
	$(BIN)/python -m assay_operator.crdgen --out crds
	$(BIN)/python scripts/gen_chart_files.py
	$(HELM_ENV) $(BIN)/python scripts/render_manifests.py
	$(BIN)/python scripts/gen_olm_bundle.py
	$(BIN)/python -m assay_dev.images.requirements
	$(BIN)/python scripts/gen_homoglyphs.py

chart: crds

crds-check: setup
	@$(BIN)/python -m assay_operator.crdgen --check crds
	@$(BIN)/python scripts/gen_chart_files.py --check
	@$(BIN)/python scripts/gen_olm_bundle.py --check
	@$(BIN)/python -m assay_dev.images.requirements --check
	@$(BIN)/python scripts/gen_homoglyphs.py --check

chart-check: setup k8s crds-check
	$(HELM_ENV) $(BIN)/python scripts/render_manifests.py --check

# Re-pin every transitive dependency from pyproject.toml (and the images' dependency lists, images/deps/).
lock: setup
	$(BIN)/uv pip compile pyproject.toml --extra dev --extra runner --extra operator --python-version 3.11 \
	  -o requirements/dev.lock --quiet --custom-compile-command "make lock"
	$(BIN)/python -m assay_dev.images.requirements

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache .mypy_cache .ruff_cache $(LAUNCHER) images/launcher
