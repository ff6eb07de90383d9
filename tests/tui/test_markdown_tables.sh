#!/bin/sh
# tests/tui/test_markdown_tables.sh: a lesson's pipe tables as a reader sees
# them in the workbench (tmux, 80x24): drawn with borders and no raw
# `| --- |` rows, the Chinese lesson's table with its bars in one column on
# every row (CJK counted 2 cells), and ASCII borders when the locale is not
# UTF-8. Prints ok / not ok / skip per case.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
CASES="lesson_table_drawn_with_borders chinese_lesson_table_columns_line_up lesson_table_in_ascii_when_locale_is_not_utf8"
if ! command -v tmux >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    for c in $CASES; do echo "skip - $c (tmux or python3 is not installed)"; done
    exit 0
fi
T=$(mktemp -d /tmp/cudojo-mdtable-XXXXXX)
SOCK="cudojo-mdtable-test-$$"
TM="tmux -L $SOCK -f /dev/null"
. "$(dirname "$0")/tmux.sh"
cleanup() { $TM kill-server 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT INT TERM
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache"
unset NO_COLOR VISUAL EDITOR LC_ALL LC_MESSAGES LC_CTYPE
WS="$T/ws"
"$BIN" --lessons "$LESSONS" init "$WS" >/dev/null 2>&1 || { echo "not ok - setup (cudojo init failed)"; exit 0; }

ok() { echo "ok - $1"; }
nok() { name=$1; shift; echo "not ok - $name"; for l in "$@"; do echo "    $l"; done; }
screen() { $TM capture-pane -p -t tui 2>/dev/null; }
# start LANG: a fresh workbench in the workspace under that locale.
start() {
    tm_fresh
    tm_new -d -s tui -x 80 -y 24 "cd '$WS' && env LANG=$1 '$BIN' --backend=emu; sleep 30"
    wait_for "Course map" 10
}
keys() { $TM send-keys -t tui "$@"; sleep 0.15; }
dump() { screen | sed 's/^/    | /'; }
# search TEXT: the lesson reader's search, so the table is on screen.
search() { keys / && keys -l "$1" && keys Enter && sleep 0.3; }

# Chapter 1's table of the four built-in variables.
start C.UTF-8
keys l
if wait_for "Lesson: Hello, GPU" 3 && search "four built-in variables" &&
    screen | grep -q "┌─" && screen | grep -Eq "│ blockDim.x +│ the number of threads in each block +│" &&
    screen | grep -q "├─" && ! screen | grep -q -- "| ---"; then ok lesson_table_drawn_with_borders
else nok lesson_table_drawn_with_borders "$(dump)"; fi

keys L
if wait_for "中文" 3 && search "四个内置变量" && screen | grep -q "blockDim.x" &&
    screen | python3 -c '
import sys, unicodedata
def w(s): return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
def bars(l): return [w(l[:i]) for i, c in enumerate(l) if c in "│┼┬┴├┤┌┐└┘"]
rows = [l for l in sys.stdin.read().split("\n") if l.count("│") >= 3]
cols = {tuple(bars(l)) for l in rows}
sys.exit(0 if len(rows) >= 4 and len(cols) == 1 else 1)'; then ok chinese_lesson_table_columns_line_up
else nok chinese_lesson_table_columns_line_up "$(dump)"; fi

start C
keys l
if wait_for "Lesson: Hello, GPU" 3 && search "four built-in variables" &&
    screen | grep -Eq "^ *\+-+\+-+\+" && screen | grep -Eq "\| blockDim.x +\| the number of threads in each block +\|"; then
    ok lesson_table_in_ascii_when_locale_is_not_utf8
else nok lesson_table_in_ascii_when_locale_is_not_utf8 "$(dump)"; fi
