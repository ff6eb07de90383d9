#!/bin/sh
# tests/app/test_i18n_cli.sh: the CLI in plain words and in Chinese: with a
# zh locale list, progress and run's verdict speak Chinese (exercise titles
# included); in English a verdict is said once ("FAIL: compile error"), list
# says where the learner's files are, and doctor on a machine without an
# NVIDIA driver says so; in Chinese doctor, verify (on a tiny pack made by
# `cudojo new`) and --help leave no English sentence (three words in a row)
# while their --json stays English. Runs on the emulator. Prints
# ok/not ok/skip per case.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
T=$(mktemp -d /tmp/cudojo-i18n-XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" NO_COLOR=1
unset LANGUAGE LC_ALL LC_MESSAGES
ZH="env LANG=zh_CN.UTF-8"
EN="env LANG=C.UTF-8"
cd "$T" || exit 1
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }
check() { # name, command (string), then a test expression on $out/$rc
    name=$1; cmd=$2; test=$3
    out=$(eval "$cmd" 2>&1); rc=$?
    if eval "$test"; then ok "$name"; else nok "$name" "rc=$rc" "$(printf "%s\n" "$out" | head -20)"; fi
}
has() { printf "%s\n" "$out" | grep -q -- "$1"; }

"$BIN" --lessons "$LESSONS" init ws >/dev/null 2>&1 || { echo "not ok - setup (cudojo init failed)"; exit 0; }
cd ws || exit 1
"$BIN" --backend=emu run vector-add >/dev/null 2>&1

check "list in Chinese: workspace, chapter and exercise titles, status words" "$ZH $BIN list" \
    '[ $rc = 0 ] && has "^工作区 " && has "线程、线程块与网格" && has "二维网格" && has "未开始" && has "已通过 0/" &&
     ! has "not started" && ! has "exercises passed"'
check "list in English says where the files are" "$EN $BIN list" \
    '[ $rc = 0 ] && has "^Workspace $T/ws (your files are here)" && has "A 2-D grid" && has "not started"'
check "list --json stays English whatever the locale" "$ZH $BIN list --json" \
    '[ $rc = 0 ] && has "\"status\": \"not started\"" && ! has "未开始"'
check "progress in Chinese: headings, status words, totals" "$ZH $BIN progress" \
    '[ $rc = 0 ] && has "练习" && has "状态" && has "未通过" && has "尝试 1 次" && ! has "attempts"'
check "progress in English says 1 attempt, not 1 attempts" "$EN $BIN progress" \
    '[ $rc = 0 ] && has "1 attempt, " && ! has "1 attempts"'
check "run's verdict in Chinese" "$ZH $BIN --backend=emu run vector-add" \
    '[ $rc = 1 ] && has "^未通过 " && has "向量加法" && has "卡住了" && ! has "FAIL"'
check "a plain failure says FAIL once, not FAIL (fail)" "$EN $BIN --backend=emu run vector-add" \
    '[ $rc = 1 ] && has "^FAIL " && ! has "(fail)"'
cp hello-gpu/vector-add.cu keep.cu
printf '__device__ int x = ;\n' >> hello-gpu/vector-add.cu
check "a compile error says what failed in words" "$EN $BIN --backend=emu run vector-add" \
    '[ $rc = 1 ] && has "^FAIL: compile error " && ! has "compile-error"'
check "a compile error in Chinese" "$ZH $BIN --backend=emu run vector-add" \
    '[ $rc = 1 ] && has "^未通过：编译错误 "'
mv keep.cu hello-gpu/vector-add.cu
check "hint headings in Chinese" "$ZH $BIN hint vector-add" '[ $rc = 0 ] && has "^提示 1/"'
if [ -e /dev/nvidiactl ]; then
    echo "skip - doctor says no NVIDIA driver is installed (this machine has one)"
else
    check "doctor says no NVIDIA driver is installed" "$EN $BIN doctor" \
        '[ $rc = 0 ] && has "no NVIDIA driver found" && has "running on the emulator" && ! has "insufficient"'
fi

# an English sentence left: three words in a row (names and paths have none)
english() { printf "%s\n" "$out" | grep -E '[A-Za-z]{2,}[ ,:]+[A-Za-z]{2,}[ ,:]+[A-Za-z]{3,}'; }
check "doctor in Chinese: headings, backends, the no-GPU reason, no English sentence" "$ZH $BIN doctor" \
    '[ $rc = 0 ] && has "^CUDA 工具包 " && has "^后端" && has "运行将使用：" && has "模拟器" && [ -z "$(english)" ]'
check "doctor --json stays English whatever the locale" "$ZH $BIN doctor --json" \
    '[ $rc = 0 ] && has "\"works\": true" && ! has "可用" && ! has "模拟器"'
mkdir -p "$T/pack" && (cd "$T/pack" && "$BIN" new chapter intro && "$BIN" new exercise intro scale) >/dev/null 2>&1
check "verify in Chinese: roles, verdicts in words, the tally, no English sentence" \
    "(cd $T/pack && $ZH $BIN --backend=emu verify 01-intro)" \
    '[ $rc = 0 ] && has "参考解答 01-intro/solutions/scale.cu .* 通过" && has "起始代码 " && has "错误变体 " &&
     has "^3 个符合预期，0 个不符合" && [ -z "$(english)" ]'
check "verify --json keeps English roles and verdicts" "(cd $T/pack && $ZH $BIN --backend=emu verify 01-intro --json)" \
    '[ $rc = 0 ] && has "\"role\": \"starter\"" && has "\"verdict\": \"pass\"" && ! has "参考解答"'
check "--help in Chinese: usage and every command's options, no English sentence in them" "$ZH $BIN doctor --help" \
    '[ $rc = 0 ] && has "^用法：cudojo doctor" && has "所有命令都接受的选项" && [ -z "$(english)" ]'
EMURT=${CUDOJO_EMURT_DIR:-$(cd "$(dirname "$BIN")" && pwd)/emurt}
if [ -f "$EMURT/libcudart.so.13" ]; then
    check "exec's summary in Chinese: where it ran and how it ended" \
        "$ZH CUDOJO_EMURT_DIR=$EMURT $BIN --backend=emu exec sh -c 'exit 3'" \
        '[ $rc = 3 ] && has "^cudojo exec：sh 运行在" && has "以状态 3 退出" && ! has "exited with"'
else
    echo "skip - exec's summary in Chinese (the emulator runtime is not built in $EMURT)"
fi
