#!/bin/sh
# session 14 call 2: the drain (an untimed program's queued GPU work finishes before it yields) and one hardware
# queue for one-stream programs (CUDA_DEVICE_MAX_CONNECTIONS=1): the start-up curve by queue count, the GPU tests
# of both, then bench_grade 3 with both (default), with neither (CUDOJO_ONE_QUEUE=0 CUDOJO_GPU_DRAIN_MS=0) and
# with one queue but no drain, one call
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "start-up by queue count, 16 at once"
cat > /tmp/probe.cu <<'CU'
#include <cstdio>
#include <cuda.h>
#include <time.h>
static double now() { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
__global__ void k(int *x) { x[threadIdx.x] = threadIdx.x; }
int main() {
  double t0 = now(); CUdevice dev; CUcontext ctx;
  if (cuInit(0)) return 2; double t1 = now();
  cuDeviceGet(&dev, 0); if (cuDevicePrimaryCtxRetain(&ctx, dev)) return 3; cuCtxSetCurrent(ctx); double t2 = now();
  int *d; cudaMalloc(&d, 1024); double t3 = now();
  k<<<1, 32>>>(d); cudaDeviceSynchronize(); double t4 = now();
  int h = -1; cudaMemcpy(&h, d + 5, 4, cudaMemcpyDeviceToHost); double t5 = now();
  printf("%.6f %.6f %.6f %.6f %.6f %.6f\n", t0, t1, t2, t3, t4, t5); return h != 5;
}
CU
nvcc -O2 -arch=sm_90 -cudart shared -o /tmp/probe /tmp/probe.cu -lcuda
python3 - <<'PY'
import subprocess, time, os, statistics as st
def run(n, env, label):
    e = dict(os.environ); e.update(env)
    t0 = time.monotonic(); ps = [subprocess.Popen(["/tmp/probe"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=e) for _ in range(n)]
    outs = [p.communicate()[0].decode() for p in ps]; wall = time.monotonic() - t0
    rows = [[float(x) for x in l.split()] for o in outs for l in o.splitlines() if len(l.split()) == 6]
    f = lambda xs: "%.3f/%.3f" % (st.median(xs), max(xs))
    print("%-22s n=%2d wall %.3f s | cuInit %s | ctx %s (median/max s)" % (label, n, wall, f([r[1]-r[0] for r in rows]), f([r[2]-r[1] for r in rows])))
for c in ("1", "2", "4", "8"):
    run(16, {"CUDA_DEVICE_MAX_CONNECTIONS": c}, "MAX_CONNECTIONS=" + c)
run(1, {"CUDA_DEVICE_MAX_CONNECTIONS": "1"}, "MAX_CONNECTIONS=1"); run(1, {}, "default")
PY
el "GPU tests: the drain, one queue, streams"
for t in kernels/test_program_turn kernels/test_program_elf kernels/test_cuda_streams kernels/test_inject; do
  CUDOJO_TEST_GPU=1 timeout 120 build/tests/$t > "$O/$(basename $t).txt" 2>&1; echo "$t rc=$?"
  grep -E 'timed kernel|FAILED|ERROR|PASSED|SKIPPED' "$O/$(basename $t).txt" | head -6
done
bg() {  # label, then env assignments
  label=$1; shift
  rm -rf /tmp/cudojo-bench-grade-*
  env "$@" BENCH_GRADE_KEEP=1 CUDOJO_BACKEND=cuda timeout 200 build/bench/bench_grade 3 > "$O/grade-$label.txt" 2>&1; echo "rc=$?"
  grep -E 'runs/s|projection|compile by|GPU lock|solutions passing|solution failed|at least|trace:' "$O/grade-$label.txt"
  g=$(ls -d /tmp/cudojo-bench-grade-* | head -1)
  awk '$3=="drain"||$3=="drain-late" {n[$3]++; ms[$3]+=$5; if ($5>mx[$3]) mx[$3]=$5} END {for (k in n) printf "%s: %d, %.0f ms in all, longest %.0f ms\n", k, n[k], ms[k], mx[k]}' "$g/lock-trace.txt"
  xz -c "$g/lock-trace.txt" > "$O/trace-$label.txt.xz"; xz -c "$g/out/gradebook.json" > "$O/gradebook-$label.json.xz"
}
el "bench_grade 3: drain and one queue (default)"
bg new CUDOJO_X=1
el "bench_grade 3: neither (CUDOJO_ONE_QUEUE=0 CUDOJO_GPU_DRAIN_MS=0)"
bg old CUDOJO_ONE_QUEUE=0 CUDOJO_GPU_DRAIN_MS=0
el "bench_grade 3: one queue, no drain (CUDOJO_GPU_DRAIN_MS=0)"
bg nodrain CUDOJO_GPU_DRAIN_MS=0
el done
