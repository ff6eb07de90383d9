#!/bin/sh
# tests/lessons/test_verify.sh: the whole course on the emulator, as an author's
# `cudojo verify` runs it: every solution passes, every starter and wrong
# variant fails. One ok/not ok line per exercise (all its files), with the
# verdicts of any file that misbehaved. A fresh NVRTC and nvcc cache, so
# compile errors in a lesson cannot hide behind a cached build: its own, or
# under `make test` CUDOJO_TEST_COURSE_CACHE, which tools/run-tests.sh makes
# empty for the run and shares with test_mutants.sh (the same solutions).
BIN=${CUDOJO_BIN:-build/cudojo}
T=$(mktemp -d /tmp/cudojo-verify-XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="${CUDOJO_TEST_COURSE_CACHE:-$T/cache}" XDG_DATA_HOME="$T/data" NO_COLOR=1
"$BIN" verify --backend=emu --json lessons/[0-9]* > "$T/out.json" 2> "$T/err.txt"
rc=$?
python3 - "$T/out.json" "$rc" "$T/err.txt" <<'PY'
import json, sys
path, rc, err = sys.argv[1], int(sys.argv[2]), sys.argv[3]
try:
    d = json.load(open(path))
except Exception as e:
    print("not ok - verify printed no JSON (exit %d): %s" % (rc, e))
    print("    " + open(err).read()[:2000].replace("\n", "\n    "))
    sys.exit(0)
by = {}
for r in d["results"]:
    by.setdefault(r["exercise"], []).append(r)
for ex, rows in by.items():
    bad = [r for r in rows if not r["ok"]]
    if bad:
        print("not ok - verify %s" % ex)
        for r in bad:
            print("    %s %s: %s (%s)" % (r["role"], r["file"], r["verdict"], r.get("summary")))
    else:
        print("ok - verify %s (%d files)" % (ex, len(rows)))
if d.get("load_errors"):
    print("not ok - the course loads without errors")
    print("    " + open(err).read()[:2000].replace("\n", "\n    "))
else:
    print("ok - the course loads without errors")
PY
