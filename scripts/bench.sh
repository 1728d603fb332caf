#!/usr/bin/env bash
# The benchmark command: installs what it needs when missing (the build tools, the peers libtorch-dev and
# libdnnl-dev, python3-matplotlib for the chart), builds build/bench (Release, POOLGRAD_BUILD_BENCHMARKS=ON),
# runs the standard set (bench/standard_cases.txt) into build/bench/results and writes docs/performance.md
# and docs/performance.png from those results.
#
#   scripts/bench.sh                   everything above
#   scripts/bench.sh --quick           fewer repetitions (a try-out; noisier)
#   scripts/bench.sh --report-only     only rewrite docs/performance.{md,png} from build/bench/results
#   scripts/bench.sh --no-install      never call apt-get (build without whatever peer is missing)
#   scripts/bench.sh -- ARGS...        extra poolgrad_bench arguments, e.g. -- --only A,D --threads 1
set -euo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s)
quick=() report_only=0 install=1 extra=()
while (($#)); do
  case "$1" in
    --quick) quick=(--quick) ;;
    --report-only) report_only=1 ;;
    --no-install) install=0 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

build=build/bench
results=$build/results

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

if ((report_only == 0 && install == 1)); then
  scripts/install_dependencies.sh
  wanted=(libdnnl-dev libtorch-dev python3-matplotlib)
  missing=()
  for package in "${wanted[@]}"; do installed "$package" || missing+=("$package"); done
  if ((${#missing[@]})); then
    sudo_cmd=()
    [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq || true
    for package in "${missing[@]}"; do
      candidate=$(apt-cache policy "$package" 2>/dev/null | awk '/Candidate:/ {print $2}')
      if [[ -z "$candidate" || "$candidate" == "(none)" ]]; then
        echo "bench.sh: $package is not available from apt here; continuing without it"
        continue
      fi
      echo "bench.sh: installing $package $candidate"
      DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "$package" >/dev/null \
        || echo "bench.sh: installing $package failed; continuing without it"
    done
  fi
fi

# The report's Python: the first of python3 and Debian's /usr/bin/python3 (where python3-matplotlib
# lands when python3 is another interpreter, e.g. pyenv's) that has matplotlib; pip only as a last resort.
python=""
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c "import matplotlib" 2>/dev/null; then
    python=$candidate
    break
  fi
done
if [[ -z "$python" ]] && ((report_only == 0 && install == 1)); then
  echo "bench.sh: no python3-matplotlib from apt; trying pip for the chart"
  if python3 -m pip install --user --quiet matplotlib 2>/dev/null \
    || python3 -m pip install --user --quiet --break-system-packages matplotlib 2>/dev/null; then
    python=python3
  fi
fi
if [[ -z "$python" ]]; then
  python=python3
  echo "bench.sh: no matplotlib: docs/performance.png will not be regenerated"
fi

if ((report_only == 0)); then
  echo "== build ($build, Release, POOLGRAD_BUILD_BENCHMARKS=ON) =="
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPOOLGRAD_BUILD_BENCHMARKS=ON \
    -DPOOLGRAD_BUILD_TESTS=OFF -DPOOLGRAD_BUILD_EXAMPLES=OFF | grep "poolgrad bench" || true
  cmake --build "$build" -j "$(nproc)" --target poolgrad_bench
  built=$(date +%s)

  mkdir -p "$results"
  rm -f "$results"/results.csv "$results"/run.json
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo "")
  dirty=false
  [[ -n "$commit" && -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]] && dirty=true
  torch_package=$(dpkg-query -W -f='${Version}' libtorch-dev 2>/dev/null || echo "")
  compiler=$(c++ --version | head -1)
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  if awk -v l="${load%% *}" 'BEGIN {exit !(l >= 0.5)}'; then
    echo "bench.sh: WARNING: load average $load before the run: other processes compete for the CPUs, the figures will be noisy"
  fi
  cat >"$results/meta.json" <<EOF
{"commit": "$commit", "dirty": $dirty, "torch_package": "$torch_package", "compiler": "$compiler", "load": "$load"}
EOF

  echo "== run (bench/standard_cases.txt) =="
  # poolgrad, libtorch and oneDNN share one OpenMP runtime in this process: with the default active
  # wait, idle team threads spin between calls and steal the 2 CPUs from whichever contender runs next.
  export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
  "$build/bench/poolgrad_bench" --cases bench/standard_cases.txt --out "$results" "${quick[@]}" "${extra[@]}" \
    | tee "$results/console.txt"
  echo "== run (bench/cache_resident_cases.txt: one thread, warm) =="
  mkdir -p "$build/results-cache"
  rm -f "$build/results-cache"/results.csv "$build/results-cache"/run.json
  "$build/bench/poolgrad_bench" --cases bench/cache_resident_cases.txt --threads 1 --modes warm --no-impls \
    --out "$build/results-cache" "${quick[@]}" | tee "$build/results-cache/console.txt"
  ran=$(date +%s)
  echo "bench.sh: build $((built - started)) s, run $((ran - built)) s"
fi

echo "== report =="
"$python" bench/report.py --results "$results" --cache-results "$build/results-cache" --md docs/performance.md \
  --png docs/performance.png
echo "bench.sh: done in $(($(date +%s) - started)) s"
