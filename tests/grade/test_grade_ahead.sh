#!/bin/sh
# tests/grade/test_grade_ahead.sh: `cudojo grade` compiles programs ahead of
# its workers (app/grade_ahead.c) and changes no grade doing it. Five
# students on two program exercises of chapter 06 (solutions, a wrong
# variant, a file that does not compile), graded on the emulator with one
# worker, once with one compile-ahead thread and once with none, each into
# a fresh nvcc cache: the same gradebook cell by cell; with it on, builds
# the workers found compiled ahead (their metrics.compile.builds say a
# cache hit, the summary's compile_ahead.hits counts them), and no program
# compiled twice (nvcc builds ahead + in the workers = entries in the
# cache); with it off, none ahead. Then the emulator check's lane: with a
# stand-in GPU worker (as in test_grade_emucheck.sh) that builds nothing,
# the emulator checks' builds (defines sized for the emulator) are learnt
# from the first check and compiled while later passes wait for their
# check. Emulator, no GPU needed; nvcc needed (skips without it).
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
T=$(mktemp -d /tmp/cudojo-grade-ahead-XXXXXX)
trap '[ -n "$KEEP" ] || rm -rf "$T"' EXIT
export XDG_DATA_HOME="$T/data" XDG_RUNTIME_DIR="$T/run" NO_COLOR=1
unset CUDOJO_GPU_LOCK_DIR CUDOJO_GPU_LOCK_EMU CUDOJO_GRADE_AHEAD
cd "$T" || exit 1
mkdir -p run
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; then
    echo "skip - grade: compile ahead (no nvcc)"; exit 0
fi

CH=06-events
S=$LESSONS/$CH/solutions
for s in s0 s1 s2 s3 s4; do mkdir -p "subs/$s/events"; done
# Each file differs (a comment), so each is its own build, as in a class.
for s in s0 s1 s2 s4; do
    for e in host-timer time-kernel; do { cat "$S/$e.cu"; echo "// $s"; } > "subs/$s/events/$e.cu"; done
done
cp "$S/wrong/host-timer-end-only.cu" subs/s3/events/host-timer.cu || exit 1
{ cat "$S/time-kernel.cu"; echo "this is not C++"; } > subs/s3/events/time-kernel.cu

grade() { # NAME THREADS: grades into out-NAME with a fresh cache-NAME
    # compiling ahead at the workers' own priority: at nice 15 it can starve while other tests load the cores
    XDG_CACHE_HOME="$T/cache-$1" CUDOJO_GRADE_AHEAD=$2 CUDOJO_GRADE_AHEAD_NICE=0 "$BIN" --backend=emu grade subs/* --course "$LESSONS" \
        --out "out-$1" --exercises host-timer,time-kernel --jobs 1 --json > "sum-$1.json" 2> "err-$1"
}
grade on 1
rc_on=$?
grade off 0
rc_off=$?

# The python checks: d = the summary, b = {(student, exercise): the gradebook cell},
# builds = every build of the runs (grade.db's metrics.compile.builds), keys = entries in the nvcc cache.
check() { # NAME RUN CONDITION
    if python3 -c "
import json, os, sqlite3, sys
run = '$2'
d = json.load(open('sum-%s.json' % run))
book = json.load(open('out-%s/gradebook.json' % run))
b = {(s['student'], e): c for s in book['students'] for e, c in s['exercises'].items()}
db = sqlite3.connect('out-%s/grade.db' % run)
builds = [x for (rj,) in db.execute('select result_json from run')
          for x in json.loads(rj).get('metrics', {}).get('compile', {}).get('builds', [])]
nv = 'cache-%s/cudojo/nvcc' % run
keys = [k for k in os.listdir(nv) if len(k) == 64] if os.path.isdir(nv) else []
a = d['compile_ahead']
sys.exit(0 if ($3) else 1)" > why 2>&1; then ok "$1"; else nok "$1" "rc=$rc_on/$rc_off" "$(tail -3 why)" "$(tail -3 "err-$2")"; fi
}

check "grade with and without compiling ahead: the same gradebook, cell by cell" on \
    'd["runs_executed"] == 10 and b == {k: v for k, v in b.items()} and all(
        (b[k]["verdict"], b[k]["points"], b[k]["failure_kind"]) == (c["verdict"], c["points"], c["failure_kind"])
        for k, c in {(s["student"], e): c for s in json.load(open("out-off/gradebook.json"))["students"]
                     for e, c in s["exercises"].items()}.items()) and len(b) == 10'
check "the gradebook: the solutions pass, the wrong variant fails, the broken file is a compile error" on \
    'all(b[(s, e)]["verdict"] == "pass" for s in ("s0", "s1", "s2", "s4") for e in ("host-timer", "time-kernel"))
     and b[("s3", "host-timer")]["verdict"] == "fail" and b[("s3", "time-kernel")]["verdict"] == "compile-error"'
check "compile ahead on: the workers took builds compiled ahead (cache hits in their metrics, counted as hits)" on \
    'a["threads"] == 1 and a["hits"] >= 1 and a["compiled"] >= a["hits"]
     and sum(x["cache_hit"] for x in builds) == a["hits"] and sum(not x["cache_hit"] for x in builds) == a["worker_compiled"]
     and all(x["confine"] and x["sass_arch"] == 0 and "N=1000" in x["defines"] for x in builds)'
check "compile ahead on: no program compiled twice (builds ahead + in the workers = entries in the cache)" on \
    'len(keys) == 9 and a["compiled"] + a["worker_compiled"] == len(keys) and a["unused"] == 0 and a["failed"] >= 0'
check "compile ahead off (CUDOJO_GRADE_AHEAD=0): nothing ahead, every build in the workers, each once" off \
    'a["threads"] == 0 and a["compiled"] == 0 and a["hits"] == 0 and a["worker_compiled"] == len(keys) == 9
     and not any(x["cache_hit"] for x in builds)'
XDG_CACHE_HOME="$T/cache-text" CUDOJO_GRADE_AHEAD=1 "$BIN" --backend=emu grade subs/s0 --course "$LESSONS" \
    --out out-text --exercises host-timer > text 2>&1
if grep -q "^grade: 1 threads compile programs ahead of the workers" err-on &&
    grep -q "^compile ahead (1 threads): 0 nvcc builds ahead, 0 worker builds took one .*; 1 nvcc builds in the workers' runs" text; then
    ok "the text summary says what was compiled ahead and what the workers took"
else
    nok "the text summary says what was compiled ahead and what the workers took" "$(head -3 err-on)" "$(tail -4 text)"
fi
CUDOJO_GRADE_AHEAD=many "$BIN" --backend=emu grade subs/* --course "$LESSONS" --out out-bad \
    --exercises host-timer > /dev/null 2> err-bad
rc=$?
if [ $rc -ne 0 ] && grep -q "CUDOJO_GRADE_AHEAD=many" err-bad; then
    ok "CUDOJO_GRADE_AHEAD that is not a count is refused, naming it"
else
    nok "CUDOJO_GRADE_AHEAD that is not a count is refused, naming it" "rc=$rc" "$(tail -2 err-bad)"
fi

# The emulator check's lane: a stand-in GPU that passes everything and builds nothing.
cat > fakegpu << 'EOF'
#!/usr/bin/env python3
import json, sys
for line in sys.stdin:
    req = json.loads(line)
    res = {"verdict": "pass", "exercise": req["exercise"], "backend": "cuda", "summary": "1 check passed",
           "checks": [{"name": "C", "passed": True, "message": "ok"}], "diagnostics": [], "duration_ms": 5.0,
           "metrics": {"launches": 1}}
    print(json.dumps({"result": res, "restart": False}), flush=True)
EOF
chmod +x fakegpu
rm -rf subs/s3
XDG_CACHE_HOME="$T/cache-emu" CUDOJO_GRADE_TEST_GPU_WORKER="$T/fakegpu" CUDOJO_GRADE_AHEAD=1 CUDOJO_GRADE_AHEAD_NICE=0 "$BIN" --backend=cuda \
    grade subs/* --course "$LESSONS" --out out-emu --exercises host-timer --jobs 1 --json > sum-emu.json 2> err-emu
rc_on=$?
# (grade.db keeps the GPU run's metrics; the check's builds are in the summary's counts.)
check "the emulator check's builds, learnt from the first check, compiled ahead while later passes wait for it" emu \
    'd["emu_check"]["runs"] == 4 and a["threads"] == 1 and a["hits"] >= 1 and not builds
     and a["compiled"] + a["worker_compiled"] == len(keys) == 4 and all(c["verdict"] == "pass" for c in b.values())'
