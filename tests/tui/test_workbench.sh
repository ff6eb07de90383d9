#!/bin/sh
# tests/tui/test_workbench.sh: the exercise view's first-hour items (issue
# 17), driven in a detached tmux on a fresh workspace with runs on the
# emulator: the results pane shows the exercise's numbers with every metric
# behind m, and the task text does not move when a run ends; hints are on H,
# asked for before they are revealed, and the hint the exercise's hint_for
# gives for the last failure comes first (in `cudojo hint` too); the source
# opens at the first TODO and scrolls sideways; the timeline shows the
# latest run and steps back to earlier ones, and c compares an earlier run
# with the latest on one axis (80x24 too); rgb-to-gray's solution (3-byte
# pixels) gets no costly heat. Prints ok / not ok / skip.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
CASES="results_show_numbers_and_hide_internal_metrics m_shows_every_metric task_text_stays_put_after_a_run
hint_key_asks_before_revealing hint_for_picks_the_hint_for_the_failure source_opens_at_first_todo
source_scrolls_sideways timeline_shows_latest_run_and_steps_back timeline_compares_two_runs_on_one_axis
heat_leaves_three_byte_pixels_unmarked"
if ! command -v tmux >/dev/null 2>&1; then
    for c in $CASES; do echo "skip - $c (tmux is not installed)"; done
    exit 0
fi
T=$(mktemp -d /tmp/cudojo-wb-XXXXXX)
SOCK="cudojo-wb-test-$$"
TM="tmux -L $SOCK -f /dev/null"
. "$(dirname "$0")/tmux.sh"
cleanup() { $TM kill-server 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT INT TERM
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache"
unset NO_COLOR VISUAL EDITOR LC_ALL LC_MESSAGES
# A copy of the course whose vector-add says which hint goes with an out-of-bounds failure.
cp -r "$(pwd)/lessons" "$T/lessons"
LESSONS="$T/lessons"
sed -i 's/^  hints = {$/  hint_for = { ["out-of-bounds"] = 3 },\n  hints = {/' "$LESSONS/01-hello-gpu/vector-add.lua"
WS="$T/ws"
"$BIN" --lessons "$LESSONS" init "$WS" >/dev/null 2>&1 || { echo "not ok - setup (cudojo init failed)"; exit 0; }

ok() { echo "ok - $1"; }
nok() { name=$1; shift; echo "not ok - $name"; for l in "$@"; do echo "    $l"; done; }
screen() { $TM capture-pane -p -t tui 2>/dev/null; }
keys() { $TM send-keys -t tui "$@"; sleep 0.2; }
dump() { screen | sed 's/^/    | /'; }
# The exercises' rows on the course map (chapter headings are rows too).
row_of() { case $1 in hello-threads) echo 1;; vector-add) echo 2;; rgb-to-gray) echo 6;; coalescing) echo 11;; esac; }
# open EXERCISE [COLS ROWS]: a fresh workbench at the exercise's view.
open() {
    tm_fresh
    tm_new -d -s tui -x "${2:-80}" -y "${3:-24}" \
        "cd '$WS' && env LANG=C.UTF-8 '$BIN' --lessons '$LESSONS' --backend=emu; sleep 30"
    wait_for "Course map" 10 || return 1
    keys g
    n=$(row_of "$1")
    while [ "$n" -gt 0 ]; do $TM send-keys -t tui j; n=$((n - 1)); done
    keys Enter
    wait_for "› $1" 5
}
# attempts_reach EXERCISE N SECONDS: true once the store holds N attempts of
# EXERCISE (a run that has ended), not a verdict left on the screen from before.
attempts_reach() {
    _end=$(($(date +%s) + $3))
    while :; do
        "$BIN" -C "$WS" --lessons "$LESSONS" progress --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
e = [x for x in d["exercises"] if x["id"] == sys.argv[1]]
a = e[0]["attempts"] if e else 0
sys.exit(0 if (len(a) if isinstance(a, list) else a) >= int(sys.argv[2]) else 1)' "$1" "$2" 2>/dev/null && return 0
        [ "$(date +%s)" -ge "$_end" ] && return 1
        sleep 0.3
    done
}
hints_taken() {
    "$BIN" -C "$WS" --lessons "$LESSONS" progress --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
e = [x for x in d["exercises"] if x["id"] == sys.argv[1]]
print(e[0]["hints_taken"] if e else 0)' "$1" 2>/dev/null
}

# --- the results pane: coalescing's starter fails on sectors per request ---
if open coalescing 200 50; then
    # The task text's row before the run...
    row_before=$(screen | grep -n "Coalesced access" | head -1 | cut -d: -f1)
    keys r
    if wait_for "Exercise and result: FAIL" 60 && sleep 0.3 &&
        screen | grep -q "Numbers" && screen | grep -Eq "sectors per request +[0-9.]+ \(ideal" &&
        ! screen | grep -Eq "compile\.ms|lua_instructions|emu\.totals|timeline\.modeled" &&
        screen | grep -q "m shows all"; then ok results_show_numbers_and_hide_internal_metrics
    else nok results_show_numbers_and_hide_internal_metrics "$(dump)"; fi
    # ...and after it: the same row.
    row_after=$(screen | grep -n "Coalesced access" | head -1 | cut -d: -f1)
    if [ -n "$row_before" ] && [ "$row_before" = "$row_after" ]; then ok task_text_stays_put_after_a_run
    else nok task_text_stays_put_after_a_run "row before $row_before, after $row_after" "$(dump)"; fi
    keys m
    if wait_for "All metrics" 3 && keys G && wait_for "lua_instructions|compile\.ms|phases\.total_ms" 3; then
        ok m_shows_every_metric
    else nok m_shows_every_metric "$(dump)"; fi
else
    for c in results_show_numbers_and_hide_internal_metrics task_text_stays_put_after_a_run m_shows_every_metric; do
        nok $c "the exercise did not open" "$(dump)"
    done
fi

# --- the source opens at the first TODO (line 13 of coalescing.cu, below 80x24's pane) ---
first_todo=$(grep -n TODO "$WS"/*/coalescing.cu | head -1 | cut -d: -f1)
if open coalescing 80 24 && screen | grep -q "TODO" && screen | grep -Eq "^ +$((first_todo - 2))[ ░▒█]" &&
    ! screen | grep -Eq "^ +1 .*coalescing\.cu"; then ok source_opens_at_first_todo
else nok source_opens_at_first_todo "first TODO at line $first_todo" "$(dump)"; fi

# --- sideways: a long line ends in › and → brings its end into view ---
f=$(ls "$WS"/*/coalescing.cu)
printf '// %s LINE-END-MARK\n' "$(printf 'x%.0s' $(seq 1 150))" >"$T/long" && cat "$f" >>"$T/long" && cp "$T/long" "$f"
if open coalescing 80 24 && keys Tab && keys g && wait_for "^ +1 .*x+›" 3 &&
    ! screen | grep -q "LINE-END-MARK"; then
    i=0
    while [ $i -lt 12 ]; do keys Right; i=$((i + 1)); done
    if wait_for "LINE-END-MARK" 3 && screen | grep -Eq "^ +1 *‹"; then
        keys Left
        keys Left
        ok source_scrolls_sideways
    else nok source_scrolls_sideways "→ did not bring the end of line 1 into view" "$(dump)"; fi
else nok source_scrolls_sideways "no › on the cut line (or the end showed already)" "$(dump)"; fi

# --- hints: H asks, n keeps it hidden, y reveals and records; h reveals nothing ---
if open hello-threads 80 24; then
    keys h
    h_after_h=$(hints_taken hello-threads)
    keys H
    asked=0; wait_for "Reveal hint 1 of [0-9]+\? It is recorded\. y/N" 3 && asked=1
    keys n
    declined=0; wait_for "no hint taken" 3 && [ "$(hints_taken hello-threads)" = 0 ] && declined=1
    keys H
    keys y
    if [ "$h_after_h" = 0 ] && [ $asked = 1 ] && [ $declined = 1 ] && wait_for "Hints" 3 &&
        screen | grep -Eq "^ 1\. [A-Za-z]" && [ "$(hints_taken hello-threads)" = 1 ]; then ok hint_key_asks_before_revealing
    else nok hint_key_asks_before_revealing "h took $h_after_h, asked=$asked declined=$declined" "$(dump)"; fi
else nok hint_key_asks_before_revealing "the exercise did not open" "$(dump)"; fi

# --- hint_for: after an out-of-bounds failure, vector-add's hint 3 comes first ---
cp "$LESSONS/01-hello-gpu/solutions/wrong/vector-add-no-guard.cu" "$WS/hello-gpu/vector-add.cu"
"$BIN" -C "$WS" --lessons "$LESSONS" --backend=emu run vector-add >"$T/run.out" 2>&1
cli=$("$BIN" -C "$WS" --lessons "$LESSONS" hint vector-add --json 2>/dev/null)
cli_ok=0
echo "$cli" | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d["numbers"]==[3] and d["new"]==3 else 1)' \
    2>/dev/null && cli_ok=1
# The workbench offers the next one by the same rule: hint 1 (3 is seen).
if [ $cli_ok = 1 ] && open vector-add 80 24 && keys H && wait_for "Reveal hint 1 of 3\?" 3; then
    keys n
    ok hint_for_picks_the_hint_for_the_failure
else nok hint_for_picks_the_hint_for_the_failure "cudojo hint said: $cli" "$(grep -m3 -i "bounds\|error" "$T/run.out")" "$(dump)"; fi

# The timeline's row labels, from the axis line to the first blank line.
rows_shown() {
    python3 -c '
import re, sys
lines = sys.stdin.buffer.read().decode("utf-8", "replace").split("\n")
start = next(i for i, l in enumerate(lines) if "┬" in l) + 1
names = []
for l in lines[start:]:
    if not l.strip(): break
    label = re.split(r"\s{2,}|[·»«█▒░╌│≈]", l[1:].lstrip("▶ "))[0].strip()
    if label: names.append(label)
print(",".join(names))' 2>/dev/null
}

# --- the timeline: the latest run first, `,` an earlier one, `.` back ---
cp "$LESSONS/01-hello-gpu/solutions/vector-add.cu" "$WS/hello-gpu/vector-add.cu"
if open vector-add 100 30 && keys r && wait_for "Exercise and result: PASS" 60 && keys r && attempts_reach vector-add 2 60 &&
    wait_for "Exercise and result: PASS" 60 && keys t && wait_for "latest run \(2 of 2\)" 3; then
    keys ,
    if wait_for "run 1 of 2 \(1 before the latest\)" 3 && keys . && wait_for "latest run \(2 of 2\)" 3 &&
        [ "$(screen | rows_shown)" = "host,0 default (legacy)" ]; then
        ok timeline_shows_latest_run_and_steps_back
    else nok timeline_shows_latest_run_and_steps_back "rows: $(screen | rows_shown)" "$(dump)"; fi
else nok timeline_shows_latest_run_and_steps_back "$(dump)"; fi

# --- c: the earlier run above the latest, one time axis, both headings; in 80x24 too ---
if screen | grep -q "latest run (2 of 2)" && keys c && wait_for "COMPARE run 1 of 2 with the latest" 3 &&
    screen | grep -q "run 1 of 2: ends at" && screen | grep -q "latest run (2 of 2): ends at" &&
    [ "$(screen | grep -c "time (")" = 1 ]; then
    $TM resize-window -t tui -x 80 -y 24 2>/dev/null
    sleep 0.5
    [ -n "${SHOTS:-}" ] && screen >"$SHOTS/timeline-compare-80x24.txt"
    if wait_for "run 1 of 2: ends at" 3 && screen | grep -q "latest run (2 of 2): ends at" &&
        screen | grep -q "default (legacy)" && keys c && wait_for "run 1 of 2 \(1 before the latest\)" 3 &&
        ! screen | grep -q "COMPARE"; then
        ok timeline_compares_two_runs_on_one_axis
    else nok timeline_compares_two_runs_on_one_axis "at 80x24, or c did not go back" "$(dump)"; fi
else nok timeline_compares_two_runs_on_one_axis "$(dump)"; fi

# --- heat: rgb-to-gray's solution reads 3-byte pixels byte by byte, which its layout needs ---
cp "$LESSONS/02-threads/solutions/rgb-to-gray.cu" "$WS/threads/rgb-to-gray.cu" 2>/dev/null ||
    cp "$LESSONS/02-threads/solutions/rgb-to-gray.cu" "$(ls "$WS"/*/rgb-to-gray.cu)"
if open rgb-to-gray 100 30 && keys r && wait_for "Exercise and result: PASS" 60 && screen | grep -q "heat:"; then
    # source lines are "  NN <heat> text"; a costly one carries █ right after its number
    [ -n "${SHOTS:-}" ] && screen >"$SHOTS/heat-rgb-to-gray.txt"
    if ! screen | grep -Eq "^ *[0-9]+ *█" && ! screen | grep -q "uncoalesced"; then ok heat_leaves_three_byte_pixels_unmarked
    else nok heat_leaves_three_byte_pixels_unmarked "$(dump)"; fi
else nok heat_leaves_three_byte_pixels_unmarked "$(dump)"; fi
