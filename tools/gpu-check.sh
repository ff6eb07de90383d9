#!/bin/sh
# tools/gpu-check.sh: what `make test-gpu` does, for a GPU machine that has
# the NVIDIA driver and CUDA toolkit but none of our -dev packages (a lab
# server, the H200 we test on), in steps that fit calls of at most 10
# minutes which bring back at most 8 files. Build here first, in one archive:
#   sh tools/gpu-payload.sh      (.gpu/payload.tar.xz: the bundle, the test, bench
#                                 and fuzz binaries, build/programs, the tree; carry .gpu)
# Then, on the GPU machine, from the archive's root (tar xJf .gpu/payload.tar.xz -C /tmp/p):
#   sh tools/gpu-check.sh [OUTDIR] [STEP...]
# OUTDIR: default $OUT, else /tmp/cudojo-gpu ("" or - for that default).
# STEP is any of these (default: all but selftest, in this order; on the
# H200 about 15 minutes in all, so split them over two calls, e.g.
# "smi doctor verify" then "tests events programs hostile"):
#   smi        nvidia-smi -L
#   doctor     the bundle's `cudojo doctor`
#   verify     `cudojo verify --backend=cuda --jobs 3` of the course (VERIFY_DIRS,
#              default lessons/[0-9]*; VERIFY_JOBS, default 3): three files at
#              once, timed sections alone on the GPU (the GPU lock)
#   tests      every test with CUDOJO_TEST_GPU=1 (GPU tests must run, not skip),
#              TEST_JOBS (default 4) at once
#   events     the GPU timeline without CUPTI (CUDOJO_TIMELINE=events)
#   programs   the conformance programs on NVIDIA's libcudart, each killed after
#              PROGRAM_TIMEOUT (default 10) s, compared with tests/programs/expected/
#              (run.sh stops a program's output at its own cap, --max-output)
#   hostile    grading on the GPU: the sandbox around NVIDIA's runtime
#   selftest   this script's own machinery: a step that outlives its limit,
#              with a child in a session of its own and a runaway writer, is
#              killed whole (a few seconds)
# Every step's output goes into OUTDIR/gpu-check.tar.gz and the summary into
# OUTDIR/summary.txt, both rewritten after each step; the summary (verify
# rows as expected or not, failing tests, programs that differ, the hostile
# ok count, time per step) is printed at the end. Limits, the deadline
# (GPU_CHECK_DEADLINE, default 560 s from the start), file caps and how a
# step is killed: tools/gpu-steps.sh (GPU_CHECK_LIMIT_verify=S and so on).
# The files are made in GPU_CHECK_WORK (default /tmp/cudojo-gpu-check,
# emptied first).
#
# Here, without a GPU: GPU_CHECK_BACKEND=emu runs verify and programs on the
# emulator and the tests without CUDOJO_TEST_GPU; GPU_CHECK_BIN names the
# cudojo to use (default dist/cudojo/cudojo.sh), BUILD the build folder
# (default build); GPU_CHECK_DRY=1 prints each step's command and runs none.
set -u
# The selftest step's command (below): a child in a session of its own that
# would outlive the step, a writer that never stops, then a wait past the
# step's limit.
if [ "${GPU_CHECK_SELFTEST_CHILD:-}" = 1 ]; then
    work=$GPU_CHECK_WORK
    setsid sh -c 'echo $$ > "$0"; exec sleep 1000' "$work/selftest.session" &
    while :; do echo "a runaway writer's line, again and again"; done > "$work/selftest.flood" &
    echo "selftest: started"
    sleep 1000
    exit 0
fi
out=${1:-}
[ $# -gt 0 ] && shift
[ -z "$out" ] || [ "$out" = - ] && out=${OUT:-/tmp/cudojo-gpu}
steps=${*:-smi doctor verify tests events programs hostile}
for s in $steps; do
    case $s in smi|doctor|verify|tests|events|programs|hostile|selftest) ;;
    *) echo "gpu-check: no step called '$s' (smi doctor verify tests events programs hostile selftest)" >&2; exit 2 ;;
    esac
done
here=$(pwd)
work=${GPU_CHECK_WORK:-/tmp/cudojo-gpu-check} archive=gpu-check.tar.gz prefix=GPU_CHECK
backend=${GPU_CHECK_BACKEND:-cuda}
bin=${GPU_CHECK_BIN:-$here/dist/cudojo/cudojo.sh}
case $bin in /*) ;; *) bin=$here/$bin ;; esac
BUILD=${BUILD:-build}
. "$(dirname "$0")/gpu-steps.sh"

# Test binaries find the bundle's libraries through their $ORIGIN/lib rpath;
# LD_LIBRARY_PATH is left alone so system programs (tmux) keep their own.
for d in "$BUILD"/tests/*/ "$BUILD"/bench/ "$BUILD"/fuzz/; do
    [ -d "$d" ] && [ -d "$here/dist/cudojo/lib" ] && ln -sfn "$here/dist/cudojo/lib" "$d/lib"
done
export XDG_CACHE_HOME="${XDG_CACHE_HOME:-/tmp/cudojo-gpu-cache}" XDG_DATA_HOME="${XDG_DATA_HOME:-/tmp/cudojo-gpu-data}" NO_COLOR=1

# The summary of what has run so far, from the heads and tails of the outputs.
summarize() {
    echo "gpu-check at $(now) s: steps $steps"
    summarize_steps
    if [ -f "$work/verify.txt" ]; then
        echo "verify:"
        if tail -c 4000 "$work/verify.txt" | grep -aq "as expected, "; then
            tail -c 4000 "$work/verify.txt" | grep -a "as expected, " | tail -1 | sed 's/^/  /'
        else
            echo "  not finished: $(head -c 4000000 "$work/verify.txt" | grep -ac "✓") rows as expected and" \
                "$(head -c 4000000 "$work/verify.txt" | grep -ac "✗") not so far"
        fi
        head -c 4000000 "$work/verify.txt" | grep -a "✗" | head -40 | sed 's/^/  /'
    fi
    if [ -f "$work/tests.txt" ]; then
        echo "tests:"
        tail -c 4000 "$work/tests.txt" | grep -a "passed, .* failed, .* skipped" | tail -1 | sed 's/^/  /'
        head -c 4000000 "$work/tests.txt" | grep -aE "^\[  FAILED  \] [a-z]|^not ok" | sort -u | head -40 | sed 's/^/  /'
    fi
    if [ -f "$work/events.txt" ]; then
        echo "events:"
        tail -c 2000 "$work/events.txt" | tail -1 | sed 's/^/  /'
    fi
    if [ -f "$work/programs/compare.txt" ]; then
        echo "programs:"
        tail -c 2000 "$work/programs/compare.txt" | tail -1 | sed 's/^/  /'
        head -c 200000 "$work/programs/compare.txt" | awk 'NR > 1 && $2 != "same" && $2 != "refused" && !/ programs print what expected/' | head -40 |
            sed 's/^/  /'
    elif [ -f "$work/programs.txt" ]; then
        echo "programs: no compare.txt"
        tail -c 2000 "$work/programs.txt" | tail -5 | sed 's/^/  /'
    fi
    if [ -f "$work/hostile.txt" ]; then
        echo "hostile: $(head -c 2000000 "$work/hostile.txt" | grep -ac '^ok - ') ok"
        head -c 2000000 "$work/hostile.txt" | grep -a "^not ok" | head -20 | sed 's/^/  /'
    fi
    if [ -f "$work/selftest.txt" ]; then
        echo "selftest:"
        sed 's/^/  /' "$work/selftest.txt"
    fi
    if [ -f "$work/leftovers.txt" ]; then
        echo "left running (should be nothing):"
        head -c 4000 "$work/leftovers.txt" | sed 's/^/  /'
    fi
}

[ -x "${bin%.sh}" ] || [ -x "$bin" ] || echo "gpu-check: no cudojo at $bin (make bundle, or GPU_CHECK_BIN)" >&2
for s in $steps; do
    case $s in
    smi) run_step smi 30 nvidia-smi.txt nvidia-smi -L ;;
    doctor) run_step doctor 90 doctor.txt "$bin" doctor ;;
    verify)
        # shellcheck disable=SC2086 # VERIFY_DIRS is a list of globs
        run_step verify 420 verify.txt "$bin" verify --backend="$backend" --jobs "${VERIFY_JOBS:-3}" ${VERIFY_DIRS:-lessons/[0-9]*} ;;
    tests)
        gpu=1; [ "$backend" = emu ] && gpu=
        run_step tests 300 tests.txt env ${gpu:+CUDOJO_TEST_GPU=1} CUDOJO_BIN="${bin%.sh}" TEST_JOBS="${TEST_JOBS:-4}" \
            BUILD="$BUILD" sh tools/run-tests.sh "$BUILD"/tests/*/test_* ;;
    events)
        gpu=1; [ "$backend" = emu ] && gpu=
        run_step events 60 events.txt env ${gpu:+CUDOJO_TEST_GPU=1} CUDOJO_TIMELINE=events "$BUILD/tests/kernels/test_cuda_streams" ;;
    programs)
        # Compiled here with the machine's nvcc unless $BUILD/programs (carried)
        # holds executables for the same source, flags and nvcc version.
        mkdir -p "$work/programs"
        run_step programs 170 programs.txt env BUILD="$BUILD" sh tests/programs/run.sh --runtime="$backend" \
            --timeout "${PROGRAM_TIMEOUT:-10}" --out "$work/programs" ;;
    hostile) run_step hostile 150 hostile.txt env CUDOJO_BIN="$bin" BUILD="$BUILD" sh tests/grade/test_hostile.sh ;;
    selftest)
        run_step selftest 4 selftest.log env GPU_CHECK_SELFTEST_CHILD=1 GPU_CHECK_WORK="$work" sh "$0"
        {
            sess=$(cat "$work/selftest.session" 2>/dev/null)
            # killed: gone, or a zombie its new parent has yet to reap
            if [ -n "$sess" ] && case $(ps -o stat= -p "$sess" 2>/dev/null) in ''|Z*) true ;; *) false ;; esac
            then echo "ok - a child in its own session was killed"
            else echo "not ok - a child in its own session (pid ${sess:-unknown}) is still running"; fi
            awk '$1 == "selftest" && $5 == "killed" { k = 1 } END { exit !k }' "$work/steps.txt" &&
                echo "ok - the step was killed at its limit" ||
                echo "not ok - the step was not killed at its limit: $(grep '^selftest' "$work/steps.txt")"
            size1=$(wc -c < "$work/selftest.flood"); sleep 1; size2=$(wc -c < "$work/selftest.flood")
            [ "$size1" = "$size2" ] && echo "ok - the runaway writer stopped writing" ||
                echo "not ok - the runaway writer still writes ($size1 then $size2 bytes)"
        } > "$work/selftest.txt" 2>&1
        ;;
    esac
    pack
done
# nothing of ours may outlive the check: an MPS daemon, a worker, a program
{
    command -v pgrep > /dev/null && pgrep -a nvidia-cuda-mps
    ls -d /tmp/cudojo-mps-* 2>/dev/null
    for s in $steps; do marked "$mark-$s"; done
} > "$work/leftovers.txt" 2>&1
pack
echo "== done in $(now) s: $out/gpu-check.tar.gz, $out/summary.txt"
cat "$work/summary.txt"
