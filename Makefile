# Thin wrapper over CMake. `make test` and `make demo` install what they need first.
JOBS ?= $(shell nproc)
BUILD ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
# What runs under ThreadSanitizer: the thread pool, the device mesh and concurrent jit calls.
TSAN_TESTS = test_runtime test_sharding test_jit

.PHONY: deps build test test-release test-asan test-tsan demo clean format

deps:
	bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

test-release: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DJX_SANITIZE=ON -DJX_BUILD_EXAMPLES=OFF -DJX_BUILD_BENCH=OFF
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)

test-tsan: deps
	cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DJX_TSAN=ON -DJX_BUILD_EXAMPLES=OFF -DJX_BUILD_BENCH=OFF
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target $(TSAN_TESTS)
	TSAN_OPTIONS=halt_on_error=1 ctest --test-dir $(TSAN_BUILD) --output-on-failure -j $(JOBS) \
	  -R '^($(shell echo $(TSAN_TESTS) | tr ' ' '|'))$$'

test: test-release test-asan test-tsan

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

format:
	clang-format -i $$(git ls-files '*.h' '*.cpp')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD)
