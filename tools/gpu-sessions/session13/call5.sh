#!/bin/sh
# session 13 call 5 (final, b587134+): every test with CUDOJO_TEST_GPU=1; mps-share's solution, starter and wrong
# variants graded (the group's turn); verify chapters 13 (um-perf at 1, 4, 16 MB) and 17 on the GPU; bench_grade 3;
# a CUDA program's start-up alone, under cudojo exec, and 16 at once
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "all tests with CUDOJO_TEST_GPU=1"
GPU_CHECK_LIMIT_tests=250 timeout 260 sh tools/gpu-check.sh "$O/gc" tests > "$O/tests.txt" 2>&1; tail -5 "$O/tests.txt"
grep -rhE '^not ok|\[  FAILED' "$O/gc" | head -20
el "mps-share graded: solution, starter, wrong variants"
C=/tmp/cmps; rm -rf $C; mkdir -p $C
L=lessons/17-many-gpus-and-processes
mkdir -p $C/subs/sol/many-gpus $C/subs/start/many-gpus; cp $L/solutions/mps-share.cu $C/subs/sol/many-gpus/; cp $L/mps-share.cu $C/subs/start/many-gpus/
for w in $L/solutions/wrong/mps-share-*.cu; do b=$(basename $w .cu); mkdir -p $C/subs/$b/many-gpus; cp $w $C/subs/$b/many-gpus/mps-share.cu; done
timeout 120 dist/cudojo/cudojo.sh --backend=cuda grade $C/subs/* --course lessons --out $C/out --exercises mps-share > "$O/class-mps.txt" 2>&1; echo "rc=$?" >> "$O/class-mps.txt"
tail -1 "$O/class-mps.txt"
python3 - $C/out/gradebook.json <<'PY'
import json,sys
b=json.load(open(sys.argv[1]))
for s in b["students"]:
  for ex,r in s["exercises"].items(): t=r.get("time") or {}; print(s["student"], r.get("verdict"), "alone %s ms, shared %s ms" % (t.get("gpu_exclusive_ms"), t.get("gpu_shared_ms")), (r.get("message") or "")[:150])
PY
el "verify 13 and 17"
VERIFY_DIRS="lessons/13-unified-memory lessons/17-many-gpus-and-processes" VERIFY_JOBS=4 GPU_CHECK_LIMIT_verify=110 timeout 120 sh tools/gpu-check.sh "$O/v" verify > "$O/verify.txt" 2>&1; tail -4 "$O/verify.txt"
grep -hE 'um-perf|mps-share' -r "$O/v" 2>/dev/null | grep -E 'solution|starter' | head -6
el "bench_grade 3"
rm -rf /tmp/cudojo-bench-grade-*
BENCH_GRADE_KEEP=1 CUDOJO_BACKEND=cuda timeout 150 build/bench/bench_grade 3 > "$O/grade.txt" 2>&1; echo "rc=$?" >> "$O/grade.txt"
grep -E 'runs/s|projection|compile by|emulator check|GPU lock|solutions passing|solution failed|at least|trace:' "$O/grade.txt"
grep -E '^  (mps-share|um-perf|matmul-naive) ' "$O/grade.txt" | head -3
g=$(ls -d /tmp/cudojo-bench-grade-* | head -1); xz -c "$g/lock-trace.txt" > "$O/trace.txt.xz"; xz -c "$g/out/gradebook.json" > "$O/gradebook.json.xz"
el "a CUDA program's start-up"
cat > /tmp/hello.cu <<'CU'
#include <cstdio>
__global__ void k(int *x) { x[threadIdx.x] = threadIdx.x; }
int main() { int *d; cudaMalloc(&d, 1024); k<<<1, 32>>>(d); int h = -1; cudaMemcpy(&h, d + 5, 4, cudaMemcpyDeviceToHost); printf("%d\n", h); return h != 5; }
CU
nvcc -O2 -arch=sm_90 -cudart shared -o /tmp/hello /tmp/hello.cu
python3 - <<'PY'
import subprocess, time, os
def t(cmd, n=1):
    t0 = time.time(); ps = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(n)]
    rc = [p.wait() for p in ps]; return time.time() - t0, rc
for i in range(2): print("hello alone: %.3f s %s" % t(["/tmp/hello"]))
print("hello under cudojo exec: %.3f s %s" % t([os.environ["CUDOJO_BIN"], "exec", "--backend=cuda", "/tmp/hello"]))
print("hello x16 at once: %.3f s" % t(["/tmp/hello"], 16)[0])
print("hello under cudojo exec x16 at once: %.3f s" % t([os.environ["CUDOJO_BIN"], "exec", "--backend=cuda", "/tmp/hello"], 16)[0])
PY
el done
