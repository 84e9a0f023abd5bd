# Single entry point for building, testing and demoing ocgraph.
#
#   make setup   .venv with the Python dev dependencies + the extension built into it (release)
#   make test    setup, Rust tests (dev profile), Python tests with the dev-profile CLI the Rust tests
#                built (OCGRAPH_SLOW=1: slow tests too); the extension is built in the dev profile
#                too (`make setup` or `make demo` puts the release build back)
#   make demo    setup + CLI: generate, import, info, run; then the same from Python
#   make lint    rustfmt --check, clippy -D warnings, ruff check + ruff format --check
#   make fmt     rustfmt + ruff format
#   make bench   every bench/*/run.py at small scale
#   make fuzz    every fuzz target (fuzz/, cargo fuzz on stable via RUSTC_BOOTSTRAP) for FUZZ_SECS each
#                (or until FUZZ_RUNS executions, when set and reached first)
#
# Variables: PYTHON (interpreter that creates the venv), VENV, CARGO_TARGET_DIR,
# MATURIN_FLAGS (default --release), TEST_MATURIN_FLAGS (what `make test` builds the extension with,
# default: the dev profile),
# FUZZ_SECS (default 60), FUZZ_RUNS (default: unset), FUZZ_TARGETS (default: all).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
VPY := $(abspath $(VENV))/bin/python
CARGO ?= cargo
MATURIN_FLAGS ?= --release
export CARGO_TARGET_DIR ?= $(CURDIR)/target
OCGRAPH_BIN := $(CARGO_TARGET_DIR)/release/ocgraph
# The tests drive the CLI as built for the Rust tests (dev profile, the same cargo command: a
# no-op after test-rust): building the release CLI as well would compile Arrow and Parquet a
# second time.
TEST_OCGRAPH_BIN := $(CARGO_TARGET_DIR)/debug/ocgraph
DEMO_DIR ?= $(CARGO_TARGET_DIR)/demo
PY_SOURCES := python tests/python $(wildcard bench)
FUZZ_SECS ?= 60
FUZZ_RUNS ?=
FUZZ_TARGETS ?=

.PHONY: help setup deps ext cli demo test test-rust test-python fmt lint bench fuzz clean

help:
	@sed -n '2,17p' Makefile | sed 's/^# \{0,1\}//'

# The venv and its dependencies; redone only when requirements-dev.txt changes.
$(VENV)/.deps-stamp: requirements-dev.txt
	@test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(VPY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@touch $@

deps: $(VENV)/.deps-stamp

# The extension is always rebuilt (cargo makes it a no-op when nothing changed).
ext: deps
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH PIP_QUIET=1 \
		maturin develop $(MATURIN_FLAGS) --quiet

setup: ext

# The CLI is linked into the venv's bin/, so that an activated venv has `ocgraph` on PATH.
cli:
	$(CARGO) build --release -p ocgraph-cli
	@if [ -d $(VENV)/bin ]; then ln -sf $(abspath $(OCGRAPH_BIN)) $(VENV)/bin/ocgraph; fi

test: setup test-rust test-python

# The tests build the extension in the dev profile, as the Rust tests build their crates: a clean
# clone then compiles the dependencies once rather than once more with thin LTO, and the Python
# suite takes about as long either way (pytest --durations: 290 s against 270 s).
TEST_MATURIN_FLAGS ?=
test test-python: MATURIN_FLAGS = $(TEST_MATURIN_FLAGS)

test-rust:
	$(CARGO) test --workspace --exclude ocgraph-py

# The Python tests also drive the CLI (Parquet/CSV import, the README's tour). They run in two
# processes, a file's tests in one (so the Spark tests share one Spark session): the Spark tests
# wait on Spark's scheduling more than they compute, and the other files run meanwhile.
test-python: setup
	$(CARGO) test --workspace --exclude ocgraph-py --no-run
	OCGRAPH_BIN=$(TEST_OCGRAPH_BIN) $(VPY) -m pytest tests/python -q -n 2 --dist loadfile --durations=10

demo: setup cli
	@mkdir -p $(DEMO_DIR)
	$(OCGRAPH_BIN) generate kronecker --scale 16 --edge-factor 16 --seed 1 --force --quiet $(DEMO_DIR)/kron16
	$(OCGRAPH_BIN) import data/ca-AstroPh.txt.gz $(DEMO_DIR)/astro --undirected --dedup --relabel --force --quiet
	$(OCGRAPH_BIN) info $(DEMO_DIR)/kron16
	$(OCGRAPH_BIN) info $(DEMO_DIR)/astro
	$(OCGRAPH_BIN) run bfs $(DEMO_DIR)/astro --source 0 --verify
	$(OCGRAPH_BIN) run pagerank $(DEMO_DIR)/kron16 --backend pool --memory 16MiB --stats
	$(VPY) -m ocgraph._demo $(DEMO_DIR)
	@echo
	@echo "Next: source $(VENV)/bin/activate (ocgraph and the Python package on PATH), then the tour in README.md."

fmt:
	$(CARGO) fmt --all
	$(VPY) -m ruff format $(PY_SOURCES)
	$(VPY) -m ruff check --fix $(PY_SOURCES)

lint: deps
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(VPY) -m ruff check $(PY_SOURCES)
	$(VPY) -m ruff format --check $(PY_SOURCES)

bench: setup cli
	@for f in bench/*/run.py; do \
		[ -e "$$f" ] || { echo "no benchmarks under bench/"; break; }; \
		echo "== $$f"; OCGRAPH_BIN=$(OCGRAPH_BIN) $(VPY) "$$f" --small; \
	done

# cargo-fuzz is installed once (`cargo install cargo-fuzz`); its sanitizer flags need nightly
# features, which RUSTC_BOOTSTRAP=1 enables on the stable toolchain. fuzz/ is not a workspace
# member, so `make test` does not build it. Results: bench/fuzz/RESULTS.md.
fuzz:
	@command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz --locked
	cd fuzz && RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR=$(CURDIR)/fuzz/target $(CARGO) fuzz build -O -a
	FUZZ_SECS=$(FUZZ_SECS) FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_TARGETS="$(FUZZ_TARGETS)" fuzz/run.sh

clean:
	rm -rf $(VENV) $(DEMO_DIR)
