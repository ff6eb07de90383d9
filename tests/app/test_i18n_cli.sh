#!/bin/sh
# tests/app/test_i18n_cli.sh: the CLI in plain words and in Chinese: with a
# zh locale list, progress and run's verdict speak Chinese (exercise titles
# included); in English a verdict is said once ("FAIL: compile error"), list
# says where the learner's files are, and doctor on a machine without an
# NVIDIA driver says so; in Chinese doctor, verify (on a tiny pack made by
# `cudojo new`), --help, and the authors' and instructors' commands (new,
# lint, verify --mutants, grade, class), exec's usage errors and every
# command's --help leave no English sentence (three words in a row) while
# their --json stays English. Runs on the emulator. Prints
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
# the authors' and instructors' commands: a command line quoted in a message
# (cudojo new exercise intro ID, `cudojo new`) is a name, not a sentence
english_prose() { printf "%s\n" "$out" | sed -E 's/`[^`]*`//g; s/cudojo( [A-Za-z0-9_.\/-]+)+//g' |
    grep -E '[A-Za-z]{2,}[ ,:]+[A-Za-z]{2,}[ ,:]+[A-Za-z]{3,}'; }
check "new in Chinese: what it made and what is next, no English sentence" \
    "(cd $T/pack && $ZH $BIN new chapter second && $ZH $BIN new exercise second twice)" \
    '[ $rc = 0 ] && has "^已建好章 .second." && has "^已建好核函数练习 .twice." && has "^并已列进 " && [ -z "$(english_prose)" ]'
check "new's refusals in Chinese" "(cd $T/pack && $ZH $BIN new exercise second twice; $ZH $BIN new chapter 'bad id')" \
    'has "练习 id 在整个课程中唯一" && has "不是章 id" && [ -z "$(english_prose)" ]'
check "lint in Chinese: each problem and the tally, no English sentence" "(cd $T/pack && $ZH $BIN lint .)" \
    '[ $rc = 1 ] && has "TODO(author) 占位还在这里" && has "个问题，共 2 章" && [ -z "$(english_prose)" ]'
check "lint --json keeps English messages" "(cd $T/pack && $ZH $BIN lint . --json)" \
    '[ $rc = 1 ] && has "is still here" && ! has "占位"'
check "verify --mutants in Chinese: rows, progress and tally, no English sentence" \
    "(cd $T/pack && $ZH $BIN --backend=emu verify --mutants 01-intro)" \
    '[ $rc = 0 ] && has "个变异体：.* 个被杀死" && has "^变异体：" && has "^1 个练习，" && [ -z "$(english_prose)" ]'
"$BIN" --lessons "$T/pack" init "$T/learner" >/dev/null 2>&1
check "grade in Chinese: progress lines and the end-of-run summary, no English sentence" \
    "$ZH $BIN --backend=emu grade $T/learner --course $T/pack --out $T/graded" \
    '[ $rc = 0 ] && has "^grade：要做 " && has "^已为 1 名学员的 " && has "^成绩册：" && [ -z "$(english_prose)" ]'
check "class in Chinese: the written report's note and usage errors, no English sentence" \
    "$ZH $BIN class report $T/graded --html $T/report.html; $ZH $BIN class frob; $ZH $BIN class report" \
    'has "^班级报告已写入 " && has "未知子命令" && has "^用法：cudojo class report" && [ -z "$(english_prose)" ]'
check "exec's usage errors in Chinese, no English sentence" \
    "$ZH $BIN exec; $ZH $BIN exec --devices 99 x; $ZH $BIN exec no-such-program-here; $ZH $BIN exec --frob x" \
    'has "运行哪个程序" && has "1 到 16 之间" && has "在 PATH 中找不到" && has "未知选项" && [ -z "$(english_prose)" ]'
check "the authors' commands' summaries in Chinese in cudojo --help" "$ZH $BIN --help" \
    '[ $rc = 0 ] && has "供作者用：新建一章" && has "讲师用：按你的课程" && has "讲师用：根据评分数据库" && ! has "authors:" && ! has "instructors:"'
check "--help in Chinese: usage and every command's options, no English sentence in them" "$ZH $BIN doctor --help" \
    '[ $rc = 0 ] && has "^用法：cudojo doctor" && has "所有命令都接受的选项" && [ -z "$(english)" ]'
# every command cudojo --help lists (tests/app/test_cli_help.c checks the catalogue has each one's text)
cmds=$($EN "$BIN" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
bad=""
for c in $cmds; do
    out=$($ZH "$BIN" "$c" --help 2>&1) || { bad="$bad $c(status $?)"; continue; }
    e=$(printf "%s\n" "$out" | sed -E 's/Chrome trace JSON//g; s/new (chapter|exercise)( [A-Z]+)+//g' | { out=$(cat); english_prose; })
    printf "%s\n" "$out" | grep -q "^用法：cudojo $c" || bad="$bad $c(no Chinese usage line)"
    [ -z "$e" ] || bad="$bad $c: $e"
done
if [ "$(printf "%s\n" $cmds | wc -l)" -ge 15 ] && [ -z "$bad" ]; then
    ok "every command's --help in Chinese ($(printf "%s " $cmds)), no English sentence"
else
    nok "every command's --help in Chinese, no English sentence" "commands: $(printf "%s " $cmds)" "$bad"
fi
EMURT=${CUDOJO_EMURT_DIR:-$(cd "$(dirname "$BIN")" && pwd)/emurt}
if [ -f "$EMURT/libcudart.so.13" ]; then
    check "exec's summary in Chinese: where it ran and how it ended" \
        "$ZH CUDOJO_EMURT_DIR=$EMURT $BIN --backend=emu exec sh -c 'exit 3'" \
        '[ $rc = 3 ] && has "^cudojo exec：sh 运行在" && has "以状态 3 退出" && ! has "exited with"'
else
    echo "skip - exec's summary in Chinese (the emulator runtime is not built in $EMURT)"
fi
