#!/bin/sh
# tests/grade/test_grade_solutions.sh: grading is confined (a stranger's
# source: no header read beside it, nvcc shut in, bounded memory), and a
# confinement that also stops honest code is a bug every student pays for:
# session 7's --no-source-include failed every graded wmma and
# cooperative-groups kernel ("cannot open source file mma.hpp") and no test
# saw it. So: one submission holding every exercise's reference solution,
# graded on the emulator, gets every point there is (exercises that need a
# GPU are not graded without one).
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
T=$(mktemp -d /tmp/cudojo-grade-solutions-XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" NO_COLOR=1
cd "$T" || exit 1
# subs/all/<chapter id>/<exercise file>: the layout `cudojo submit` unpacks to
# (the chapter id from chapter.lua, the file named as the starter).
for ch in "$LESSONS"/[0-9]*/; do
    id=$(sed -n 's/^ *id *= *"\([^"]*\)".*/\1/p' "$ch/chapter.lua" | head -1)
    [ -n "$id" ] || continue
    mkdir -p "subs/all/$id"
    for f in "$ch"solutions/*.cu; do
        [ -f "$ch$(basename "$f")" ] && cp "$f" "subs/all/$id/"
    done
done
"$BIN" --backend=emu grade subs/all --course "$LESSONS" --out out --jobs 2 --json > sum.json 2> err
rc=$?
if python3 - > why 2>&1 <<'PY'
import json, sys
b = json.load(open('out/gradebook.json'))
bad = [(e, c.get('verdict'), c.get('failure_kind'), (c.get('message') or '')[:160])
       for s in b['students'] for e, c in s['exercises'].items()
       if c.get('verdict') not in ('pass', 'missing')]
graded = sum(1 for s in b['students'] for c in s['exercises'].values() if c.get('verdict') != 'missing')
for x in bad: print('    %s: %s (%s) %s' % x)
print('    %d graded, %d not passing' % (graded, len(bad)))
sys.exit(0 if graded >= 80 and not bad else 1)
PY
then echo "ok - a submission of every reference solution passes every exercise graded on the emulator"
else echo "not ok - a submission of every reference solution passes every exercise graded on the emulator"
    echo "    rc=$rc"; cat why; tail -3 err | sed 's/^/    /'
fi
