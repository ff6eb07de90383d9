#!/bin/sh
# session 16 call 1 (56c9149): (1) the capture guard (3365781): graph-update's solution graded by 16 students beside
# timed exercises with the drain on, twice (session 15 call 4: 1 of 32 failed before it); (2) every test with
# CUDOJO_TEST_GPU=1; (3) where the over-1-second verdicts go: bench_verdict of the ncu, MPS, sanitizer and
# unified-memory exercises, and ncu's own cost on hot-spot's solution (plain run, ncu as cudojo runs it, variants)
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
EX=graph-update,graph-replay,intensity,latency-hiding,histogram,default-stream,matmul-smem,read-mostly
for round in 1 2; do
  el "graph-update x16 students, drain on ($round)"
  rm -rf /tmp/cudojo-bench-grade-*
  BENCH_GRADE_KEEP=1 CUDOJO_BACKEND=cuda timeout 90 build/bench/bench_grade 16 "$EX" > /tmp/g.txt 2>&1; echo "rc=$?"
  grep -E 'runs/s|solutions passing' /tmp/g.txt
  g=$(ls -d /tmp/cudojo-bench-grade-* | head -1)
  python3 - "$g/out/grade.db" "round $round" >> "$O/fails.txt" <<'PY'
import sqlite3, sys, json
db = sqlite3.connect(sys.argv[1])
rows = db.execute("select student, exercise, verdict, message from run").fetchall()
bad = [r for r in rows if r[2] != "pass"]
print("==== %s: %d runs, %d not passed" % (sys.argv[2], len(rows), len(bad)))
for r in bad: print("  %s %s %s: %s" % (r[0], r[1], r[2], (r[3] or "")[:300]))
PY
done
cat "$O/fails.txt" | cut -c1-300 | head -20
el "all tests with CUDOJO_TEST_GPU=1"
GPU_CHECK_LIMIT_tests=200 timeout 210 sh tools/gpu-check.sh "$O/gc" tests > "$O/tests.txt" 2>&1; tail -4 "$O/tests.txt"
grep -rhE '^not ok|\[  FAILED' "$O/gc" 2>/dev/null | head -12
el "bench_verdict of the slow ones"
CUDOJO_BACKEND=cuda timeout 150 build/bench/bench_verdict --all --reps 3 --backend cuda --json "$O/verdict.json" \
  hot-spot few-blocks mps-share bug-shared-race um-perf > "$O/verdict.txt" 2>&1; echo "rc=$?"; cut -c1-220 "$O/verdict.txt" | head -40
el "ncu's own cost (hot-spot's solution, W=4096)"
{
cd /tmp && nvcc -O2 -lineinfo -arch=sm_90 -DW=4096 "$OLDPWD/lessons/16-profiling/solutions/hot-spot.cu" -o /tmp/hs
tm() { s=$(date +%s%N); "$@" > /tmp/tm.out 2>&1; rc=$?; echo "$(( ($(date +%s%N) - s) / 1000000 )) ms rc=$rc: $*" | cut -c1-260; }
N=/usr/local/cuda/bin/ncu
M=gpu__time_duration.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
C="--csv --print-units base --target-processes all --launch-count 200 --clock-control none"
tm /tmp/hs; tm /tmp/hs; tm /tmp/hs
tm $N --version
tm $N $C --metrics $M --log-file /tmp/n.csv /bin/true
tm $N $C --metrics $M --log-file /tmp/n.csv /tmp/hs; tm $N $C --metrics $M --log-file /tmp/n.csv /tmp/hs
tm $N $C --cache-control none --metrics $M --log-file /tmp/n.csv /tmp/hs
tm $N $C --kernel-name regex:scale_cols --metrics $M --log-file /tmp/n.csv /tmp/hs
tm $N $C --cache-control none --kernel-name regex:scale_cols --metrics $M --log-file /tmp/n.csv /tmp/hs
tm $N $C --metrics gpu__time_duration.sum --log-file /tmp/n.csv /tmp/hs
tm $N --csv --target-processes application-only --launch-count 200 --clock-control none --metrics $M --log-file /tmp/n.csv /tmp/hs
grep -c '"' /tmp/n.csv
tm compute-sanitizer --tool racecheck /tmp/hs
tm compute-sanitizer --tool memcheck /tmp/hs
P=/tmp/mpsp; mkdir -p $P/pipe $P/log
s=$(date +%s%N); CUDA_MPS_PIPE_DIRECTORY=$P/pipe CUDA_MPS_LOG_DIRECTORY=$P/log nvidia-cuda-mps-control -d; echo "mps control -d: $(( ($(date +%s%N) - s) / 1000000 )) ms"
s=$(date +%s%N); CUDA_MPS_PIPE_DIRECTORY=$P/pipe /tmp/hs >/dev/null; echo "first client (server start): $(( ($(date +%s%N) - s) / 1000000 )) ms"
s=$(date +%s%N); CUDA_MPS_PIPE_DIRECTORY=$P/pipe /tmp/hs >/dev/null; echo "second client: $(( ($(date +%s%N) - s) / 1000000 )) ms"
s=$(date +%s%N); echo quit | CUDA_MPS_PIPE_DIRECTORY=$P/pipe nvidia-cuda-mps-control; sleep 0.2; echo "quit: $(( ($(date +%s%N) - s) / 1000000 )) ms"
} > "$O/ncu.txt" 2>&1
cat "$O/ncu.txt"
el done
