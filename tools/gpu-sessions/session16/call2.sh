#!/bin/sh
# session 16 call 2: (1) every test with CUDOJO_TEST_GPU=1 first, on a fresh machine (call 1's were killed at 200 s:
# test_verify.sh had not ended); (2) graph-update x16 students beside timed exercises, 3 rounds, every failure with its
# program record (the gate for a capture's begin, af67ea0), 2 rounds; (3) save->verdict of the exercises over 1 s and the big
# host-side ones (the verdict before ncu: c48f344; random/sum fast paths: 020385e, 03170ae); (4) mps-share's REPS
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "all tests with CUDOJO_TEST_GPU=1"
GPU_CHECK_LIMIT_tests=270 GPU_CHECK_DEADLINE=280 timeout 285 sh tools/gpu-check.sh "$O/gc" tests > "$O/tests.txt" 2>&1; tail -4 "$O/tests.txt"
grep -rhE '^not ok|\[  FAILED' "$O/gc" 2>/dev/null | head -12
el "graph-update"
EX=graph-update,graph-replay,intensity,latency-hiding,histogram,default-stream,matmul-smem,read-mostly
for round in 1 2; do
  [ $(( $(date +%s) - T0 )) -gt 400 ] && { echo "skipped round $round (time)"; continue; }
  rm -rf /tmp/cudojo-bench-grade-*
  BENCH_GRADE_KEEP=1 CUDOJO_BACKEND=cuda timeout 80 build/bench/bench_grade 16 "$EX" > /tmp/g.txt 2>&1; echo "rc=$?"
  grep -E 'runs/s|solutions passing' /tmp/g.txt
  g=$(ls -d /tmp/cudojo-bench-grade-* | head -1)
  python3 - "$g/out/grade.db" "round $round" >> "$O/fails.txt" <<'PY'
import sqlite3, sys, json
db = sqlite3.connect(sys.argv[1])
rows = db.execute("select student, exercise, verdict, message, result_json from run").fetchall()
bad = [r for r in rows if r[2] != "pass"]
print("==== %s: %d runs, %d not passed" % (sys.argv[2], len(rows), len(bad)))
for r in bad:
    j = json.loads(r[4] or "{}")
    print("  %s %s %s: %s" % (r[0], r[1], r[2], (r[3] or "")[:300]))
    print("    result: " + json.dumps(j)[:6000])
PY
done
grep -E "^====|^  student" "$O/fails.txt" | cut -c1-300
el "save->verdict"
CUDOJO_BACKEND=cuda timeout 100 build/bench/bench_verdict --all --reps 3 --backend cuda --json "$O/verdict.json" \
  hot-spot few-blocks occupancy-limiter mps-share reduce-peak scan-array > "$O/verdict.txt" 2>&1; echo "rc=$?"; cut -c1-240 "$O/verdict.txt" | head -30
el "mps-share: REPS with the start barrier (cd7577e), and 1000 without it"
P=$PWD; mkdir -p /tmp/ws && cd /tmp/ws
for arm in 1000 250 500 "1000 nobarrier" 4000; do
  set -- $arm
  [ $(( $(date +%s) - T0 )) -gt 560 ] && { echo "skipped reps=$1 (time)"; continue; }
  s=$(date +%s%N)
  if [ "${2:-}" = nobarrier ]; then b=0; else b=2000; fi
  CUDOJO_GROUP_BARRIER_MS=$b XDG_DATA_HOME=/tmp/ws/d timeout 60 "$P/dist/cudojo/cudojo.sh" --backend=cuda --json run mps-share \
    --file "$P/lessons/17-many-gpus-and-processes/solutions/mps-share.cu" --param reps=$1 > /tmp/ws/o.json 2>/tmp/ws/e.txt
  echo "reps=$1 ${2:-} rc=$? wall $(( ($(date +%s%N) - s) / 1000000 )) ms"
  python3 - <<'PY'
import json
try: d = json.load(open('/tmp/ws/o.json'))
except Exception as e: print("  no JSON:", e, open('/tmp/ws/e.txt').read()[:500]); raise SystemExit
m = d.get('metrics', {}); ph = m.get('phases', {})
print("  %s %.0f ms (compile %.0f, program %.0f, script %.0f) cpu %s" % (d.get('verdict'), d.get('duration_ms') or 0,
      ph.get('compile_ms') or 0, ph.get('program_ms') or 0, ph.get('script_ms') or 0, m.get('cpu')))
for l in (d.get('log') or '').splitlines(): print("  " + l[:200])
if d.get('verdict') != 'pass': print("  " + (d.get('summary') or '')[:400])
PY
done
cd "$P"
el done
