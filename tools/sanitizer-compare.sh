#!/bin/sh
# tools/sanitizer-compare.sh: on a machine with an NVIDIA GPU, runs every
# deliberately wrong kernel in tests/bugs/ under compute-sanitizer (memcheck,
# racecheck, initcheck, synccheck) and prints, per kernel, what each tool
# found next to what the PTX emulator found for the same kernel.
#
#   make build/tests/emu/test_bugs && sh tools/sanitizer-compare.sh
#
# Environment: CUDA_HOME (default /usr/local/cuda), TEST_BUGS (default
# build/tests/emu/test_bugs, run with CUDOJO_BUGS_REPORT=1 for the emulator's
# findings), TIMEOUT seconds per sanitizer run (default 60; deadlocks and
# runaway loops hang on a GPU and show as "timeout"), BUGS_ONLY="name ..."
# to run only those kernels.
#
# A cell says "found@LINE" (the first .cu line the tool named, or "found" if
# it named none), "-" (nothing found), "timeout" or "fail" (the tool itself
# failed to run). The last column is the emulator: "code@line,...". A closing
# list names kernels where a sanitizer found something and the emulator
# reported no error at all: issue 3 asks that list to be empty.
set -u
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
SAN=${SANITIZER:-$CUDA_HOME/bin/compute-sanitizer}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
TEST_BUGS=${TEST_BUGS:-build/tests/emu/test_bugs}
TIMEOUT=${TIMEOUT:-60}
OUT=${OUT_DIR:-build/sanitizer}
DRIVER=$OUT/bugs-driver

mkdir -p "$OUT"
if [ ! -x "$SAN" ]; then
    echo "compute-sanitizer not found at $SAN (set SANITIZER or CUDA_HOME)" >&2
    exit 2
fi
if ! "$NVCC" -O2 -o "$DRIVER" tests/bugs/driver.cu -L"$CUDA_HOME/lib64/stubs" -lnvrtc -lcuda; then
    echo "could not build $DRIVER" >&2
    exit 2
fi

# The emulator's findings: kernel<TAB>code<TAB>line, one per finding.
EMU=$OUT/emulator.tsv
if [ -x "$TEST_BUGS" ]; then
    CUDOJO_BUGS_REPORT=1 "$TEST_BUGS" >"$EMU" 2>/dev/null || true
else
    echo "note: $TEST_BUGS is not built; the emulator column will be empty" >&2
    : >"$EMU"
fi

# run_tool TOOL FILE: prints one table cell.
run_tool() {
    log=$OUT/$(basename "$2" .cu).$1.log
    timeout "$TIMEOUT" "$SAN" --tool "$1" --error-exitcode 99 "$DRIVER" "$2" >"$log" 2>&1
    rc=$?
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        echo "timeout"
    elif [ $rc -eq 99 ] || grep -q "ERROR SUMMARY: [1-9]" "$log"; then
        line=$(grep -o "$(basename "$2"):[0-9]*" "$log" | head -1 | cut -d: -f2)
        if [ -n "$line" ]; then echo "found@$line"; else echo "found"; fi
    elif [ $rc -eq 2 ]; then
        echo "fail"
    else
        echo "-"
    fi
}

missed=""
printf "%-28s %-26s %-12s %-12s %-12s %-12s %s\n" kernel "bug (marker line)" memcheck racecheck initcheck synccheck emulator
for f in tests/bugs/*.cu; do
    name=$(basename "$f" .cu)
    [ "$name" = driver ] && continue
    if [ -n "${BUGS_ONLY:-}" ] && ! echo " $BUGS_ONLY " | grep -q " $name "; then continue; fi
    marker=$(grep -n "// BUG: " "$f" | head -1)
    kind=$(echo "$marker" | sed 's/.*\/\/ BUG: \([a-z-]*\).*/\1/')
    mline=$(echo "$marker" | cut -d: -f1)
    cells=""
    any=0
    for tool in memcheck racecheck initcheck synccheck; do
        c=$(run_tool "$tool" "$f")
        case $c in found*) any=1 ;; esac
        cells="$cells $(printf '%-12s' "$c")"
    done
    emu=$(awk -F'\t' -v k="$name" '$1 == k && $2 != "-" { printf "%s%s@%s", sep, $2, $3; sep = "," }' "$EMU")
    [ -z "$emu" ] && emu="-"
    printf "%-28s %-26s%s %s\n" "$name" "$kind@$mline" "$cells" "$emu"
    if [ $any -eq 1 ] && [ "$emu" = "-" ]; then missed="$missed $name"; fi
done
echo
if [ -n "$missed" ]; then
    echo "found by a sanitizer but not by the emulator:$missed"
else
    echo "the emulator found something in every kernel a sanitizer flagged"
fi
echo "logs: $OUT/*.log"
