#!/bin/sh
# session 19 call 4 (HEAD): (1) what a CUDA program's start and end cost the node: a trivial program
# (cudaMalloc, one launch, sync, free) 5 times alone, then 16 and 32 at once: wall, user and system
# seconds each (is a context's making serial in the driver? call 1's 16 workers made theirs in 2.1 s
# all together; no bc there: as run, "s in all" read 0.00, fixed here since); (2) the GPU tests (gpu-check's tests step); (3) bench_grade 6 with the defaults, then
# with the GPU lock off (CUDOJO_GPU_LOCK_DIR empty: timings unfair, an upper bound: what the lock costs).
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "contexts"
mkdir -p /tmp/ctx && cd /tmp/ctx
cat > t.cu <<'CU'
#include <cstdio>
__global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }
int main() {
    int *d;
    if (cudaMalloc(&d, 1 << 20) != cudaSuccess) return 1;
    k<<<1, 256>>>(d);
    if (cudaDeviceSynchronize() != cudaSuccess) return 2;
    cudaFree(d);
    return 0;
}
CU
nvcc -o t t.cu -cudart shared 2>&1 | tail -2
cat > run.sh <<'SH'
#!/bin/bash
# N at once, each: wall user system (s)
n=$1; rm -f times.txt
t0=$(date +%s.%N)
for i in $(seq "$n"); do ( TIMEFORMAT='%R %U %S'; time "${@:2}" ./t ) 2>> times.txt & done; wait
t1=$(date +%s.%N)
awk -v n="$n" -v w="$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b - a}')" '{r+=$1; u+=$2; s+=$3; if ($1>m) m=$1} END{printf "%2d at once: %.2f s in all; each %.3f s wall (max %.3f), %.3f s user, %.3f s system\n", n, w, r/NR, m, u/NR, s/NR}' times.txt
SH
for i in 1 2 3 4 5; do bash run.sh 1; done
bash run.sh 4; bash run.sh 16; bash run.sh 32
bash run.sh 16 env CUDA_DEVICE_MAX_CONNECTIONS=1
cd /tmp/p
el "GPU tests"
GPU_CHECK_LIMIT_tests=250 GPU_CHECK_DEADLINE=260 timeout 265 sh tools/gpu-check.sh "$O/gc" tests > "$O/tests.txt" 2>&1
echo "rc=$?"; head -40 "$O/gc/summary.txt" 2>/dev/null
bg() {  # label, limit, then env assignments
  label=$1; lim=$2; shift 2
  rm -rf /tmp/cudojo-bench-grade-*
  env "$@" CUDOJO_BACKEND=cuda timeout "$lim" build/bench/bench_grade 6 > "$O/grade-$label.txt" 2>&1
  echo "rc=$?"
  grep -E 'runs/s|^steady|^CPU|one at a time|solutions passing|^GPU lock|compile ahead|exclusive waits by|pin-pieces  |program-exit  ' "$O/grade-$label.txt" | cut -c1-250
}
el "bench_grade 6, defaults"; bg base 130 CUDOJO_X=1
el "bench_grade 6, no GPU lock"; bg nolock 130 CUDOJO_GPU_LOCK_DIR=
el done
