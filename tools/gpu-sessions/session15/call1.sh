#!/bin/sh
# session 15 call 1: the turn's end at the exit (bc4a985) on a GPU (test_program_turn, test_progwire); matmul-naive
# timed at 2048^3 (its new size: what target); the smaller chapter 07/15 sizes (sizes.sh, helper SIZES15);
# bench_grade 3 with the rest at the exit and without it (CUDOJO_GPU_REST_AT_EXIT=0), one call
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "turn tests on the GPU"
CUDOJO_TEST_GPU=1 timeout 150 build/tests/kernels/test_program_turn > "$O/turn.txt" 2>&1; echo "rc=$?"
grep -E 'FAILED|PASSED|pinned|timed kernel' "$O/turn.txt" | head
timeout 30 build/tests/emurt/test_progwire 2>&1 | tail -1
el "matmul-naive: solution at 2048 (3 runs) and at 4096 (1)"
for p in "" "" "" "--param size=4096"; do
  # shellcheck disable=SC2086
  timeout 60 "$CUDOJO_BIN" run --lessons lessons --backend=cuda --json $p --file lessons/18-matmul/solutions/matmul-naive.cu \
    matmul-naive > /tmp/mn.json 2>/tmp/mn.err
  python3 -c '
import json,sys
d=json.load(open("/tmp/mn.json"))
lk=(d.get("metrics") or {}).get("gpu_lock") or {}
print(" ", d.get("verdict"), "%.0f ms" % (d.get("duration_ms") or 0), "exclusive", lk.get("exclusive_ms"), "|", [l for l in (d.get("log") or "").splitlines() if "TFLOP" in l][:1])' 2>&1 | head -3
done
el "sizes.sh"
OUT=$O/s SIZES_DEADLINE=150 timeout 170 sh tools/gpu-sessions/session15/sizes.sh > "$O/sizes.txt" 2>&1; echo "rc=$?"
cat "$O/sizes.txt" | cut -c1-260 | head -90
mv "$O/s/sizes15.tar.gz" "$O/" 2>/dev/null; rm -rf "$O/s"
bg() {  # label, then env assignments
  label=$1; shift
  rm -rf /tmp/cudojo-bench-grade-*
  env "$@" BENCH_GRADE_KEEP=1 CUDOJO_BACKEND=cuda timeout 150 build/bench/bench_grade 3 > "$O/grade-$label.txt" 2>&1; echo "rc=$?"
  grep -E 'runs/s|projection|GPU lock|solutions passing|solution failed|at least' "$O/grade-$label.txt"
  g=$(ls -d /tmp/cudojo-bench-grade-* | head -1)
  grep -E 'program-exit' "$g/lock-trace.txt" | awk '$3=="release" {n++; ms+=$5; if ($5>mx) mx=$5} END {printf "teardowns held shared: %d, %.0f ms in all, longest %.0f ms\n", n, ms, mx}'
  xz -c "$g/lock-trace.txt" > "$O/trace-$label.txt.xz"
}
el "bench_grade 3: rest at the exit"
bg rest CUDOJO_X=1
el "bench_grade 3: no rest"
bg norest CUDOJO_GPU_REST_AT_EXIT=0
el done
