#!/usr/bin/env bash
# Thread scaling, for machines with many cores: runs a built poolgrad_bench (scripts/bench.sh builds
# build/bench/bench/poolgrad_bench) at every power of two from 1 up to the processor count, then writes this
# host's section of docs/performance.md through bench/report.py. The standard set runs on all processors (the
# section's main table) and on one (its one-thread table), the cache-resident companions on one thread, warm,
# as scripts/bench.sh does; a subset of the standard set, with the peers, runs at the counts in between (the
# section's scaling table). Each run's time limit shrinks the repetitions, never the cases, so the whole
# script fits a fixed lease (about 3.5 x --time-limit-s plus the copy-bandwidth measurements).
#
#   scripts/bench_scaling.sh [options]
#     --driver PATH       the poolgrad_bench to run (default build/bench/bench/poolgrad_bench)
#     --out DIR           where the runs go: DIR/threads-N, DIR/cache (default build/bench/scaling)
#     --threads LIST      thread counts, e.g. 1,4,16 (default 1, 2, 4, ... up to nproc, and nproc)
#     --subset CASES      the cases run at the counts in between (default A,B,C1,D,D-cl,D-v3,D-bf16,D-fwd,A-fwd-cl)
#     --time-limit-s S    limit of each standard-set run (default 150); subset and cache runs get S/3
#     --no-report         only measure (report later: bench/report.py --results DIR/threads-MAX
#                         --one-thread-results DIR/threads-1 --cache-results DIR/cache --scaling-results DIR)
#   POOLGRAD_BENCH_COMMIT, POOLGRAD_BENCH_TORCH_ORIGIN, POOLGRAD_BENCH_ONEDNN_ORIGIN  what meta.json records
#     where git or the origins cannot be read (a copied tree); POOLGRAD_BENCH_NOTE as in scripts/bench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

driver=build/bench/bench/poolgrad_bench
out=build/bench/scaling
threads=""
subset=A,B,C1,D,D-cl,D-v3,D-bf16,D-fwd,A-fwd-cl
limit=150
report=1
while (($#)); do
  case "$1" in
    --driver) driver=$2; shift ;;
    --out) out=$2; shift ;;
    --threads) threads=$2; shift ;;
    --subset) subset=$2; shift ;;
    --time-limit-s) limit=$2; shift ;;
    --no-report) report=0 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "bench_scaling.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[[ -x "$driver" ]] || { echo "bench_scaling.sh: no driver at $driver (run scripts/bench.sh first, or --driver)" >&2; exit 2; }

processors=$(nproc)
if [[ -z "$threads" ]]; then
  threads=1
  for ((t = 2; t < processors; t *= 2)); do threads+=",$t"; done
  ((processors > 1)) && threads+=",$processors"
fi
IFS=, read -r -a counts <<<"$threads"
most=${counts[-1]}
small_limit=$((limit / 3 > 20 ? limit / 3 : 20))

commit=${POOLGRAD_BENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo "")}
compiler=${POOLGRAD_BENCH_COMPILER:-$(c++ --version 2>/dev/null | head -1 || echo "")}
write_meta() {  # the same fields scripts/bench.sh records, for bench/report.py
  cat >"$1/meta.json" <<EOF
{"commit": "$commit", "dirty": false, "torch_origin": "${POOLGRAD_BENCH_TORCH_ORIGIN:-}", "onednn_origin": "${POOLGRAD_BENCH_ONEDNN_ORIGIN:-}", "compiler": "$compiler", "load": "$(cut -d' ' -f1-3 /proc/loadavg)"}
EOF
}
run() {  # run DIR ARGS...: one driver run into DIR, its console beside it
  local dir=$1
  shift
  mkdir -p "$dir"
  rm -f "$dir"/results.csv "$dir"/run.json
  write_meta "$dir"
  echo "== $dir: poolgrad_bench $* =="
  "$driver" --out "$dir" "$@" | tee "$dir/console.txt"
}

started=$(date +%s)
# All processors first, one thread next: if the lease ends early, the host section's two runs are there.
run "$out/threads-$most" --cases bench/standard_cases.txt --threads "$most" --no-impls --time-limit-s "$limit"
if ((most > 1)) && [[ ",$threads," == *,1,* ]]; then
  run "$out/threads-1" --cases bench/standard_cases.txt --threads 1 --no-impls --time-limit-s "$limit"
fi
run "$out/cache" --cases bench/cache_resident_cases.txt --threads 1 --modes warm --time-limit-s "$small_limit"
for t in "${counts[@]}"; do
  ((t == 1 || t == most)) && continue
  run "$out/threads-$t" --cases bench/standard_cases.txt --only "$subset" --threads "$t" --no-impls \
    --time-limit-s "$small_limit"
done
echo "bench_scaling.sh: measured in $(($(date +%s) - started)) s"

if ((report)); then
  python=python3  # the first with matplotlib, for the chart (as scripts/bench.sh chooses; it installs it)
  for candidate in python3 /usr/bin/python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c "import matplotlib" 2>/dev/null; then
      python=$candidate
      break
    fi
  done
  "$python" bench/report.py --results "$out/threads-$most" --one-thread-results "$out/threads-1" \
    --cache-results "$out/cache" --scaling-results "$out" --note "${POOLGRAD_BENCH_NOTE:-}"
fi
