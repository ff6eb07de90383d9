#!/bin/sh
# session 12 call 5: final HEAD: bench_grade 3; verify chapter 07 (hostcheck.pipeline's late chunk)
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "bench_grade 3"
rm -rf /tmp/cudojo-bench-grade-*
CUDOJO_BACKEND=cuda timeout 150 build/bench/bench_grade 3 > "$O/grade.txt" 2>&1; echo "rc=$?" >> "$O/grade.txt"
cat "$O/grade.txt" | head -60
el "verify 07"
VERIFY_DIRS="lessons/07-streams" VERIFY_JOBS=3 GPU_CHECK_LIMIT_verify=80 timeout 95 sh tools/gpu-check.sh "$O/v" verify > "$O/verify.txt" 2>&1; tail -5 "$O/verify.txt"
el "gpu lock tests"
for t in test_gpu_lock test_program_turn; do timeout 30 build/tests/kernels/$t 2>&1 | grep -E '^\[  (PASSED|FAILED)'; done
el done
