#!/usr/bin/env bash
# Builds poolgrad's libFuzzer harness (fuzz/, clang + ASan + UBSan, build/fuzz) and runs it.
#   scripts/fuzz.sh replay      run every input of the checked-in corpus once; any report fails
#   scripts/fuzz.sh [seconds]   fuzz for that long (default 60), starting from the checked-in corpus; new
#                               interesting inputs go to build/fuzz/corpus (never into fuzz/corpus), a crash
#                               to build/fuzz/artifacts/ and fails the run
# Installs clang, its libFuzzer runtime and OpenMP runtime first when missing (apt-get; root or sudo).
# POOLGRAD_FUZZ_JOBS=n fuzzes with n processes (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_dependencies.sh clang libclang-rt-14-dev libomp-14-dev

mode=${1:-60}
build=build/fuzz
corpus=fuzz/corpus/poolgrad_fuzzer
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPOOLGRAD_BUILD_FUZZERS=ON \
  -DPOOLGRAD_BUILD_TESTS=OFF -DPOOLGRAD_BUILD_EXAMPLES=OFF -DPOOLGRAD_BUILD_PYTHON=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target poolgrad_fuzzer
fuzzer=$build/fuzz/poolgrad_fuzzer
mkdir -p "$build/artifacts" "$build/corpus"
# One thread per call unless an input asks for two (results do not depend on it; speed and replay do).
export POOLGRAD_NUM_THREADS=1
common=(-artifact_prefix="$build/artifacts/" -max_len=4096 -timeout=30 -rss_limit_mb=4096)

if [[ $mode == replay ]]; then
  inputs=("$corpus"/*)
  echo "== replaying ${#inputs[@]} corpus inputs =="
  log=$build/replay.log
  # Then again without ASan's quarantine, so that freed descriptors' addresses are reused at once, as
  # they are in production: that is how a stale handle runs or destroys another object.
  for asan in "" "quarantine_size_mb=0:thread_local_quarantine_size_kb=0"; do
    if ! ASAN_OPTIONS="$asan" "$fuzzer" "${common[@]}" "${inputs[@]}" >"$log" 2>&1; then
      grep -E '^Running: |DEFECT|ERROR|SUMMARY|runtime error' "$log" | tail -6
      echo "poolgrad fuzz: FAILED on the input named last above (reproduce: ASAN_OPTIONS=$asan $fuzzer <file>)"
      exit 1
    fi
  done
  echo "poolgrad fuzz: all ${#inputs[@]} corpus inputs pass (with and without ASan's quarantine)"
  exit 0
fi

[[ $mode =~ ^[0-9]+$ ]] || { echo "usage: scripts/fuzz.sh [replay | seconds]" >&2; exit 2; }
jobs=${POOLGRAD_FUZZ_JOBS:-1}
log=$build/fuzz.log
echo "== fuzzing for $mode s ($jobs process(es)); log in $log =="
status=0
if ((jobs > 1)); then
  "$fuzzer" "${common[@]}" -max_total_time="$mode" -print_final_stats=1 -fork="$jobs" "$build/corpus" "$corpus" >"$log" 2>&1 || status=$?
else
  "$fuzzer" "${common[@]}" -max_total_time="$mode" -print_final_stats=1 "$build/corpus" "$corpus" >"$log" 2>&1 || status=$?
fi
grep -E 'DEFECT|ERROR|SUMMARY|runtime error' "$log" | tail -6 || true
# libFuzzer's last status line: cov = code edges reached, ft = features (edges with hit counts).
last=$(grep -E '^#[0-9]+(:|[[:space:]]+(DONE|NEW|REDUCE|pulse|INITED))' "$log" | tail -1 || true)
# -fork runs print no final stats; their count is the last status line's #N.
executions=$({ grep -E '^stat::number_of_executed_units' "$log" || true; } | awk '{s += $2} END {print s + 0}')
echo "poolgrad fuzz: ${executions} executions; last status: ${last}"
if ((status != 0)); then
  echo "poolgrad fuzz: FAILED (status $status); the input is in $build/artifacts/, reproduce with $fuzzer <file>"
  exit 1
fi
echo "poolgrad fuzz: no report in $mode s"
