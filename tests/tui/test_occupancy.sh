#!/bin/sh
# tests/tui/test_occupancy.sh: the occupancy screen (o in the exercise view),
# driven in a detached tmux on a fresh workspace with runs on the emulator:
# it shows the last run's kernel with its registers, the prediction and the
# limiter, the block size follows ←/→, the chart marks the current point,
# and `a` switches the GPU. Prints ok / not ok / skip per case.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
CASES="occupancy_shows_kernel_and_limiter block_keys_change_prediction chart_marks_current_point arch_key_switches_gpu
occupancy_without_run_says_so"
if ! command -v tmux >/dev/null 2>&1; then
    for c in $CASES; do echo "skip - $c (tmux is not installed)"; done
    exit 0
fi
T=$(mktemp -d /tmp/cudojo-occ-XXXXXX)
SOCK="cudojo-occ-test-$$"
TM="tmux -L $SOCK -f /dev/null"
. "$(dirname "$0")/tmux.sh"
cleanup() { $TM kill-server 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT INT TERM
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache"
unset NO_COLOR VISUAL EDITOR LC_ALL LC_MESSAGES CUDOJO_OCCUPANCY
WS="$T/ws"
"$BIN" --lessons "$LESSONS" init "$WS" >/dev/null 2>&1 || { echo "not ok - setup (cudojo init failed)"; exit 0; }

ok() { echo "ok - $1"; }
nok() { name=$1; shift; echo "not ok - $name"; for l in "$@"; do echo "    $l"; done; }
screen() { $TM capture-pane -p -t tui 2>/dev/null; }
keys() { $TM send-keys -t tui "$@"; sleep 0.2; }
dump() { screen | sed 's/^/    | /'; }
tm_new -d -s tui -x 80 -y 30 "cd '$WS' && env LANG=C.UTF-8 '$BIN' --backend=emu; sleep 30"
wait_for "Course map" 10

# The first exercise (hello-threads, 96 threads per block): before a run, o says what to do.
keys Enter
if wait_for "hello-threads\.cu" 5 && keys o && wait_for "No kernel launches" 3; then ok occupancy_without_run_says_so
else nok occupancy_without_run_says_so "$(dump)"; fi
keys q

# After a run: the kernel, its registers (counted by ptxas for sm_90), 96
# threads = 3 warps, 21 blocks = 63 of 64 warps, limited by warps.
keys r
if wait_for "FAIL|PASS" 60 && keys o && wait_for "Occupancy: " 3 &&
    screen | grep -q "hello_threads" && screen | grep -Eq "Uses +[0-9]+ registers per thread" &&
    screen | grep -q "98.4%" && screen | grep -q "21 blocks/SM, 63 of 64 warps" && screen | grep -q "Limited by warps"
then ok occupancy_shows_kernel_and_limiter
else nok occupancy_shows_kernel_and_limiter "$(dump)"; fi

# → one warp more: 128 threads = 4 warps, 16 blocks fill the SM.
keys Right
if wait_for "◀ 128 ▶" 3 && screen | grep -q "100.0%" && screen | grep -q "16 blocks/SM, 64 of 64 warps"
then ok block_keys_change_prediction
else nok block_keys_change_prediction "$(dump)"; fi

if screen | grep -q "Occupancy against block size" && screen | grep -q "▲128 (100%)"; then ok chart_marks_current_point
else nok chart_marks_current_point "$(dump)"; fi

keys a
if wait_for "sm_100, like B200" 3; then ok arch_key_switches_gpu
else nok arch_key_switches_gpu "$(dump)"; fi
keys q q q
