#!/bin/sh
# session 13 call 2 (warm after call 1): every test with CUDOJO_GPU_TEST=1 (tools/gpu-check.sh tests)
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "all tests with CUDOJO_TEST_GPU=1"
GPU_CHECK_LIMIT_tests=280 timeout 290 sh tools/gpu-check.sh "$O/gc" tests > "$O/tests.txt" 2>&1; tail -8 "$O/tests.txt"
grep -rE '^not ok|\[  FAILED' "$O/gc" | head -20
el done
