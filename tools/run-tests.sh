#!/bin/sh
# tools/run-tests.sh TESTBIN...: runs every CMocka test binary and every
# tests/*/test_*.sh script, prints each one's output, and closes with the
# ten slowest (wall and CPU seconds each; the whole table goes to
# $BUILD/test-times.txt) and the totals line
# "N passed, N failed, N skipped". Exit status 1 if anything failed.
# Shell tests print "ok - NAME", "not ok - NAME" or "skip - NAME" per case.
#
# TEST_JOBS tests run at once (default 2: CI has 2 cores; TEST_JOBS=1 runs
# them one after another). Each one's output is kept apart and printed
# whole, in the order above, once it and every test before it have ended.
# The first lane starts with FIRST (below): long tests that use one core,
# which would end last if they started late; the other lanes, and the
# first after those, take the tests in the order they are printed. That
# changes when a test runs, never what runs. The closing table shows
# which tests are slow now.
#
# The course's compile cache: tests/lessons/test_verify.sh and
# test_mutants.sh compile the same solutions, so they share one NVRTC and
# nvcc cache, CUDOJO_TEST_COURSE_CACHE, made empty for this run (a
# compile error cannot hide behind a build from an earlier run).
jobs=${TEST_JOBS:-2}
case $jobs in ''|*[!0-9]*|0) echo "run-tests.sh: TEST_JOBS=$jobs: a number of tests at once (1 or more)" >&2; exit 2 ;; esac
FIRST="tests/lessons/test_verify.sh tests/programs/test_programs.sh"

dir=$(mktemp -d "${TMPDIR:-/tmp}/cudojo-tests-XXXXXX") || exit 2
lanes=""
cleanup() {
    for p in $lanes; do kill "$p" 2>/dev/null; done
    rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
mkdir "$dir/course-cache" || exit 2
export CUDOJO_TEST_COURSE_CACHE="$dir/course-cache"

# The tests, numbered in the order they are printed: N.name, N.kind (bin or sh).
n=0
for t in "$@"; do
    [ -x "$t" ] || continue
    n=$((n + 1)); printf '%s\n' "$t" > "$dir/$n.name"; echo bin > "$dir/$n.kind"
done
for s in tests/*/test_*.sh; do
    [ -f "$s" ] || continue
    n=$((n + 1)); printf '%s\n' "$s" > "$dir/$n.name"; echo sh > "$dir/$n.kind"
done
# The first lane's order: FIRST, then the rest as printed.
first=""
for f in $FIRST; do
    k=1
    while [ $k -le $n ]; do
        [ "$(cat "$dir/$k.name")" = "$f" ] && first="$first $k"
        k=$((k + 1))
    done
done
k=1
while [ $k -le $n ]; do
    case " $first " in *" $k "*) ;; *) first="$first $k" ;; esac
    k=$((k + 1))
done
printed=$(seq 1 $n)
[ "$jobs" = 1 ] && first=$printed

# CPU seconds (user + sys) of a shell's ended children in FILE, what its
# `times` wrote there (the second line; `times` in a pipe or $(...) would
# be a subshell's, without them).
cpu_seconds() {
    awk 'NR == 2 {
        t = 0
        for (i = 1; i <= 2; i++) { split($i, a, "m"); sub(/s$/, "", a[2]); t += a[1] * 60 + a[2] }
        printf "%.2f\n", t }' "$1"
}
# A lane runs, one after another and in the order given, the tests no
# other lane has claimed yet (mkdir claims: it is atomic). N.done ("status
# wall cpu") appears only when test N has ended, its output complete in N.out.
lane() {
    for k in "$@"; do
        mkdir "$dir/$k.claim" 2>/dev/null || continue
        name=$(cat "$dir/$k.name")
        times > "$dir/$k.cpu0"; t0=$(date +%s.%N)
        # In braces, so the shell's own line about a crash ("Segmentation
        # fault") goes into the test's output too.
        if [ "$(cat "$dir/$k.kind")" = sh ]; then
            { sh "$name"; } > "$dir/$k.out" 2>&1 < /dev/null
        else
            { "$name"; } > "$dir/$k.out" 2>&1 < /dev/null
        fi
        rc=$?
        t1=$(date +%s.%N); times > "$dir/$k.cpu1"
        echo "$rc $t0 $t1 $(cpu_seconds "$dir/$k.cpu0") $(cpu_seconds "$dir/$k.cpu1")" | awk '{ printf "%d %.2f %.2f\n", $1, $3 - $2, $5 - $4 }' > "$dir/$k.part"
        mv "$dir/$k.part" "$dir/$k.done"
    done
}
lane $first &
lanes=$!
j=1
while [ $j -lt "$jobs" ]; do
    lane $printed &
    lanes="$lanes $!"
    j=$((j + 1))
done

passed=0; failed=0; skipped=0; broken=""
count() { # file: adds its per-test results to the totals
    eval "$(awk '
        /test\(s\) run\./ { done = 1 }
        !done && /^\[       OK \]/ { p++ }
        !done && /^\[  FAILED  \]/ { f++ }
        !done && /^\[  ERROR   \]/ && !/^\[  ERROR   \] --- / { f++ }   # "--- expr": the message of a FAILED below
        !done && /^\[  SKIPPED \]/ { s++ }
        /^ok - / { p++ } /^not ok - / { f++ } /^skip - / { s++ }
        END { printf "p=%d f=%d s=%d\n", p, f, s }' "$1")"
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
}
: > "$dir/times"
k=1
while [ $k -le $n ]; do
    while [ ! -f "$dir/$k.done" ]; do sleep 0.2; done
    name=$(cat "$dir/$k.name")
    read -r rc wall cpu < "$dir/$k.done"
    echo "=== $name"
    cat "$dir/$k.out"
    count "$dir/$k.out"
    if [ "$rc" -ne 0 ]; then
        broken="$broken $name"
        # A crash or a failing script with no per-test line still counts as a failure.
        if [ "$f" = 0 ]; then failed=$((failed + 1)); fi
    fi
    echo "$wall $cpu $name" >> "$dir/times"
    k=$((k + 1))
done
wait
lanes=""
echo
echo "slowest tests (wall s, CPU s; $jobs at once; all of them in ${BUILD:-build}/test-times.txt):"
sort -rn "$dir/times" | awk '{ printf "%8.1f %8.1f  %s\n", $1, $2, $3 }' > "$dir/table"
head -10 "$dir/table"
[ -d "${BUILD:-build}" ] && cp "$dir/table" "${BUILD:-build}/test-times.txt"
echo
[ -n "$broken" ] && echo "failing:$broken"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
