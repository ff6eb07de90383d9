#!/bin/sh
# tests/tui/test_class_tui.sh: the class report screen (`cudojo class report
# GRADEDB --tui`) in a detached 80x24 tmux: it shows the summary, the
# histogram and the exercise table; j/G scroll down to the similar groups
# and problems (a hostile name shown harmless); a resize lays it out again;
# q leaves with status 0, and so does Esc; in Chinese (LANG=zh_CN.UTF-8,
# installed or not) the failure kinds are words and the table's headings end
# in their columns' last column (display width). Without a terminal --tui
# says so.
# Prints ok / not ok / skip per case.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
CASES="tui_needs_a_terminal shows_summary_histogram_and_table scrolls_to_groups_and_problems resize_relays q_leaves
esc_leaves zh_headings_line_up"
T=$(mktemp -d /tmp/cudojo-ctui-XXXXXX)
SOCK="cudojo-ctui-test-$$"
TM="tmux -L $SOCK -f /dev/null"
. "$(dirname "$0")/tmux.sh"
cleanup() { $TM kill-server 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT INT TERM
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache"
unset NO_COLOR LC_ALL LC_MESSAGES LANGUAGE
ok() { echo "ok - $1"; }
nok() { name=$1; shift; echo "not ok - $name"; for l in "$@"; do echo "    $l"; done; }

# Twelve students (enough rows to scroll in 24 lines), three exercises.
python3 - "$T/gradebook.json" <<'EOF'
import json, sys
ex = [{"id": i, "points": 1, "kind": "kernel"} for i in ("vector-add", "block-sum", "transpose-tiled")]
kinds = ["race", "out-of-bounds", "wrong-result", "too-slow"]
students = []
for s in range(12):
    name = "student%02d" % s if s != 5 else "mallory\u001b[31m<b>"
    runs = {}
    for k, e in enumerate(ex):
        ok = k < s % 4   # totals 0, 1, 2, 3 of 3
        runs[e["id"]] = {"verdict": "pass" if ok else "fail", "failure_kind": None if ok else kinds[(s + k) % 4],
                         "fast": ok and s % 2 == 0}
    total = sum(1 for r in runs.values() if r["verdict"] == "pass")
    students.append({"student": name, "total": total, "max_total": 3, "exercises": runs, "progress": None,
                     "problems": ["two submissions: the later one is graded"] if s == 5 else []})
json.dump({"format": "cudojo-gradebook", "format_version": 1, "course_version": "abc", "backend": "emu",
           "exercises": ex, "students": students,
           "similarity": [{"exercise": "block-sum", "students": ["mallory\u001b[31m<b>", "student07"],
                           "fingerprint": "ff", "tokens": 61}]}, open(sys.argv[1], "w"))
EOF

"$BIN" class report "$T/gradebook.json" --tui </dev/null >"$T/out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q "needs a terminal" "$T/out"; then ok tui_needs_a_terminal
else nok tui_needs_a_terminal "status $rc" "$(cat "$T/out")"; fi

if ! command -v tmux >/dev/null 2>&1; then
    for c in $CASES; do [ $c = tui_needs_a_terminal ] || echo "skip - $c (tmux is not installed)"; done
    exit 0
fi
S=tui
screen() { $TM capture-pane -p -t $S 2>/dev/null; }
wait_for() {
    i=0; lim=$(($2 * 10))
    while [ $i -lt $lim ]; do
        screen | grep -Eq -- "$1" && return 0
        sleep 0.1; i=$((i + 1))
    done
    return 1
}
keys() { $TM send-keys -t $S "$@"; sleep 0.3; }
dump() { screen | sed 's/^/    | /'; }
start() { # session name [LANG [what the first screen shows]]
    S=$1
    tm_new -d -s $S -x 80 -y 24 \
        "env LANG=${2:-C.UTF-8} '$BIN' class report '$T/gradebook.json' --tui; echo \"EXITED \$?\"; sleep 30"
    wait_for "${3:-Class report: 12 students}" 10
}

start tui
if screen | grep -q "cudojo — Class report" && screen | grep -Eq "90–100% +(█)+ +[0-9]" &&
    screen | grep -Eq "vector-add +9/12  75%" && screen | grep -q "q leave"
then ok shows_summary_histogram_and_table
else nok shows_summary_histogram_and_table "$(dump)"; fi

keys G
if wait_for "Problems with submissions" 3 && screen | grep -q "block-sum: mallory^\[\[31m<b>, student07 (61 tokens)" &&
    screen | grep -q "mallory^\[\[31m<b>: two submissions" && ! screen | grep -q "Scores (share"
then ok scrolls_to_groups_and_problems
else nok scrolls_to_groups_and_problems "$(dump)"; fi

keys g
$TM resize-window -t $S -x 60 -y 30 2>/dev/null
sleep 0.5
if wait_for "Class report: 12 students" 3 && python3 -c '
import sys, unicodedata
w = lambda s: sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = sys.stdin.read().split("\n")
sys.exit(0 if all(w(l) <= 60 for l in lines) and any("vector-add" in l for l in lines) else 1)' <<EOF
$(screen)
EOF
then ok resize_relays
else nok resize_relays "$(dump)"; fi

keys q
if wait_for "EXITED 0" 3; then ok q_leaves
else nok q_leaves "$(dump)"; fi

start tui2
keys Escape
if wait_for "EXITED 0" 3; then ok esc_leaves
else nok esc_leaves "$(dump)"; fi

start tui3 zh_CN.UTF-8 "班级报告：12 名"
if screen | grep -q "未通过：" && screen | grep -Eq "数据竞争|越界|结果错误|太慢" && ! screen | grep -Eq "wrong-result|too-slow" &&
    python3 -c '
import sys, unicodedata
w = lambda s: sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = sys.stdin.read().split("\n")
h = next(i for i, l in enumerate(lines) if "已通过" in l and "通过用时" in l)
head, row = lines[h], next(l for l in lines[h + 1:] if "vector-add" in l)
def ends(l, words):
    out, at = [], 0
    for x in words:
        at = l.index(x, at) + len(x)
        out.append(w(l[:at]))
    return out
cells = row.split()
want, got = ends(head, ["已通过", "快速", "尝试次数", "通过用时"]), ends(row, cells[2:6])
sys.exit(0 if want == got else print(want, got) or 1)' <<EOF
$(screen)
EOF
then ok zh_headings_line_up
else nok zh_headings_line_up "$(dump)"; fi
