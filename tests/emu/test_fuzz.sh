#!/bin/sh
# tests/emu/test_fuzz.sh: runs the PTX parser fuzz target (tests/fuzz/fuzz_ptx.c)
# for about 20 seconds with a fixed seed. Malformed PTX must be rejected with a
# diagnostic, never crash; a crashing input is kept in build/fuzz-crash.ptx.
# FUZZ_SECONDS and FUZZ_SEED override the defaults.
BUILD=${BUILD:-build}
bin=$BUILD/fuzz/fuzz_ptx
if [ ! -x "$bin" ]; then
    echo "not ok - fuzz_ptx (not built: $bin)"
    exit 1
fi
seconds=${FUZZ_SECONDS:-20}
seed=${FUZZ_SEED:-20261130}
crash=$BUILD/fuzz-crash.ptx
if out=$(FUZZ_CRASH_FILE=$crash "$bin" --iterations 100000000 --max-seconds "$seconds" --seed "$seed" 2>&1); then
    echo "$out"
    echo "ok - fuzz_ptx"
else
    echo "$out" | tail -5
    echo "the input that crashed: $crash (replay: $bin $crash)"
    echo "not ok - fuzz_ptx"
    exit 1
fi
