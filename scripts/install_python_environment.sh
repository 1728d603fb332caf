#!/usr/bin/env bash
# Prepares the Python environment the Python tests run in and prints its interpreter's path:
#  - Debian packages for the system python3: numpy, pytest, venv and PyTorch (python3-torch, CPU);
#  - a virtual environment (default build/python-env) that sees those system packages and adds
#    TensorFlow CPU from PyPI (tensorflow-cpu; it brings ml_dtypes, used for bfloat16 arrays).
# TensorFlow is pinned to a release that supports Debian 12's Python 3.11 and its numpy 1.24, so pip keeps
# the numpy that Debian's PyTorch was built against.
set -euo pipefail
cd "$(dirname "$0")/.."
environment=${1:-build/python-env}
tensorflow_requirement="tensorflow-cpu==2.17.1"

packages=(python3 python3-venv python3-numpy python3-pytest python3-torch)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "poolgrad: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >&2
fi

python="$environment/bin/python"
if ! "$python" -c "import tensorflow, torch, numpy, pytest, ml_dtypes" 2>/dev/null; then
  echo "poolgrad: creating $environment with $tensorflow_requirement" >&2
  rm -rf "$environment"
  /usr/bin/python3 -m venv --system-site-packages "$environment"
  "$python" -m pip install --quiet --disable-pip-version-check --no-cache-dir "$tensorflow_requirement" "numpy<2" >&2
fi
echo "$python"
