#!/bin/sh
# tests/tui/test_timeline.sh: the timeline screen (t in the exercise view)
# driven in a detached tmux on a fresh workspace with runs on the emulator,
# and `cudojo run --trace`. Before a run the screen says what to do; after
# one it shows the host and stream rows, a time axis with its unit and the
# word MODELED; + zooms (the axis and the zoom change), Tab moves the cursor
# (the detail line changes), a resize redraws, q goes back. --trace writes
# Chrome trace JSON, refuses a bad path with status 2 and writes nothing
# for a run without a timeline. Prints ok / not ok / skip per case.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
ENGINE_CASES="trace_writes_chrome_json trace_bad_path_is_status_2 timeline_shows_rows_axis_and_modeled
zoom_changes_axis cursor_changes_detail resize_redraws q_goes_back"
CASES="timeline_without_run_says_so trace_without_timeline_says_why $ENGINE_CASES"
if ! command -v tmux >/dev/null 2>&1; then
    for c in $CASES; do echo "skip - $c (tmux is not installed)"; done
    exit 0
fi
T=$(mktemp -d /tmp/cudojo-tl-XXXXXX)
SOCK="cudojo-tl-test-$$"
TM="tmux -L $SOCK -f /dev/null"
. "$(dirname "$0")/tmux.sh"
cleanup() { $TM kill-server 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT INT TERM
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache"
unset NO_COLOR VISUAL EDITOR LC_ALL LC_MESSAGES
WS="$T/ws"
"$BIN" --lessons "$LESSONS" init "$WS" >/dev/null 2>&1 || { echo "not ok - setup (cudojo init failed)"; exit 0; }
cd "$WS" || exit 0

ok() { echo "ok - $1"; }
nok() { name=$1; shift; echo "not ok - $name"; for l in "$@"; do echo "    $l"; done; }
screen() { $TM capture-pane -p -t tui 2>/dev/null; }
keys() { $TM send-keys -t tui "$@"; sleep 0.3; }
dump() { screen | sed 's/^/    | /'; }
valid_trace() { # file: Chrome trace JSON with complete events and named rows
    python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
ev = t["traceEvents"]
x = [e for e in ev if e["ph"] == "X"]
m = [e for e in ev if e["ph"] == "M" and e["name"] == "thread_name"]
assert x and m and all(k in e for e in x for k in ("name", "ts", "dur", "pid", "tid"))
' "$1" 2>/dev/null
}

# A run whose kernel does not compile has no timeline: --trace says why and writes nothing.
printf '__global__ void vector_add( {\n' >"$T/broken.cu"
"$BIN" --lessons "$LESSONS" --backend=emu run vector-add --file "$T/broken.cu" --trace "$T/none.json" \
    >/dev/null 2>"$T/err"
if [ ! -e "$T/none.json" ] && grep -q "not written: the kernel did not compile" "$T/err"; then
    ok trace_without_timeline_says_why
else nok trace_without_timeline_says_why "$(cat "$T/err")"; fi

# Does the engine return a timeline yet? (The screen and the trace need one.)
"$BIN" --lessons "$LESSONS" --backend=emu run vector-add --json >"$T/run.json" 2>/dev/null
HAVE_TL=0
python3 -c '
import json, sys
tl = json.load(open(sys.argv[1])).get("metrics", {}).get("timeline")
sys.exit(0 if tl and tl.get("events") else 1)' "$T/run.json" 2>/dev/null && HAVE_TL=1

if [ $HAVE_TL = 1 ]; then
    "$BIN" --lessons "$LESSONS" --backend=emu run vector-add --trace "$T/t.json" >"$T/out" 2>&1
    if valid_trace "$T/t.json" && grep -q "MODELED" "$T/t.json" && grep -q "written to" "$T/out"; then
        ok trace_writes_chrome_json
    else nok trace_writes_chrome_json "$(cat "$T/out")"; fi
    # A bad path: status 2 and a clear error, but the attempt is still recorded.
    n0=$("$BIN" --lessons "$LESSONS" progress --json 2>/dev/null | grep -c '"when_unix_ms"')
    "$BIN" --lessons "$LESSONS" --backend=emu run vector-add --trace "$T/no/such/dir/t.json" >/dev/null 2>"$T/err"
    rc=$?
    n1=$("$BIN" --lessons "$LESSONS" progress --json 2>/dev/null | grep -c '"when_unix_ms"')
    if [ $rc = 2 ] && grep -q "cannot write $T/no/such/dir/t.json" "$T/err" && [ ! -e "$T/no/such/dir/t.json" ] &&
        [ "$n1" = $((n0 + 1)) ]; then
        ok trace_bad_path_is_status_2
    else nok trace_bad_path_is_status_2 "status $rc, attempts $n0 -> $n1" "$(cat "$T/err")"; fi
fi

tm_new -d -s tui -x 80 -y 24 "cd '$WS' && env LANG=C.UTF-8 '$BIN' --lessons '$LESSONS' --backend=emu; sleep 30"
wait_for "Course map" 10

# The first exercise, never run: t says what to do.
keys Enter
if wait_for "hello-threads\.cu" 5 && keys t && wait_for "Timeline: " 3 && screen | grep -q "No run yet"
then ok timeline_without_run_says_so
else nok timeline_without_run_says_so "$(dump)"; fi
keys q
# On to vector-add (copies in, a kernel, a copy out).
keys ']'
wait_for "vector-add\.cu" 5

if [ $HAVE_TL = 0 ]; then
    for c in $ENGINE_CASES; do echo "skip - $c (engine emits no timeline yet)"; done
    keys q q q
    exit 0
fi

keys r
if wait_for "FAIL|PASS" 60 && keys t && wait_for "Timeline: " 3 && screen | grep -q "MODELED" &&
    screen | grep -Eq "^.host " && screen | grep -Eq "^.0 default" && screen | grep -Eq "time \((µs|ms|s|ns)\)" &&
    screen | grep -q "┬" && screen | grep -Eq "»|█"
then ok timeline_shows_rows_axis_and_modeled
else nok timeline_shows_rows_axis_and_modeled "$(dump)"; fi

axis_before=$(screen | grep "time (")
keys +
if wait_for "zoom ×2.0" 3 && [ "$(screen | grep "time (")" != "$axis_before" ]; then ok zoom_changes_axis
else nok zoom_changes_axis "before: $axis_before" "$(dump)"; fi

detail_before=$(screen | grep "duration")
keys Tab
if wait_for "bar 2 of" 3 && [ "$(screen | grep "duration")" != "$detail_before" ] &&
    screen | grep -Eq "start .* duration .* end "
then ok cursor_changes_detail
else nok cursor_changes_detail "before: $detail_before" "$(dump)"; fi

# redrawn_at ROWS COLS: one capture of the timeline at that size, every
# line within COLS columns (retried by wait_until: a resize may draw twice)
redrawn_at() {
    s=$(screen)
    [ "$(printf "%s\n" "$s" | wc -l)" -eq "$1" ] && printf "%s\n" "$s" | grep -q "Timeline: " &&
        printf "%s\n" "$s" | grep -q "time (" && printf "%s\n" "$s" | grep -q "bar 2 of" &&
        printf "%s\n" "$s" | python3 -c '
import sys, unicodedata
w = lambda s: sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
sys.exit(0 if all(w(l) <= int(sys.argv[1]) for l in sys.stdin.read().split("\n")) else 1)' "$2"
}
$TM resize-window -t tui -x 120 -y 36 2>/dev/null
if wait_until "redrawn_at 36 120" && $TM resize-window -t tui -x 80 -y 24 2>/dev/null &&
    wait_until "redrawn_at 24 80"
then ok resize_redraws
else nok resize_redraws "$(dump)"; fi

keys q
if wait_for "vector-add\.cu" 3 && ! screen | grep -q "Timeline: "; then ok q_goes_back
else nok q_goes_back "$(dump)"; fi
keys q q q
