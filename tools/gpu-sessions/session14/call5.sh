#!/bin/sh
# session 14 call 5 (final, 9cc1b73): every test with CUDOJO_TEST_GPU=1
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
GPU_CHECK_LIMIT_tests=220 timeout 230 sh tools/gpu-check.sh "$O/gc" tests > "$O/tests.txt" 2>&1; tail -6 "$O/tests.txt"
