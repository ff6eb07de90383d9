#!/bin/sh
# tests/app/test_hardening.sh: the CLI under hostile input and rough
# handling (issue 16): bytes that are not UTF-8 in paths, --file, kernel
# printf, t:log, --param and error texts; reset twice in a second; the worker
# dying with its parent (SIGKILL, SIGTERM, SIGHUP); a FIFO or /dev/zero as the
# learner's file; --trace at a device, directory or FIFO; a one-off --lessons
# that is not a course; a full disk. Runs on the emulator, no GPU needed.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
T=$(mktemp -d /tmp/cudojo-hard-XXXXXX)
cleanup() {
    [ -n "$MNT" ] && umount "$MNT" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" NO_COLOR=1
cd "$T" || exit 1
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }
check() { # name, command (string), then a test expression on $out/$rc
    name=$1; cmd=$2; test=$3
    out=$(eval "$cmd" 2>&1); rc=$?
    if eval "$test"; then ok "$name"; else nok "$name" "rc=$rc" "$(printf "%s\n" "$out" | head -20)"; fi
}
has_all() { # every string given occurs in $out
    for s in "$@"; do printf "%s\n" "$out" | grep -qF -- "$s" || return 1; done
}
json_ok() { # python expression on d (the JSON document on stdin)
    python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(0 if eval(sys.argv[1]) else 1)" "$1"
}
E9=$(printf '\351'); FF=$(printf '\377'); FD=$(printf '\375')
# How the terminal output shows those bytes.
SHOW_SRC='x = "\xE9"'; SHOW_DEV='dev [\xE9]'; SHOW_LOG='param=[x\xFDy] log=[\xE9]'; SHOW_FAIL='fail \xFF'
SHOW_BOOM='boom \xFE'

# A small course whose texts carry bytes that are not UTF-8.
C="$T/course/bytes"
mkdir -p "$C/solutions"
cat > "$C/chapter.lua" <<'EOF'
return { id = "bytes", title = "Bytes\27]0;owned\7", order = 1, exercises = { "echo", "boom", "spin" } }
EOF
cat > "$C/echo.lua" <<'EOF'
return {
  id = "echo", title = "Echo\27[2J", source = "echo.cu", solution = "solutions/echo.cu", hints = { "a\27[31m", "b" },
  run = function(t)
    local w = t:param("word", "plain")
    t:log("param=[%s] log=[\xe9]", w)
    t:kernel("say"):launch{ grid = 1, block = 1, args = {} }
    t:expect(false, "fail \xff")
  end,
}
EOF
printf '#include <cstdio>\n__global__ void say() { printf("dev [\351]\\n"); }\n' > "$C/echo.cu"
cat > "$C/boom.lua" <<'EOF'
return { id = "boom", title = "Boom", source = "boom.cu", solution = "solutions/boom.cu", hints = { "a", "b" },
         run = function(t) error("boom \xfe") end }
EOF
cat > "$C/spin.lua" <<'EOF'
return { id = "spin", title = "Spin", source = "spin.cu", solution = "solutions/spin.cu", hints = { "a", "b" },
         timeout = 60, run = function(t) t:kernel("spin"):launch{ grid = 1, block = 32, args = {} } end }
EOF
printf '__global__ void spin() { volatile int x = 0; while (x == 0) { } }\n' > "$C/spin.cu"
cp "$C/echo.cu" "$C/boom.cu"; cp "$C/echo.cu" "$C/solutions/"; cp "$C/echo.cu" "$C/solutions/boom.cu"
cp "$C/spin.cu" "$C/solutions/"

# --- bytes that are not UTF-8 ---
WS="$T/ws$E9"
check "init in a workspace whose path is not UTF-8" "$BIN --lessons $LESSONS init '$WS' --json" \
    '[ $rc = 0 ] && printf "%s\n" "$out" | json_ok "d[\"workspace\"].endswith(\"ws\\uefe9\")"'
check "run in that workspace passes and its JSON parses" \
    "cd '$WS' && $BIN --backend=emu run vector-add --json --file $LESSONS/01-hello-gpu/solutions/vector-add.cu 2>/dev/null" \
    '[ $rc = 0 ] && printf "%s\n" "$out" | json_ok "d[\"verdict\"] == \"pass\""'
cp "$LESSONS/01-hello-gpu/solutions/vector-add.cu" "$T/sol$FF.cu"
check "--file whose name is not UTF-8 runs (no crash)" "cd '$WS' && $BIN --backend=emu run vector-add --file '$T/sol$FF.cu'" \
    '[ $rc = 0 ] && printf "%s\n" "$out" | grep -q "^PASS"'
cp "$WS/hello-gpu/vector-add.cu" "$T/keep.cu"
printf '// caf\351\n__device__ int x = "\351";\n' >> "$WS/hello-gpu/vector-add.cu"
check "a compile error on a line with such bytes shows its text, escaped" "cd '$WS' && $BIN --backend=emu run vector-add" \
    '[ $rc = 1 ] && printf "%s\n" "$out" | grep -q "error: a value of type" && printf "%s\n" "$out" | grep -qF "$SHOW_SRC"'
cp "$T/keep.cu" "$WS/hello-gpu/vector-add.cu"

$BIN --lessons "$T/course" init cws >/dev/null 2>&1
cd cws || exit 1
check "kernel printf, t:log, --param and t:expect keep their bytes (text, escaped)" \
    "$BIN --backend=emu run echo --param 'word=x${FD}y'" \
    '[ $rc = 1 ] && has_all "$SHOW_DEV" "$SHOW_LOG" "$SHOW_FAIL"'
check "kernel printf, t:log, --param and t:expect keep their bytes (JSON)" \
    "$BIN --backend=emu run echo --json --param 'word=x${FD}y' 2>/dev/null" \
    '[ $rc = 1 ] && printf "%s\n" "$out" | json_ok "d[\"device_output\"] == \"dev [\\uefe9]\\n\" and \"x\\ueffdy\" in d[\"log\"] and d[\"checks\"][0][\"message\"] == \"fail \\uefff\" and d[\"metrics\"][\"params\"][\"word\"] == \"x\\ueffdy\""'
check "an exercise error with such bytes is an exercise-error, not a crash" "$BIN --backend=emu run boom" \
    '[ $rc = 1 ] && printf "%s\n" "$out" | grep -q "^FAIL: the exercise itself is broken" && printf "%s\n" "$out" | grep -qF "$SHOW_BOOM"'

ESC=$(printf '\033')
check "a course pack's titles and hints reach the terminal without control sequences" \
    "$BIN list; $BIN --backend=emu run echo; $BIN hint echo; $BIN progress" \
    '! printf "%s\n" "$out" | grep -q "$ESC" && has_all "Bytes^[]0;owned^G" "Echo^[[2J" "a^[[31m"'

# --- the learner's work ---
reset_twice() {
    for i in 1 2 3; do echo "// version $i" >> bytes/echo.cu; $BIN reset echo >/dev/null 2>&1 || return 1; done
    [ "$(ls .cudojo/backups | wc -l)" = 3 ] || return 1
    for i in 1 2 3; do grep -l "// version $i" .cudojo/backups/* >/dev/null || return 1; done
}
if reset_twice; then ok "reset three times within a second keeps three backups"; else nok "reset three times within a second keeps three backups" "$(ls -l .cudojo/backups)"; fi

worker_dies_with() { # signal
    $BIN --backend=emu run spin >/dev/null 2>&1 &
    cli=$!
    i=0; w=""
    while [ $i -lt 100 ] && [ -z "$w" ]; do w=$(pgrep -P $cli); sleep 0.1; i=$((i + 1)); done
    [ -n "$w" ] || { kill -9 $cli; return 1; }
    sleep 0.5
    kill -"$1" $cli
    wait $cli 2>/dev/null
    i=0
    while [ $i -lt 30 ]; do
        st=$(awk '{print $3}' /proc/$w/stat 2>/dev/null)
        [ -z "$st" ] || [ "$st" = Z ] && return 0   # gone, or dead and waiting for init to reap it
        sleep 0.1; i=$((i + 1))
    done
    kill -9 "$w" 2>/dev/null
    return 1
}
for sig in KILL TERM HUP; do
    if worker_dies_with $sig; then ok "the worker dies when cudojo run gets SIG$sig"; else nok "the worker dies when cudojo run gets SIG$sig"; fi
done

# Output goes through a file: a worker left behind holding the FIFO open
# (the bug) must fail the test, not hang it.
mkfifo "$T/fifo.cu"
check "a FIFO as the learner's file is refused at once, saying what it is" "timeout 5 $BIN --backend=emu run echo --file $T/fifo.cu > $T/o 2>&1; r=\$?; cat $T/o; exit \$r" \
    '[ $rc = 1 ] && printf "%s\n" "$out" | grep -q "FAIL" && printf "%s\n" "$out" | grep -q "FIFO"'
ln -s /dev/zero "$T/zero.cu"
check "a symlink to /dev/zero as the learner's file is refused at once, saying what it is" "timeout 5 $BIN --backend=emu run echo --file $T/zero.cu > $T/o 2>&1; r=\$?; cat $T/o; exit \$r" \
    '[ $rc = 1 ] && printf "%s\n" "$out" | grep -q "FAIL" && printf "%s\n" "$out" | grep -q "character device"'
ln -sf "$T/fifo.cu" bytes/boom.cu
check "a FIFO in the workspace blocks neither list nor progress" \
    "timeout 20 $BIN list >/dev/null && timeout 20 $BIN progress" '[ $rc = 0 ]'
check "reset of a FIFO says what it is, at once" "timeout 20 $BIN reset boom" \
    '[ $rc = 2 ] && printf "%s\n" "$out" | grep -q "FIFO"'
rm -f bytes/boom.cu

mkdir "$T/adir.json"; mkfifo "$T/fifo.json"
for target in /dev/full "$T/adir.json" "$T/fifo.json"; do
    check "--trace $(basename $target) is refused and left as it was" \
        "ls -ld $target > $T/before; timeout 20 $BIN --backend=emu run echo --trace $target" \
        '[ $rc = 2 ] && printf "%s\n" "$out" | grep -q "replaces only a regular file" && ls -ld '"$target"' | cmp -s - '"$T"'/before'
done

cp .cudojo/workspace.json "$T/ws.before"
check "a one-off --lessons that is not a course is refused and not saved" "$BIN --lessons /etc list" \
    '[ $rc = 2 ] && printf "%s\n" "$out" | grep -q "holds no course" && cmp -s .cudojo/workspace.json '"$T"'/ws.before'
check "init with a --lessons that is not a course leaves no workspace behind" "$BIN --lessons /etc init $T/notws" \
    '[ $rc = 2 ] && [ ! -e '"$T"'/notws/.cudojo ]'
check "the workspace still has its course after that" "$BIN list --json 2>/dev/null" \
    '[ $rc = 0 ] && printf "%s\n" "$out" | json_ok "d[\"total\"] == 3"'
cd "$T" || exit 1

# --- a full disk (needs a tiny tmpfs: root only) ---
MNT="$T/mnt"; mkdir -p "$MNT"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=2m tmpfs "$MNT" 2>/dev/null; then
    $BIN --lessons "$T/course" init "$MNT/ws" >/dev/null 2>&1
    dd if=/dev/zero of="$MNT/fill" bs=4k >/dev/null 2>&1
    check "a full disk at open says the disk is full" "cd $MNT/ws && $BIN list" \
        '[ $rc = 2 ] && printf "%s\n" "$out" | grep -q "is full" && ! printf "%s\n" "$out" | grep -q "disk I/O error"'
    umount "$MNT" 2>/dev/null && MNT=""
else
    echo "skip - a full disk at open says the disk is full (needs root to mount a tmpfs)"
    MNT=""
fi
