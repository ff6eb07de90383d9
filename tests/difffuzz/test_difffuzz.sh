#!/bin/sh
# tests/difffuzz/test_difffuzz.sh: what `make test` runs of the differential
# fuzzer: a fixed set of seeds (scalar and warp programs, compute_90 and
# compute_80 PTX) that pass, so a change to the emulator that breaks one of
# the operations they cover shows here. Executables are cached in
# $BUILD/difffuzz-test/cache (the first run compiles: 30 s on this 2-core
# machine when idle, 2.5 min while other builds share it; later runs only
# emulate, 2.5 s). One program at a time: make test runs tests in
# parallel already. Skips, with the reason, without nvcc or the emulator
# runtime. Seeds with an unfixed difference stay out of this set (README.md).
BUILD=${BUILD:-build}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
    echo "skip - difffuzz (no nvcc at $CUDA_HOME/bin/nvcc)"; exit 0
fi
if ! command -v python3 > /dev/null 2>&1; then
    echo "skip - difffuzz (no python3)"; exit 0
fi
major=$("$CUDA_HOME/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
if [ ! -x "${CUDOJO_BIN:-$BUILD/cudojo}" ] || [ ! -f "$BUILD/emurt/libcudart.so.$major" ]; then
    echo "skip - difffuzz (cudojo or its emulator runtime $BUILD/emurt/libcudart.so.$major is not built)"; exit 0
fi
here=$(dirname "$0")
# scalar 1-3 hold the inline-asm mul24/mad24 .u32, .sat and cvt.sat forms,
# testp and int8 conversions fixed in the emulator; warp 6, 7, 14, 21 and 35
# hold shfl.sync.up with clamps other than 0 and global atomicAdd of
# subnormal floats (ISA: flushed), besides shuffles, votes, matches,
# reductions, divergence and shared atomics
status=0
sh "$here/run.sh" --seeds 1-3 --mode scalar --ptx both --funcs 16 --jobs 1 --cache \
    --out "$BUILD/difffuzz-test" "$@" || status=1
sh "$here/run.sh" --seeds 6,7,14,21,35 --mode warp --ptx both --funcs 12 --jobs 1 --cache \
    --out "$BUILD/difffuzz-test" "$@" || status=1
exit $status
