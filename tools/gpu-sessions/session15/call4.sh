#!/bin/sh
# session 15 call 4: graph-update's solution failed its "waited before reading" check in 2 of 18 graded runs in call 3
# (never in calls 1-2 or session 14). 16 students x graph-update beside timed exercises (yields, drains), with the
# drain on (default), off (CUDOJO_GPU_DRAIN_MS=0) and no yields (CUDOJO_GPU_YIELD=0), twice each; counts the failures
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
EX=graph-update,graph-replay,intensity,latency-hiding,histogram,default-stream,matmul-smem,read-mostly
arm() {
  label=$1; shift
  [ $(( $(date +%s) - T0 )) -gt 300 ] && { echo "skipped $label (time)"; return; }
  rm -rf /tmp/cudojo-bench-grade-*
  env "$@" BENCH_GRADE_KEEP=1 CUDOJO_BACKEND=cuda timeout 90 build/bench/bench_grade 16 "$EX" > "/tmp/g.txt" 2>&1; echo "rc=$?"
  grep -E 'runs/s|solutions passing' /tmp/g.txt
  g=$(ls -d /tmp/cudojo-bench-grade-* | head -1)
  python3 - "$g/out/grade.db" "$label" >> "$O/fails.txt" <<'PY'
import sqlite3, sys, json
db = sqlite3.connect(sys.argv[1])
rows = db.execute("select student, exercise, verdict, message, result_json from run").fetchall()
bad = [r for r in rows if r[2] != "pass"]
print("==== %s: %d runs, %d not passed" % (sys.argv[2], len(rows), len(bad)))
for r in bad:
    m = json.loads(r[4]).get("metrics") or {}
    print("  %s %s %s: %s | program %s" % (r[0], r[1], r[2], (r[3] or "")[:300], json.dumps(m.get("program"))[:300]))
PY
  tail -n +1 "$O/fails.txt" | grep -c "graph-update" | sed "s/^/  graph-update failures so far: /"
}
for round in 1 2; do
  el "drain on ($round)"; arm "drain-$round" CUDOJO_X=1
  el "drain off ($round)"; arm "nodrain-$round" CUDOJO_GPU_DRAIN_MS=0
  el "no yields ($round)"; arm "noyield-$round" CUDOJO_GPU_YIELD=0
done
cat "$O/fails.txt" | cut -c1-400 | head -40
el done
