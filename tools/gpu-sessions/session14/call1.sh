#!/bin/sh
# session 14 call 1 (72ca134): test_cuda_streams alone and beside test_cuda_backend (is copy_overlaps flaky?);
# where a CUDA program's start-up goes when 16 start at once (cuInit, context, first launch) and what changes it;
# bench_predict --json (the replay file)
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "test_cuda_streams alone x3"
for i in 1 2 3; do CUDOJO_TEST_GPU=1 timeout 60 build/tests/kernels/test_cuda_streams > "$O/streams$i.txt" 2>&1; echo "rc=$?"; grep -E 'FAILED|PASSED' "$O/streams$i.txt" | head -3; done
el "test_cuda_streams beside test_cuda_backend x2"
for i in 1 2; do
  CUDOJO_TEST_GPU=1 timeout 90 build/tests/kernels/test_cuda_backend > "$O/backend$i.txt" 2>&1 &
  sleep 1; CUDOJO_TEST_GPU=1 timeout 60 build/tests/kernels/test_cuda_streams > "$O/streamsb$i.txt" 2>&1; echo "streams rc=$?"; wait
  grep -E 'FAILED|PASSED' "$O/streamsb$i.txt" "$O/backend$i.txt" | head -6
done
el "start-up probe"
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
cat > /tmp/probe.py <<'PY'
import subprocess, time, os, sys, statistics as st
def run(n, env, label, wrap=None):
    e = dict(os.environ); e.update(env); cmd = (wrap or []) + ["/tmp/probe"]
    t0 = time.monotonic(); ps = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=e) for _ in range(n)]
    outs = [p.communicate()[0].decode() for p in ps]; wall = time.monotonic() - t0
    rows = []
    for o in outs:
        for line in o.splitlines():
            v = [float(x) for x in line.split()] if len(line.split()) == 6 else None
            if v: rows.append(v)
    if not rows: print("%-34s n=%2d wall %.3f s  no rows" % (label, n, wall)); return
    ph = lambda i: [r[i+1] - r[i] for r in rows]
    exec_ = [r[0] - t0 for r in rows]
    f = lambda xs: "%.3f/%.3f" % (st.median(xs), max(xs))
    print("%-34s n=%2d wall %.3f s | exec %s | cuInit %s | ctx %s | malloc %s | launch %s | copy %s  (median/max s)" %
          (label, n, wall, f(exec_), f(ph(0)), f(ph(1)), f(ph(2)), f(ph(3)), f(ph(4))))
for n in (1, 1, 4, 16):
    run(n, {}, "default")
run(16, {"CUDA_DEVICE_MAX_CONNECTIONS": "1"}, "MAX_CONNECTIONS=1")
run(16, {"CUDA_MODULE_LOADING": "EAGER"}, "MODULE_LOADING=EAGER")
run(16, {"CUDA_DISABLE_PERF_BOOST": "1"}, "DISABLE_PERF_BOOST=1")
run(16, {}, "under cudojo exec", [os.environ["CUDOJO_BIN"], "exec", "--backend=cuda"])
run(1, {}, "under cudojo exec", [os.environ["CUDOJO_BIN"], "exec", "--backend=cuda"])
PY
python3 /tmp/probe.py
el "the same under MPS (a private daemon)"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-p CUDA_MPS_LOG_DIRECTORY=/tmp/mps-l; mkdir -p /tmp/mps-p /tmp/mps-l
nvidia-cuda-mps-control -d && sleep 1 && python3 - <<'PY'
exec(open("/tmp/probe.py").read().split("for n in")[0])
run(1, {}, "MPS"); run(1, {}, "MPS"); run(16, {}, "MPS")
PY
echo quit | nvidia-cuda-mps-control; unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
el "bench_predict --json"
timeout 200 build/bench/bench_predict --json "$O/predict.json" > "$O/predict.txt" 2>&1; echo "rc=$?"; tail -12 "$O/predict.txt"
el done
