#!/bin/sh
# session 15 call 2: bench_grade 3 at HEAD (two lanes per slot, the turn's end at the exit, first runs shared) against
# one lane (CUDOJO_GRADE_LANES=1) and with big host buffers pageable (CUDOJO_PIN_MAX_MB=256), one call; matmul-naive
# at 2048^3 (its target); bench_predict
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "matmul-naive: solution at 2048 (3 runs) and at 4096 (1), starter and wrong variants at 2048"
for p in "" "" "" "--param size=4096"; do
  # shellcheck disable=SC2086
  timeout 60 "$CUDOJO_BIN" run --lessons lessons --backend=cuda --json $p --file lessons/18-matmul/solutions/matmul-naive.cu \
    matmul-naive > /tmp/mn.json 2>/tmp/mn.err
  python3 -c '
import json,sys
d=json.load(open("/tmp/mn.json"))
lk=(d.get("metrics") or {}).get("gpu_lock") or {}
print(" ", d.get("verdict"), "%.0f ms" % (d.get("duration_ms") or 0), "exclusive", lk.get("exclusive_ms"), "|", [l for l in (d.get("log") or "").splitlines() if "TFLOP" in l][:1], (d.get("summary") or "")[:160])' 2>&1 | head -3
done 2>&1 | tee "$O/naive.txt"
bg() {  # label, then env assignments
  label=$1; shift
  rm -rf /tmp/cudojo-bench-grade-*
  env "$@" BENCH_GRADE_KEEP=1 CUDOJO_BACKEND=cuda timeout 150 build/bench/bench_grade 3 > "$O/grade-$label.txt" 2>&1; echo "rc=$?"
  grep -E 'runs/s|projection|^CPU|GPU lock|solutions passing|solution failed|at least' "$O/grade-$label.txt"
  grep -A8 '^CPU of the runs' "$O/grade-$label.txt"
}
el "bench_grade 3: HEAD"
bg head CUDOJO_X=1
el "bench_grade 3: one lane"
bg onelane CUDOJO_GRADE_LANES=1
el "bench_grade 3: pageable above 256 MiB"
bg pin256 CUDOJO_PIN_MAX_MB=256
el "bench_predict"
timeout 100 build/bench/bench_predict --json "$O/predict.json" > "$O/predict.txt" 2>&1; echo "rc=$?"; tail -4 "$O/predict.txt"
el done
