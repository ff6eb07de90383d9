#!/bin/sh
# session 18 call 1 (HEAD): (1) the GPU tests (gpu-check's tests step); (2) bench_grade 10 with compile ahead
# (default): did 588f335 (the child closes the worker's descriptors before "go") end session 17's grading stalls?
# A watchdog dumps the process tree, the lock trace's tail and grade.err's tail if the grading is still running
# near its limit.
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "GPU tests"
GPU_CHECK_LIMIT_tests=270 GPU_CHECK_DEADLINE=280 timeout 285 sh tools/gpu-check.sh "$O/gc" tests > "$O/tests.txt" 2>&1
echo "rc=$?"; cat "$O/gc/summary.txt" 2>/dev/null | head -40
bg() {  # label, limit, students, then env assignments
  label=$1; lim=$2; n=$3; shift 3
  rm -rf /tmp/cudojo-bench-grade-*
  env "$@" CUDOJO_BACKEND=cuda timeout "$lim" build/bench/bench_grade "$n" > "/tmp/grade-$label.txt" 2>&1 &
  pid=$!
  ( sleep $((lim - 8)); kill -0 $pid 2>/dev/null || exit 0
    { echo "==== watchdog $label at $((lim - 8)) s"; ps -eo pid,ppid,etimes,stat,pcpu,wchan:24,args --forest | grep -v "ps -eo" | cut -c1-260
      for d in /tmp/cudojo-bench-grade-*; do echo "-- lock trace tail"; tail -40 "$d/lock-trace.txt"
        echo "-- grade.err tail"; tail -c 3000 "$d/grade.err"
        echo "-- graded"; ls "$d/out" 2>/dev/null | head; done; } > "$O/watchdog-$label.txt" 2>&1 ) &
  wait $pid; echo "rc=$?"
  { echo "==== $label: $*"; cat "/tmp/grade-$label.txt"; } >> "$O/grades.txt"
  grep -E 'runs/s|^steady|^CPU:|one at a time|solution failed|ahead|compile by kind' "/tmp/grade-$label.txt" | cut -c1-230
}
left=$(( 585 - ($(date +%s) - T0) ))
el "bench_grade 10, compile ahead (default), limit $left s"; bg ahead "$left" 10 CUDOJO_X=1
el done
