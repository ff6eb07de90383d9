#!/bin/sh
# tools/gpu-check.sh: what `make test-gpu` does, for a GPU machine that has
# the NVIDIA driver and CUDA toolkit but none of our -dev packages (a lab
# server, the H200 we test on). Build here first:
#   make tests-build bundle && cp -L "$(pkg-config --variable=libdir cmocka 2>/dev/null || echo /usr/lib/x86_64-linux-gnu)"/libcmocka.so.0 dist/cudojo/lib/
# and carry dist, build/tests, build/bench and build/fuzz (make build/bench/bench_timeline: the CUPTI overhead)
# and build/programs (sh tests/programs/run.sh --compile-only; optional: the GPU machine has nvcc).
# then, on the GPU machine, from the repo root: sh tools/gpu-check.sh [OUTDIR]
# It runs the bundle's doctor, verifies every lesson on the GPU, and runs every
# test with CUDOJO_TEST_GPU=1 (GPU tests must run, not skip).
out=${1:-${OUT:-/tmp/cudojo-gpu}}
mkdir -p "$out"
here=$(pwd)
# Test binaries find the bundle's libraries through their $ORIGIN/lib rpath;
# LD_LIBRARY_PATH is left alone so system programs (tmux) keep their own.
for d in build/tests/*/ build/bench/ build/fuzz/; do
    [ -d "$d" ] && ln -sfn "$here/dist/cudojo/lib" "$d/lib"
done
export XDG_CACHE_HOME=/tmp/cudojo-gpu-cache XDG_DATA_HOME=/tmp/cudojo-gpu-data NO_COLOR=1
bin=$here/dist/cudojo/cudojo.sh
nvidia-smi -L 2>&1 | tee "$out/nvidia-smi.txt"
echo "== doctor (from the bundle)"; $bin doctor 2>&1 | tee "$out/doctor.txt"
echo "== verify --backend=cuda"
$bin verify --backend=cuda ${VERIFY_DIRS:-lessons/[0-9]*} > "$out/verify-cuda.txt" 2>&1
tail -3 "$out/verify-cuda.txt"
echo "== tests with CUDOJO_TEST_GPU=1"
CUDOJO_TEST_GPU=1 CUDOJO_BIN=$here/dist/cudojo/cudojo sh tools/run-tests.sh build/tests/*/test_* > "$out/test-gpu.txt" 2>&1
grep -E "^\[  FAILED  \] [a-z]|^not ok" "$out/test-gpu.txt" | sort -u
tail -2 "$out/test-gpu.txt"
echo "== the GPU timeline without CUPTI (CUDOJO_TIMELINE=events)"
CUDOJO_TEST_GPU=1 CUDOJO_TIMELINE=events build/tests/kernels/test_cuda_streams > "$out/test-gpu-events.txt" 2>&1
tail -1 "$out/test-gpu-events.txt"
echo "== conformance programs on NVIDIA's libcudart (tests/programs, compared with expected/)"
# Compiled here with the machine's nvcc unless build/programs (carried) holds
# executables for the same source, flags and nvcc version.
BUILD=${BUILD:-build} sh tests/programs/run.sh --runtime=cuda --out "$out/programs" > "$out/programs.txt" 2>&1
grep -v "^ok - " "$out/programs.txt" | grep -v "^    " | head -60
tail -1 "$out/programs/compare.txt"
echo "== grading on the GPU: the sandbox (seccomp, Landlock where the kernel has it, confined nvcc) around NVIDIA's runtime"
CUDOJO_BIN=$bin sh tests/grade/test_hostile.sh > "$out/hostile.txt" 2>&1
grep -v "^ok - " "$out/hostile.txt" | head -20
echo "ok lines: $(grep -c '^ok - ' "$out/hostile.txt")"
echo "left running (should be nothing):"; pgrep -a nvidia-cuda-mps; ls -d /tmp/cudojo-mps-* 2>/dev/null
