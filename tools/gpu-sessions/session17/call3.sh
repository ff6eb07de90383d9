#!/bin/sh
# session 17 call 3: (1) save->verdict of the changed exercises: bug-shared-race (the emulator beside, racecheck
# after the verdict), mps-share (the daemon kept between runs), the memcheck bug hunts (beside); (2) the GPU tests
# of the changed files; (3) every exercise's save->verdict; (4) bench_grade 6, compile ahead on (default), off
# (CUDOJO_GRADE_AHEAD=0), and on with the workers blocking on the GPU (CUDOJO_CUDA_SYNC=block)
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "save->verdict of the changed exercises"
CUDOJO_BACKEND=cuda timeout 90 build/bench/bench_verdict --all --reps 5 --backend cuda bug-shared-race mps-share \
  bug-out-of-bounds bug-use-after-free > "$O/v-changed.txt" 2>&1
echo "rc=$?"; grep -E "^ *(bug-|mps-|exercise)" "$O/v-changed.txt" | cut -c1-160
el "GPU tests of the changed files"
for t in lua/test_program lua/test_program_after kernels/test_program_mps kernels/test_program kernels/test_program_turn \
         grade/test_grade_verdict; do
  CUDOJO_TEST_GPU=1 timeout 120 build/tests/$t > /tmp/t.txt 2>&1; echo "$t rc=$?"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  ERROR|LINE" /tmp/t.txt | head -6; cat /tmp/t.txt >> "$O/tests.txt"
done
for s in tests/grade/test_grade_emucheck_gpu.sh tests/grade/test_grade_ahead.sh; do
  [ -f $s ] || continue
  CUDOJO_TEST_GPU=1 BUILD=build timeout 150 sh $s > /tmp/t.txt 2>&1; echo "$s rc=$?"; grep -E "^(not ok|skip)" /tmp/t.txt | head -5
  cat /tmp/t.txt >> "$O/tests.txt"
done
el "every exercise's save->verdict"
CUDOJO_BACKEND=cuda timeout 200 build/bench/bench_verdict --all --reps 3 --backend cuda > "$O/verdict-all.txt" 2>&1
echo "all rc=$?"; grep -E "exercises ran|over the goal" "$O/verdict-all.txt" | cut -c1-200
bg() {  # label, then env assignments
  label=$1; shift
  [ $(( $(date +%s) - T0 )) -gt 500 ] && { echo "skipped $label (time)"; return; }
  rm -rf /tmp/cudojo-bench-grade-*
  env "$@" CUDOJO_BACKEND=cuda timeout 110 build/bench/bench_grade 6 > "/tmp/grade-$label.txt" 2>&1; echo "rc=$?"
  { echo "==== $label: $*"; cat "/tmp/grade-$label.txt"; } >> "$O/grades.txt"
  grep -E 'runs/s|^steady|^CPU:|one at a time|solution failed|ahead' "/tmp/grade-$label.txt" | cut -c1-220
}
el "bench_grade 6: compile ahead (default)"; bg ahead CUDOJO_X=1
el "bench_grade 6: no compile ahead"; bg no-ahead CUDOJO_GRADE_AHEAD=0
el "bench_grade 6: compile ahead, workers block on the GPU"; bg ahead-block CUDOJO_CUDA_SYNC=block
el done
