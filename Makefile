# Thin wrapper over CMake. `make test` and `make demo` install what they need first.
JOBS ?= $(shell nproc)
BUILD ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
# What runs under ThreadSanitizer: the thread pool, the device mesh and concurrent jit calls.
TSAN_TESTS = test_runtime test_sharding test_jit
# libFuzzer targets, one per parser (tests/fuzz), built in the sanitizer tree from its objects:
# test-fuzz runs each for FUZZ_TEST_SECONDS, fuzz for FUZZ_SECONDS, JOBS at a time
# (scripts/run-fuzzers.sh).
FUZZ_TARGETS = fuzz_npy fuzz_einsum fuzz_aot_decoder fuzz_disk_cache
FUZZ_TEST_SECONDS ?= 20
FUZZ_SECONDS ?= 300
# New trees are configured for Ninja: it compiles a library's dependents while the library links
# (CMake's Makefiles wait for each target), a cold ASan tree in 368 s instead of 458 s. A tree
# that exists keeps the generator it was configured with.
GENERATOR ?= Ninja
generator = $(if $(wildcard $(1)/CMakeCache.txt),,-G "$(GENERATOR)")
# Open MPI's launcher for the multi-process demo (as root in containers it needs the flag; the
# single-copy mechanism needs ptrace rights containers refuse).
# CI builds with warnings as errors (.ci/run: WARNINGS_AS_ERRORS=ON); unset, each tree keeps what it
# was configured with, so that no target rebuilds another's tree for its flags.
WARNINGS_AS_ERRORS ?=
WERROR_FLAG = $(if $(WARNINGS_AS_ERRORS),-DCMAKE_COMPILE_WARNING_AS_ERROR=$(WARNINGS_AS_ERRORS))
MPIRUN ?= mpirun --oversubscribe --allow-run-as-root --bind-to none --mca btl_vader_single_copy_mechanism none

.PHONY: deps build test test-release asan-build test-asan test-tsan test-fuzz fuzz campaign demo clean format

deps:
	bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) $(call generator,$(BUILD)) -DCMAKE_BUILD_TYPE=Release $(WERROR_FLAG)
	cmake --build $(BUILD) -j $(JOBS)

test-release: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# One sanitizer tree (clang, AddressSanitizer and UndefinedBehaviorSanitizer) serves the tests and
# the fuzzers: its objects carry libFuzzer's coverage too. allocator_may_return_null: a refused
# allocation returns NULL as without ASan, so jx's MemoryError path is what runs (ASan would abort
# on a 1 PiB request). The sanitizer builds are configured without MPI (JX_MPI=OFF): they check
# that jx builds and runs without it, and Open MPI's own allocations would read as leaks.
asan-build: deps
	cmake -S . -B $(ASAN_BUILD) $(call generator,$(ASAN_BUILD)) -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_BUILD_TYPE=Debug \
	  $(WERROR_FLAG) \
	  -DJX_SANITIZE=ON -DJX_FUZZ=ON -DJX_BUILD_EXAMPLES=OFF -DJX_BUILD_BENCH=OFF -DJX_MPI=OFF
	cmake --build $(ASAN_BUILD) -j $(JOBS)

test-asan: asan-build
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)

test-tsan: deps
	cmake -S . -B $(TSAN_BUILD) $(call generator,$(TSAN_BUILD)) -DCMAKE_BUILD_TYPE=Debug -DJX_TSAN=ON $(WERROR_FLAG) -DJX_BUILD_EXAMPLES=OFF -DJX_BUILD_BENCH=OFF -DJX_MPI=OFF
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target $(TSAN_TESTS)
	TSAN_OPTIONS=halt_on_error=1 ctest --test-dir $(TSAN_BUILD) --output-on-failure -j $(JOBS) \
	  -R '^($(shell echo $(TSAN_TESTS) | tr ' ' '|'))(\.shard[0-9]+)?$$'

test-fuzz: asan-build
	bash scripts/run-fuzzers.sh $(ASAN_BUILD) $(FUZZ_TEST_SECONDS) $(JOBS) $(FUZZ_TARGETS)

fuzz: asan-build
	bash scripts/run-fuzzers.sh $(ASAN_BUILD) $(FUZZ_SECONDS) $(JOBS) $(FUZZ_TARGETS)
	test ! -x ./$(BUILD)/tests/test_api_fuzz || \
	  JX_API_FUZZ_SECONDS=$(FUZZ_SECONDS) ./$(BUILD)/tests/test_api_fuzz

test: test-release test-asan test-tsan test-fuzz

# The long campaigns `make test` bounds: CAMPAIGN_GRAPHS random graphs, functions, loop bodies and
# contractions per differential test against the evaluator, and the API-sequence fuzzer for CAMPAIGN_SECONDS.
CAMPAIGN_GRAPHS ?= 2000
CAMPAIGN_SECONDS ?= 600
campaign: build
	JX_DIFF_GRAPHS=$(CAMPAIGN_GRAPHS) JX_DIFF_DOTS=$(CAMPAIGN_GRAPHS) \
	  GTEST_FILTER='Differential.*:Random*.*:ControlDerivatives.*:Contractions.CompiledMatchesInterpreter' \
	  ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) \
	  -R '^test_(differential|transforms|lax|contractions)(\.|$$)'
	JX_API_FUZZ_SECONDS=$(CAMPAIGN_SECONDS) ./$(BUILD)/tests/test_api_fuzz

demo: build
	./$(BUILD)/examples/simpson --variant stack
	./$(BUILD)/examples/simpson --variant broadcast
	./$(BUILD)/examples/diff_seed
	./$(BUILD)/bench/seed_simpson --variant stack
	./$(BUILD)/bench/seed_simpson --variant stack --shard functions
	./$(BUILD)/bench/seed_simpson --variant stack --shard intervals
	./$(BUILD)/bench/seed_diff --mesh 1x1
	./$(BUILD)/bench/seed_diff --mesh 8x1
	./$(BUILD)/bench/seed_diff --mesh 1x8
	./$(BUILD)/examples/aot_seeds
	@echo "ldd ./$(BUILD)/examples/aot_seeds:" && ldd ./$(BUILD)/examples/aot_seeds
	@! ldd ./$(BUILD)/examples/aot_seeds | grep -q libLLVM || (echo "aot_seeds links LLVM" && false)
	./$(BUILD)/bench/aot_bench
	./$(BUILD)/examples/simpson_grad
	./$(BUILD)/examples/mlp
	./$(BUILD)/examples/heat
	@if [ -x ./$(BUILD)/examples/distributed ]; then \
	  echo "mpirun -np 2 examples/distributed (4 devices per process)"; \
	  JX_NUM_CPU_DEVICES=4 JX_NUM_THREADS=1 $(MPIRUN) -np 2 ./$(BUILD)/examples/distributed; \
	else echo "examples/distributed: not built (no MPI)"; fi

format:
	clang-format -i $$(git ls-files '*.h' '*.cpp')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD)
