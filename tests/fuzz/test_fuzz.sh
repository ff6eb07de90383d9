#!/bin/sh
# tests/fuzz/test_fuzz.sh: runs every fuzz target ($BUILD/fuzz/fuzz_*, built
# from tests/fuzz/fuzz_*.c on tests/fuzz/driver.c) for FUZZ_SECONDS seconds
# each (3 under make test; make fuzz passes 20) with a fixed seed
# (FUZZ_SEED). Malformed input must be rejected, never crash; a crashing
# input is kept in $BUILD/fuzz-crash-NAME (replay: $BUILD/fuzz/NAME FILE).
# UBSan and ASan abort on their first report so the input is kept too.
BUILD=${BUILD:-build}
seconds=${FUZZ_SECONDS:-3}
seed=${FUZZ_SEED:-20261130}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-abort_on_error=1:print_stacktrace=1}
ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1}
export UBSAN_OPTIONS ASAN_OPTIONS
status=0
for src in tests/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    bin=$BUILD/fuzz/$name
    if [ ! -x "$bin" ]; then
        echo "not ok - $name (not built: $bin)"
        status=1
        continue
    fi
    crash=$BUILD/fuzz-crash-$name
    if out=$(FUZZ_CRASH_FILE=$crash "$bin" --iterations 100000000 --max-seconds "$seconds" --seed "$seed" 2>&1); then
        echo "$out" | tail -1
        echo "ok - $name"
    else
        echo "$out" | tail -8
        echo "the input that crashed: $crash (replay: $bin $crash)"
        echo "not ok - $name"
        status=1
    fi
done
exit $status
