#!/bin/sh
# session 18 call 2: (1) `cudojo verify --backend=cuda` of the whole course (gpu-check's verify step, 8 jobs);
# (2) every exercise's save->verdict (bench_verdict --all --reps 3) in the time left
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "verify, the whole course, 8 jobs"
VERIFY_JOBS=${VERIFY_JOBS:-8} GPU_CHECK_LIMIT_verify=${VLIM:-390} GPU_CHECK_DEADLINE=$(( ${VLIM:-390} + 5 )) \
  timeout $(( ${VLIM:-390} + 10 )) sh tools/gpu-check.sh "$O/gc" verify > "$O/verify-step.txt" 2>&1
echo "rc=$?"; head -c 6000 "$O/gc/summary.txt" 2>/dev/null
left=$(( 580 - ($(date +%s) - T0) ))
if [ "$left" -gt 150 ]; then
  el "every exercise's save->verdict, limit $left s"
  CUDOJO_BACKEND=cuda timeout "$left" build/bench/bench_verdict --all --reps 3 --backend cuda > "$O/verdict-all.txt" 2>&1
  echo "all rc=$?"; grep -E "exercises ran|over the goal|  not met|fail" "$O/verdict-all.txt" | head -20 | cut -c1-200
else
  echo "no time left for bench_verdict ($left s)"
fi
el done
