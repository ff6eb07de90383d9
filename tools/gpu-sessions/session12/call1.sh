#!/bin/sh
# session 12 call 1: measure what never ran on a GPU (8a2702f, 96a6cc6, 0b80f07, ce6ec8e)
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "bench_grade 3"
BENCH_GRADE_KEEP=1 CUDOJO_BACKEND=cuda timeout 300 build/bench/bench_grade 3 > "$O/grade.txt" 2>&1; echo "rc=$?" >> "$O/grade.txt"
tail -60 "$O/grade.txt"
g=$(ls -d /tmp/cudojo-bench-grade-* | head -1); cp "$g/out/gradebook.json" "$O/gradebook.json" 2>/dev/null
for f in "$g"/*trace* "$g"/out/*trace*; do [ -f "$f" ] && xz -c "$f" > "$O/trace.txt.xz"; done
el "verdict"
timeout 120 build/bench/bench_verdict --all --reps 3 --backend cuda matmul-naive default-stream um-perf > "$O/verdict.txt" 2>&1
tail -30 "$O/verdict.txt"
el "um-perf wrong variants graded"
C=/tmp/cum; rm -rf $C; mkdir -p $C
for w in lessons/13-unified-memory/solutions/wrong/um-perf-*.cu lessons/13-unified-memory/solutions/um-perf.cu; do
  b=$(basename $w .cu); mkdir -p $C/subs/$b/13-unified-memory; cp $w $C/subs/$b/13-unified-memory/um-perf.cu; done
CUDOJO_BACKEND=cuda timeout 150 dist/cudojo/cudojo.sh grade $C/subs/* --course lessons --out $C/out --exercises um-perf --backend cuda > "$O/class-um.txt" 2>&1; echo "rc=$?" >> "$O/class-um.txt"
tail -15 "$O/class-um.txt"; cat $C/out/gradebook.csv
python3 - <<'PY' $C/out/gradebook.json
import json,sys
b=json.load(open(sys.argv[1]))
for s in b["students"]:
  for ex,r in s["exercises"].items(): print(s.get("id",s.get("student")), ex, r.get("verdict"), (r.get("message") or "")[:200])
PY
el "sanitizer concurrency"
S=/tmp/san; mkdir -p $S; nvcc -lineinfo -arch=sm_90 -DN=4096 -o $S/race lessons/14-errors-and-debugging/bug-shared-race.cu 2>&1 | tail -3
for k in 1 4 8; do
  t0=$(date +%s.%N); i=0; while [ $i -lt $k ]; do (compute-sanitizer --tool racecheck $S/race > $S/o$i.txt 2>&1; echo "$i $(date +%s.%N)" >> $S/ends$k) & i=$((i+1)); done; wait
  t1=$(date +%s.%N); echo "sanitizer x$k: $(python3 -c "print(round($t1-$t0,2))") s"; done
tail -3 $S/o0.txt
el "ncu options"
N=/tmp/ncux; mkdir -p $N; nvcc -lineinfo -arch=sm_90 -DW=4096 -o $N/hs lessons/16-profiling/solutions/hot-spot.cu 2>&1 | tail -3
M=gpu__time_duration.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
tm() { t0=$(date +%s.%N); "$@" > $N/last.txt 2>&1; rc=$?; t1=$(date +%s.%N); echo "$(python3 -c "print(round($t1-$t0,2))") s rc=$rc: $*" | cut -c1-200; }
tm $N/hs; tm $N/hs
tm ncu --version
tm ncu --csv --print-units base --target-processes all --launch-count 200 --metrics $M $N/hs
tm ncu --csv --print-units base --target-processes all --launch-count 200 --metrics $M --cache-control none --clock-control none $N/hs
tm ncu --csv --print-units base --target-processes application-only --launch-count 200 --metrics $M --cache-control none --clock-control none $N/hs
tm ncu --csv --print-units base --target-processes all --launch-count 200 --metrics $M $N/hs
grep -c '"' $N/last.txt
el "tests"
TEST_JOBS=6 timeout 240 sh tools/gpu-check.sh "$O/gc" tests > "$O/tests.txt" 2>&1
tail -25 "$O/tests.txt"
el done
