#!/bin/sh
# session 17 call 1 (2ff37ce): the sanitizer's run beside the plain run (bug-shared-race was 960-1082 ms
# save->verdict with it after), A/B in one call; block-reverse with ref.reverse (87f3bec, not yet on a GPU);
# every exercise's save->verdict; the GPU tests (test_program's new racecheck test among them)
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "save->verdict, the sanitizer beside (default) and after (CUDOJO_SANITIZER_BESIDE=0)"
for round in 1; do
  for arm in beside after; do
    if [ $arm = after ]; then export CUDOJO_SANITIZER_BESIDE=0; else unset CUDOJO_SANITIZER_BESIDE; fi
    CUDOJO_BACKEND=cuda timeout 60 build/bench/bench_verdict --all --reps 5 --backend cuda bug-shared-race \
      bug-out-of-bounds bug-use-after-free > "$O/v-$arm-$round.txt" 2>&1
    echo "round $round $arm rc=$?"; grep -E "^ *(bug-|exercise)" "$O/v-$arm-$round.txt" | cut -c1-160
  done
done
unset CUDOJO_SANITIZER_BESIDE
el "GPU tests"
GPU_CHECK_LIMIT_tests=270 GPU_CHECK_DEADLINE=280 timeout 285 sh tools/gpu-check.sh "$O/gc" tests > "$O/tests.txt" 2>&1
echo "tests rc=$?"; tail -12 "$O/tests.txt"
grep -h -E "FAILED|ERROR|failed" "$O"/gc/*.txt 2>/dev/null | head -20
el "every exercise's save->verdict"
CUDOJO_BACKEND=cuda timeout 200 build/bench/bench_verdict --all --reps 3 --backend cuda > "$O/verdict-all.txt" 2>&1
echo "all rc=$?"; grep -E "exercises ran|over the goal|^(block-reverse|bug-) " "$O/verdict-all.txt" | cut -c1-160 | head -10
el done
el "where a small program's 110-126 ms go: the process and its context, our recorder"
S=lessons/14-errors-and-debugging/solutions/check-every-call.cu
/usr/local/cuda/bin/nvcc -O2 -lineinfo -o /tmp/cec "$S" 2>&1 | tail -3
ms() { a=$(date +%s%N); "$@" > /dev/null 2>&1; b=$(date +%s%N); echo $(( (b - a) / 1000000 )); }
for arm in plain exec exec-tl-off; do
  t=""
  for i in 1 2 3 4 5 6; do
    case $arm in
      plain) t="$t $(ms /tmp/cec)" ;;
      exec) t="$t $(ms dist/cudojo/cudojo.sh exec --backend=cuda /tmp/cec)" ;;
      exec-tl-off) export CUDOJO_TIMELINE=off; t="$t $(ms dist/cudojo/cudojo.sh exec --backend=cuda /tmp/cec)"; unset CUDOJO_TIMELINE ;;
    esac
  done
  echo "$arm ms:$t"
done
el "cudojo exec's own start (no program): --help"
t=""; for i in 1 2 3; do t="$t $(ms dist/cudojo/cudojo.sh --help)"; done; echo "cudojo --help ms:$t"
el done2
