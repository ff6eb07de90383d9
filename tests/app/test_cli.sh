#!/bin/sh
# tests/app/test_cli.sh: the CLI as a user drives it: a fresh workspace,
# list/run/hint/reset/progress, --json shapes, usage errors. Runs on the
# emulator (no GPU needed). Prints ok/not ok/skip per case.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
T=$(mktemp -d /tmp/cudojo-cli-XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" NO_COLOR=1
cd "$T" || exit 1
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }
check() { # name, command (string), then a test expression on $out/$rc
    name=$1; cmd=$2; test=$3
    out=$(eval "$cmd" 2>&1); rc=$?
    if eval "$test"; then ok "$name"; else nok "$name" "rc=$rc" "$(printf "%s\n" "$out" | head -20)"; fi
}
has_json() { # json text on stdin, jq-less key check with python3 when present, else grep
    python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(0 if eval(sys.argv[1]) else 1)" "$1"
}

check "help lists every command" "$BIN --help" \
    '[ $rc = 0 ] && for c in init list run watch hint progress reset doctor verify; do printf "%s\n" "$out" | grep -q "^  $c" || exit 1; done'
check "help of a command" "$BIN run --help" '[ $rc = 0 ] && printf "%s\n" "$out" | grep -q -- "--param K=V"'
check "unknown command is a usage error" "$BIN frobnicate" '[ $rc = 2 ] && printf "%s\n" "$out" | grep -q "unknown command"'
check "bad backend is a usage error" "$BIN --backend=tpu list" '[ $rc = 2 ] && printf "%s\n" "$out" | grep -q "cuda, emu or auto"'
check "init makes a workspace" "$BIN --lessons $LESSONS init ws" \
    '[ $rc = 0 ] && [ -f ws/.cudojo/progress.db ] && [ -f ws/hello-gpu/vector-add.cu ]'
cd ws || exit 1
check "init again keeps the learner's file" "echo '// mine' >> hello-gpu/vector-add.cu; $BIN init ." \
    '[ $rc = 0 ] && tail -1 hello-gpu/vector-add.cu | grep -q "// mine"'
check "list --json has chapters and a next exercise" "$BIN list --json 2>/dev/null" \
    '[ $rc = 0 ] && printf "%s\n" "$out" | has_json "d[\"chapters\"][0][\"exercises\"] and d[\"next\"] and d[\"total\"] > 0"'
check "unknown exercise suggests a close one" "$BIN run vector-ad" '[ $rc = 2 ] && printf "%s\n" "$out" | grep -q "Did you mean: vector-add"'
check "run on the starter fails with a verdict" "$BIN --backend=emu run vector-add" \
    '[ $rc = 1 ] && printf "%s\n" "$out" | grep -q "FAIL"'
check "run --json on the solution passes" "$BIN --backend=emu run vector-add --json --file $LESSONS/01-hello-gpu/solutions/vector-add.cu 2>/dev/null" \
    '[ $rc = 0 ] && printf "%s\n" "$out" | has_json "d[\"verdict\"] == \"pass\" and d[\"backend\"] == \"emu\" and isinstance(d[\"checks\"], list)"'
cp hello-gpu/vector-add.cu keep.cu
printf '__device__ int x = ;\n' >> hello-gpu/vector-add.cu
check "a compile error names the learner's file, line and column" "$BIN --backend=emu run vector-add" \
    '[ $rc = 1 ] && printf "%s\n" "$out" | grep -q "^hello-gpu/vector-add.cu:[0-9]*:[0-9]*: error: expected an expression"'
mv keep.cu hello-gpu/vector-add.cu
check "hint shows one more hint each time" "$BIN hint vector-add >/dev/null 2>&1; $BIN hint vector-add --json 2>/dev/null" \
    '[ $rc = 0 ] && printf "%s\n" "$out" | has_json "d[\"shown\"] == 2"'
check "progress --json records the attempts" "$BIN progress --json" \
    '[ $rc = 0 ] && printf "%s\n" "$out" | grep -q "vector-add"'
check "reset restores the starter and keeps a backup" "$BIN reset vector-add" \
    '[ $rc = 0 ] && ! grep -q "// mine" hello-gpu/vector-add.cu && grep -l "// mine" .cudojo/backups/* >/dev/null'
check "doctor --json names both backends" "$BIN doctor --json 2>/dev/null" \
    '[ $rc = 0 ] && printf "%s\n" "$out" | has_json "\"emu\" in d[\"backends\"] and \"cuda\" in d[\"backends\"]"'
check "outside a workspace the default one is used" "cd $T && $BIN --lessons $LESSONS list --json 2>/dev/null" \
    '[ $rc = 0 ] && [ -f "$T/data/cudojo/.cudojo/progress.db" ]'
check "hint in Chinese when the locale asks" "LANGUAGE= LC_ALL= LC_MESSAGES= LANG=zh_CN.UTF-8 $BIN hint vector-add 2>/dev/null" '[ $rc = 0 ] && printf "%s\\n" "$out" | grep -q "线程"'
# LC_ALL set by the machine (C.UTF-8 on many servers) wins over LANG; LANGUAGE wins over both.
check "hint in Chinese when LANGUAGE asks" "LANGUAGE=zh_CN:en LC_ALL=C.UTF-8 LANG=en_US.UTF-8 $BIN hint vector-add 2>/dev/null" '[ $rc = 0 ] && printf "%s\\n" "$out" | grep -q "线程"'
check "hint in English when LC_ALL says so" "LANGUAGE= LC_ALL=C.UTF-8 LANG=zh_CN.UTF-8 $BIN hint vector-add 2>/dev/null" '[ $rc = 0 ] && ! printf "%s\\n" "$out" | grep -q "线程"'
# watch: the first run fails on the starter; saving the solution re-runs it and passes.
cudojo_watch_case() {
    $BIN reset vector-add >/dev/null 2>&1
    $BIN --backend=emu watch vector-add > watch.out 2>&1 &
    wpid=$!
    i=0; while [ $i -lt 100 ] && ! grep -q "Watching" watch.out; do sleep 0.1; i=$((i + 1)); done
    cp "$LESSONS/01-hello-gpu/solutions/vector-add.cu" hello-gpu/vector-add.cu
    i=0; while [ $i -lt 100 ] && ! grep -q "^PASS" watch.out; do sleep 0.1; i=$((i + 1)); done
    kill -INT $wpid 2>/dev/null; sleep 0.3; kill $wpid 2>/dev/null; wait $wpid 2>/dev/null
    grep -q "^FAIL" watch.out && grep -q "^PASS" watch.out
}
if cudojo_watch_case; then ok "watch re-runs on save"; else nok "watch re-runs on save" "$(head -c 2000 watch.out)"; fi
