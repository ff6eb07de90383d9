#!/bin/sh
# session 13 call 1 (04bf505): chapter 16 graded without ncu (a class of starters, wrong variants and solutions:
# only solutions may pass); um-perf's time by grading sizes; bench_grade 3, new order vs by-exercise (floor without
# ncu, the emulator check reusing the NVRTC build). The GPU tests are call 2 (warm).
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
el "um-perf solution alone, by sizes"
nvcc -O2 -arch=sm_90 -o /tmp/umperf lessons/13-unified-memory/solutions/um-perf.cu
for a in "8 2 1024 8192 65536" "8 2 1024 4096 16384" "8 1 1024 4096 16384" "8 2 256 1024 4096"; do
  python3 -c "import subprocess,sys,time; t=time.time(); r=subprocess.run(['/tmp/umperf']+sys.argv[1].split(),capture_output=True); print('um-perf', sys.argv[1], 'rc', r.returncode, '%.2f s' % (time.time()-t))" "$a"; done
for o in new by-exercise; do
  el "bench_grade 3, order $o"
  rm -rf /tmp/cudojo-bench-grade-*
  BENCH_GRADE_KEEP=1 CUDOJO_GRADE_ORDER=$o CUDOJO_BACKEND=cuda timeout 200 build/bench/bench_grade 3 > "$O/grade-$o.txt" 2>&1; echo "rc=$?" >> "$O/grade-$o.txt"
  if [ $o = new ]; then tail -60 "$O/grade-$o.txt"; else grep -E 'runs/s|projection|solutions passing|solution failed|alone|at least' "$O/grade-$o.txt" | head; fi
  g=$(ls -d /tmp/cudojo-bench-grade-* | head -1); xz -c "$g/lock-trace.txt" > "$O/trace-$o.txt.xz"; xz -c "$g/out/gradebook.json" > "$O/gradebook-$o.json.xz"
done
el done
