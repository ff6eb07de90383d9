#!/bin/sh
# tests/tui/test_tui_zh.sh: the workbench in Chinese, driven in a detached
# tmux: with a zh locale the map's own words (title, status words, status
# bar, where the files are), the exercise titles of every chapter and the
# help and a run's verdict are Chinese; so are the screens a run opens
# (timeline with its help, occupancy), the device and progress screens, with
# no English sentence of three words or more left outside code and file
# names; L switches all of it to English and back; the map says where the
# learner's files are; the access map's columns line up with Chinese
# headings (padded by display width, not bytes). Prints ok / not ok / skip
# per case.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
CASES="zh_map_in_chinese zh_help_in_chinese zh_L_switches_everything_to_english zh_run_verdict_in_chinese
zh_timeline_in_chinese zh_timeline_help_in_chinese zh_occupancy_in_chinese zh_device_in_chinese zh_progress_in_chinese
map_shows_where_the_files_are zh_access_map_columns_line_up"
if ! command -v tmux >/dev/null 2>&1; then
    for c in $CASES; do echo "skip - $c (tmux is not installed)"; done
    exit 0
fi
T=$(mktemp -d /tmp/cudojo-tuizh-XXXXXX)
SOCK="cudojo-tuizh-test-$$"
TM="tmux -L $SOCK -f /dev/null"
. "$(dirname "$0")/tmux.sh"
cleanup() { $TM kill-server 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT INT TERM
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache"
unset NO_COLOR VISUAL EDITOR LC_ALL LC_MESSAGES LANGUAGE
WS="$T/ws"
"$BIN" --lessons "$LESSONS" init "$WS" >/dev/null 2>&1 || { echo "not ok - setup (cudojo init failed)"; exit 0; }

ok() { echo "ok - $1"; }
nok() { name=$1; shift; echo "not ok - $name"; for l in "$@"; do echo "    $l"; done; }
screen() { $TM capture-pane -p -t tui 2>/dev/null; }
start() { # LANG value, then the pattern the first screen shows
    tm_fresh
    tm_new -d -s tui -x 100 -y 30 "cd '$WS' && env LANG=$1 '$BIN' --backend=emu; sleep 30"
    wait_for "$2" 10
}
keys() { $TM send-keys -t tui "$@"; sleep 0.15; }
dump() { screen | sed 's/^/    | /'; }
# English left on the screen (or stdin's lines): three words of letters in a
# row, once code and file names (a word with / . _ - or a digit: vector_add,
# sm_90, a -> device, /usr/local/cuda) are set aside. Prints them.
english() {
    sed -E 's/[^ ]*[/._0-9-][^ ]*/ # /g' | grep -Eo '[A-Za-z]{2,}( [A-Za-z]{2,}){2,}'
}
no_english() { # the screen has no English sentence; else prints it for the report
    e=$(screen | english)
    [ -z "$e" ] && return 0
    echo "    English left: $e"
    return 1
}

# Chapter 2's exercises had English titles only; the map shows them in Chinese now.
if start zh_CN.UTF-8 "课程地图" && screen | grep -q "你好，GPU" && screen | grep -q "未开始" &&
    screen | grep -q "进度" && screen | grep -q "q 退出" && screen | grep -q "你的文件：" &&
    screen | grep -q "二维网格：逐像素把彩色转成灰度" && ! screen | grep -q "not started"; then
    ok zh_map_in_chinese
else nok zh_map_in_chinese "$(dump)"; fi

keys '?'
if wait_for "所有界面" 3 && screen | grep -q "课程地图" && screen | grep -q "跳到下一个要做的练习"; then
    ok zh_help_in_chinese
else nok zh_help_in_chinese "$(dump)"; fi
keys q

keys L
if wait_for "Course map" 3 && screen | grep -q "not started" && screen | grep -q "Hello, GPU" &&
    ! screen | grep -q "未开始" && keys L && wait_for "课程地图" 3 && screen | grep -q "未开始"; then
    ok zh_L_switches_everything_to_english
else nok zh_L_switches_everything_to_english "$(dump)"; fi

# vector-add's starter fails: the result pane says so in Chinese (verdict, sections).
keys j
keys Enter
if wait_for "vector-add\.cu" 3 && keys r && wait_for "✗ 未通过" 60 && screen | grep -q "检查" && ! screen | grep -q "FAIL"; then
    ok zh_run_verdict_in_chinese
else nok zh_run_verdict_in_chinese "$(dump)"; fi

# The run's timeline: banner, legend, the default stream, a copy's name and its details.
keys t
if wait_for "时间线：" 5 && screen | grep -q "模型估算，不是实测" && screen | grep -q "核函数" &&
    screen | grep -q "默认流（传统）" && screen | grep -q "拷贝 a -> 设备" && screen | grep -q "开始 .* 耗时 .* 结束" &&
    no_english; then
    ok zh_timeline_in_chinese
else nok zh_timeline_in_chinese "$(dump)"; fi
keys '?'
if wait_for "帮助：时间线" 3 && screen | grep -q "放大 / 缩小" && screen | grep -q "模型估算 *模拟器" && no_english; then
    ok zh_timeline_help_in_chinese
else nok zh_timeline_help_in_chinese "$(dump)"; fi
keys q
keys q

# Occupancy of the run's kernel: headings, the limiter and why, the chart.
keys o
if wait_for "占用率：" 5 && screen | grep -q "核函数 *vector_add" && screen | grep -q "限制因素：线程束" &&
    screen | grep -q "线程束槽位" && screen | grep -q "占用率随线程块大小" && no_english; then
    ok zh_occupancy_in_chinese
else nok zh_occupancy_in_chinese "$(dump)"; fi
keys q

# The device screen, once the doctor has answered.
keys D
if wait_for "工具包" 20 && screen | grep -q "这个工作台" && screen | grep -q "后端" && screen | grep -q "emu  *可用" &&
    no_english; then
    ok zh_device_in_chinese
else nok zh_device_in_chinese "$(dump)"; fi
keys q

keys P
if wait_for "已通过 0/" 5 && screen | grep -q "状态" && screen | grep -q "vector-add  *未通过" && no_english; then
    ok zh_progress_in_chinese
else nok zh_progress_in_chinese "$(dump)"; fi
keys q

if start C.UTF-8 "Course map" && screen | grep -Eq "Your files: (~|$T)"; then ok map_shows_where_the_files_are
else nok map_shows_where_the_files_are "$(dump)"; fi

# cudojo run --explain in Chinese on the unpadded transpose (a 32-way bank
# conflict): the lanes table's second column starts at the same display
# column in its heading (lane 下标  bank) and its rows, and the bank grid's
# first bank number is over its first lane number (bank / lane 号 rows).
NOPAD="$LESSONS/04-shared-memory/solutions/wrong/transpose-tiled-no-padding.cu"
(cd "$WS" && env LANG=zh_CN.UTF-8 "$BIN" --lessons "$LESSONS" run transpose-tiled --file "$NOPAD" --explain worst) \
    >"$T/am.txt" 2>&1
if ! command -v python3 >/dev/null 2>&1; then echo "skip - zh_access_map_columns_line_up (python3 is not installed)"
elif why=$(python3 - "$T/am.txt" <<'PY'
import sys, unicodedata
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
def cols(s):   # display columns, as a terminal counts them
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
def first_digit(s):
    return next((cols(s[:i]) for i, c in enumerate(s) if c.isdigit()), -1)
head = next((i for i, l in enumerate(lines) if l.startswith("lane 下标  bank")), None)
grid = next((i for i, l in enumerate(lines) if l.strip().startswith("bank ") and l.strip()[5:].strip()[:1] == "0"), None)
if head is None or grid is None or not lines[grid + 1].strip().startswith("lane 号"):
    print("no lanes table or bank grid in Chinese"); sys.exit(1)
h, r = lines[head], lines[head + 1]
second_head = cols(h[:h.index("lane", 1)])
rest = r[19:].lstrip()   # a row's second cell: its lane number right-aligned in 4 columns from column 19
second_row = cols(r[:len(r) - len(rest)]) + len(rest) - len(rest.lstrip("0123456789")) if len(r) > 19 else -1
if second_head != 19 or second_row != 23:   # cells are 17 columns wide and 2 apart
    print("lanes table: heading's second column at %d, a row's lane number ends at %d" % (second_head, second_row))
    sys.exit(1)
if first_digit(lines[grid]) != first_digit(lines[grid + 1]):
    print("bank grid: bank 0 at column %d, its lane at %d" % (first_digit(lines[grid]), first_digit(lines[grid + 1])))
    sys.exit(1)
PY
); then ok zh_access_map_columns_line_up
else nok zh_access_map_columns_line_up "$why" "$(head -30 "$T/am.txt")"; fi
