#!/bin/sh
# session 16 call 5 (final code): block-reverse's save->verdict with ref.reverse (87f3bec; 1083 ms in call 4, 1072 of
# it the reference), bug-shared-race's again; the GPU tests of the files changed after call 2 (test_program_turn's
# folded stand-in grader, test_program_mps, test_program_group)
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "save->verdict"
CUDOJO_BACKEND=cuda timeout 60 build/bench/bench_verdict --all --reps 5 --backend cuda block-reverse bug-shared-race \
  > "$O/verdict.txt" 2>&1; echo "rc=$?"; cut -c1-200 "$O/verdict.txt" | head -6
el "GPU tests of the changed test files"
for t in kernels/test_program_turn kernels/test_program_mps kernels/test_program_group; do
  CUDOJO_TEST_GPU=1 timeout 40 build/tests/$t > "/tmp/t.txt" 2>&1; echo "$t rc=$?"; grep -E "PASSED|FAILED|SKIPPED|ERROR" /tmp/t.txt | head -5
done
el done
