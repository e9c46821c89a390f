# make test    what CI runs: Release tests, then the concurrency tests under
#              ASan+UBSan and TSan, then every fuzzer (tests/fuzz/) for
#              FUZZ_SECONDS each, two at a time (installs missing Debian
#              packages first)
# make bench   builds the benchmarks and runs every study in quick mode;
#              STUDY=<name> runs one (core, latency, micro, patterns,
#              streaming, locality, distributed),
#              FULL=1 the full sizes, CAF_ROOT=<prefix> adds an installed
#              CAF 1.x
# make clean   removes build/
#
# JOBS=<n> limits the build's parallelism (ninja's default otherwise).

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := test

CTEST := ctest --output-on-failure -j2 --no-label-summary
BUILD_ARGS := $(if $(JOBS),--parallel $(JOBS))

ASAN_ENV := ASAN_OPTIONS=detect_leaks=1 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
TSAN_ENV := TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
FUZZ_SECONDS ?= 60

.PHONY: deps test bench clean

deps:
	bash scripts/install-deps.sh test

# The Release run comes last, so the last summary line is that of the whole
# suite.
test: deps
	cmake --preset release -DTROUPE_BUILD_BENCHMARKS=OFF
	cmake --build --preset release $(BUILD_ARGS)
	cmake --preset asan
	cmake --build --preset asan --target troupe_concurrency_tests $(BUILD_ARGS)
	$(ASAN_ENV) $(CTEST) --preset asan -L concurrency
	cmake --preset tsan
	cmake --build --preset tsan --target troupe_concurrency_tests $(BUILD_ARGS)
	$(TSAN_ENV) $(CTEST) --preset tsan -L concurrency
	cmake --preset fuzz
	cmake --build --preset fuzz $(BUILD_ARGS)
	bash tools/fuzz.sh --seconds $(FUZZ_SECONDS) --build build/fuzz
	$(CTEST) --preset release

# Its own build folder (build/bench): benchmarks only, so it neither builds
# the tests nor reconfigures the folder `make test` uses.
# tools/bench_build.py builds Troupe's programs, then the competitors' going
# on past failures: one that does not build is reported absent by its study.
bench:
	bash scripts/install-deps.sh bench
	cmake --preset bench -DCAF_ROOT=$(CAF_ROOT)
	/usr/bin/python3 tools/bench_build.py --build-dir build/bench $(if $(JOBS),--parallel $(JOBS))
	/usr/bin/python3 tools/bench.py --build-dir build/bench $(if $(STUDY),--study $(STUDY)) $(if $(FULL),--full,--quick)
	/usr/bin/python3 tools/report.py

clean:
	rm -rf build
