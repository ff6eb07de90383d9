#!/bin/sh
# tests/app/test_run_target.sh: which file run, debug and watch (and reset,
# hint) use when EXERCISE is written as a file: the learner's workspace copy
# runs and is recorded as with the id; another file (a solution, a copy
# elsewhere) runs instead, unrecorded, and the command says so on stderr; a
# file that does not exist is an error naming it; reset refuses another file.
# And --block/--warp mean the same to run --explain and debug. Runs on the
# emulator. Prints ok/not ok/skip per case.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
T=$(mktemp -d /tmp/cudojo-target-XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" NO_COLOR=1 LANG=C.UTF-8
unset LANGUAGE LC_ALL LC_MESSAGES
cd "$T" || exit 1
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }
check() { # name, command (string), then a test expression on $out/$rc (stdout and stderr) and $err (stderr)
    name=$1; cmd=$2; test=$3
    out=$(eval "$cmd" 2>"$T/err"); rc=$?
    err=$(cat "$T/err"); out="$out
$err"
    if eval "$test"; then ok "$name"; else nok "$name" "rc=$rc" "$(printf "%s\n" "$out" | head -20)"; fi
}
has() { printf "%s\n" "$out" | grep -q -- "$1"; }
err_has() { printf "%s\n" "$err" | grep -q -- "$1"; }
attempts() { # how many attempts of vector-add the progress store holds
    "$BIN" progress --json 2>/dev/null | python3 -c "
import json, sys
d = json.load(sys.stdin)
print(sum(len(e['attempts']) for e in d['exercises'] if e['id'] == 'vector-add'))"; }

"$BIN" --lessons "$LESSONS" init ws >/dev/null 2>&1 || { echo "not ok - setup (cudojo init failed)"; exit 0; }
cd ws || exit 1
SOL=$LESSONS/01-hello-gpu/solutions/vector-add.cu
mkdir -p "$T/elsewhere" && printf '__global__ void broken( {\n' > "$T/elsewhere/vector-add.cu"

n0=$(attempts)
check "run of another file (the solution) runs that file, says so and records nothing" \
    "$BIN --backend=emu run $SOL" \
    '[ $rc = 0 ] && has "^PASS" && err_has "is not your copy of vector-add (hello-gpu/vector-add.cu): running it instead, not recorded" &&
     [ "$(attempts)" = "$n0" ]'
check "run of the workspace copy by its path is the exercise as usual: recorded, no note" \
    "$BIN --backend=emu run hello-gpu/vector-add.cu" \
    '[ $rc = 1 ] && has "^FAIL" && ! err_has "not your copy" && [ "$(attempts)" = "$((n0 + 1))" ]'
check "run of the workspace copy from inside its chapter folder is the exercise too" \
    "cd hello-gpu && $BIN --backend=emu run ./vector-add.cu" \
    '[ $rc = 1 ] && has "^FAIL" && ! err_has "not your copy"'
check "run of a file that does not exist is an error naming it" \
    "$BIN --backend=emu run nosuch/vector-add.cu" \
    '[ $rc = 2 ] && err_has "error: nosuch/vector-add.cu: no such file" && ! has "FAIL"'
check "run of a missing file named like an exercise says where the copy is" \
    "$BIN --backend=emu run vector-add.cu" \
    '[ $rc = 2 ] && err_has "error: vector-add.cu: no such file (your copy of exercise vector-add is hello-gpu/vector-add.cu)"'
check "run of a file whose name is no exercise's asks for both" \
    "cp $SOL $T/mine.cu && $BIN --backend=emu run $T/mine.cu" \
    '[ $rc = 2 ] && err_has "no exercise.s file" && err_has "cudojo run EXERCISE --file $T/mine.cu"'
check "run of a path and --file naming two different files is refused" \
    "$BIN --backend=emu run $T/elsewhere/vector-add.cu --file $SOL" \
    '[ $rc = 2 ] && err_has "give one of them"'
check "run of the exercise's definition (.lua) runs the learner's copy and says so" \
    "$BIN --backend=emu run $LESSONS/01-hello-gpu/vector-add.lua" \
    '[ $rc = 1 ] && has "^FAIL" && err_has "defines exercise vector-add; using your copy hello-gpu/vector-add.cu"'
check "debug of another file steps through that file (its compile error names it)" \
    "$BIN debug $T/elsewhere/vector-add.cu --print" \
    '[ $rc = 2 ] && err_has "stepping through it instead" && err_has "elsewhere/vector-add.cu:1"'
check "debug of a file that does not exist is an error naming it" \
    "$BIN debug nosuch/vector-add.cu --print" \
    '[ $rc = 2 ] && err_has "error: nosuch/vector-add.cu: no such file"'

# watch FILE: runs that file (unrecorded) and watches it, not the workspace copy
watch_case() {
    cp "$SOL" "$T/elsewhere/sol.cu" && mkdir -p "$T/w" && cp "$SOL" "$T/w/vector-add.cu"
    n1=$(attempts)
    "$BIN" --backend=emu watch "$T/w/vector-add.cu" --json > "$T/watch.out" 2> "$T/watch.err" &
    wpid=$!
    i=0; while [ $i -lt 100 ] && ! grep -q '"watching"' "$T/watch.out" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
    kill -INT $wpid 2>/dev/null; sleep 0.3; kill $wpid 2>/dev/null; wait $wpid 2>/dev/null
    grep -q '"verdict": *"pass"' "$T/watch.out" && grep -q "\"file\": *\"$T/w/vector-add.cu\"" "$T/watch.out" &&
        grep -q "not your copy of vector-add" "$T/watch.err" && [ "$(attempts)" = "$n1" ]
}
if watch_case; then ok "watch of another file runs and watches that file, unrecorded"
else nok "watch of another file runs and watches that file, unrecorded" "$(head -c 1500 "$T/watch.out")" "$(cat "$T/watch.err")"; fi
check "watch of a file that does not exist is an error naming it" \
    "timeout 20 $BIN --backend=emu watch nosuch/vector-add.cu" \
    '[ $rc = 2 ] && err_has "error: nosuch/vector-add.cu: no such file"'

# --block and --warp: one meaning for run --explain and debug
check "run --explain refuses warp 32 (a block has warps 0-31)" "$BIN run vector-add --explain 5 --warp 32" \
    '[ $rc = 2 ] && err_has "cudojo run: --warp 32: expects a warp 0-31"'
check "debug refuses warp 32 the same way" "$BIN debug vector-add --warp 32 --print" \
    '[ $rc = 2 ] && err_has "cudojo debug: --warp 32: expects a warp 0-31"'
check "debug refuses a block of four coordinates" "$BIN debug vector-add --block 1,2,3,4 --print" \
    '[ $rc = 2 ] && err_has "cudojo debug: --block 1,2,3,4: expects X or X,Y or X,Y,Z"'
check "debug says --block needs a value" "$BIN debug vector-add --block" \
    '[ $rc = 2 ] && err_has "cudojo debug: --block needs a value"'
check "debug takes --block=X,Y like run" "$BIN debug vector-add --block=1,0 --warp=1 --print" \
    '[ $rc = 0 ] && has "block (1,0,0), warp 1 of "'

# reset and hint take EXERCISE the same way
check "reset of another file is refused, naming the copy it would reset" \
    "cp hello-gpu/vector-add.cu $T/before.cu && $BIN reset $SOL" \
    '[ $rc = 2 ] && err_has "is not your copy of vector-add (hello-gpu/vector-add.cu)" && cmp -s hello-gpu/vector-add.cu $T/before.cu'
check "reset of the workspace copy by its path resets it" "echo '// mine' >> hello-gpu/vector-add.cu && $BIN reset hello-gpu/vector-add.cu" \
    '[ $rc = 0 ] && has "hello-gpu/vector-add.cu is the starter again. Your version was saved as" && ! grep -q "// mine" hello-gpu/vector-add.cu'
check "hint of a file that does not exist is an error naming it" "$BIN hint nosuch/vector-add.cu" \
    '[ $rc = 2 ] && err_has "error: nosuch/vector-add.cu: no such file"'
