#!/bin/sh
# tests/grade/test_grade_emucheck.sh: grading on a GPU gives no credit to a
# kernel that passes by luck (app/grade_verdict.c, app/grade_run.c), without
# a GPU: CUDOJO_GRADE_TEST_GPU_WORKER puts a stand-in in the GPU runs'
# worker place, a hardware that gets every answer right unless the file says
# "FAKE-GPU: fail" (the luckiest GPU there is). Every pass of it runs again
# on the real emulator worker. Four students on sgemm-tiled: the solution
# (passes both), the wrong variant without the second __syncthreads (a race
# the emulator finds: a fail that says so), a correct variant the emulator
# finds bank conflicts in (a speed target: the GPU's pass stands) and a file
# the GPU fails (no emulator run at all). Then the grading database reuses
# the runs only under the same --emu-check, and --emu-check=off grades again.
# The same on a real GPU: tests/grade/test_grade_emucheck_gpu.sh.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
T=$(mktemp -d /tmp/cudojo-grade-emucheck-XXXXXX)
trap '[ -n "$KEEP" ] || rm -rf "$T"' EXIT
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" XDG_RUNTIME_DIR="$T/run" NO_COLOR=1
unset CUDOJO_GPU_LOCK_DIR CUDOJO_GPU_LOCK_EMU
cd "$T" || exit 1
mkdir -p run
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }

# The stand-in GPU: the worker protocol (app/runner.h), one result line per request.
cat > fakegpu << 'EOF'
#!/usr/bin/env python3
import json, sys, time
assert "--backend=cuda" in sys.argv, sys.argv
for line in sys.stdin:
    req = json.loads(line)
    with open("fakegpu.times", "a") as f:
        f.write("%.6f %s\n" % (time.monotonic(), req["cu"]))
    with open("fakegpu.checked", "a") as f:
        f.write("%s\n" % json.dumps(req.get("emu_checked", False)))
    with open("fakegpu.timeouts", "a") as f:
        f.write("%s\n" % req.get("timeout_s"))
    fail = "FAKE-GPU: fail" in open(req["cu"], errors="replace").read()
    check = {"name": "C", "passed": not fail, "wrong": 7 if fail else 0, "total": 201113, "mismatches": [],
             "message": "7 elements wrong of 201113" if fail else "all 201113 elements within tolerance"}
    res = {"verdict": "fail" if fail else "pass", "exercise": req["exercise"], "backend": "cuda",
           "summary": "1 of 1 checks failed" if fail else "1 check passed", "checks": [check],
           "diagnostics": [], "duration_ms": 5.0, "metrics": {"launches": 1, "kernel_ms": 0.25}}
    print(json.dumps({"result": res, "restart": False}), flush=True)
    with open("fakegpu.runs", "a") as f:
        f.write(req["cu"] + "\n")
EOF
chmod +x fakegpu
export CUDOJO_GRADE_TEST_GPU_WORKER="$T/fakegpu"

CH=11-roofline
for s in good racy conflicts gpufail; do mkdir -p "subs/$s/roofline"; done
cp "$LESSONS/$CH/solutions/sgemm-tiled.cu" subs/good/roofline/ || exit 1
cp "$LESSONS/$CH/solutions/wrong/sgemm-tiled-one-sync.cu" subs/racy/roofline/sgemm-tiled.cu || exit 1
cp "$LESSONS/$CH/solutions/wrong/sgemm-tiled-swapped-rows.cu" subs/conflicts/roofline/sgemm-tiled.cu || exit 1
{ cat "$LESSONS/$CH/solutions/sgemm-tiled.cu"; echo "// FAKE-GPU: fail"; } > subs/gpufail/roofline/sgemm-tiled.cu

grade() { # OUT JSON ERR [OPTIONS...]
    out=$1 js=$2 er=$3
    shift 3
    "$BIN" --backend=cuda grade subs/* --course "$LESSONS" --out "$out" --exercises sgemm-tiled --jobs 2 "$@" \
        --json > "$js" 2> "$er"
}
check() { # NAME OUT SUMMARY PYTHON-CONDITION (d = the summary, c = {student: sgemm-tiled's cell}, ec = its emulator_check)
    if python3 -c "
import json, sys
d = json.load(open('$3')); b = json.load(open('$2/gradebook.json'))
c = {s['student']: s['exercises']['sgemm-tiled'] for s in b['students']}
ec = lambda s: c[s].get('emulator_check')
sys.exit(0 if ($4) else 1)" 2> why; then ok "$1"; else nok "$1" "rc=$rc" "$(tail -3 why)" "$(tail -3 err1)"; fi
}

grade out sum1.json err1
rc=$?
check "grade on a GPU: a solution that passes on the GPU and on the emulator gets its point" out sum1.json \
    'c["good"]["verdict"] == "pass" and c["good"]["points"] == 1 and ec("good")["verdict"] == "pass" and not ec("good")["overturned"]'
check "grade on a GPU: a race the GPU let pass is a fail of the emulator's kind, 0 points" out sum1.json \
    'c["racy"]["verdict"] == "fail" and c["racy"]["points"] == 0 and c["racy"]["failure_kind"] in ("race", "barrier", "uninitialised", "wrong-result") and ec("racy")["overturned"] and c["racy"]["failure_kind"] == ec("racy")["failure_kind"]'
check "grade on a GPU: its message says it passed on the GPU by luck and where the emulator found the bug" out sum1.json \
    'c["racy"]["message"].startswith("passed on the GPU by luck: the emulator found ") and "roofline/sgemm-tiled.cu" in c["racy"]["message"]'
check "grade on a GPU: a speed target missed on the emulator (bank conflicts) leaves the GPU's pass" out sum1.json \
    'c["conflicts"]["verdict"] == "pass" and c["conflicts"]["points"] == 1 and ec("conflicts")["verdict"] == "fail" and not ec("conflicts")["overturned"] and ec("conflicts")["failure_kind"] is None'
check "grade on a GPU: a run the GPU fails is not run on the emulator" out sum1.json \
    'c["gpufail"]["verdict"] == "fail" and c["gpufail"]["failure_kind"] == "wrong-result" and ec("gpufail") is None'
check "grade --json: emu_check counts the three emulator runs and the one pass they overturned" out sum1.json \
    'd["emu_check"] == {"on": True, "runs": 3, "overturned": 1} and d["runs_executed"] == 4'
check "gradebook.json: a checked run's time has the emulator run's (emu_check_ms), an unchecked one's has none" out sum1.json \
    'all(c[s]["time"].get("emu_check_ms", 0) > 0 for s in ("good", "racy", "conflicts")) and "emu_check_ms" not in c["gpufail"]["time"]'
if grep -q "7/7 runs" err1; then
    ok "grade: the progress line counts the emulator checks as runs (4 + 3)"
else
    nok "grade: the progress line counts the emulator checks as runs (4 + 3)" "$(grep runs err1 | tail -3)"
fi
if grep -q "passed on the GPU by luck" out/students/racy/feedback.md &&
    grep -q "emulator: roofline/sgemm-tiled.cu:[0-9]*: error" out/students/racy/feedback.md &&
    ! grep -q "by luck" out/students/good/feedback.md &&
    python3 -c "
import json, sys
r = json.load(open('out/students/racy/results.json'))
t = r['tests'][0]
sys.exit(0 if r['score'] == 0 and t['status'] == 'failed' and 'passed on the GPU by luck' in t['output'] else 1)"; then
    ok "feedback.md and results.json say the pass was luck and list the emulator's findings"
else
    nok "feedback.md and results.json say the pass was luck and list the emulator's findings" \
        "$(grep -A8 'sgemm' out/students/racy/feedback.md | head -12)"
fi

if [ "$(sort -u fakegpu.checked)" = "true" ] && [ "$(wc -l < fakegpu.checked)" -eq 4 ]; then
    ok "grade: each GPU run's request says the emulator check will run it (emu_checked: emulator = true leaves it to the check)"
else
    nok "grade: each GPU run's request says the emulator check will run it" "$(cat fakegpu.checked)"
fi

# A GPU run's limit is the exercise's own (sgemm-tiled: 60 s), not stretched by the number of
# workers: its waits for the GPU lock are left out as they happen (app/runner.c), and a hanging
# kernel holds the GPU for its own timeout only.
if [ "$(sort -u fakegpu.timeouts)" = "60.0" ] || [ "$(sort -u fakegpu.timeouts)" = "60" ]; then
    ok "grade --jobs 2 on a GPU: each run's limit is the exercise's timeout, not twice it"
else
    nok "grade --jobs 2 on a GPU: each run's limit is the exercise's timeout, not twice it" "$(sort -u fakegpu.timeouts)"
fi

# One slot: its GPU worker takes the next run while the emulator checks the pass before (the first
# student's pass is checked while the second's GPU run goes; the third waits for the emulator's lane).
rm -f fakegpu.times
grade out7 sum7.json err7 --jobs 1
if python3 -c "
import json, sys
b = json.load(open('out7/gradebook.json'))
c = {s['student']: s['exercises']['sgemm-tiled'] for s in b['students']}
t = [(float(l.split()[0]), l.split()[1]) for l in open('fakegpu.times')]
emu = min(c[s]['time']['emu_check_ms'] for s in ('good', 'racy', 'conflicts')) / 1e3
gap = t[1][0] - t[0][0]
print('the second GPU run came %.1f ms after the first; the shortest emulator check took %.1f ms' % (gap * 1e3, emu * 1e3))
sys.exit(0 if len(t) == 4 and gap < emu / 2 else 1)" > why 2>&1; then
    ok "grade: one slot's GPU worker runs the next run while the emulator checks the last pass ($(cat why))"
else
    nok "grade: one slot's GPU worker runs the next run while the emulator checks the last pass" "$(cat why)" "$(tail -3 err7)"
fi

# The same grading again: nothing runs. --emu-check=off: every pair is graded again, the GPU alone.
grade out sum2.json err2
check "grade again under the same --emu-check: every run is reused" out sum2.json \
    'd["runs_executed"] == 0 and d["runs_reused"] == 4 and d["emu_check"]["runs"] == 0'
rm -f fakegpu.runs fakegpu.checked
grade out sum3.json err3 --emu-check=off
check "grade --emu-check=off: pairs graded with the check are graded again, on the GPU alone (the race passes)" out sum3.json \
    'd["runs_executed"] == 4 and d["emu_check"] == {"on": False, "runs": 0, "overturned": 0} and all(ec(s) is None for s in c) and c["racy"]["points"] == 1'
if [ "$(sort -u fakegpu.checked)" = "false" ]; then
    ok "grade --emu-check=off: no GPU run's request says emu_checked (emulator = true runs beside)"
else
    nok "grade --emu-check=off: no GPU run's request says emu_checked" "$(cat fakegpu.checked)"
fi
grade out sum4.json err4 --emu-check=on
check "grade --emu-check=on after off: graded again with the check (the race fails again)" out sum4.json \
    'd["runs_executed"] == 4 and d["emu_check"]["runs"] == 3 and c["racy"]["points"] == 0'

# A usage error names the option.
"$BIN" --backend=cuda grade subs/* --course "$LESSONS" --out out5 --emu-check=maybe > /dev/null 2> err5
rc=$?
if [ $rc -eq 2 ] && grep -q -- "--emu-check maybe: on or off" err5; then
    ok "grade --emu-check=maybe: a usage error (status 2) that names the choices"
else
    nok "grade --emu-check=maybe: a usage error (status 2) that names the choices" "rc=$rc" "$(cat err5)"
fi

# The class report counts the lucky passes among the failures of their kind.
"$BIN" class report out/grade.db --json > report.json 2> err6
rc=$?
if [ $rc -eq 0 ] && python3 -c "
import json, sys
r = json.load(open('report.json'))
e = [x for x in r['exercises'] if x['id'] == 'sgemm-tiled'][0]
kinds = {f['kind']: f['count'] for f in e['failures']}
sys.exit(0 if e['passed_on_gpu_by_luck'] == 1 and e['passed'] == 2 and sum(kinds.values()) == 2 and kinds.get('wrong-result', 0) >= 1 else 1)" 2> why; then
    ok "class report: the lucky pass is a failure of its kind, and passed_on_gpu_by_luck counts it"
else
    nok "class report: the lucky pass is a failure of its kind, and passed_on_gpu_by_luck counts it" "rc=$rc" "$(tail -3 why)" "$(tail -3 err6)"
fi

# A grading database from before the check (schema 1, no emu_check column):
# opened, it is migrated, and its GPU runs are graded again with the check.
cp -r out old
python3 -c "
import sqlite3
db = sqlite3.connect('old/grade.db')
db.execute('UPDATE run SET emu_check = 0'); db.execute('ALTER TABLE run DROP COLUMN emu_check')
db.execute('PRAGMA user_version = 1'); db.commit()" 2> why
grade old sum7.json err7
rc=$?
check "a schema-1 grading database is migrated, and its runs graded without the check are graded again with it" old sum7.json \
    'd["runs_executed"] == 4 and d["emu_check"]["runs"] == 3 and c["racy"]["points"] == 0'

# A program exercise: the emulator check runs the executable the GPU run
# built (its compute_90 PTX; app/grade_run.c asks for the GPU's SASS arch),
# so nvcc runs once per file, not twice. The stand-in here builds as an H200
# does: the real worker on the emulator, asked for sm_90 SASS too, its
# results marked the GPU's. sticky-error's defines are the same on a GPU and
# on the emulator (exercises that size their -D by backend build twice).
cat > buildgpu << 'EOF2'
#!/usr/bin/env python3
import json, os, subprocess, sys
assert "--backend=cuda" in sys.argv, sys.argv
args = [a for a in sys.argv[1:] if a != "--backend=cuda"]
w = subprocess.Popen([os.environ["EMUCHECK_TEST_BIN"], "--backend=emu"] + args, stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE)
for line in sys.stdin.buffer:
    req = json.loads(line)
    req["sass_arch"] = 90
    w.stdin.write(json.dumps(req).encode() + b"\n")
    w.stdin.flush()
    for out in w.stdout:
        j = json.loads(out)
        if "result" in j:
            j["result"]["backend"] = "cuda"
            out = json.dumps(j).encode() + b"\n"
        sys.stdout.buffer.write(out)
        sys.stdout.buffer.flush()
        if "result" in j:
            break
EOF2
chmod +x buildgpu
mkdir -p progsubs/alice/errors-and-debugging
cp "$LESSONS/14-errors-and-debugging/solutions/sticky-error.cu" progsubs/alice/errors-and-debugging/ || exit 1
EMURT=$(dirname "$BIN")/emurt
[ -d "$EMURT" ] || EMURT=${LESSONS%/lessons}/${BUILD:-build}/emurt
CUDOJO_EMURT_DIR=$EMURT CUDOJO_GRADE_TEST_GPU_WORKER="$T/buildgpu" EMUCHECK_TEST_BIN="$BIN" "$BIN" --backend=cuda grade progsubs/* \
    --course "$LESSONS" --out out8 --exercises sticky-error --jobs 1 --json > sum8.json 2> err8
rc=$?
if python3 -c "
import json, sqlite3, sys
d = json.load(open('sum8.json')); b = json.load(open('out8/gradebook.json'))
c = b['students'][0]['exercises']['sticky-error']
r = json.loads(sqlite3.connect('out8/grade.db').execute('SELECT result_json FROM run').fetchone()[0])
comp = r['metrics']['compile']
sys.exit(0 if d['emu_check']['runs'] == 1 and c['verdict'] == 'pass' and c['emulator_check']['verdict'] == 'pass'
         and r['backend'] == 'cuda' and comp['compiler'] == 'nvcc' and comp['sass_arch'] == 90 else 1)" 2> why; then
    ok "grade on a GPU: a program exercise's pass (built with the GPU's sm_90 SASS) is checked on the emulator"
else
    nok "grade on a GPU: a program exercise's pass (built with the GPU's sm_90 SASS) is checked on the emulator" \
        "rc=$rc" "$(tail -3 why)" "$(tail -3 err8)"
fi
builds=$(ls "$XDG_CACHE_HOME/cudojo/nvcc" 2> /dev/null | grep -c '^[0-9a-f]\{64\}$')
if [ "$builds" = 1 ]; then
    ok "grade on a GPU: the emulator check runs the GPU run's build of a program: nvcc ran once, not twice"
else
    nok "grade on a GPU: the emulator check runs the GPU run's build of a program: nvcc ran once, not twice" \
        "nvcc cache entries: $builds" "$(ls "$XDG_CACHE_HOME/cudojo/nvcc" 2>&1 | head -5)"
fi

# A kernel exercise the same way: the GPU run builds one NVRTC program with
# a cubin for its sm_90 (metrics.compile.sass_arch), and the emulator check
# asks for that build (ExerciseRunOptions.sass_arch) and finds it in the
# NVRTC cache: one entry, holding the cubin, where it used to compile a
# compute_80 module of its own beside the GPU's.
mkdir -p kernsubs/alice/hello-gpu
cp "$LESSONS/01-hello-gpu/solutions/vector-add.cu" kernsubs/alice/hello-gpu/ || exit 1
XDG_CACHE_HOME="$T/cache9" CUDOJO_GRADE_TEST_GPU_WORKER="$T/buildgpu" EMUCHECK_TEST_BIN="$BIN" "$BIN" --backend=cuda \
    grade kernsubs/* --course "$LESSONS" --out out9 --exercises vector-add --jobs 1 --json > sum9.json 2> err9
rc=$?
if python3 -c "
import json, sqlite3, sys
d = json.load(open('sum9.json')); b = json.load(open('out9/gradebook.json'))
c = b['students'][0]['exercises']['vector-add']
r = json.loads(sqlite3.connect('out9/grade.db').execute('SELECT result_json FROM run').fetchone()[0])
sys.exit(0 if d['emu_check']['runs'] == 1 and c['verdict'] == 'pass' and c['emulator_check']['verdict'] == 'pass'
         and r['metrics']['compile']['sass_arch'] == 90 else 1)" 2> why; then
    ok "grade on a GPU: a kernel exercise's pass (a cubin for the GPU's sm_90) is checked on the emulator"
else
    nok "grade on a GPU: a kernel exercise's pass (a cubin for the GPU's sm_90) is checked on the emulator" \
        "rc=$rc" "$(tail -3 why)" "$(tail -3 err9)"
fi
entries=$(ls "$T/cache9/cudojo/nvrtc" 2> /dev/null | grep -c '\.nvrtc$')
cubins=$(grep -l -a '^cubin [1-9]' "$T/cache9/cudojo/nvrtc"/*.nvrtc 2> /dev/null | wc -l)
if [ "$entries" = 1 ] && [ "$cubins" = 1 ]; then
    ok "grade on a GPU: the emulator check runs the GPU run's NVRTC build of a kernel exercise: one compile, not two"
else
    nok "grade on a GPU: the emulator check runs the GPU run's NVRTC build of a kernel exercise: one compile, not two" \
        "NVRTC cache entries: $entries, with a cubin: $cubins" "$(ls "$T/cache9/cudojo/nvrtc" 2>&1 | head -5)"
fi
