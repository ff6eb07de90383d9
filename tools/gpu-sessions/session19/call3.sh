#!/bin/sh
# session 19 call 3 (HEAD: pages made before pinning): three arms of bench_grade 6 in one call (the machine
# varies ~10% between calls): the default; CUDOJO_GRADE_AHEAD=8 (call 1: 234 of 580 nvcc builds ran
# inside the workers' runs, 1.0 s of a program run's 4.9 s, behind 4 compile-ahead threads busy with the
# emulator check's builds, with 32% of the cores idle); and that with CUDOJO_PIN_MAX_MB=128 (buffers over
# 128 MiB stay pageable: call 1's pin/unpin holds were ~100 s of shared holding per 10 submissions and
# the last to let go before 314 of 921 timed sections).
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
bg() {  # label, limit, then env assignments
  label=$1; lim=$2; shift 2
  rm -rf /tmp/cudojo-bench-grade-*
  head -1 /proc/stat > "$O/stat0-$label.txt"
  env "$@" CUDOJO_BACKEND=cuda timeout "$lim" build/bench/bench_grade 6 > "$O/grade-$label.txt" 2>&1
  echo "rc=$?"; head -1 /proc/stat > "$O/stat1-$label.txt"
  grep -E 'runs/s|^steady|^CPU|one at a time|solution failed|^GPU lock|compile ahead|by the kind|pin-pieces|program-exit  ' "$O/grade-$label.txt" | cut -c1-250
  cat "$O/stat0-$label.txt" "$O/stat1-$label.txt"
}
el "bench_grade 6, defaults"; bg base 170 CUDOJO_X=1
el "bench_grade 6, 8 compiling ahead"; bg ahead8 170 CUDOJO_GRADE_AHEAD=8
el "bench_grade 6, 8 compiling ahead, buffers over 128 MiB pageable"; bg ahead8pin 170 CUDOJO_GRADE_AHEAD=8 CUDOJO_PIN_MAX_MB=128
el done
