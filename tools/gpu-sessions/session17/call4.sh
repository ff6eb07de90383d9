#!/bin/sh
# session 17 call 4 (759e0d1, the last of the device time, 349 s after a refused start): um-perf's save->verdict
# again (1149 ms in call 3's --all, 778 in call 1's); bench_grade 3 with compile ahead (default) and without
# (call 3's 6-student runs hit their 110 s limit)
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "um-perf save->verdict"
CUDOJO_BACKEND=cuda timeout 40 build/bench/bench_verdict --all --reps 5 --backend cuda um-perf > "$O/v-um.txt" 2>&1
echo "rc=$?"; grep -E "^ *(um-|exercise)" "$O/v-um.txt" | cut -c1-160
bg() {  # label, then env assignments
  label=$1; shift
  rm -rf /tmp/cudojo-bench-grade-*
  env "$@" CUDOJO_BACKEND=cuda timeout 100 build/bench/bench_grade 3 > "/tmp/grade-$label.txt" 2>&1; echo "rc=$?"
  { echo "==== $label: $*"; cat "/tmp/grade-$label.txt"; } >> "$O/grades.txt"
  grep -E 'runs/s|^steady|^CPU:|one at a time|solution failed|ahead|compile by kind' "/tmp/grade-$label.txt" | cut -c1-230
}
el "bench_grade 3: compile ahead (default)"; bg ahead CUDOJO_X=1
el "bench_grade 3: no compile ahead"; bg no-ahead CUDOJO_GRADE_AHEAD=0
el done
