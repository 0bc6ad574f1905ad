# The two commands of the README's quickstart. Everything else is CMake (CMakePresets.json).
PRESET ?= release
BUILD  := build
JOBS   ?= $(shell nproc)

.PHONY: demo test test-all build deps configure clean

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake --preset $(PRESET) >/dev/null

build: configure
	@cmake --build --preset $(PRESET) -j $(JOBS)

# The default tier (tests/CMakeLists.txt says what is in each); test-all adds the long one.
test: build
	@ctest --preset $(PRESET) -j $(JOBS) --label-exclude long

test-all: build
	@ctest --preset $(PRESET) -j $(JOBS)

demo: build
	@scripts/demo.sh

clean:
	rm -rf build build-debug build-asan build-tsan out
