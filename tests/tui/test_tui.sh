#!/bin/sh
# tests/tui/test_tui.sh: the workbench as a person sees it, driven inside a
# detached tmux (send-keys, capture-pane) on a fresh workspace, with runs on
# the emulator. Every wait is bounded; the private tmux server is killed at
# the end. Prints ok / not ok / skip per case.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
CASES="map_renders_80x24 help_shows_keys lesson_reader_and_search chinese_lesson_aligned exercise_fails_on_starter
save_runs_pass_without_key map_shows_passed_and_store_has_attempt hint_revealed_and_recorded solution_only_after_passing reset_asks_then_restores_starter esc_stops_a_run editor_key_runs_on_save
resize_60x20 resize_200x50 too_small_says_so no_color_draws_without_colour colour_by_default q_restores_terminal
sigterm_restores_terminal"
if ! command -v tmux >/dev/null 2>&1; then
    for c in $CASES; do echo "skip - $c (tmux is not installed)"; done
    exit 0
fi
T=$(mktemp -d /tmp/cudojo-tui-XXXXXX)
SOCK="cudojo-tui-test-$$"
TM="tmux -L $SOCK -f /dev/null"
. "$(dirname "$0")/tmux.sh"
cleanup() { $TM kill-server 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT INT TERM
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache"
unset NO_COLOR VISUAL EDITOR LC_ALL LC_MESSAGES
WS="$T/ws"
# Display widths (CJK) and the store's JSON are checked with python3 when there is one.
if command -v python3 >/dev/null 2>&1; then PY=python3; else PY=""; fi
py() { if [ -n "$PY" ]; then python3 "$@"; else return 0; fi; }
"$BIN" --lessons "$LESSONS" init "$WS" >/dev/null 2>&1 || { echo "not ok - setup (cudojo init failed)"; exit 0; }

ok() { echo "ok - $1"; }
nok() { name=$1; shift; echo "not ok - $name"; for l in "$@"; do echo "    $l"; done; }
screen() { $TM capture-pane -p -t tui 2>/dev/null; }
# start [ENV...]: a fresh session running the workbench in the workspace; after
# it exits the pane shows its status and whether the terminal is sane again.
start() {
    tm_fresh
    tm_new -d -s tui -x "${COLS:-80}" -y "${ROWS:-24}" \
        "cd '$WS' && env LANG=C.UTF-8 $* '$BIN' --backend=emu; echo \"EXITED rc=\$?\"; \
         stty -a | tr ' ;' '\n\n' | grep -Ex -- '-?icanon|-?echo' | tr '\n' ' '; echo; sleep 30"
    wait_for "Course map" 10
}
keys() { $TM send-keys -t tui "$@"; sleep 0.15; }
dump() { screen | sed 's/^/    | /'; }

# --- the map ---
if start && screen | grep -q "Hello, GPU" && screen | grep -q "Progress" && screen | grep -q "vector-add"; then
    ok map_renders_80x24
else nok map_renders_80x24 "$(dump)"; fi

keys '?'
if wait_for "Help" 3 && screen | grep -q "Enter" && screen | grep -q "quit"; then ok help_shows_keys
else nok help_shows_keys "$(dump)"; fi
keys q

# --- the lesson reader: open, search, the match is on screen ---
keys l
if wait_for "Lesson: Hello, GPU" 3 && screen | grep -q "Chapter 1" && keys / && keys -l "grid-stride loop" && keys Enter &&
    sleep 0.3 && screen | grep -qi "grid-stride loop"; then ok lesson_reader_and_search
else nok lesson_reader_and_search "$(dump)"; fi

# Chinese: L switches; every line fits the 80 columns and the right-aligned
# title text ends in the last column, so the CJK widths were counted right.
keys L
if wait_for "中文" 3 && wait_for "第 1 章" 3 &&
    screen | py -c '
import sys, unicodedata
def w(s): return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = sys.stdin.read().split("\n")
ok = all(w(l) <= 80 for l in lines) and w(lines[0].rstrip()) == 79 and any("章" in l for l in lines[1:])
sys.exit(0 if ok else 1)' 2>/dev/null; then ok chinese_lesson_aligned
else nok chinese_lesson_aligned "$(dump)"; fi
keys L
keys q

# --- the exercise view: the starter fails ---
# The map's cursor starts on the next exercise (hello-threads); vector-add is below it.
keys j
keys Enter
if wait_for "vector-add\.cu" 3 && keys r && wait_for "FAIL" 60; then ok exercise_fails_on_starter
else nok exercise_fails_on_starter "$(dump)"; fi

# The learner's editor saves the solution: PASS appears with no key pressed.
cp "$LESSONS/01-hello-gpu/solutions/vector-add.cu" "$WS/hello-gpu/vector-add.cu.tmp" &&
    mv "$WS/hello-gpu/vector-add.cu.tmp" "$WS/hello-gpu/vector-add.cu"
if wait_for "PASS" 60; then ok save_runs_pass_without_key
else nok save_runs_pass_without_key "$(dump)"; fi

keys q
out=$("$BIN" -C "$WS" list --json 2>/dev/null)
if wait_for "Course map" 3 && screen | grep -E "vector-add" | grep -q "passed" &&
    echo "$out" | py -c 'import json,sys; d=json.load(sys.stdin); e=[x for c in d["chapters"] for x in c["exercises"] if x["id"]=="vector-add"][0]; sys.exit(0 if e["status"]=="passed" and e["attempts"]>=2 else 1)'; then
    ok map_shows_passed_and_store_has_attempt
else nok map_shows_passed_and_store_has_attempt "$(dump)" "$out"; fi

# --- hints: one at a time, asked for (H, then y), recorded ---
keys g
keys j
keys Enter
wait_for "hello-threads\.cu" 3
keys H
wait_for "y/N" 3
keys y
out=$("$BIN" -C "$WS" progress --json 2>/dev/null)
if wait_for "Hints" 3 && screen | grep -Eq "^ 1\. [A-Za-z]" && ! screen | grep -Eq "^ 2\. " &&
    echo "$out" | py -c 'import json,sys; d=json.load(sys.stdin); e=[x for x in d["exercises"] if x["id"]=="hello-threads"]; sys.exit(0 if e and e[0]["hints_taken"]==1 else 1)'; then
    ok hint_revealed_and_recorded
else nok hint_revealed_and_recorded "$(dump)" "$out"; fi
keys q

# --- the solution opens only after a pass ---
keys g
keys j
keys Enter
wait_for "hello-threads\.cu" 3
keys s
if wait_for "once you have passed" 3 && ! screen | grep -q "Solution:"; then gate=1; else gate=0; fi
keys q
keys g
keys j
keys j
keys Enter
wait_for "vector-add\.cu" 3
keys s
if [ $gate = 1 ] && wait_for "Solution: vector-add" 3 && screen | grep -q "__global__"; then ok solution_only_after_passing
else nok solution_only_after_passing "$(dump)"; fi
keys q

# --- reset asks first, keeps a backup, brings the starter back ---
mine="$WS/hello-gpu/vector-add.cu"
keys x
asked=0
wait_for "y/N" 3 && asked=1     # the answer keys show at 80 columns, after the question cut short
keys n
cancelled=0
wait_for "reset cancelled" 3 && cmp -s "$mine" "$LESSONS/01-hello-gpu/solutions/vector-add.cu" && cancelled=1
keys x
wait_for "y/N" 3 || asked=0
keys y
if [ $asked = 1 ] && [ $cancelled = 1 ] && wait_for "starter again" 3 && cmp -s "$mine" "$LESSONS/01-hello-gpu/vector-add.cu" &&
    ls "$WS"/.cudojo/backups/vector-add.*.cu >/dev/null 2>&1; then ok reset_asks_then_restores_starter
else nok reset_asks_then_restores_starter "asked=$asked cancelled=$cancelled" "$(dump)"; fi
keys q

# --- a run that never ends shows a spinner and Esc stops it ---
keys g
keys j
keys j
keys Enter
wait_for "vector-add\.cu" 3
cat > "$WS/hello-gpu/vector-add.cu.tmp" <<'EOF_CU'
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    while (a[0] < 1e30f) { c[0] += 1.0f; }
}
EOF_CU
mv "$WS/hello-gpu/vector-add.cu.tmp" "$WS/hello-gpu/vector-add.cu"
if wait_for "running [0-9.]+ s" 10 && keys Escape && wait_for "CANCELLED" 3 && ! screen | grep -Eq "running [0-9.]+ s"; then
    ok esc_stops_a_run
else nok esc_stops_a_run "$(dump)"; fi
keys q

# --- e opens $VISUAL; its save is run (the "editor" here copies the solution in) ---
start "VISUAL='cp $LESSONS/01-hello-gpu/solutions/grid-stride.cu'" >/dev/null
keys g
keys j
keys j
keys j
keys Enter
if wait_for "grid-stride\.cu" 3 && keys e && wait_for "PASS" 60; then ok editor_key_runs_on_save
else nok editor_key_runs_on_save "$(dump)"; fi
keys q

# --- resizing: the screen is redrawn for the new size, nothing left over ---
keys Enter   # the map's cursor stayed on grid-stride
wait_for "grid-stride\.cu" 3
# Each size is judged on one capture, retried until it holds (wait_until):
# the workbench may draw twice after a resize.
fits_60x20() {
    s=$(screen)
    [ "$(echo "$s" | wc -l)" -eq 20 ] && echo "$s" | head -1 | grep -q "cudojo" && echo "$s" | grep -q "grid-stride" &&
        echo "$s" | py -c '
import sys, unicodedata
def w(s): return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
sys.exit(0 if all(w(l) <= 60 for l in sys.stdin.read().split("\n")) else 1)' 2>/dev/null
}
$TM resize-window -t tui -x 60 -y 20 2>/dev/null
if wait_until fits_60x20; then ok resize_60x20
else nok resize_60x20 "$(dump)"; fi

# Side by side at this width: the source and the result on the same rows.
side_by_side_200x50() {
    s=$(screen)
    [ "$(echo "$s" | wc -l)" -eq 50 ] && echo "$s" | head -1 | grep -q "cudojo" &&
        echo "$s" | grep -q "grid-stride\.cu.*│.*Exercise and result"
}
$TM resize-window -t tui -x 200 -y 50 2>/dev/null
if wait_until side_by_side_200x50; then ok resize_200x50
else nok resize_200x50 "$(dump)"; fi

$TM resize-window -t tui -x 30 -y 10 2>/dev/null
if wait_for "terminal too small" 3; then
    $TM resize-window -t tui -x 80 -y 24 2>/dev/null
    if wait_for "grid-stride\.cu" 3; then ok too_small_says_so
    else nok too_small_says_so "did not come back at 80x24" "$(dump)"; fi
else nok too_small_says_so "$(dump)"; fi

# --- colour: NO_COLOR draws with attributes only ---
# capture-pane -e shows SGR sequences: colours are 30-37/40-47/90-97/100-107 or
# 38;/48; parameters (39 and 49 only reset to the default colours).
has_colour() { $TM capture-pane -e -p -t tui | grep -Eq $(printf '\033')'\[([0-9;]*;)?(3[0-8]|4[0-8]|9[0-7]|10[0-7])(;[0-9;]*)?m'; }
start NO_COLOR=1 >/dev/null
if screen | grep -q "Course map" && ! has_colour && $TM capture-pane -e -p -t tui | grep -q $(printf '\033')'\[[0-9;]*7'; then
    ok no_color_draws_without_colour
else nok no_color_draws_without_colour "$($TM capture-pane -e -p -t tui | head -3 | od -c | head -5)"; fi

start >/dev/null
if has_colour; then ok colour_by_default
else nok colour_by_default "no colour sequences in the capture"; fi

# --- leaving: the terminal is given back (canonical mode and echo on) ---
keys q
if wait_for "EXITED rc=0" 5 && wait_for "^icanon echo|^echo icanon" 3; then ok q_restores_terminal
else nok q_restores_terminal "$(dump)"; fi

start >/dev/null
pid=$($TM list-panes -t tui -F '#{pane_pid}' | head -1)
tp=$(pgrep -P "$pid" -x cudojo 2>/dev/null | head -1)
[ -n "$tp" ] || tp=$(pgrep -P "$pid" 2>/dev/null | head -1)
if [ -n "$tp" ] && kill -TERM "$tp" && wait_for "EXITED rc=143" 5 && wait_for "^icanon echo|^echo icanon" 3; then
    ok sigterm_restores_terminal
else nok sigterm_restores_terminal "pid=$pid child=$tp" "$(dump)"; fi
