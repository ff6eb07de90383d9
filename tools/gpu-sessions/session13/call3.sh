#!/bin/sh
# session 13 call 3 (e99656b): um-perf's solution and wrong variants graded at the new sizes (1, 4, 16 MiB);
# bench_grade 3 with 16, 32 and 48 workers (more workers than cores: a worker waiting for the GPU lock uses no CPU)
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "um-perf wrong variants graded"
C=/tmp/cum; rm -rf $C; mkdir -p $C
for w in lessons/13-unified-memory/solutions/wrong/um-perf-*.cu lessons/13-unified-memory/solutions/um-perf.cu; do
  b=$(basename $w .cu); mkdir -p $C/subs/$b/unified-memory; cp $w $C/subs/$b/unified-memory/um-perf.cu; done
timeout 150 dist/cudojo/cudojo.sh --backend=cuda grade $C/subs/* --course lessons --out $C/out --exercises um-perf > "$O/class-um.txt" 2>&1; echo "rc=$?" >> "$O/class-um.txt"
tail -2 "$O/class-um.txt"
python3 - $C/out/gradebook.json <<'PY'
import json,sys
b=json.load(open(sys.argv[1]))
for s in b["students"]:
  for ex,r in s["exercises"].items(): print(s["student"], ex, r.get("verdict"), (r.get("time") or {}).get("gpu_exclusive_ms"), (r.get("message") or "")[:160])
PY
for j in 16 32 48; do
  el "bench_grade 3, $j workers"
  rm -rf /tmp/cudojo-bench-grade-*
  BENCH_GRADE_KEEP=1 BENCH_GRADE_JOBS=$j CUDOJO_BACKEND=cuda timeout 200 build/bench/bench_grade 3 > "$O/grade-j$j.txt" 2>&1; echo "rc=$?" >> "$O/grade-j$j.txt"
  grep -E 'runs/s|projection|compile by|emulator check|GPU lock|solutions passing|solution failed|at least|trace:' "$O/grade-j$j.txt"
  g=$(ls -d /tmp/cudojo-bench-grade-* | head -1); xz -c "$g/lock-trace.txt" > "$O/trace-j$j.txt.xz"; xz -c "$g/out/gradebook.json" > "$O/gradebook-j$j.json.xz"
done
el done
