#!/bin/sh
# session 12 call 2: profiled runs yield (HEAD); um-perf's wrong variants graded; verify chapter 16; queue A/B
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
rm -rf /tmp/cudojo-bench-grade-*
el "bench_grade 3"
BENCH_GRADE_KEEP=1 CUDOJO_BACKEND=cuda timeout 280 build/bench/bench_grade 3 > "$O/grade.txt" 2>&1; echo "rc=$?" >> "$O/grade.txt"
tail -45 "$O/grade.txt"
g=$(ls -d /tmp/cudojo-bench-grade-* | head -1); xz -c "$g/lock-trace.txt" > "$O/trace.txt.xz"; cp "$g/out/gradebook.json" "$O/"
el "um-perf wrong variants graded"
C=/tmp/cum; rm -rf $C; mkdir -p $C
for w in lessons/13-unified-memory/solutions/wrong/um-perf-*.cu lessons/13-unified-memory/solutions/um-perf.cu; do
  b=$(basename $w .cu); mkdir -p $C/subs/$b/unified-memory; cp $w $C/subs/$b/unified-memory/um-perf.cu; done
timeout 150 dist/cudojo/cudojo.sh --backend=cuda grade $C/subs/* --course lessons --out $C/out --exercises um-perf > "$O/class-um.txt" 2>&1; echo "rc=$?" >> "$O/class-um.txt"
tail -3 "$O/class-um.txt"; cat $C/out/gradebook.csv
python3 - $C/out/gradebook.json <<'PY'
import json,sys
b=json.load(open(sys.argv[1]))
for s in b["students"]:
  for ex,r in s["exercises"].items(): print(s.get("student") or s.get("id"), ex, r.get("verdict"), (r.get("message") or "")[:160])
PY
el "verify chapter 16 (ncu under the lock, clock-control none)"
VERIFY_DIRS=lessons/16-profiling timeout 150 sh tools/gpu-check.sh "$O/v16" verify > "$O/verify16.txt" 2>&1; tail -12 "$O/verify16.txt"
el "bench_grade 3, queue off"
rm -rf /tmp/cudojo-bench-grade-*
CUDOJO_GPU_LOCK_QUEUE=0 CUDOJO_BACKEND=cuda timeout 200 build/bench/bench_grade 3 > "$O/grade-qoff.txt" 2>&1; echo "rc=$?" >> "$O/grade-qoff.txt"
grep -E 'runs/s|projection|GPU lock|solutions passing|alone' "$O/grade-qoff.txt" | head -8
el done
