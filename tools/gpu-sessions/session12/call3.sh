#!/bin/sh
# session 12 call 3: final HEAD: GPU tests; verify (COMPILE12's one-program builds, host-timer); bench_grade queue on/off; bench_compile; ncu phases
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "tests"
GPU_CHECK_LIMIT_tests=210 TEST_JOBS=6 timeout 230 sh tools/gpu-check.sh "$O/gc" tests > "$O/tests.txt" 2>&1
tail -8 "$O/tests.txt"
el "verify 04 06"
VERIFY_DIRS="lessons/04-shared-memory lessons/06-events" VERIFY_JOBS=4 GPU_CHECK_LIMIT_verify=75 timeout 90 sh tools/gpu-check.sh "$O/v" verify > "$O/verify.txt" 2>&1; tail -6 "$O/verify.txt"
zcat "$O/v/gpu-check.tar.gz" 2>/dev/null | tar xO 2>/dev/null | grep -E 'host-timer|NOT|unexpected' | head -8
el "bench_grade 3 (queue on)"
rm -rf /tmp/cudojo-bench-grade-*
CUDOJO_BACKEND=cuda timeout 150 build/bench/bench_grade 3 > "$O/grade.txt" 2>&1; echo "rc=$?" >> "$O/grade.txt"
grep -vE '^  ' "$O/grade.txt" | head -20
el "ncu phases"
N=/tmp/ncux; mkdir -p $N; nvcc -lineinfo -arch=sm_90 -DW=4096 -o $N/hs lessons/16-profiling/solutions/hot-spot.cu 2>&1 | tail -3
M=gpu__time_duration.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
for i in 1 2; do
s0=$(date +%s.%N); ncu --csv --target-processes all --launch-count 200 --metrics $M --clock-control none sh -c "date +%s.%N > $N/a; $N/hs > /dev/null; date +%s.%N > $N/b" > $N/o.txt 2>&1; s1=$(date +%s.%N)
python3 -c "a=float(open('$N/a').read());b=float(open('$N/b').read());print('ncu total %.2f s: before target %.2f, target %.2f, after %.2f'%($s1-$s0,a-$s0,b-a,$s1-b))"
done
el "bench_grade 3 (queue off)"
rm -rf /tmp/cudojo-bench-grade-*
CUDOJO_GPU_LOCK_QUEUE=0 CUDOJO_BACKEND=cuda timeout 140 build/bench/bench_grade 3 > "$O/grade-qoff.txt" 2>&1; echo "rc=$?" >> "$O/grade-qoff.txt"
grep -vE '^  ' "$O/grade-qoff.txt" | head -20
el done
