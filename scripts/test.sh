#!/usr/bin/env bash
# Builds and runs the whole test suite: the C++ suite in a Release build; the Python module, the golden-data
# tool and the conformance suites against PyTorch and TensorFlow (pytest) on that build; then the C++ suite
# again in an AddressSanitizer + UndefinedBehaviorSanitizer build in which any sanitizer report fails the run;
# last, the libFuzzer harness (fuzz/): its corpus replayed and 60 s of fuzzing.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_dependencies.sh

jobs=$(nproc)

echo "== Release build and tests =="
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DPOOLGRAD_BUILD_TESTS=ON
cmake --build build/release -j "$jobs"
ctest --test-dir build/release --output-on-failure -j "$jobs"

echo "== Python module, golden-data tool, conformance with PyTorch and TensorFlow =="
python=$(scripts/install_python_environment.sh build/python-env)
POOLGRAD_BUILD_DIR="$PWD/build/release" PYTHONPATH="$PWD/build/release/python" TF_CPP_MIN_LOG_LEVEL=2 \
  "$python" -m pytest tests/python -p no:cacheprovider -q -rs

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build and tests =="
cmake -S . -B build/sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPOOLGRAD_BUILD_TESTS=ON -DPOOLGRAD_SANITIZE=ON
cmake --build build/sanitize -j "$jobs"
# halt_on_error / -fno-sanitize-recover make every report a test failure.
ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build/sanitize --output-on-failure -j "$jobs"

echo "== Fuzzing: libFuzzer harness (clang, ASan + UBSan): corpus replay, then 60 s of fuzzing =="
# Any sanitizer report, leak or broken contract rule fails; scripts/fuzz.sh installs clang if needed.
scripts/fuzz.sh replay
scripts/fuzz.sh 60
