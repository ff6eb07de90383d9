#!/bin/sh
# tools/run-tests.sh TESTBIN...: runs every CMocka test binary and every
# tests/*/test_*.sh script, prints each one's output, and closes with the
# totals line "N passed, N failed, N skipped". Exit status 1 if anything failed.
# Shell tests print "ok - NAME", "not ok - NAME" or "skip - NAME" per case.
passed=0; failed=0; skipped=0; broken=""
log=$(mktemp); trap 'rm -f "$log"' EXIT
count() { # file: adds its per-test results to the totals
    eval "$(awk '
        /test\(s\) run\./ { done = 1 }
        !done && /^\[       OK \]/ { p++ }
        !done && /^\[  FAILED  \]/ { f++ }
        !done && /^\[  ERROR   \]/ { f++ }
        !done && /^\[  SKIPPED \]/ { s++ }
        /^ok - / { p++ } /^not ok - / { f++ } /^skip - / { s++ }
        END { printf "p=%d f=%d s=%d\n", p, f, s }' "$1")"
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
}
run_one() { # name, command...
    name=$1; shift
    echo "=== $name"
    "$@" >"$log" 2>&1
    rc=$?
    cat "$log"
    count "$log"
    if [ $rc -ne 0 ]; then
        broken="$broken $name"
        # A crash or a failing script with no per-test line still counts as a failure.
        if [ "$f" = 0 ]; then failed=$((failed + 1)); fi
    fi
}
for t in "$@"; do
    [ -x "$t" ] || continue
    run_one "$t" "$t"
done
for s in tests/*/test_*.sh; do
    [ -f "$s" ] || continue
    run_one "$s" sh "$s"
done
echo
[ -n "$broken" ] && echo "failing:$broken"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
