#!/bin/sh
# tests/lessons/test_verify_jobs.sh: `cudojo verify --jobs N` runs N files
# at once and reports exactly what the serial run reports: the same lines in
# the course's order (the "(N ms)" durations aside), the same --json
# document, the same exit status; a wrong variant that passes still fails
# the verify; a bad --jobs is refused before anything runs. On the emulator,
# two small chapters (its threads fixed at one so that the summaries of
# races, which name the first racing pair, are the same whatever the load).
BIN=${CUDOJO_BIN:-build/cudojo}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
T=$(mktemp -d /tmp/cudojo-verify-jobs-XXXXXX)
trap 'rm -rf "$T"' EXIT
# the course's compiles are shared with test_verify.sh under `make test`
export XDG_CACHE_HOME="${CUDOJO_TEST_COURSE_CACHE:-$T/cache}" XDG_DATA_HOME="$T/data" NO_COLOR=1
V="$BIN verify --backend=emu --emu-threads=1"
CH="lessons/01-hello-gpu lessons/02-threads"

check() {   # check NAME TEST [FILE shown when it fails]
    if eval "$2"; then echo "ok - $1"; else
        echo "not ok - $1"
        [ -n "$3" ] && sed 's/^/    /' "$3" | tail -20
    fi
}
no_ms() { sed -E 's/ \([0-9]+ ms\)//' "$1"; }
# --json without the durations, keys sorted: the document to compare
json_norm() {
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    r.pop("duration_ms", None)
print(json.dumps(d, sort_keys=True, indent=1))' "$1" 2> /dev/null
}

$V --jobs 1 $CH > "$T/j1.txt" 2> "$T/j1.err"; rc1=$?
$V --jobs 3 $CH > "$T/j3.txt" 2> "$T/j3.err"; rc3=$?
check "verify --jobs 1 of two chapters: every file as expected" \
    '[ $rc1 = 0 ] && grep -q "^32 as expected, 0 not, 0 skipped" "$T/j1.txt"' "$T/j1.txt"
no_ms "$T/j1.txt" > "$T/j1.n"
no_ms "$T/j3.txt" > "$T/j3.n"
diff "$T/j1.n" "$T/j3.n" > "$T/diff.txt"
check "verify --jobs 3 prints the very lines of --jobs 1, in the same order (durations aside), same exit status" \
    '[ $rc3 = $rc1 ] && cmp -s "$T/j1.n" "$T/j3.n"' "$T/diff.txt"

$V --json --jobs 1 lessons/02-threads > "$T/j1.json" 2> /dev/null; jrc1=$?
$V --json -j 0 lessons/02-threads > "$T/j0.json" 2> /dev/null; jrc0=$?
json_norm "$T/j1.json" > "$T/j1.jn"
json_norm "$T/j0.json" > "$T/j0.jn"
diff "$T/j1.jn" "$T/j0.jn" > "$T/jdiff.txt"
check "verify --json -j 0 (the cores) gives --jobs 1's document, rows in course order (durations aside)" \
    '[ $jrc1 = 0 ] && [ $jrc0 = 0 ] && [ -s "$T/j1.jn" ] && cmp -s "$T/j1.jn" "$T/j0.jn"' "$T/jdiff.txt"

# A wrong variant made correct (the solution under its name) must fail the verify, with --jobs too.
cp -r lessons/01-hello-gpu "$T/01-hello-gpu"
cp "$T/01-hello-gpu/solutions/vector-add.cu" "$T/01-hello-gpu/solutions/wrong/vector-add-no-guard.cu"
$V --jobs 3 "$T/01-hello-gpu" > "$T/w.txt" 2>&1; rcw=$?
check "a wrong variant that passes fails verify --jobs 3 (exit 1), named with what it must do" \
    '[ $rcw = 1 ] && grep -q "✗ vector-add  *wrong  *$T/01-hello-gpu/solutions/wrong/vector-add-no-guard.cu  *pass" "$T/w.txt" && grep -q "must fail, but it gave" "$T/w.txt" && grep -q "^11 as expected, 1 not, 0 skipped" "$T/w.txt"' "$T/w.txt"
# its rows in the order of the serial run of the same chapter
grep -o "lessons/01-hello-gpu/[^ ]*\.cu" "$T/j1.txt" | sed 's|^lessons/||' > "$T/order1"
grep -o "$T/01-hello-gpu/[^ ]*\.cu" "$T/w.txt" | sed "s|^$T/||" > "$T/orderw"
check "the failing row is reported in its place: the files in course order" \
    '[ -s "$T/orderw" ] && cmp -s "$T/order1" "$T/orderw"' "$T/w.txt"

for bad in 65 two -1 ""; do
    $V --jobs "$bad" "$T/01-hello-gpu" > "$T/b.txt" 2>&1; rcb=$?
    check "verify --jobs '$bad' is refused (exit 2) saying what --jobs takes, before running anything" \
        '[ $rcb = 2 ] && grep -q -- "--jobs $bad: a number of runs at once from 1 to 64, or 0 or auto" "$T/b.txt" && ! grep -q "✓" "$T/b.txt"' "$T/b.txt"
done
