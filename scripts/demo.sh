#!/usr/bin/env bash
# Builds poolgrad (Release), installs it under build/release/prefix and runs every example program,
# which print their results, then the Python version of the CANN sample, then a PyTorch training run with
# torch's pooling and with poolgrad's (identical losses step for step).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_dependencies.sh
# The wheel for the training run below compiles the library again: ccache gives it this build's objects.
source scripts/ccache_environment.sh

build=build/release
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPOOLGRAD_BUILD_TESTS=OFF "${ccache_launcher[@]}"
cmake --build "$build"
cmake --install "$build" --prefix "$build/prefix" > /dev/null

for example in "$build"/examples/example_*; do
  echo "== ${example##*/example_} =="
  "$example"
done

# The same sample through the installed Python module, with the first python3 that has numpy.
echo "== python: max_pool3d_with_argmax_backward.py =="
ran_sample=0
for python in python3 /usr/bin/python3; do
  if "$python" -c "import numpy" 2>/dev/null; then
    PYTHONPATH="$build/prefix/lib/python3/site-packages" "$python" examples/python/max_pool3d_with_argmax_backward.py
    ran_sample=1
    break
  fi
done
((ran_sample)) || echo "(skipped: no python3 with numpy here; apt-get install python3-numpy to run it)"

# Training in PyTorch: the wheel installed into build/wheel-env (made once, with PyTorch 2.x and scikit-learn
# from PyPI; python3-venv from Debian), a 3-D CNN trained with torch's pooling and with poolgrad's.
echo "== PyTorch training: examples/train_cnn3d.py =="
if ! dpkg-query -W -f='${Status}' python3-venv 2>/dev/null | grep -q "install ok installed"; then
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq && DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq python3-venv
fi
wheel_python=$(env "${wheel_compilers[@]}" scripts/install_wheel_environment.sh --reuse build/wheel-env)
"$wheel_python" examples/train_cnn3d.py --steps "${POOLGRAD_DEMO_STEPS:-200}"
