#!/bin/sh
# session 14 call 4: bench_grade 3 at this session's defaults (drain, one queue, lock after the fork, 5 ms look) and
# with the knobs off (CUDOJO_ONE_QUEUE=0 CUDOJO_GPU_DRAIN_MS=0 CUDOJO_GPU_YIELD_LOOK_MS=25; the fork order has none),
# one call; every test with CUDOJO_TEST_GPU=1; bench_predict (the model of 1f674d2)
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
bg() {  # label, then env assignments
  label=$1; shift
  rm -rf /tmp/cudojo-bench-grade-*
  env "$@" BENCH_GRADE_KEEP=1 CUDOJO_BACKEND=cuda timeout 150 build/bench/bench_grade 3 > "$O/grade-$label.txt" 2>&1; echo "rc=$?"
  grep -E 'runs/s|projection|GPU lock|solutions passing|solution failed|at least' "$O/grade-$label.txt"
  g=$(ls -d /tmp/cudojo-bench-grade-* | head -1)
  awk '$3=="drain"||$3=="drain-late" {n[$3]++; ms[$3]+=$5; if ($5>mx[$3]) mx[$3]=$5} END {for (k in n) printf "%s: %d, %.0f ms in all, longest %.0f ms\n", k, n[k], ms[k], mx[k]}' "$g/lock-trace.txt"
}
el "bench_grade 3: this session's defaults"
bg new CUDOJO_X=1
el "bench_grade 3: knobs off"
bg off CUDOJO_ONE_QUEUE=0 CUDOJO_GPU_DRAIN_MS=0 CUDOJO_GPU_YIELD_LOOK_MS=25
el "all tests with CUDOJO_TEST_GPU=1"
GPU_CHECK_LIMIT_tests=230 timeout 240 sh tools/gpu-check.sh "$O/gc" tests > "$O/tests.txt" 2>&1; tail -4 "$O/tests.txt"
grep -rhE '^not ok|\[  FAILED|timed kernel' "$O/gc" 2>/dev/null | head -12
el "bench_predict"
timeout 90 build/bench/bench_predict --json "$O/predict.json" > "$O/predict.txt" 2>&1; echo "rc=$?"; tail -3 "$O/predict.txt"
el done
