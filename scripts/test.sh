#!/usr/bin/env bash
# Builds and runs the whole test suite: the C++ suite in a Release build; the Python module, the golden-data
# tool, the conformance suites against PyTorch and TensorFlow and the poolgrad.torch suites (pytest, Debian's
# PyTorch 1.13) on that build, after the wheel (pip wheel .) has been installed into a fresh venv with PyTorch 2.x
# from PyPI, the module, golden-data and poolgrad.torch suites run from it and the venv removed; then the C++
# suite again in an AddressSanitizer + UndefinedBehaviorSanitizer build in which any sanitizer report fails the
# run; last, the C++ suite in a ThreadSanitizer build (docs/testing.md names the tests it leaves out), and the libFuzzer harness (fuzz/): its corpus
# replayed and 60 s of fuzzing.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_dependencies.sh

jobs=$(nproc)
# Each stage's header says how long the run has taken so far: CI stops the run at its time limit, and the log
# then shows which stage took the time.
stage() { echo "== $1 == (at $SECONDS s, $(date -u +%H:%M:%S) UTC)"; }
# The run needs about 10 GB of free disk at its peak (the wheel stage's venv beside the archives pip fetched);
# printed so that a run stopped by a full disk says so at once.
echo "poolgrad: free disk for $PWD: $(df -h --output=avail "$PWD" | tail -1 | tr -d ' ')"

# The wheel stage compiles the library again with the Release build's commands: through ccache it takes the
# Release build's objects instead of a second 6-minute compile.
source scripts/ccache_environment.sh

stage "Release build and tests"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DPOOLGRAD_BUILD_TESTS=ON "${ccache_launcher[@]}"
cmake --build build/release -j "$jobs"
ctest --test-dir build/release --output-on-failure -j "$jobs"

stage "Wheel: pip wheel . into a fresh venv with PyTorch 2.x; module, golden-data tool and torch suites from it"
# No PYTHONPATH: the suites import the installed package, which loads the library inside itself.
wheel_python=$(env "${wheel_compilers[@]}" scripts/install_wheel_environment.sh build/wheel-env)
echo "poolgrad: ccache after the wheel build: $(ccache --show-stats 2>/dev/null | grep -iE 'hits|misses' | tr -s ' ' | paste -sd ';')"
(cd tests/python && POOLGRAD_FROM_WHEEL=1 "$wheel_python" -m pytest -p no:cacheprovider -q -rs \
  test_wheel.py test_module.py test_golden_tool.py test_conformance_torch.py test_torch_ops.py \
  test_torch_training.py test_torch_ddp.py test_torch_executor_cache.py test_numpy_executor_cache.py)
# The environment is made afresh on every run (about 6 GB, most of it PyTorch's CUDA libraries): giving the disk
# back now keeps the rest of the run within a small machine's free space.
rm -rf build/wheel-env build/dist

stage "Python module, golden-data tool, conformance with PyTorch and TensorFlow"
python=$(scripts/install_python_environment.sh build/python-env)
POOLGRAD_BUILD_DIR="$PWD/build/release" PYTHONPATH="$PWD/build/release/python" TF_CPP_MIN_LOG_LEVEL=2 \
  "$python" -m pytest tests/python -p no:cacheprovider -q -rs

stage "AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
cmake -S . -B build/sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPOOLGRAD_BUILD_TESTS=ON -DPOOLGRAD_SANITIZE=ON
cmake --build build/sanitize -j "$jobs"
# halt_on_error / -fno-sanitize-recover make every report a test failure.
ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build/sanitize --output-on-failure -j "$jobs"

stage "ThreadSanitizer build: the C++ suite"
# clang with LLVM's OpenMP runtime: its libarcher tool tells ThreadSanitizer how OpenMP threads synchronise
# (g++'s libgomp would make every parallel region a false report). ignore_noninstrumented_modules, which
# libarcher asks for, leaves unchecked only the accesses made inside uninstrumented libraries (libomp's own
# bookkeeping); every access in libpoolgrad and the tests is checked, and no report is suppressed.
scripts/install_dependencies.sh clang libclang-rt-14-dev libomp-14-dev
CC=clang CXX=clang++ cmake -S . -B build/tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPOOLGRAD_BUILD_TESTS=ON \
  -DPOOLGRAD_BUILD_EXAMPLES=OFF -DPOOLGRAD_BUILD_PYTHON=OFF -DPOOLGRAD_SANITIZE_THREAD=ON
cmake --build build/tsan -j "$jobs"
TSAN_OPTIONS=halt_on_error=1:abort_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1 \
OMP_TOOL_LIBRARIES=/usr/lib/llvm-14/lib/libarcher.so \
  ctest --test-dir build/tsan --output-on-failure -j "$jobs"

stage "Fuzzing: libFuzzer harness (clang, ASan + UBSan): corpus replay, then 60 s of fuzzing"
# Any sanitizer report, leak or broken contract rule fails; scripts/fuzz.sh installs clang if needed.
scripts/fuzz.sh replay
scripts/fuzz.sh 60
stage "All stages passed"
