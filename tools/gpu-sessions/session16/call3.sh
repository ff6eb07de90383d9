#!/bin/sh
# session 16 call 3: (1) cudojo verify of chapters 16 and 17 on the H200 (the verdict before ncu, c48f344; mps-share
# at 250 reps, 0eb6b6f); (2) save->verdict of the exercises that were over 1 s; (3) compute-sanitizer's options on
# bug-shared-race's solution; (4) bench_grade with 10 submissions (the whole-run and the steady rate); (5) bench_grade 3
# with the host pool at its default (16 workers: 2 GiB each) and at 4 GiB (reduce-peak's 2 GiB pinned kept across runs)
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "verify chapters 16 and 17 on the GPU"
timeout 150 dist/cudojo/cudojo.sh verify --backend=cuda --jobs 3 lessons/16-profiling lessons/17-many-gpus-and-processes \
  > "$O/verify.txt" 2>&1; echo "rc=$?"; grep -vE "^  ✓" "$O/verify.txt" | tail -12
el "save->verdict"
CUDOJO_BACKEND=cuda timeout 100 build/bench/bench_verdict --all --reps 3 --backend cuda --json "$O/verdict.json" \
  mps-share bug-shared-race hot-spot few-blocks occupancy-limiter um-perf > "$O/verdict.txt" 2>&1; echo "rc=$?"
cut -c1-240 "$O/verdict.txt" | head -14
el "compute-sanitizer racecheck options (bug-shared-race's solution, N=4096)"
{
nvcc -lineinfo -arch=sm_90 -DN=4096 lessons/14-errors-and-debugging/solutions/bug-shared-race.cu -o /tmp/bsr
tm() { s=$(date +%s%N); "$@" > /tmp/tm.out 2>&1; rc=$?; echo "$(( ($(date +%s%N) - s) / 1000000 )) ms rc=$rc: $*" | cut -c1-200; }
S=compute-sanitizer
tm /tmp/bsr; tm /tmp/bsr
tm $S --tool racecheck --print-limit 100 --show-backtrace no /tmp/bsr
tm $S --tool racecheck --print-limit 100 --show-backtrace no /tmp/bsr
tm $S --tool racecheck --print-limit 100 --show-backtrace no --target-processes application-only /tmp/bsr
tm $S --tool racecheck --print-limit 100 --show-backtrace no --lazy-patching yes /tmp/bsr
tm $S --tool racecheck --print-limit 100 --show-backtrace no --lazy-patching no /tmp/bsr
tm $S --tool racecheck --print-limit 100 --show-backtrace no --racecheck-report hazard /tmp/bsr
$S --help 2>&1 | grep -iE "lazy|target-processes|preload|injection|patch" | head -12
} > "$O/sanitizer.txt" 2>&1; cat "$O/sanitizer.txt"
el "bench_grade 10 (whole course)"
rm -rf /tmp/cudojo-bench-grade-*
CUDOJO_BACKEND=cuda timeout 250 build/bench/bench_grade 10 > "$O/grade10.txt" 2>&1; echo "rc=$?"
grep -E 'runs/s|^steady|^CPU:|one at a time|solutions passing' "$O/grade10.txt" | cut -c1-220
bg() {  # label, then env assignments
  label=$1; shift
  [ $(( $(date +%s) - T0 )) -gt 480 ] && { echo "skipped $label (time)"; return; }
  rm -rf /tmp/cudojo-bench-grade-*
  env "$@" CUDOJO_BACKEND=cuda timeout 75 build/bench/bench_grade 3 > "/tmp/grade-$label.txt" 2>&1; echo "rc=$?"
  { echo "==== $label: $*"; cat "/tmp/grade-$label.txt"; } >> "$O/grades.txt"
  grep -E 'runs/s|^steady|^CPU:|one at a time|solution failed' "/tmp/grade-$label.txt" | cut -c1-200
}
el "bench_grade 3: host pool default"; bg pool-default CUDOJO_X=1
el "bench_grade 3: host pool 4 GiB per worker"; bg pool-4g CUDOJO_HOST_POOL_MB=4096
el done
