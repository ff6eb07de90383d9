#!/bin/sh
# tests/tui/test_tui_zh.sh: the workbench in Chinese, driven in a detached
# tmux: with a zh locale the map's own words (title, status words, status
# bar, where the files are), the exercise titles of every chapter and the
# help and a run's verdict are Chinese; so are the screens a run opens
# (timeline with its help, occupancy), the device and progress screens, with
# no English sentence of three words or more left outside code and file
# names; L switches all of it to English and back; the map says where the
# learner's files are. Prints ok / not ok / skip per case.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
CASES="zh_map_in_chinese zh_help_in_chinese zh_L_switches_everything_to_english zh_run_verdict_in_chinese
zh_timeline_in_chinese zh_timeline_help_in_chinese zh_occupancy_in_chinese zh_device_in_chinese zh_progress_in_chinese
map_shows_where_the_files_are"
if ! command -v tmux >/dev/null 2>&1; then
    for c in $CASES; do echo "skip - $c (tmux is not installed)"; done
    exit 0
fi
T=$(mktemp -d /tmp/cudojo-tuizh-XXXXXX)
SOCK="cudojo-tuizh-test-$$"
TM="tmux -L $SOCK -f /dev/null"
cleanup() { $TM kill-server 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT INT TERM
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache"
unset NO_COLOR VISUAL EDITOR LC_ALL LC_MESSAGES LANGUAGE
WS="$T/ws"
"$BIN" --lessons "$LESSONS" init "$WS" >/dev/null 2>&1 || { echo "not ok - setup (cudojo init failed)"; exit 0; }

ok() { echo "ok - $1"; }
nok() { name=$1; shift; echo "not ok - $name"; for l in "$@"; do echo "    $l"; done; }
screen() { $TM capture-pane -p -t tui 2>/dev/null; }
wait_for() { # PATTERN SECONDS: true once the screen matches (grep -E)
    i=0; lim=$(($2 * 10))
    while [ $i -lt $lim ]; do
        screen | grep -Eq -- "$1" && return 0
        sleep 0.1; i=$((i + 1))
    done
    return 1
}
start() { # LANG value, then the pattern the first screen shows
    $TM kill-server 2>/dev/null
    sleep 0.1
    $TM new-session -d -s tui -x 100 -y 30 "cd '$WS' && env LANG=$1 '$BIN' --backend=emu; sleep 30"
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
