#!/bin/sh
# session 15 call 3 (final code): every test with CUDOJO_TEST_GPU=1; then bench_grade 3 in three arms, twice each in
# turn (the machine drifts within a call): 16 workers with one lane per slot (CUDOJO_GRADE_LANES=1, the emulator check
# in turn with the GPU run), 16 with two lanes (HEAD's default), 12 with two lanes; stops starting arms past 520 s
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "all tests with CUDOJO_TEST_GPU=1"
GPU_CHECK_LIMIT_tests=200 timeout 210 sh tools/gpu-check.sh "$O/gc" tests > "$O/tests.txt" 2>&1; tail -4 "$O/tests.txt"
grep -rhE '^not ok|\[  FAILED|pinned, one kernel|spin: .* alone|timed kernel' "$O/gc" 2>/dev/null | head -12
bg() {  # label, then env assignments
  label=$1; shift
  [ $(( $(date +%s) - T0 )) -gt 520 ] && { echo "skipped $label (time)"; return; }
  rm -rf /tmp/cudojo-bench-grade-*
  env "$@" CUDOJO_BACKEND=cuda timeout 80 build/bench/bench_grade 3 > "/tmp/grade-$label.txt" 2>&1; echo "rc=$?"
  { echo "==== $label: $*"; cat "/tmp/grade-$label.txt"; } >> "$O/grades.txt"   # one file: few come back
  grep -E 'runs/s|^CPU:|one at a time|solution failed' "/tmp/grade-$label.txt" | cut -c1-200
}
for round in 1 2; do
  el "bench_grade 3: 16 workers, one lane (round $round)"; bg "one-$round" CUDOJO_GRADE_LANES=1
  el "bench_grade 3: 16 workers, two lanes (round $round)"; bg "two-$round" CUDOJO_GRADE_LANES=2
  el "bench_grade 3: 12 workers, two lanes (round $round)"; bg "two12-$round" CUDOJO_GRADE_LANES=2 BENCH_GRADE_JOBS=12
done
el done
