#!/bin/sh
# tests/programs/test_programs.sh: what `make test` runs for the conformance
# suite of whole CUDA programs: every tests/programs/*.cu on cudojo's emulator
# runtime, its stdout compared with expected/ (run.sh does the work). Skips,
# with the reason, when nvcc or the emulator runtime library is missing.
BUILD=${BUILD:-build}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
    echo "skip - programs (no nvcc at $CUDA_HOME/bin/nvcc)"; exit 0
fi
major=$("$CUDA_HOME/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
if [ ! -f "$BUILD/emurt/libcudart.so.$major" ]; then
    echo "skip - programs (no emulator runtime: $BUILD/emurt/libcudart.so.$major is not built)"; exit 0
fi
exec sh "$(dirname "$0")/run.sh" --runtime=emu "$@"
