#!/bin/sh
# tests/tui/test_debug.sh: the warp debugger (cudojo debug, app/tui/tui_debug.c).
# A sweep: every kernel exercise's solution records steps (--print, no
# terminal); the command's errors; then the screen driven in a detached tmux
# at 80x24 on block-reverse (shared memory and a barrier): stepping forward
# and back, run to the barrier, to the end, another warp, and W from the
# workbench's exercise view. Prints ok / not ok / skip per case.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
T=$(mktemp -d /tmp/cudojo-dbg-XXXXXX)
SOCK="cudojo-dbg-test-$$"
TM="tmux -L $SOCK -f /dev/null"
. "$(dirname "$0")/tmux.sh"
cleanup() { $TM kill-server 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT INT TERM
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" XDG_STATE_HOME="$T/state"
unset NO_COLOR VISUAL EDITOR LC_ALL LC_MESSAGES
WS="$T/ws"
"$BIN" --lessons "$LESSONS" init "$WS" >/dev/null 2>&1 || { echo "not ok - setup (cudojo init failed)"; exit 0; }
ok() { echo "ok - $1"; }
nok() { name=$1; shift; echo "not ok - $name"; for l in "$@"; do echo "    $l"; done; }

# ---- the sweep: every kernel exercise (whole programs answer 3) ----
ids=$(cd "$WS" && "$BIN" --lessons "$LESSONS" list --json | python3 -c \
    "import json,sys; d=json.load(sys.stdin); print(' '.join(e['id'] for c in d['chapters'] for e in c['exercises']))")
n=0; bad=""
for id in $ids; do
    out=$(cd "$WS" && timeout 60 "$BIN" --lessons "$LESSONS" debug "$id" --solution --print 2>&1); rc=$?
    [ $rc = 3 ] && continue
    n=$((n + 1))
    if [ $rc != 0 ] || ! echo "$out" | head -1 | grep -q " [1-9][0-9]* steps" || ! echo "$out" | grep -Eq "^ +[0-9]+  line [0-9]+"; then
        bad="$bad $id(rc=$rc: $(echo "$out" | head -2 | tr '\n' ' '))"
    fi
done
if [ $n -ge 40 ] && [ -z "$bad" ]; then ok "every_kernel_exercise_solution_records_lines ($n exercises)"
else nok every_kernel_exercise_solution_records_lines "$n kernel exercises; failed:$bad"; fi

# ---- the command ----
out=$(cd "$WS" && "$BIN" --lessons "$LESSONS" debug block-reverse --solution --warp 9 --print 2>&1); rc=$?
if [ $rc = 1 ] && echo "$out" | grep -q "warp 9 does not exist"; then ok debug_says_when_the_warp_does_not_exist
else nok debug_says_when_the_warp_does_not_exist "rc=$rc" "$out"; fi
out=$(cd "$WS" && "$BIN" --lessons "$LESSONS" debug no-such-exercise 2>&1); rc=$?
if [ $rc = 2 ] && echo "$out" | grep -q "no exercise"; then ok debug_names_an_unknown_exercise
else nok debug_names_an_unknown_exercise "rc=$rc" "$out"; fi
out=$(cd "$WS" && "$BIN" --lessons "$LESSONS" debug block-reverse --solution --block 3 --warp 2 --print 2>&1); rc=$?
if [ $rc = 0 ] && echo "$out" | head -1 | grep -q "block (3,0,0), warp 2 of 8" && echo "$out" | grep -q "t=64 base=768"; then
    ok debug_follows_the_block_and_warp_asked_for
else nok debug_follows_the_block_and_warp_asked_for "$out"; fi
out=$(cd "$WS" && "$BIN" --lessons "$LESSONS" debug block-reverse --line 3 --first-finding 2>&1); rc=$?
if [ $rc = 2 ]; then ok debug_refuses_line_with_first_finding; else nok debug_refuses_line_with_first_finding "$out"; fi

# ---- the screen ----
if ! command -v tmux >/dev/null 2>&1; then
    for c in screen_shows_source_lanes_variables step_forward_and_back barrier_key_stops_at_syncthreads \
        end_key_finishes warp_key_follows_next_warp workbench_W_opens_debugger; do
        echo "skip - $c (tmux is not installed)"; done
    exit 0
fi
screen() { $TM capture-pane -p -t tui 2>/dev/null; }
keys() { $TM send-keys -t tui "$@"; sleep 0.2; }
dump() { screen | sed 's/^/    | /'; }
tm_new -d -s tui -x 80 -y 24 "cd '$WS' && env LANG=C.UTF-8 '$BIN' --lessons '$LESSONS' debug block-reverse --solution; sleep 30"
if wait_for "Debugger: " 30 && screen | grep -q "step 1 of" && screen | grep -q "lanes ●●●●●●●●" &&
    screen | grep -q "reverse_blocks" && screen | grep -Eq "lane +0 +1" && screen | grep -q "shared memory (1024 bytes"
then ok screen_shows_source_lanes_variables; else nok screen_shows_source_lanes_variables "$(dump)"; fi
keys n; keys n; keys n
if wait_for "step 4 of" 3 && keys p && wait_for "step 3 of" 3; then ok step_forward_and_back
else nok step_forward_and_back "$(dump)"; fi
keys b
if wait_for "at __syncthreads\(\)" 3 && screen | grep -q "▶  *16 "; then ok barrier_key_stops_at_syncthreads
else nok barrier_key_stops_at_syncthreads "$(dump)"; fi
keys e
if wait_for "finished" 3 && screen | grep -Eq "0 running, 0 waiting, 32 exited"; then ok end_key_finishes
else nok end_key_finishes "$(dump)"; fi
keys w
if wait_for "warp 1/8" 30 && screen | grep -q "step "; then ok warp_key_follows_next_warp
else nok warp_key_follows_next_warp "$(dump)"; fi
keys q
tm_fresh
tm_new -d -s tui -x 80 -y 24 "cd '$WS' && env LANG=C.UTF-8 '$BIN' --lessons '$LESSONS' --backend=emu; sleep 30"
wait_for "Course map" 10
keys Enter
if wait_for "hello-threads\.cu" 5 && keys W && wait_for "Debugger: " 30 && screen | grep -q "step 1 of"; then
    ok workbench_W_opens_debugger
else nok workbench_W_opens_debugger "$(dump)"; fi
