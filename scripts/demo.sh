#!/usr/bin/env bash
# Builds poolgrad (Release), installs it under build/release/prefix and runs every example program,
# which print their results, then the Python version of the CANN sample.
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

# The same sample through the installed Python module, with the first python3 that has numpy.
echo "== python: max_pool3d_with_argmax_backward.py =="
for python in python3 /usr/bin/python3; do
  if "$python" -c "import numpy" 2>/dev/null; then
    PYTHONPATH="$build/prefix/lib/python3/site-packages" "$python" examples/python/max_pool3d_with_argmax_backward.py
    exit 0
  fi
done
echo "(skipped: no python3 with numpy here; apt-get install python3-numpy to run it)"
