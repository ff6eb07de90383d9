#!/bin/sh
# tests/grade/test_grade_lock.sh: the GPU lock's modes and accounting in
# `cudojo grade`, without a GPU: CUDOJO_GPU_LOCK_EMU=1 makes programs on the
# emulator runtime take the lock as programs on a GPU do. Two program
# exercises: time-kernel (timed, the default: shared while it starts, then
# exclusive from its first GPU work: the "turn", kernels/program_run.c) and
# bug-out-of-bounds (timed = false: shared). Each run's lock time lands in
# the grading database (result_json's metrics.gpu_lock), in gradebook.json
# ("time") and in grade's summary; an untimed program runs while another
# process holds the lock shared, and a timed one waits until it lets go.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
T=$(mktemp -d /tmp/cudojo-grade-lock-XXXXXX)
holder=
trap '[ -n "$holder" ] && kill "$holder" 2>/dev/null; rm -rf "$T"' EXIT
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" NO_COLOR=1
export CUDOJO_GPU_LOCK_DIR="$T/locks" CUDOJO_GPU_LOCK_EMU=1
cd "$T" || exit 1
mkdir -p locks
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }
EXS=bug-out-of-bounds,time-kernel

for s in s1 s2; do
    mkdir -p "subs/$s/errors-and-debugging" "subs/$s/events"
    cp "$LESSONS/14-errors-and-debugging/solutions/bug-out-of-bounds.cu" "subs/$s/errors-and-debugging/" || exit 1
    cp "$LESSONS/06-events/solutions/time-kernel.cu" "subs/$s/events/" || exit 1
    echo "// $s" >> "subs/$s/events/time-kernel.cu"
done

# 1. Both exercises, both students.
"$BIN" --backend=emu grade subs/* --course "$LESSONS" --out out --exercises $EXS --jobs 2 --json > sum.json 2> err1
rc=$?
check() { # NAME PYTHON-CONDITION (d = the summary, b = gradebook.json, cells = [(exercise, cell)])
    if python3 -c "
import json, sys
d = json.load(open('sum.json')); b = json.load(open('out/gradebook.json'))
cells = [(e, c) for s in b['students'] for e, c in s['exercises'].items()]
t = lambda c, k: c['time'].get(k, 0)
sys.exit(0 if ($2) else 1)" 2> why; then ok "$1"; else nok "$1" "rc=$rc" "$(tail -2 why)" "$(tail -2 err1)"; fi
}
check "grade: both program exercises pass for both students with the lock on" \
    'len(cells) == 4 and all(c["verdict"] == "pass" for e, c in cells)'
check "grade: a timed program starts beside untimed work (shared) and is alone (exclusive) from its first GPU work on" \
    'all(t(c, "gpu_exclusive_ms") > 0 and t(c, "gpu_shared_ms") > 0 for e, c in cells if e == "time-kernel")'
check "grade: a program with timed = false holds the GPU lock shared, never alone" \
    'all(t(c, "gpu_shared_ms") > 0 and t(c, "gpu_exclusive_ms") == 0 for e, c in cells if e == "bug-out-of-bounds")'
check "gradebook.json: every run's time says its total, compile and program time" \
    'all(t(c, "total_ms") > 0 and "compile_ms" in c["time"] and t(c, "program_ms") > 0 for e, c in cells)'
check "grade --json: the summary's gpu_lock sums the runs' lock time" \
    'd["gpu_lock"]["runs"] == 4 and abs(d["gpu_lock"]["exclusive_s"] * 1e3 - sum(t(c, "gpu_exclusive_ms") for e, c in cells)) < 1 and d["gpu_lock"]["shared_s"] > 0'
# A shared holder that steps aside for the other student's timed section and comes back has one shared
# section more (seen under make san, where a timed section lasts ~2 s): at least, not exactly.
if python3 -c "
import sqlite3, sys
db = sqlite3.connect('file:out/grade.db?mode=ro', uri=True)
n = db.execute(\"select count(*) from run where json_extract(result_json, '\$.metrics.gpu_lock.exclusive_sections') = 1 and json_extract(result_json, '\$.metrics.gpu_lock.shared_sections') >= 2 and exercise = 'time-kernel'\").fetchone()[0]
m = db.execute(\"select count(*) from run where json_extract(result_json, '\$.metrics.gpu_lock.exclusive_sections') = 0 and json_extract(result_json, '\$.metrics.gpu_lock.shared_sections') >= 1 and exercise = 'bug-out-of-bounds'\").fetchone()[0]
sys.exit(0 if n == 2 and m == 2 else 1)" 2> why; then
    ok "grade.db: each run's result_json keeps its metrics.gpu_lock (a timed run: shared, alone from its first GPU work, shared again after its exit)"
else
    nok "grade.db: each run's result_json keeps its metrics.gpu_lock (a timed run: shared, alone from its first GPU work, shared again after its exit)" "$(tail -2 why)"
fi

# 2. Without CUDOJO_GPU_LOCK_EMU the emulator's programs never take the lock.
CUDOJO_GPU_LOCK_EMU= "$BIN" --backend=emu grade subs/* --course "$LESSONS" --out out-nolock --exercises $EXS --jobs 2 \
    --json > nolock.json 2> err2
if python3 -c "
import json, sys
d = json.load(open('nolock.json')); b = json.load(open('out-nolock/gradebook.json'))
cells = [c for s in b['students'] for c in s['exercises'].values()]
sys.exit(0 if d['gpu_lock']['runs'] == 0 and len(cells) == 4 and all(c['verdict'] == 'pass' and not any(k.startswith('gpu_') for k in c['time']) for c in cells) else 1)" 2> why; then
    ok "grade on the emulator: programs take no GPU lock (no gpu_* time) unless CUDOJO_GPU_LOCK_EMU=1"
else
    nok "grade on the emulator: programs take no GPU lock (no gpu_* time) unless CUDOJO_GPU_LOCK_EMU=1" "$(tail -2 why)" "$(tail -2 err2)"
fi

# 3. Another process holds the lock shared (untimed GPU work of another grader).
python3 -c "
import fcntl, sys, time
f = open('locks/gpu-0.lock', 'a'); fcntl.flock(f, fcntl.LOCK_SH); open('held', 'w').close(); time.sleep(300)" &
holder=$!
for _ in $(seq 1 100); do [ -f held ] && break; sleep 0.1; done
timeout 60 "$BIN" --backend=emu grade subs/* --course "$LESSONS" --out out-sh --exercises bug-out-of-bounds --jobs 2 \
    --json > sh.json 2> err3
rc=$?
if [ $rc -eq 0 ] && kill -0 "$holder" 2>/dev/null && python3 -c "
import json, sys
b = json.load(open('out-sh/gradebook.json'))
cells = [s['exercises']['bug-out-of-bounds'] for s in b['students']]
sys.exit(0 if len(cells) == 2 and all(c['verdict'] == 'pass' and c['time']['gpu_shared_ms'] > 0 for c in cells) else 1)" 2> why; then
    ok "grade: an untimed program runs while another process holds the GPU lock shared"
else
    nok "grade: an untimed program runs while another process holds the GPU lock shared" "rc=$rc" "$(tail -2 why)" "$(tail -2 err3)"
fi
runs_of() { # the runs recorded in out-ex/grade.db
    python3 -c "import sqlite3
try: print(sqlite3.connect('file:out-ex/grade.db?mode=ro', uri=True).execute(\"select count(*) from run where exercise = 'time-kernel'\").fetchone()[0])
except Exception: print(0)"
}
"$BIN" --backend=emu grade subs/* --course "$LESSONS" --out out-ex --exercises time-kernel --jobs 2 --json > ex.json 2> err4 &
grader=$!
sleep 3
before=$(runs_of)
kill "$holder"
wait "$holder" 2>/dev/null
holder=
wait "$grader"
rc=$?
if [ $rc -eq 0 ] && [ "$before" = 0 ] && python3 -c "
import json, sys
b = json.load(open('out-ex/gradebook.json'))
cells = [s['exercises']['time-kernel'] for s in b['students']]
sys.exit(0 if all(c['verdict'] == 'pass' for c in cells) and max(c['time']['gpu_wait_ms'] for c in cells) > 1000 else 1)" 2> why; then
    ok "grade: a timed program waits (its wait counted, not its time) until the other process's shared hold ends"
else
    nok "grade: a timed program waits (its wait counted, not its time) until the other process's shared hold ends" \
        "rc=$rc runs before the release=$before" "$(tail -2 why)" "$(tail -2 err4)"
fi
