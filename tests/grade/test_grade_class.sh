#!/bin/sh
# tests/grade/test_grade_class.sh: `cudojo grade` on a generated class of 52
# students (workspace folders and tar.gz archives) over chapter 01 of the
# course: solutions, starters, wrong variants, a kernel that passes the
# learner's run but not the hidden checks, missing files, a later
# resubmission of one student and a hostile archive. The gradebook is checked
# cell by cell against what each student was given; then a grading killed
# with kill -9 half-way resumes to the same gradebook without running any
# file twice, and grading an unchanged class again runs nothing. Emulator,
# no GPU needed.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
LESSONS=$(pwd)/lessons
T=$(mktemp -d /tmp/cudojo-grade-XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" NO_COLOR=1
cd "$T" || exit 1
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }

mkdir -p course subs
cp -r "$LESSONS/01-hello-gpu" course/ || exit 1

# The class: expected.csv says what each student must get.
python3 - "$LESSONS/01-hello-gpu" subs expected.csv <<'EOF' || { nok "generating the class"; exit 0; }
import io, json, os, sys, tarfile, time
L, subs, exp_path = sys.argv[1:4]
ex = {  # id -> (file, wrong variants)
    "hello-threads": ("hello-threads.cu", ["hello-threads-fixed-block.cu", "hello-threads-sum.cu"]),
    "vector-add": ("vector-add.cu", ["vector-add-no-guard.cu", "vector-add-no-blockidx.cu"]),
    "grid-stride": ("grid-stride.cu", ["grid-stride-block-stride.cu", "grid-stride-no-blockidx.cu"]),
}
order = ["hello-threads", "vector-add", "grid-stride"]
def read(p): return open(p, "rb").read()
def source(eid, role):
    f, wrong = ex[eid]
    if role == 0: return read(f"{L}/solutions/{f}"), 1
    if role == 1: return read(f"{L}/{f}"), 0
    if role in (2, 3): return read(f"{L}/solutions/wrong/{wrong[role - 2]}"), 0
    if role == 4: return None, 0
    # role 5: passes the learner's run; vector-add's guard uses the default n, which the hidden checks catch
    if eid == "vector-add":
        return read(f"{L}/solutions/{f}").replace(b"if (i < n)", b"if (i < 1000003)"), 0
    return read(f"{L}/solutions/{f}"), 1
def tar(path, members, student, when):
    man = {"format": "cudojo-submission", "format_version": 1, "student": student, "workspace_uuid": "u-" + student,
           "course_version": "x", "submitted_unix_ms": when, "app_version": "test", "files": []}
    with tarfile.open(path, "w:gz") as t:
        for name, data in [("cudojo-submission.json", json.dumps(man).encode())] + members:
            info = tarfile.TarInfo(name); info.size = len(data); info.mode = 0o644
            t.addfile(info, io.BytesIO(data))
rows = {}
now = int(time.time() * 1000)
for i in range(52):
    name = f"s{i:02d}"
    files, pts = [], []
    for j, eid in enumerate(order):
        data, p = source(eid, (i * 7 + j * 3) % 6)
        pts.append(p)
        if data is not None: files.append((f"hello-gpu/{ex[eid][0]}", data))
    rows[name] = pts
    if i % 4 == 0:
        tar(f"{subs}/sub-{i:02d}.tar.gz", files, name, now - 100000)
    else:
        for f, data in files:
            os.makedirs(f"{subs}/{name}/hello-gpu", exist_ok=True)
            open(f"{subs}/{name}/{f}", "wb").write(data)
        os.makedirs(f"{subs}/{name}/hello-gpu", exist_ok=True)
# s05 submits again later, with every solution: that one counts.
tar(f"{subs}/s05-again.tar.gz", [(f"hello-gpu/{ex[e][0]}", read(f"{L}/solutions/{ex[e][0]}")) for e in order],
    "s05", now + 10**9)
rows["s05"] = [1, 1, 1]
# A hostile archive: a member that climbs out of the folder.
with tarfile.open(f"{subs}/evil.tar.gz", "w:gz") as t:
    data = b"__global__ void k() {}\n"
    info = tarfile.TarInfo("../../escaped.cu"); info.size = len(data)
    t.addfile(info, io.BytesIO(data))
with open(exp_path, "w") as f:
    f.write("student," + ",".join(order) + ",total\n")
    for name in sorted(rows):
        f.write(name + "," + ",".join(str(p) for p in rows[name]) + f",{sum(rows[name])}\n")
EOF

# 1. The whole class.
"$BIN" --backend=emu grade subs/* --course course --out out --jobs 2 --json > run1.json 2> run1.err
rc=$?
if [ $rc -eq 0 ] && cmp -s out/gradebook.csv expected.csv; then
    ok "grade: the gradebook of 52 students matches what each was given, cell by cell"
else
    nok "grade: the gradebook of 52 students matches what each was given, cell by cell" "rc=$rc" \
        "$(diff expected.csv out/gradebook.csv 2>&1 | head -12)" "$(tail -3 run1.err)"
fi
check() { # NAME PYTHON-CONDITION (d = run1.json, b = gradebook.json)
    if python3 -c "
import json, os, sys
d = json.load(open('run1.json')); b = json.load(open('out/gradebook.json'))
sys.exit(0 if ($2) else 1)" 2> why; then ok "$1"; else nok "$1" "$(tail -2 why)"; fi
}
check "grade --json: every file of the class ran once (runs executed + missing = students x exercises)" \
    'd["students"] == 52 and d["runs_executed"] + d["runs_missing"] == 52 * 3 and d["runs_reused"] == 0'
check "grade: the hostile archive is rejected by name and graded for nobody" \
    'any("evil.tar.gz" in p and "rejected" in p for p in d["problems"]) and not os.path.exists("escaped.cu") and not os.path.exists("out/escaped.cu")'
check "grade: a later resubmission replaces the earlier one and says so" \
    'any("s05" in p for p in d["problems"]) and [s for s in b["students"] if s["student"] == "s05"][0]["origin"].endswith("s05-again.tar.gz")'
check "grade: a kernel that passes the learner's run fails the hidden checks (out of bounds)" \
    'all(s["exercises"]["vector-add"]["failure_kind"] == "out-of-bounds" for s in b["students"] if s["student"] in ("s02", "s08", "s14"))'
check "grade: every student has a Gradescope results.json whose score is their total and a feedback.md" \
    'all(json.load(open("out/students/%s/results.json" % s["student"]))["score"] == s["total"] and os.path.getsize("out/students/%s/feedback.md" % s["student"]) > 0 for s in b["students"])'
check "grade: a missing file is graded 0 as missing" \
    'all(s["exercises"]["hello-threads"]["verdict"] == "missing" for s in b["students"] if s["student"] in ("s04", "s10"))'

# 2. Nothing changed: nothing runs.
"$BIN" --backend=emu grade subs/* --course course --out out --jobs 2 --json > run2.json 2> run2.err
if python3 -c "import json,sys; d=json.load(open('run2.json')); sys.exit(0 if d['runs_executed'] == 0 and d['runs_reused'] == 156 else 1)" &&
   cmp -s out/gradebook.csv expected.csv; then
    ok "grade again on an unchanged class: zero runs, the same gradebook"
else
    nok "grade again on an unchanged class: zero runs, the same gradebook" "$(head -c 400 run2.json)"
fi

# 3. kill -9 half-way, then resume.
count_runs() {
    python3 -c "import sqlite3,sys
try:
    print(sqlite3.connect('file:out2/grade.db?mode=ro', uri=True).execute(\"select count(*) from run where verdict != 'missing'\").fetchone()[0])
except Exception: print(0)"
}
"$BIN" --backend=emu grade subs/* --course course --out out2 --jobs 2 > /dev/null 2> kill.err &
pid=$!
n=0
for _ in $(seq 1 600); do
    n=$(count_runs)
    [ "$n" -ge 25 ] && break
    sleep 0.1
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
sleep 0.5
before=$(count_runs)
"$BIN" --backend=emu grade subs/* --course course --out out2 --jobs 2 --json > run3.json 2> run3.err
after=$(count_runs)
executed=$(python3 -c "import json; print(json.load(open('run3.json'))['runs_executed'])" 2>/dev/null)
total=$(python3 -c "import json; d=json.load(open('run1.json')); print(d['runs_executed'])")
if [ "$before" -ge 25 ] && [ "$before" -lt "$total" ] && [ "$executed" = $((total - before)) ] && [ "$after" = "$total" ] &&
   cmp -s out2/gradebook.csv out/gradebook.csv; then
    ok "grade killed with kill -9 after $before of $total runs resumes: $executed more runs, none twice, the same gradebook"
else
    nok "grade killed with kill -9 half-way resumes to the same gradebook, no run twice" \
        "before=$before executed=$executed after=$after total=$total" "$(diff out/gradebook.csv out2/gradebook.csv 2>&1 | head -5)" \
        "$(tail -3 run3.err)"
fi

# 4. Two shards merged (in either order, twice) give the local gradebook.
"$BIN" --backend=emu grade subs/* --course course --out sh0 --shard 0/2 --jobs 2 > /dev/null 2> sh0.err
"$BIN" --backend=emu grade subs/* --course course --out sh1 --shard 1/2 --jobs 2 > /dev/null 2> sh1.err
"$BIN" --backend=emu grade --course course --out merged --merge sh1/grade.db sh0/grade.db sh1/grade.db --json > merge.json 2> merge.err
rc=$?
n0=$(python3 -c "import json; print(len(json.load(open('sh0/gradebook.json'))['students']))" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$n0" = 26 ] && cmp -s merged/gradebook.csv out/gradebook.csv &&
   python3 -c "import json,sys; sys.exit(0 if json.load(open('merge.json'))['runs_executed'] == 0 else 1)"; then
    ok "grade --shard 0/2 and 1/2, then --merge (twice, any order): the local gradebook, no runs"
else
    nok "grade --shard 0/2 and 1/2, then --merge (twice, any order): the local gradebook, no runs" "rc=$rc n0=$n0" \
        "$(diff out/gradebook.csv merged/gradebook.csv 2>&1 | head -5)" "$(tail -3 merge.err)"
fi
mkdir other && cp -r course/01-hello-gpu other/ && sed -i 's/points = 1,/points = 2,/; s/^  id = "vector-add",/  id = "vector-add",\n  points = 2,/' other/01-hello-gpu/vector-add.lua
"$BIN" --backend=emu grade --course other --out merged --merge sh0/grade.db > /dev/null 2> refuse.err
rc=$?
if [ $rc -eq 2 ] && grep -q "course changed" refuse.err; then
    ok "grade into a database of another course version is refused, saying the course changed"
else
    nok "grade into a database of another course version is refused, saying the course changed" "rc=$rc" "$(head -3 refuse.err)"
fi
