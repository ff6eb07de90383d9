#!/bin/sh
# session 13 call 1: HEAD (0a546af + ...): chapter 16 graded without ncu (class of starters, wrong variants,
# solutions: only solutions pass); bench_grade 3 (floor without ncu, emulator check reusing NVRTC); all GPU tests
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "class of chapter 16 graded on the GPU"
C=/tmp/c16; rm -rf $C; mkdir -p $C
L=lessons/16-profiling
for e in hot-spot few-blocks occupancy-limiter dominant-kernel; do
  mkdir -p $C/subs/sol-$e/profiling $C/subs/start-$e/profiling
  cp $L/solutions/$e.cu $C/subs/sol-$e/profiling/; cp $L/$e.cu $C/subs/start-$e/profiling/
done
for w in $L/solutions/wrong/*.cu; do b=$(basename $w .cu); e=${b%-*}; e=${e%-predicts}; e=${e%-still}; e=${e%-one-per}; e=${e%-smaller}
  for x in hot-spot few-blocks occupancy-limiter dominant-kernel; do case $b in $x-*) e=$x;; esac; done
  mkdir -p $C/subs/wrong-$b/profiling; cp $w $C/subs/wrong-$b/profiling/$e.cu; done
timeout 200 dist/cudojo/cudojo.sh --backend=cuda grade $C/subs/* --course lessons --out $C/out \
  --exercises hot-spot,few-blocks,occupancy-limiter,dominant-kernel > "$O/class16.txt" 2>&1; echo "rc=$?" >> "$O/class16.txt"
tail -3 "$O/class16.txt"; cp $C/out/gradebook.json "$O/class16.json"
python3 - $C/out/gradebook.json <<'PY'
import json,sys
b=json.load(open(sys.argv[1]))
for s in b["students"]:
  for ex,r in s["exercises"].items():
    if r.get("verdict") not in (None,"missing"):
      print(s["student"], ex, r.get("verdict"), r.get("failure_kind"), "%.1fs" % (r.get("time") or {}).get("total_s",0) if isinstance(r.get("time"),dict) else "", (r.get("message") or "")[:150])
PY
el "bench_grade 3"
rm -rf /tmp/cudojo-bench-grade-*
BENCH_GRADE_KEEP=1 CUDOJO_BACKEND=cuda timeout 200 build/bench/bench_grade 3 > "$O/grade.txt" 2>&1; echo "rc=$?" >> "$O/grade.txt"
tail -60 "$O/grade.txt"
g=$(ls -d /tmp/cudojo-bench-grade-* | head -1); xz -c "$g/lock-trace.txt" > "$O/trace.txt.xz"; xz -c "$g/out/gradebook.json" > "$O/gradebook.json.xz"
el "all tests with CUDOJO_TEST_GPU=1"
GPU_CHECK_LIMIT_tests=240 timeout 250 sh tools/gpu-check.sh "$O/gc" tests > "$O/tests.txt" 2>&1; tail -8 "$O/tests.txt"
grep -E '^(not ok|FAIL)|\[  FAILED' -r "$O/gc" | head -20
el done
