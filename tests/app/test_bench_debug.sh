#!/bin/sh
# tests/app/test_bench_debug.sh: bench_debug judges what a key costs, not a
# compile: the first frame with a cold NVRTC cache is reported without a
# verdict, the first frame with a warm cache is judged against the goal.
# Needs the bench built (make BUILD=... BUILD/bench/bench_debug); skips
# otherwise. Prints ok/not ok/skip per case.
BUILD=${BUILD:-build}
BENCH=$BUILD/bench/bench_debug
if [ ! -x "$BENCH" ]; then
    echo "skip - bench_debug reports the cold first frame without a verdict ($BENCH is not built)"
    exit 0
fi
T=$(mktemp -d /tmp/cudojo-bench-debug-test-XXXXXX)
trap 'rm -rf "$T"' EXIT
"$BENCH" pick-block-size > "$T/out" 2>&1; rc=$?
cold=$(grep "first frame (records, cold cache)" "$T/out")
warm=$(grep "first frame (records, warm cache)" "$T/out")
if [ $rc = 0 ] && [ -n "$cold" ] && printf "%s\n" "$cold" | grep -q "not judged" &&
   ! printf "%s\n" "$cold" | grep -q -E "PASS|FAIL" && printf "%s\n" "$warm" | grep -q -E " (PASS|FAIL)$"; then
    echo "ok - bench_debug reports the cold first frame without a verdict and judges the warm one"
else
    echo "not ok - bench_debug reports the cold first frame without a verdict and judges the warm one"
    sed 's/^/    /' "$T/out" | head -30
fi
