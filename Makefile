# SPDX-License-Identifier: BSD-3-Clause
# Thin wrapper over meson/ninja. `make demo` and `make test` work on a fresh Debian 12 as root.
BUILD ?= build
PY := .venv/bin/python

.PHONY: all setup build test unit e2e demo seed-000 seed-001 seed-004 bench bench-bng bench-graph bench-graph-ab bench-txonly bench-instr asan asan-build asan-unit fuzz clean

all: build

setup:
	@scripts/setup.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) >/dev/null

build: setup $(BUILD)/build.ninja
	ninja -C $(BUILD)

unit: build
	meson test -C $(BUILD) --print-errorlogs

e2e: build
	SLUICE_BUILD=$(BUILD) $(PY) -m pytest -q tests/e2e

# Sanitizer build of the daemon and the unit tests, and a bounded fuzz run.
SAN_ENV := ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
asan-build: setup
	[ -f build-asan/build.ninja ] || CC=clang meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug >/dev/null
	ninja -C build-asan

asan-unit: asan-build
	$(SAN_ENV) meson test -C build-asan --print-errorlogs

asan: asan-unit
	$(SAN_ENV) SLUICE_BUILD=build-asan $(PY) -m pytest -q tests/e2e

fuzz: setup
	scripts/fuzz.sh

# Each step's start time is printed, so that a slow CI run shows which step took it.
test: build
	@echo "== $$(date +%T) unit tests"
	meson test -C $(BUILD) --print-errorlogs
	@echo "== $$(date +%T) sanitizer build and unit tests"
	$(MAKE) --no-print-directory asan-unit
	@echo "== $$(date +%T) fuzzers"
	FUZZ_SECONDS=$${FUZZ_SECONDS:-10} $(MAKE) --no-print-directory fuzz
	@echo "== $$(date +%T) end-to-end tests, sanitizer and release builds (scripts/e2e.sh)"
	BUILD=$(BUILD) PY=$(PY) scripts/e2e.sh
	@echo "== $$(date +%T) done"

demo: build
	$(PY) scripts/demo.py

bench: build
	$(PY) scripts/bench.py

# seed 000: the first topology, then the multi-flow soak (SOAK=seconds, default 180;
# RESUME=1 goes on from results/seed-000/intervals.jsonl)
seed-000: build
	$(PY) scripts/seed000.py $(if $(SOAK),--duration $(SOAK)) $(if $(RESUME),--resume) $(if $(IP6),--ip6)

# seed 001: NDR at 64/512/1500 B, L2 and L3, trial by trial against testpmd io and l3fwd
seed-001: build
	$(PY) scripts/seed001.py

# seed 004: VM to VM across two servers over MPLS over UDP and VXLAN, against Linux bridges
seed-004: build
	$(PY) scripts/seed004.py

bench-graph: build
	$(PY) scripts/bench_graph.py

bench-bng: build
	$(PY) scripts/bench_bng.py

bench-graph-ab: build
	$(PY) scripts/bench_graph_ab.py

bench-txonly: build
	$(PY) scripts/bench_txonly.py

bench-instr: build
	$(PY) scripts/bench_instr.py

clean:
	rm -rf $(BUILD) build-asan build-fuzz
