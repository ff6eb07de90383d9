#!/bin/sh
# session 16 call 4 (d4b1fc0): save->verdict of every exercise of the course on the H200 (issue 15's goal: p50 <= 1 s,
# the small ones <= 100 ms), warm worker, compile cached, 3 reps
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "bench_verdict --all"
CUDOJO_BACKEND=cuda timeout 380 build/bench/bench_verdict --all --reps 3 --backend cuda --json "$O/verdict-all.json" \
  > "$O/verdict-all.txt" 2>&1; echo "rc=$?"
grep -E "exercises ran|over the goal|did not pass" "$O/verdict-all.txt" | cut -c1-600
sort -k2 -n -r "$O/verdict-all.txt" | grep -E "^[a-z]" | head -12 | cut -c1-120
el done
