#!/usr/bin/env bash
# Builds the poolgrad wheel (`pip wheel .`: scikit-build-core runs our CMake with tests and examples off)
# into build/dist, and installs it into a virtual environment (default build/wheel-env) together with
# tests/python/requirements-wheel.txt from PyPI (PyTorch 2.x, numpy, ml_dtypes, pytest, scikit-learn).
# Prints the environment's interpreter (absolute path). The environment is made afresh unless --reuse is given and it
# already has the requirements, in which case only the poolgrad wheel is reinstalled.
# Needs scripts/install_dependencies.sh (compiler, cmake, ninja, libhwy-dev) and python3-venv.
set -euo pipefail
cd "$(dirname "$0")/.."
reuse=0
if [[ ${1:-} == --reuse ]]; then reuse=1; shift; fi
environment=${1:-build/wheel-env}
python="$environment/bin/python"
# No cache: pip's would keep another ~3 GB of archives (PyTorch's CUDA libraries) on disk after the install.
pip=("$python" -m pip --disable-pip-version-check --quiet --no-cache-dir)

if ((reuse)) && "$python" -c "import torch, sklearn, pytest, ml_dtypes" 2>/dev/null; then
  fresh=0
else
  fresh=1
  echo "poolgrad: creating $environment" >&2
  rm -rf "$environment"
  /usr/bin/python3 -m venv "$environment"
fi

rm -rf build/dist
start=$SECONDS
"${pip[@]}" wheel . --no-deps -w build/dist >&2
wheel=$(ls build/dist/poolgrad-*.whl)
echo "poolgrad: built ${wheel##*/} in $((SECONDS - start)) s" >&2

start=$SECONDS
if ((fresh)); then
  "${pip[@]}" install "$wheel" -r tests/python/requirements-wheel.txt >&2
else
  "${pip[@]}" install --force-reinstall --no-deps "$wheel" >&2
fi
echo "poolgrad: installed into $environment in $((SECONDS - start)) s" \
  "(torch $("$python" -c 'import torch; print(torch.__version__)'))" >&2
echo "$(cd "$environment" && pwd)/bin/python"  # absolute: callers run it from other folders
