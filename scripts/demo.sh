#!/usr/bin/env bash
# Builds poolgrad (Release), installs it under build/release/prefix and runs every example program,
# which print their results.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_dependencies.sh

build=build/release
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPOOLGRAD_BUILD_TESTS=OFF
cmake --build "$build"
cmake --install "$build" --prefix "$build/prefix" > /dev/null

for example in "$build"/examples/example_*; do
  echo "== ${example##*/example_} =="
  "$example"
done
