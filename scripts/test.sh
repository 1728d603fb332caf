#!/usr/bin/env bash
# Builds and runs the whole test suite twice: a Release build, then an AddressSanitizer +
# UndefinedBehaviorSanitizer build in which any sanitizer report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_dependencies.sh

jobs=$(nproc)

echo "== Release build and tests =="
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DPOOLGRAD_BUILD_TESTS=ON
cmake --build build/release -j "$jobs"
ctest --test-dir build/release --output-on-failure -j "$jobs"

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build and tests =="
cmake -S . -B build/sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPOOLGRAD_BUILD_TESTS=ON -DPOOLGRAD_SANITIZE=ON
cmake --build build/sanitize -j "$jobs"
# halt_on_error / -fno-sanitize-recover make every report a test failure.
ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build/sanitize --output-on-failure -j "$jobs"
