#!/usr/bin/env bash
# The benchmark command: installs what it needs when missing (the build tools, python3-matplotlib for the
# chart, and in the venv build/bench-env the PyTorch peer: the current torch 2.x wheel from PyPI, whose
# libtorch_cpu the driver links, and the oneDNN peer: PyPI's onednn-cpu-gomp 3.x; Debian's libtorch-dev 1.13
# and libdnnl-dev 2.6 only when PyPI cannot be had), builds build/bench (Release, POOLGRAD_BUILD_BENCHMARKS=ON),
# runs the standard set
# (bench/standard_cases.txt) into build/bench/results, its cache-resident companions and the standard set
# again on one thread (build/bench/results-cache, results-1thread), and writes this host's section of docs/performance.md
# and its chart from those results (the sections of other hosts stay).
#
#   scripts/bench.sh                   everything above
#   scripts/bench.sh --quick           fewer repetitions (a try-out; noisier)
#   scripts/bench.sh --report-only     only rewrite this host's section of docs/performance.md (and its chart)
#                                      from build/bench/results
#   scripts/bench.sh --no-install      never call apt-get or pip (build without whatever peer is missing)
#   scripts/bench.sh -- ARGS...        extra poolgrad_bench arguments, e.g. -- --only A,D --threads 1
#   POOLGRAD_BENCH_TORCH=SPEC          pip requirement of the PyTorch peer (default: torch, the newest release)
#   POOLGRAD_BENCH_ONEDNN=SPECS        pip requirements of the oneDNN peer (default: onednn-cpu-gomp
#                                      onednn-devel-cpu-gomp, the newest OpenMP build)
#   POOLGRAD_BENCH_NOTE=TEXT           a sentence for the top of this host's section (e.g. what else ran)
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
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

build=build/bench
results=$build/results

# Whether the 1-minute load average is at least $1.
load_at_least() { awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v t="$1" 'BEGIN {exit !(l >= t)}'; }

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

install_debian() {  # packages...: installs those missing that apt has; never fails the run
  local missing=() package candidate sudo_cmd=()
  for package in "$@"; do installed "$package" || missing+=("$package"); done
  ((${#missing[@]})) || return 0
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
}

# The PyTorch peer: PyPI's torch wheel (the CUDA build: PyPI has no CPU-only one for x86-64) installed with
# --no-deps, plus only the two CUDA runtime libraries libtorch_cpu.so is linked against (cudart, cupti;
# loaded, never used); the GPU libraries, triton and the Python-side dependencies are left out, because
# the driver links libtorch_cpu and libc10 from C++ and never imports torch. Prints the torch package
# directory, or nothing when it cannot be set up.
torch_env=build/bench-env
setup_pypi_torch() {
  local python=$torch_env/bin/python site requirements
  if [[ ! -x $python ]]; then
    python3 -m venv "$torch_env" >&2 || { rm -rf "$torch_env"; return 0; }
  fi
  site=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  if [[ ! -f $site/torch/lib/libtorch_cpu.so ]] && ((install == 1)); then
    echo "bench.sh: installing ${POOLGRAD_BENCH_TORCH:-torch} from PyPI into $torch_env (no dependencies, ~540 MB; pip then lists the GPU and Python-side ones as missing: they are not needed)" >&2
    "$python" -m pip install --quiet --no-deps "${POOLGRAD_BENCH_TORCH:-torch}" >&2 || return 0
  fi
  [[ -f $site/torch/lib/libtorch_cpu.so ]] || return 0
  # The CUDA runtime and CUPTI pins of this torch, by the names its metadata uses (cuda-toolkit extras
  # from 2.10 on, nvidia-cuda-*-cuXX wheels before).
  requirements=$("$python" - <<'PYTHON'
import importlib.metadata as metadata, re
wanted = []
for requirement in metadata.requires("torch") or []:
    spec = requirement.split(";")[0].replace(" ", "")
    if spec.startswith("cuda-toolkit["):
        wanted.append(re.sub(r"\[[^]]*\]", "[cudart,cupti]", spec))
    elif re.match(r"nvidia-cuda-(runtime|cupti)-", spec):
        wanted.append(spec)
print(" ".join(wanted))
PYTHON
  )
  if [[ -n $requirements ]] && ((install == 1)); then
    # pip answers at once when they are there already.
    # shellcheck disable=SC2086
    "$python" -m pip install --quiet $requirements >&2 || true
  fi
  if ldd "$site/torch/lib/libtorch_cpu.so" | grep -q "not found"; then
    echo "bench.sh: libtorch_cpu.so in $torch_env misses libraries:" >&2
    ldd "$site/torch/lib/libtorch_cpu.so" | grep "not found" >&2
    return 0
  fi
  echo "$site/torch"
}

# The oneDNN peer: PyPI's newest oneDNN built for GNU OpenMP (onednn-cpu-gomp + onednn-devel-cpu-gomp,
# oneDNN 3.2 since 2023: the later PyPI builds, `onednn` 2024-2026, run the CPU engine through SYCL on TBB
# and need the DPC++ and OpenCL runtimes), installed into the same venv, which shares one OpenMP runtime
# with poolgrad and libtorch. Debian's libdnnl-dev (oneDNN 2.6) only when PyPI cannot be had: on the Intel
# Xeon hosts its pooling kernels measured 3-5x slower than 3.2's (bench/analysis.md), a handicapped peer.
# Prints the prefix holding include/oneapi/dnnl/dnnl.hpp and lib/libdnnl.so.3, or nothing.
setup_pypi_onednn() {
  local python=$torch_env/bin/python prefix
  [[ -x $python ]] || python3 -m venv "$torch_env" >&2 || return 0
  prefix=$(cd "$torch_env" && pwd)
  if [[ ! -f $prefix/lib/libdnnl.so.3 || ! -f $prefix/include/oneapi/dnnl/dnnl.hpp ]] && ((install == 1)); then
    echo "bench.sh: installing ${POOLGRAD_BENCH_ONEDNN:-onednn-cpu-gomp onednn-devel-cpu-gomp} from PyPI into $torch_env (~55 MB)" >&2
    # shellcheck disable=SC2086
    "$python" -m pip install --quiet --no-deps ${POOLGRAD_BENCH_ONEDNN:-onednn-cpu-gomp onednn-devel-cpu-gomp} >&2 || return 0
  fi
  [[ -f $prefix/lib/libdnnl.so.3 && -f $prefix/include/oneapi/dnnl/dnnl.hpp ]] || return 0
  echo "$prefix"
}

if ((report_only == 0 && install == 1)); then
  scripts/install_dependencies.sh
  install_debian python3-matplotlib python3-venv
fi
torch_package=""
torch_origin=""
onednn_origin=""
onednn_cmake=()
if ((report_only == 0)); then
  torch_package=$(setup_pypi_torch)
  if [[ -n $torch_package ]]; then
    torch_origin="PyPI torch $("$torch_env/bin/python" -c 'import importlib.metadata as m; print(m.version("torch"))') (libtorch_cpu, from $torch_env)"
  else
    echo "bench.sh: no PyPI torch: falling back to Debian's libtorch-dev (1.13) for the PyTorch peer"
    ((install == 1)) && install_debian libtorch-dev
    torch_origin="Debian libtorch-dev $(dpkg-query -W -f='${Version}' libtorch-dev 2>/dev/null || echo "(not installed)")"
  fi
  onednn_prefix=$(setup_pypi_onednn)
  if [[ -n $onednn_prefix ]]; then
    onednn_origin="PyPI onednn-cpu-gomp $("$torch_env/bin/python" -c 'import importlib.metadata as m; print(m.version("onednn-cpu-gomp"))' 2>/dev/null || echo "?") (from $torch_env)"
    onednn_cmake=(-DPOOLGRAD_BENCH_DNNL_INCLUDE="$onednn_prefix/include" -DPOOLGRAD_BENCH_DNNL_LIBRARY="$onednn_prefix/lib/libdnnl.so.3")
  else
    echo "bench.sh: no PyPI oneDNN: falling back to Debian's libdnnl-dev (oneDNN 2.6) for the oneDNN peer"
    ((install == 1)) && install_debian libdnnl-dev
    onednn_origin="Debian libdnnl-dev $(dpkg-query -W -f='${Version}' libdnnl-dev 2>/dev/null || echo "(not installed)")"
    # Forget a PyPI oneDNN an earlier configure found: CMake looks for the system's again.
    onednn_cmake=(-UPOOLGRAD_BENCH_DNNL_INCLUDE -UPOOLGRAD_BENCH_DNNL_LIBRARY)
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
    -DPOOLGRAD_BUILD_TESTS=OFF -DPOOLGRAD_BUILD_EXAMPLES=OFF -DPOOLGRAD_BENCH_TORCH_PACKAGE="$torch_package" \
    "${onednn_cmake[@]}" | grep "poolgrad bench" || true
  cmake --build "$build" -j "$(nproc)" --target poolgrad_bench
  built=$(date +%s)

  mkdir -p "$results"
  rm -f "$results"/results.csv "$results"/run.json
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo "")
  dirty=false
  [[ -n "$commit" && -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]] && dirty=true
  compiler=$(c++ --version | head -1)
  # The build just used every core, and the 1-minute load average decays from it for about a minute: wait
  # (up to 3 minutes) until it is under 0.5, so that the build's own load neither reads as a busy machine
  # nor switches the run to passive waiting. Load that stays is another process's, and is reported.
  for ((waited = 0; waited < 180; waited += 10)); do
    load_at_least 0.5 || break
    ((waited == 0)) && echo "bench.sh: load average $(cut -d' ' -f1 /proc/loadavg) after the build: waiting for it to settle"
    sleep 10
  done
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  if load_at_least 0.5; then
    echo "bench.sh: WARNING: load average $load before the run: other processes compete for the CPUs, the figures will be noisy"
  fi
  cat >"$results/meta.json" <<EOF
{"commit": "$commit", "dirty": $dirty, "torch_origin": "$torch_origin", "onednn_origin": "$onednn_origin", "compiler": "$compiler", "load": "$load"}
EOF

  echo "== run (bench/standard_cases.txt) =="
  # poolgrad, libtorch and oneDNN share the threads of one OpenMP runtime in this process, so an idle
  # thread's spinning takes nothing from the next contender. On a quiet machine every library runs with
  # libgomp's default (spin a while, then sleep): passive waiting would add a wake-up to each of their
  # parallel regions (measured: 2-4x on the sub-millisecond warm cases, for every contender). On a busy
  # machine spinning threads are preempted in the middle of barriers and calls take whole scheduler
  # ticks (measured: 20-120 ms medians for 0.2-3 ms calls at load 14 on 2 processors), so there the
  # run waits passively; the report records the policy in force. An OMP_WAIT_POLICY set by the caller wins.
  if [[ -z ${OMP_WAIT_POLICY:-} ]] && load_at_least 1.0; then
    echo "bench.sh: load average ${load%% *} >= 1: OMP_WAIT_POLICY=passive for this run (spinning threads would be preempted mid-barrier)"
    export OMP_WAIT_POLICY=passive
  fi
  # The driver's default limit (240 s) cut the repetitions of every case once the set reached 32 cases (run of
  # 2026-12-05 on the 2-core Intel Xeon); 15 s a case keeps the planned 5-60 repetitions there.
  limit=$((15 * $(grep -c '^[A-Za-z0-9-]*:' bench/standard_cases.txt)))
  "$build/bench/poolgrad_bench" --cases bench/standard_cases.txt --time-limit-s "$limit" --out "$results" \
    "${quick[@]}" "${extra[@]}" | tee "$results/console.txt"
  echo "== run (bench/cache_resident_cases.txt: one thread, warm) =="
  mkdir -p "$build/results-cache"
  rm -f "$build/results-cache"/results.csv "$build/results-cache"/run.json
  "$build/bench/poolgrad_bench" --cases bench/cache_resident_cases.txt --threads 1 --modes warm \
    --out "$build/results-cache" "${quick[@]}" | tee "$build/results-cache/console.txt"
  # Issue #12 asks for 1 and 2 threads: the standard set again on one thread (only each library's chosen
  # kernel: --no-impls), for the report's scaling table.
  echo "== run (bench/standard_cases.txt: one thread) =="
  mkdir -p "$build/results-1thread"
  rm -f "$build/results-1thread"/results.csv "$build/results-1thread"/run.json
  "$build/bench/poolgrad_bench" --cases bench/standard_cases.txt --threads 1 --no-impls --time-limit-s "$limit" \
    --out "$build/results-1thread" "${quick[@]}" | tee "$build/results-1thread/console.txt"
  ran=$(date +%s)
  echo "bench.sh: build $((built - started)) s, run $((ran - built)) s"
fi

echo "== report =="
"$python" bench/report.py --results "$results" --cache-results "$build/results-cache" \
  --one-thread-results "$build/results-1thread" --md docs/performance.md \
  --note "${POOLGRAD_BENCH_NOTE:-}"
echo "bench.sh: done in $(($(date +%s) - started)) s"
