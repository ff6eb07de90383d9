#!/bin/sh
# tests/app/test_gpu_check.sh: tools/gpu-check.sh's machinery
# (tools/gpu-steps.sh), without a GPU: a step that outlives its limit is
# killed whole (a child in a session of its own and a runaway writer too),
# no file it writes grows past GPU_CHECK_FSIZE_MB, its output comes back
# cut to the cap inside one archive with a summary,
# a step past the deadline is not started, a dry run names the command
# of every step (verify with --jobs 3), an unknown step is refused.
T=$(mktemp -d /tmp/cudojo-gpu-check-XXXXXX)
trap 'rm -rf "$T"' EXIT
check() {   # check NAME TEST [FILE shown when it fails]
    if eval "$2"; then echo "ok - $1"; else
        echo "not ok - $1"
        [ -n "${3:-}" ] && sed 's/^/    /' "$3" | tail -20
    fi
}

GPU_CHECK_WORK=$T/work GPU_CHECK_FILE_KB=64 GPU_CHECK_FSIZE_MB=4 GPU_CHECK_LIMIT_selftest=2 sh tools/gpu-check.sh "$T/out" selftest \
    > "$T/o" 2>&1; rc=$?
check "selftest: the step is killed at its limit with its own-session child and its runaway writer" \
    '[ $rc = 0 ] && [ $(grep -c "^  ok - " "$T/out/summary.txt") = 3 ] && ! grep -q "not ok" "$T/out/summary.txt" && grep -q "selftest: KILLED at its limit of 2 s" "$T/out/summary.txt"' "$T/o"
mkdir "$T/x" && tar xzf "$T/out/gpu-check.tar.gz" -C "$T/x" 2> /dev/null
size=$(wc -c < "$T/x/selftest.flood" 2> /dev/null || echo 0)
check "one archive and a summary come back, each file cut to GPU_CHECK_FILE_KB keeping head and tail" \
    '[ "$(ls "$T/out")" = "$(printf "gpu-check.tar.gz\nsummary.txt")" ] && [ "$size" -gt 60000 ] && [ "$size" -le 65536 ] && grep -q "bytes cut here" "$T/x/selftest.flood"' "$T/o"
# 4 MiB written, 64 KiB but the 100 bytes of the cut's line kept
check "the runaway writer was stopped at GPU_CHECK_FSIZE_MB (4 MiB)" \
    'grep -q "\[\.\.\. 4128868 bytes cut here" "$T/x/selftest.flood"' "$T/o"

GPU_CHECK_WORK=$T/work GPU_CHECK_DRY=1 sh tools/gpu-check.sh "$T/out" > "$T/o" 2>&1; rc=$?
check "a dry run names every step's command, verify --backend=cuda --jobs 3 of the whole course" \
    '[ $rc = 0 ] && grep -q "verify --backend=cuda --jobs 3 lessons/01-" "$T/o" && grep -q "tests/programs/run.sh --runtime=cuda --timeout 10" "$T/o" && [ $(grep -c "^== " "$T/o") = 8 ]' "$T/o"

GPU_CHECK_WORK=$T/work GPU_CHECK_DEADLINE=10 sh tools/gpu-check.sh "$T/out" selftest > "$T/o" 2>&1
check "a step with no time left before GPU_CHECK_DEADLINE is not started, and the summary says so" \
    'grep -q "selftest: not run (no time left)" "$T/out/summary.txt" && [ ! -f "$T/work/selftest.log" ]' "$T/o"

sh tools/gpu-check.sh "$T/out" verify nosuch > "$T/o" 2>&1; rc=$?
check "an unknown step is refused (exit 2), naming the steps there are" \
    '[ $rc = 2 ] && grep -q "no step called .nosuch. (smi doctor verify" "$T/o"' "$T/o"
