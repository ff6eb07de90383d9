#!/bin/sh
# tests/grade/test_grade_emucheck_gpu.sh: on a real GPU (CUDOJO_TEST_GPU=1,
# else skipped), `cudojo --backend=cuda grade` gives sgemm-tiled's solution
# its point and the wrong variant without the second __syncthreads (a race
# the H200 lets pass) none: the emulator checks every GPU pass; and the
# check of a program exercise runs the GPU's own build (nvcc runs once).
# Without a GPU the same plumbing is tested by test_grade_emucheck.sh.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
NAME="grade on a GPU: sgemm-tiled's solution gets 1 point, its racy wrong variant 0 (the emulator checks the pass)"
NAME2="grade on a GPU: sticky-error's solution passes the emulator check of the GPU's own build (nvcc ran once)"
if [ "${CUDOJO_TEST_GPU:-0}" != 1 ]; then
    echo "skip - $NAME (needs CUDOJO_TEST_GPU=1 and a GPU)"
    echo "skip - $NAME2 (needs CUDOJO_TEST_GPU=1 and a GPU)"
    exit 0
fi
# report NAME RC ERRFILE STATUS: ok when STATUS (the check's exit) is 0, else not ok with the grader's rc and stderr
report() {
    if [ "$4" = 0 ]; then echo "ok - $1"; else
        echo "not ok - $1"
        echo "    rc=$2"
        tail -5 "$3" | sed 's/^/    /'
    fi
}
T=$(mktemp -d /tmp/cudojo-grade-emucheck-gpu-XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" NO_COLOR=1
unset CUDOJO_GRADE_TEST_GPU_WORKER
cd "$T" || exit 1
mkdir -p subs/good/roofline subs/racy/roofline
cp "$LESSONS/11-roofline/solutions/sgemm-tiled.cu" subs/good/roofline/ || exit 1
cp "$LESSONS/11-roofline/solutions/wrong/sgemm-tiled-one-sync.cu" subs/racy/roofline/sgemm-tiled.cu || exit 1
"$BIN" --backend=cuda grade subs/* --course "$LESSONS" --out out --exercises sgemm-tiled --jobs 2 --json \
    > sum.json 2> err
rc=$?
python3 -c "
import json, sys
b = json.load(open('out/gradebook.json'))
c = {s['student']: s['exercises']['sgemm-tiled'] for s in b['students']}
g, r = c['good'], c['racy']
print('# good: %s %s, emulator %s' % (g['verdict'], g['points'], (g.get('emulator_check') or {}).get('verdict')))
print('# racy: %s %s %s: %s' % (r['verdict'], r['failure_kind'], r['points'], r['message']))
ok = g['points'] == 1 and (g.get('emulator_check') or {}).get('verdict') == 'pass' and r['points'] == 0
# the GPU may fail the race on its own; where it passed, the emulator overturned it
ok = ok and (r.get('emulator_check') is None or r['emulator_check']['overturned'])
sys.exit(0 if ok else 1)"
report "$NAME" "$rc" err $?

# A program exercise whose defines are the same on both backends: the
# emulator check runs the very executable the GPU ran (compute_80 PTX +
# the GPU's SASS) from the nvcc cache, so nvcc ran once.
mkdir -p progsubs/alice/errors-and-debugging
cp "$LESSONS/14-errors-and-debugging/solutions/sticky-error.cu" progsubs/alice/errors-and-debugging/ || exit 1
"$BIN" --backend=cuda grade progsubs/* --course "$LESSONS" --out out2 --exercises sticky-error --jobs 1 --json \
    > sum2.json 2> err2
rc=$?
builds=$(ls "$XDG_CACHE_HOME/cudojo/nvcc" 2> /dev/null | grep -c '^[0-9a-f]\{64\}$')
python3 -c "
import json, sys
c = json.load(open('out2/gradebook.json'))['students'][0]['exercises']['sticky-error']
print('# sticky-error: %s %s, emulator %s, nvcc builds $builds' % (c['verdict'], c['points'],
      (c.get('emulator_check') or {}).get('verdict')))
ok = c['points'] == 1 and (c.get('emulator_check') or {}).get('verdict') == 'pass' and $builds == 1
if not ok:   # what the grader saw, so a failure on the GPU machine says why
    for line in json.dumps(c, indent=1).splitlines()[:60]: print('#   ' + line)
sys.exit(0 if ok else 1)"
report "$NAME2" "$rc" err2 $?
