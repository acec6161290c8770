# Front door for building, testing and running Rota. See README.md.
BUILD_DIR      ?= build
TEST_BUILD_DIR ?= build-asan
FUZZ_BUILD_DIR ?= build-fuzz
# `make fuzz`: seconds per target, and which targets (tests/fuzz/protocol_fuzz_targets.h).
FUZZ_SECONDS   ?= 60
FUZZ_TARGETS   ?= request_frames response_frames credential request_body step_channel pmi2
CMAKE_FLAGS    ?=
GENERATOR      := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
# ccache keys objects by paths relative to the checkout, so that another clone of the same
# commit (a second worktree, a CI run) reuses what this one compiled.
export CCACHE_BASEDIR  := $(CURDIR)
export CCACHE_NOHASHDIR := true

.PHONY: all build test fuzz deps format check-format bench quickstart down bench-vs-slurm install packages \
        bench-vs-slurmdbd clean cluster cluster-down

all: build

deps:
	@bash scripts/install-deps.sh

# Optimised binaries with debug info; every program lands in build/bin/.
build: deps
	@cmake -S . -B $(BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD_DIR)

# The whole suite, built separately with AddressSanitizer + UndefinedBehaviorSanitizer.
test:
	@bash scripts/install-deps.sh --with-clients
	@cmake -S . -B $(TEST_BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=Debug -DROTA_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(TEST_BUILD_DIR)
	@cd $(TEST_BUILD_DIR) && ctest --output-on-failure --no-tests=error -j $$(nproc)

# The fault suite alone (tests/integration/chaos_test.cc; root, about 45 s): daemons
# killed with SIGKILL under load, rotadbd and PostgreSQL down and back. ROTA_CHAOS_SEED=N
# runs another storm than the fixed one. `make test` runs it too.
.PHONY: chaos
chaos: deps
	@cmake -S . -B $(TEST_BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=Debug -DROTA_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(TEST_BUILD_DIR) --target chaos_test
	@cd $(TEST_BUILD_DIR) && ctest --output-on-failure --no-tests=error -L chaos

# Coverage-guided protocol fuzzing with libFuzzer (clang, ASan + UBSan), FUZZ_SECONDS per
# target. Each starts from tests/fuzz/corpus/<target> and keeps what it learns in
# $(FUZZ_BUILD_DIR)/corpus/<target>; a crash is saved under $(FUZZ_BUILD_DIR)/artifacts/
# (add it to tests/fuzz/corpus/<target>/ once fixed: the suite replays it). `make test`
# runs the same targets without clang, briefly (protocol_fuzz_test).
fuzz: deps
	@cmake -S . -B $(FUZZ_BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_CXX_COMPILER=clang++ -DROTA_SANITIZE=ON -DROTA_FUZZ=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(FUZZ_BUILD_DIR) --target fuzzers
	@failed=""; for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD_DIR)/corpus/$$t $(FUZZ_BUILD_DIR)/artifacts; \
	  echo "== fuzz_$$t: $(FUZZ_SECONDS) s"; \
	  $(FUZZ_BUILD_DIR)/bin/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=8192 \
	    -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD_DIR)/artifacts/$$t- \
	    $(FUZZ_BUILD_DIR)/corpus/$$t tests/fuzz/corpus/$$t 2>$(FUZZ_BUILD_DIR)/fuzz_$$t.log \
	    || failed="$$failed $$t"; \
	  grep -E '^#[0-9]+.*(DONE|pulse)|stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' \
	    $(FUZZ_BUILD_DIR)/fuzz_$$t.log | tail -5; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: findings in:$$failed (see $(FUZZ_BUILD_DIR)/fuzz_<target>.log)"; exit 1; fi

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
	@$(BUILD_DIR)/bin/core_pass_bench 2>/dev/null | \
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

# Separate hosts on this machine (network, UTS and mount namespaces; root): rotactld and
# rotadbd on "ctl", rotad on node1..node4, a "login" host; run/cluster/env.sh reaches it.
cluster: deps
	@cmake -S . -B $(BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD_DIR) --target programs
	@ROTA_BIN=$(abspath $(BUILD_DIR))/bin bash scripts/cluster.sh

cluster-down:
	@bash scripts/cluster.sh down

# Rota and real Slurm 22.05 (installed from Debian's packages if missing) side by side on this
# machine: two 4-node clusters of the same layout, each figure interleaved; see docs/performance.md.
bench-vs-slurm: build
	@bash bench/vs-slurm/run.sh $(abspath $(BUILD_DIR))/bin

# Accounting at 100,000 jobs: rotadbd (SQLite) and Slurm's slurmdbd on a throwaway MariaDB
# (both installed from Debian's packages if missing), the same jobs, sacct timed interleaved.
bench-vs-slurmdbd: build
	@bash bench/vs-slurm/dbd.sh $(abspath $(BUILD_DIR))/bin

# The daemons, their helpers, the commands and the systemd units under PREFIX (into DESTDIR
# when set), from the optimised build: `make install PREFIX=/opt/rota` keeps Rota apart from a
# site's Slurm packages (docs/running.md).
PREFIX ?= /usr/local
install: deps
	@cmake -S . -B $(BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD_DIR) --target programs
	@DESTDIR=$(DESTDIR) cmake --install $(BUILD_DIR) --prefix $(PREFIX)

# Debian packages in build/packages/: rota-controller, rota-node, rota-accounting, rota-rest and
# rota-client (scripts/make-packages.sh).
packages: deps
	@cmake -S . -B $(BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD_DIR) --target programs
	@bash scripts/make-packages.sh --build-dir $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR) $(TEST_BUILD_DIR) $(FUZZ_BUILD_DIR)
