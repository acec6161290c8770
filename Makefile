# Front door for building, testing and running Rota. See README.md.
BUILD_DIR      ?= build
TEST_BUILD_DIR ?= build-asan
CMAKE_FLAGS    ?=
GENERATOR      := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
# ccache keys objects by paths relative to the checkout, so that another clone of the same
# commit (a second worktree, a CI run) reuses what this one compiled.
export CCACHE_BASEDIR  := $(CURDIR)
export CCACHE_NOHASHDIR := true

.PHONY: all build test deps format check-format bench quickstart down bench-vs-slurm \
        bench-vs-slurmdbd clean

all: build

deps:
	@bash scripts/install-deps.sh

# Optimised binaries with debug info; every program lands in build/bin/.
build: deps
	@cmake -S . -B $(BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD_DIR)

# The whole suite, built separately with AddressSanitizer + UndefinedBehaviorSanitizer.
test: deps
	@cmake -S . -B $(TEST_BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=Debug -DROTA_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(TEST_BUILD_DIR)
	@cd $(TEST_BUILD_DIR) && ctest --output-on-failure --no-tests=error -j $$(nproc)

format:
	@git ls-files '*.cc' '*.h' | xargs clang-format -i

check-format:
	@git ls-files '*.cc' '*.h' | xargs clang-format --dry-run -Werror

# Rota's own benchmarks: one `name value unit` line per figure, and
# bench/results/latest.json. Side by side with real Slurm: make bench-vs-slurm.
bench: build
	@$(BUILD_DIR)/bin/parsers_bench --benchmark_min_time=0.2 2>/dev/null | \
	  awk '/^BM_/ {print $$1, $$2, $$3}'
	@$(BUILD_DIR)/bin/payload_bench --benchmark_min_time=0.2 2>/dev/null | \
	  awk '/^BM_/ {print $$1, $$4, $$5}'
	@$(BUILD_DIR)/bin/device_holders_bench --benchmark_min_time=0.2 2>/dev/null | \
	  awk '/^BM_/ {print $$1, $$4, $$5}'
	@$(BUILD_DIR)/bin/device_rules_bench --benchmark_min_time=0.2 2>/dev/null | \
	  awk '/^BM_/ {print $$1, $$4, $$5}'
	@$(BUILD_DIR)/bin/select_bench --benchmark_min_time=0.2 2>/dev/null | \
	  awk '/^BM_/ {print $$1, $$4, $$5}'
	@$(BUILD_DIR)/bin/backfill_bench 2>/dev/null | \
	  awk '/^BM_/ {print $$1, $$4, $$5}'
	@bash bench/ctld_bench.sh $(BUILD_DIR)/bin

# A local cluster under run/quickstart/: rotactld and six rotad (4 GPU nodes with fake A100s,
# 2 CPU nodes) on loopback, plus a demo job. Run again to see it, or to restart a daemon that died.
# Builds only the daemons and commands it starts (the `programs` target), not the tests.
quickstart: deps
	@cmake -S . -B $(BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD_DIR) --target programs
	@ROTA_BIN=$(abspath $(BUILD_DIR))/bin bash scripts/quickstart.sh

# Stops exactly what quickstart started and removes its cgroups; CLEAN=1 also deletes run/quickstart/.
down:
	@bash scripts/down.sh $(if $(filter 1 yes true,$(CLEAN)),--clean)

# Rota and real Slurm 22.05 (installed from Debian's packages if missing) side by side on this
# machine: two 4-node clusters of the same layout, each figure interleaved; see docs/performance.md.
bench-vs-slurm: build
	@bash bench/vs-slurm/run.sh $(abspath $(BUILD_DIR))/bin

# Accounting at 100,000 jobs: rotadbd (SQLite) and Slurm's slurmdbd on a throwaway MariaDB
# (both installed from Debian's packages if missing), the same jobs, sacct timed interleaved.
bench-vs-slurmdbd: build
	@bash bench/vs-slurm/dbd.sh $(abspath $(BUILD_DIR))/bin

clean:
	rm -rf $(BUILD_DIR) $(TEST_BUILD_DIR)
