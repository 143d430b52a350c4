# Gregor: a front end over CMake. See README.md.
#
#   make            build (./build)
#   make run        install missing build deps (apt), build, start gregord on 127.0.0.1:9092 (data in ./data)
#   make test       install test deps, build with -Werror, run every ctest test (unit, integration, interop,
#                   ref: libgregor and `gregor share-groups` against Apache Kafka 4.4.0)
#   make unit | integration | interop | ref     one label only
#   make test-ref   run the script tests against the reference Apache Kafka (validates the tests)
#   make asan       ASan+UBSan build in ./build-asan, run every ctest test there but the ref ones
#   make fuzz       clang/libFuzzer build in ./build-fuzz, run each fuzz target FUZZ_SECONDS (default 10)
#   make bench      build and run the benchmarks (bench/run.sh, then bench/clients.sh unless BENCH_SKIP_CLIENTS=1,
#                   bench/capacity.sh unless BENCH_SKIP_CAPACITY=1, bench/metrics_cost.sh unless
#                   BENCH_SKIP_METRICS_COST=1, bench/share_dlq.sh unless BENCH_SKIP_DLQ=1, bench/tls.sh unless
#                   BENCH_SKIP_TLS=1, bench/cgroup.sh unless BENCH_SKIP_CGROUP=1,
#                   bench/latency.sh unless BENCH_SKIP_LATENCY=1, bench/txn.sh unless BENCH_SKIP_TXN=1, bench/share_memory.sh unless
#                   BENCH_SKIP_SHARE_MEMORY=1, the soak bench/soak.sh if BENCH_SOAK=1: SOAK_S, default 600 s),
#                   then bench/plots.sh: PNG/SVG plots in build/bench-plots/ (matplotlib in its own venv)
#   make format     clang-format the C sources in place
#   make format-check  fail when a C source is not clang-formatted (CI)
#   make install    cmake --install (PREFIX=/usr/local, DESTDIR honoured): libgregor + gregor.pc, gregor,
#                   gregord, PREFIX/etc/gregor/server.properties (kept if present), the systemd unit
#   make clean      remove build directories
#
# Variables: BUILD_TYPE (RelWithDebInfo), JOBS (nproc), FUZZ_SECONDS (10), CTEST_ARGS, CTEST_SLOTS (4: ctest -j,
# slots of tests/schedule.txt: JVM tests take 2), PREFIX, DESTDIR.

SHELL        := /bin/bash
BUILD_TYPE   ?= RelWithDebInfo
JOBS         ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 10
PREFIX       ?= /usr/local
CTEST_ARGS   ?=
CTEST_SLOTS  ?= 4
CMAKE        ?= cmake
CTEST        ?= ctest

.PHONY: all build configure run test unit integration interop ref test-ref deps test-deps \
        asan fuzz bench format format-check install clean

all: build

configure:
	$(CMAKE) -S . -B build -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: configure
	$(CMAKE) --build build -j $(JOBS)

deps:
	bash scripts/install-deps.sh --build-only

test-deps:
	bash scripts/install-deps.sh

run: deps build
	bash scripts/run-gregord.sh

test: test-deps
	$(CMAKE) -S . -B build -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DGR_WERROR=ON
	$(CMAKE) --build build -j $(JOBS)
	cd build && $(CTEST) --output-on-failure -j$(CTEST_SLOTS) $(CTEST_ARGS)

unit integration interop ref: build
	cd build && $(CTEST) --output-on-failure -j$(CTEST_SLOTS) -L '^$@$$' $(CTEST_ARGS)

test-ref: test-deps
	@pass=0; failed=0; \
	for t in tests/integration/test_*.sh tests/interop/test_*.sh; do \
	  [ -f "$$t" ] || continue; \
	  grep -q 'gr_init' "$$t" || continue; \
	  echo "=== $$t --ref"; \
	  if bash "$$t" --ref; then pass=$$((pass+1)); else failed=$$((failed+1)); fi; \
	done; \
	echo "test-ref: $$pass passed, $$failed failed"; [ $$failed -eq 0 ]

asan: test-deps
	$(CMAKE) -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGR_WERROR=ON -DGR_ASAN=ON -DGR_UBSAN=ON
	$(CMAKE) --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(CTEST) --output-on-failure -j$(CTEST_SLOTS) -LE '^ref$$' $(CTEST_ARGS)

fuzz:
	bash scripts/fuzz.sh $(FUZZ_SECONDS)

bench: build
	@if [ -x bench/run.sh ] || [ -f bench/run.sh ]; then bash bench/run.sh; \
	else \
	  found=0; for b in build/bench_*; do [ -x "$$b" ] || continue; found=1; echo "=== $$b"; "$$b" || exit 1; done; \
	  [ $$found -eq 1 ] || echo "no benchmarks built (bench/bench_*.c)"; \
	fi
	@if [ "$${BENCH_SKIP_CLIENTS:-0}" != 1 ]; then bash bench/clients.sh; fi
	@if [ "$${BENCH_SKIP_CAPACITY:-0}" != 1 ]; then bash bench/capacity.sh; fi
	@if [ "$${BENCH_SKIP_LITTLE:-0}" != 1 ]; then bash bench/littles_law.sh; fi
	@if [ "$${BENCH_SKIP_SCALING:-0}" != 1 ]; then bash bench/scaling.sh; fi
	@if [ "$${BENCH_SKIP_METRICS_COST:-0}" != 1 ]; then bash bench/metrics_cost.sh; fi
	@if [ "$${BENCH_SKIP_DLQ:-0}" != 1 ]; then bash bench/share_dlq.sh; fi
	@if [ "$${BENCH_SKIP_TLS:-0}" != 1 ]; then bash bench/tls.sh; fi
	@if [ "$${BENCH_SKIP_CGROUP:-0}" != 1 ]; then bash bench/cgroup.sh; fi
	@if [ "$${BENCH_SKIP_LATENCY:-0}" != 1 ]; then bash bench/latency.sh; fi
	@if [ "$${BENCH_SKIP_TXN:-0}" != 1 ]; then bash bench/txn.sh; fi
	@if [ "$${BENCH_SKIP_SHARE_MEMORY:-0}" != 1 ]; then bash bench/share_memory.sh; fi
	@if [ "$${BENCH_SOAK:-0}" = 1 ]; then bash bench/soak.sh; fi
	@bash bench/plots.sh

CLANG_FORMAT ?= $(shell command -v clang-format-14 || command -v clang-format)

format:
	@files=$$(git ls-files '*.c' '*.h' | grep -v '^build'); \
	[ -z "$$files" ] || $(CLANG_FORMAT) -i $$files

# Fails, naming the files, when a tracked C file differs from .clang-format's layout (CI runs it).
format-check:
	@bad=0; for f in $$(git ls-files '*.c' '*.h' | grep -v '^build'); do \
	  $(CLANG_FORMAT) --dry-run -Werror "$$f" >/dev/null 2>&1 || { echo "format-check: $$f is not clang-formatted (make format)"; bad=1; }; \
	done; \
	if [ $$bad = 0 ]; then echo "format-check: every C file matches .clang-format"; fi; exit $$bad

install: build
	DESTDIR=$(DESTDIR) $(CMAKE) --install build --prefix $(PREFIX)

clean:
	rm -rf build build-asan build-fuzz
