#!/bin/sh
# tests/tui/test_access_map.sh: the access map (issue 14 part 4). `cudojo
# run EXERCISE --explain LINE|worst` on chapter 4's transpose starter (its
# writes are 37 floats apart: 32 sectors in 32 lines) and on the unpadded
# tile variant (a 32-way bank conflict), its answers for a line without
# memory accesses, a comment, a warp asked for, --json, every line within
# 80 columns; then `a` in the workbench's exercise view at 80x24: the
# worst line's map in the results pane, z and G show its last sector rows,
# `a` again cycles to the next line and then hides it. Prints ok / not ok /
# skip per case.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
T=$(mktemp -d /tmp/cudojo-map-XXXXXX)
SOCK="cudojo-map-test-$$"
TM="tmux -L $SOCK -f /dev/null"
. "$(dirname "$0")/tmux.sh"
cleanup() { $TM kill-server 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT INT TERM
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" XDG_STATE_HOME="$T/state"
unset NO_COLOR VISUAL EDITOR LC_ALL LC_MESSAGES LANGUAGE
export LANG=C.UTF-8
# One chapter, so the course map's rows are known.
LESSONS="$T/lessons"
mkdir -p "$LESSONS" && cp -r lessons/04-shared-memory "$LESSONS/"
WS="$T/ws"
"$BIN" --lessons "$LESSONS" init "$WS" >/dev/null 2>&1 || { echo "not ok - setup (cudojo init failed)"; exit 0; }
ok() { echo "ok - $1"; }
nok() { name=$1; shift; echo "not ok - $name"; for l in "$@"; do echo "    $l"; done; }
explain() { (cd "$WS" && "$BIN" --lessons "$LESSONS" run transpose-tiled "$@" 2>&1); }
NOPAD="$LESSONS/04-shared-memory/solutions/wrong/transpose-tiled-no-padding.cu"
# Lines wider than 80 columns (characters, not bytes).
too_wide() { python3 -c 'import sys; print(sum(len(l.rstrip("\n")) > 80 for l in open(sys.argv[1], encoding="utf-8")))' "$1"; }

# ---- cudojo run --explain ----
out=$(explain --explain worst); rc=$?
echo "$out" >"$T/worst.txt"
if [ $rc = 0 ] && echo "$out" | grep -q "^line 22: the costliest of 1 lines" &&
    echo "$out" | grep -q "^global store of 4 bytes per lane, out, by warp 0 of block (0,0,0)" &&
    echo "$out" | grep -q "^32 sectors for 32 lanes x 4 bytes: ideal 4 — stride 37 elements (148 bytes)" &&
    echo "$out" | grep -q "^32 lines of 128 bytes, 32 sectors of 32" &&
    [ "$(echo "$out" | grep -c '|#.......|        |        |        |')" = 1 ] &&
    echo "$out" | grep -q "^  \[1120..1151\]  |        |        |        |...#....|  31$" &&
    echo "$out" | grep -q "^4 sectors for 32 lanes x 4 bytes: ideal 4 — consecutive elements"; then
    ok explain_worst_draws_the_transpose_starters_strided_store
else nok explain_worst_draws_the_transpose_starters_strided_store "rc=$rc" "$(echo "$out" | head -40)"; fi
if [ "$(too_wide "$T/worst.txt")" = 0 ]; then ok explain_fits_80_columns
else nok explain_fits_80_columns "$(too_wide "$T/worst.txt") lines are wider"; fi

out=$(explain --file "$NOPAD" --explain 26); rc=$?
if [ $rc = 0 ] && echo "$out" | grep -q "^shared load of 4 bytes per lane, tile," &&
    echo "$out" | grep -q "^32-way bank conflict: 32 wavefronts for 32 lanes x 4 bytes: ideal 1" &&
    echo "$out" | grep -q "^  bank   0   1   2" && echo "$out" | grep -q "^        31$" &&
    echo "$out" | grep -q "banks 16-31: no lane"; then
    ok explain_unpadded_tile_stacks_32_lanes_in_bank_0
else nok explain_unpadded_tile_stacks_32_lanes_in_bank_0 "rc=$rc" "$(echo "$out" | head -50)"; fi

out=$(explain --explain 21); rc=$?
if [ $rc = 1 ] && echo "$out" | grep -q "transpose-tiled.cu:21: error: line 21 reads and writes no global or shared memory"; then
    ok explain_says_when_a_line_has_no_memory_access
else nok explain_says_when_a_line_has_no_memory_access "rc=$rc" "$out"; fi
out=$(explain --explain 13); rc=$?
if [ $rc = 1 ] && echo "$out" | grep -q "line 13 has no code of a kernel"; then ok explain_says_when_a_line_has_no_code
else nok explain_says_when_a_line_has_no_code "rc=$rc" "$out"; fi
out=$(explain --explain 22 --block 1,1 --warp 3); rc=$?
if [ $rc = 0 ] && echo "$out" | grep -q "by warp 3 of block (1,1,0)" && echo "$out" | grep -q "for 21 lanes x 4 bytes"; then
    ok explain_draws_the_block_and_warp_asked_for
else nok explain_draws_the_block_and_warp_asked_for "rc=$rc" "$(echo "$out" | head -8)"; fi
out=$(explain --explain 22 --warp 9); rc=$?
if [ $rc = 1 ] && echo "$out" | grep -q "warp 9 does not exist"; then ok explain_says_when_the_warp_does_not_exist
else nok explain_says_when_the_warp_does_not_exist "rc=$rc" "$out"; fi
out=$(explain --explain x); rc=$?
out2=$(explain --warp 2); rc2=$?
if [ $rc = 2 ] && echo "$out" | grep -q "expects a source line number or 'worst'" && [ $rc2 = 2 ]; then
    ok explain_bad_values_are_usage_errors
else nok explain_bad_values_are_usage_errors "rc=$rc $out" "rc=$rc2 $out2"; fi
out=$(cd "$WS" && "$BIN" --lessons "$LESSONS" --json run transpose-tiled --explain 22 2>/dev/null)
if echo "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
a = d["accesses"]
assert d["line"] == 22 and len(a) == 2, d
assert a[0]["sectors"] == 4 and a[1]["sectors"] == 32 and a[1]["lines_128b"] == 32 and a[1]["stride_bytes"] == 148, a
assert any("32 sectors for 32 lanes" in l for l in d["map"])' 2>"$T/json.err"; then
    ok explain_json_counts_sectors_and_lines
else nok explain_json_counts_sectors_and_lines "$(cat "$T/json.err")" "$(echo "$out" | head -20)"; fi
n=$("$BIN" --lessons "$LESSONS" -C "$WS" progress --json 2>/dev/null | python3 -c '
import json, sys
print(sum(e.get("attempts", 0) for e in json.load(sys.stdin)["exercises"]))' 2>/dev/null)
if [ "$n" = 0 ]; then ok explain_records_no_attempt; else nok explain_records_no_attempt "attempts: $n"; fi

# ---- the workbench: a in the exercise view ----
if ! command -v tmux >/dev/null 2>&1; then
    for c in a_draws_the_worst_lines_map zoom_and_end_show_the_last_sector_rows a_cycles_lines_then_hides; do
        echo "skip - $c (tmux is not installed)"; done
    exit 0
fi
screen() { $TM capture-pane -p -t tui 2>/dev/null; }
keys() { $TM send-keys -t tui "$@"; sleep 0.2; }
dump() { screen | sed 's/^/    | /'; }
open_transpose() {
    tm_fresh
    tm_new -d -s tui -x 80 -y 24 "cd '$WS' && env LANG=C.UTF-8 '$BIN' --lessons '$LESSONS' --backend=emu; sleep 30"
    wait_for "Course map" 10 || return 1
    keys g; keys j; keys j; keys j; keys j; keys Enter
    wait_for "› transpose-tiled" 5
}
open_transpose
keys a
if wait_for "Access map: line 22 \(1 of 1 by cost" 30 && screen | grep -q "4 sectors for 32 lanes x 4 bytes: ideal 4" &&
    screen | grep -Eq "lane  index +lane  index +lane  index +lane  index"; then
    ok a_draws_the_worst_lines_map
else nok a_draws_the_worst_lines_map "$(dump)"; fi
keys z; keys G
if wait_for "\[1120\.\.1151\]  \|        \|        \|        \|\.\.\.#\.\.\.\.\|  31" 3; then
    ok zoom_and_end_show_the_last_sector_rows
else nok zoom_and_end_show_the_last_sector_rows "$(dump)"; fi
cp "$NOPAD" "$WS/shared-memory/transpose-tiled.cu"
open_transpose
keys a
if wait_for "Access map: line 26 \(1 of 2 by cost" 30 && screen | grep -q "32-way bank conflict" && keys a &&
    wait_for "Access map: line 18 \(2 of 2 by cost" 10 && keys a && wait_for "access map hidden" 5 &&
    ! screen | grep -q "Access map:"; then
    ok a_cycles_lines_then_hides
else nok a_cycles_lines_then_hides "$(dump)"; fi
