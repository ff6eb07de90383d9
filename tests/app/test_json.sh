#!/bin/sh
# tests/app/test_json.sh: with --json, every command's stdout is exactly one
# JSON document (watch: JSON Lines, one object per line, as its --help says)
# and nothing else: messages and warnings go to stderr. Also when the run
# fails, when nothing is left to do and when a usage error leaves stdout
# empty. Runs on the emulator, no GPU needed.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
T=$(mktemp -d /tmp/cudojo-json-XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" NO_COLOR=1
cd "$T" || exit 1
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }
# one_doc NAME COMMAND [PYTHON-CHECK]: stdout of COMMAND (stderr dropped) is one
# JSON document for which the check on d holds.
one_doc() {
    name=$1; cmd=$2; want=${3:-True}
    eval "$cmd" > "$T/out" 2> "$T/err"; rc=$?
    if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)" \
        "$T/out" "$want" 2> "$T/why"; then
        ok "$name"
    else
        nok "$name" "rc=$rc" "$(head -c 600 "$T/out")" "$(tail -2 "$T/why")" "stderr: $(head -c 300 "$T/err")"
    fi
}

one_doc "init --json" "$BIN --lessons $LESSONS init ws --json" 'd["exercises"] > 0 and "workspace" in d'
cd ws || exit 1
one_doc "list --json" "$BIN list --json" '"chapters" in d and d["next"] == "hello-threads"'
one_doc "run --json (a failing run)" "$BIN --backend=emu run vector-add --json" 'd["verdict"] == "fail"'
one_doc "run --json (a compile error)" "cp hello-gpu/vector-add.cu $T/k; echo 'int x = ;' >> hello-gpu/vector-add.cu; $BIN --backend=emu run vector-add --json; cp $T/k hello-gpu/vector-add.cu" \
    'd["verdict"] == "compile-error" and d["diagnostics"]'
one_doc "run --json with --trace" "$BIN --backend=emu run vector-add --json --trace $T/t.json" 'd["verdict"] == "fail"'
one_doc "hint --json" "$BIN hint vector-add --json" 'd["shown"] == 1 and len(d["hints"]) == 1'
one_doc "progress --json" "$BIN progress --json" '"workspace_dir" in d'
one_doc "reset --json" "$BIN reset vector-add --json" 'd["backup"] and d["file"].endswith("vector-add.cu")'
one_doc "doctor --json" "$BIN doctor --json" '"backends" in d'
one_doc "verify --json" "$BIN --backend=emu verify $LESSONS/01-hello-gpu --json" 'd["results"] and d["failed"] == 0'
printf '#include <stdio.h>\nint main(void) { printf("hi\\n"); return 3; }\n' > "$T/hello.c"
if cc -o "$T/hello" "$T/hello.c" 2>/dev/null; then
    one_doc "exec --json (a program that never touches the GPU)" "$BIN exec --backend=emu --json $T/hello" \
        'd["exit_code"] == 3 and "hi" in d["stdout"]'
else
    echo "skip - exec --json (no C compiler)"
fi

check_empty_on_usage_error() {
    $BIN run no-such-exercise --json > "$T/out" 2>/dev/null
    rc=$?
    [ $rc = 2 ] && [ ! -s "$T/out" ]
}
if check_empty_on_usage_error; then ok "a usage error with --json prints nothing on stdout"; else nok "a usage error with --json prints nothing on stdout" "$(head -c 300 "$T/out")"; fi

# watch --json: JSON Lines. The starter fails, a save of the solution passes,
# and it moves on: result, watching, result, next, result, watching...
$BIN --backend=emu watch --json > "$T/watch" 2> "$T/watch.err" &
wpid=$!
wait_for() { i=0; while [ $i -lt 200 ] && ! grep -q "$1" "$T/watch"; do sleep 0.1; i=$((i + 1)); done; }
wait_for '"event": *"watching"'
cp "$LESSONS/01-hello-gpu/solutions/hello-threads.cu" hello-gpu/hello-threads.cu
wait_for '"event": *"next"'
wait_for '"exercise": *"vector-add", *"file"'
sleep 0.5
kill -INT $wpid 2>/dev/null; sleep 0.3; kill -INT $wpid 2>/dev/null; sleep 0.3; kill $wpid 2>/dev/null
wait $wpid 2>/dev/null
if python3 - "$T/watch" <<'EOF'
import json, sys
lines = [l for l in open(sys.argv[1], encoding="utf-8")]
events = [json.loads(l) for l in lines]          # every line is one JSON object
kinds = [e["event"] for e in events]
assert kinds[:4] == ["result", "watching", "result", "next"], kinds
assert events[0]["result"]["verdict"] != "pass" and events[2]["result"]["verdict"] == "pass"
assert events[3]["exercise"] == "vector-add"
EOF
then ok "watch --json writes JSON Lines only (result, watching, next)"
else nok "watch --json writes JSON Lines only (result, watching, next)" "$(head -c 1500 "$T/watch")"
fi
