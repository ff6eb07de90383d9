#!/bin/sh
# tests/lessons/test_mutants.sh: `cudojo verify --mutants` on the emulator.
# First a small pack whose checks have a hole (a size that is a whole number
# of blocks, so a weakened guard never reads past the end): the mutant
# survives and is reported with file:line, exit status 1, also when every
# first run ran out of time (each is run again, never counted killed); a
# documented mutants_equivalent entry allows it (and it is not run, unless
# --run-allowed, which says an entry whose mutants are killed is not
# needed); a stale one is reported. A mutant that loops forever is killed
# by its instruction budget (16 times the solution's largest launch),
# whatever the load; without one it times out twice and is reported as
# timed out, not killed. A kernel bug
# hunt whose starter has a race verifies with bug = "race" and does not with
# bug = "out-of-bounds". Then the whole course: every mutant of every
# solution is killed (or invalid, or allowed), one ok/not ok line per
# exercise. The NVRTC and nvcc caches live in $BUILD/test-mutants-cache and
# are kept between runs: a mutant is a pure function of its solution, and
# the caches are keyed by the exact source, so a stale build cannot be hit.
# Under `make test`, CUDOJO_TEST_COURSE_CACHE instead: one cache for this
# run, shared with test_verify.sh, which compiles the same solutions.
BIN=${CUDOJO_BIN:-build/cudojo}
T=$(mktemp -d /tmp/cudojo-mutants-XXXXXX)
trap 'rm -rf "$T"' EXIT
CACHE=${CUDOJO_TEST_COURSE_CACHE:-${BUILD:-build}/test-mutants-cache}
mkdir -p "$CACHE"
export XDG_CACHE_HOME=$(cd "$CACHE" && pwd) XDG_DATA_HOME="$T/data" NO_COLOR=1

# ---- a pack with a hole ----
P="$T/pack/01-twice"
mkdir -p "$P/solutions"
cat > "$P/chapter.lua" <<'EOF'
return { id = "twice-ch", title = "Twice", order = 1, exercises = { "twice", "reverse-hunt" } }
EOF
cat > "$P/twice.cu" <<'EOF'
extern "C" __global__ void twice(const float *in, float *out, int n)
{
    // TODO: out[i] = 2 * in[i]
}
EOF
cat > "$P/solutions/twice.cu" <<'EOF'
extern "C" __global__ void twice(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * in[i];
}
EOF
exercise() { # extra fields of twice.lua
cat > "$P/twice.lua" <<EOF
return {
  id = "twice", source = "twice.cu", hints = { "one", "two" },
  $1
  run = function(t)
    local n = 1024          -- whole blocks: the guard is never tested
    local x = gpu.array("f32", n):random{ seed = 1 }
    local y = gpu.array("f32", n)
    t:kernel("twice"):launch{ grid = n // 256, block = 256, args = { x, y, gpu.i32(n) } }
    t:expect_close(y, ref.scale(x, 2), { rel = 1e-6 })
  end,
}
EOF
}
# A bug hunt with a kernel: the starter reverses a block through shared memory without a barrier.
cat > "$P/reverse-hunt.cu" <<'EOF'
extern "C" __global__ void reverse(const int *in, int *out)
{
    __shared__ int s[256];
    s[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
    out[blockIdx.x * 256 + threadIdx.x] = s[255 - threadIdx.x];
}
EOF
cat > "$P/solutions/reverse-hunt.cu" <<'EOF'
extern "C" __global__ void reverse(const int *in, int *out)
{
    __shared__ int s[256];
    s[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * 256 + threadIdx.x] = s[255 - threadIdx.x];
}
EOF
hunt() { # the bug it names, extra fields
cat > "$P/reverse-hunt.lua" <<EOF
return {
  id = "reverse-hunt", source = "reverse-hunt.cu", hints = { "one", "two" },
  bug_hunt = true, bug = "$1",
  $2
  run = function(t)
    local x = gpu.array("i32", 512):random{ seed = 3, lo = 0, hi = 1000 }
    local y = gpu.array("i32", 512)
    t:kernel("reverse"):launch{ grid = 2, block = 256, args = { x, y } }
    local want = gpu.array("i32", 512)
    for b = 0, 1 do for i = 0, 255 do want[b * 256 + i] = x[b * 256 + 255 - i] end end
    t:expect_equal(y, want)
  end,
}
EOF
}
exercise ""
hunt race
"$BIN" verify --mutants --jobs 2 "$P" > "$T/out.txt" 2> "$T/err.txt"
rc=$?
if [ $rc -eq 1 ] && grep -q "solutions/twice.cu:4: weaken guard < to <= survived" "$T/out.txt" &&
   grep -q -- "- if (i < n)" "$T/out.txt" && grep -q -- "+ if (i <= n)" "$T/out.txt" &&
   grep -q "solutions/twice.cu:4: drop guard survived" "$T/out.txt" && grep -q "+ if (true)" "$T/out.txt" &&
   grep -q "2 survived" "$T/out.txt" && grep -q "mutants:" "$T/err.txt"; then
  echo "ok - verify --mutants reports a surviving mutant with file:line and the changed line, exit 1"
else
  echo "not ok - verify --mutants reports a surviving mutant with file:line and the changed line, exit 1 (exit $rc)"
  sed 's/^/    /' "$T/out.txt" "$T/err.txt" | head -40
fi

# First runs out of time (a limit of 1 ms): a mutant that ran out runs again
# with the exercise's own limit, and the survivors are still found. Not every
# first run is stopped: under CI load the end of a compile and the run's
# result reached the runner in one read, and the result was taken (the clock
# starts after the compile), so at least one retry, not all.
CUDOJO_MUTANT_TIMEOUT_S=0.001 "$BIN" verify --mutants --json --jobs 2 "$P" > "$T/out.json" 2> "$T/err.txt"
rc=$?
if [ $rc -eq 1 ] && python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
ran = d['mutants'] - d['invalid'] - d['not_run']
assert d['survived'] == 2 and d['timed_out'] == 0 and d['killed'] == ran - 2, d
assert 1 <= sum(e['retried'] for e in d['exercises']) <= ran, d
" "$T/out.json"; then
  echo "ok - verify --mutants runs a mutant out of time again with a longer limit: a survivor is never counted killed"
else
  echo "not ok - verify --mutants runs a mutant out of time again with a longer limit: a survivor is never counted killed (exit $rc)"
  sed 's/^/    /' "$T/out.json" "$T/err.txt" | head -40
fi

exercise 'mutants_equivalent = { { mutation = "weaken guard < to <=", line = "if (i < n)", why = "a test" },
                        { mutation = "drop guard", line = "if (i <  n)", why = "a test" } },'
hunt race 'mutants_equivalent = { { mutation = "drop __syncthreads()", line = "__syncthreads();", why = "not so" } },'
"$BIN" verify --mutants --json "$P/" > "$T/out.json" 2> "$T/err.txt"
rc=$?
if [ $rc -eq 0 ] && python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['survived'] == 0 and d['equivalent'] == 3 and d['not_run'] == 3 and d['passed'], d
assert all(not a['ran'] for e in d['exercises'] for a in e['allowed']) and not any(e['notes'] for e in d['exercises']), d
" "$T/out.json"; then
  echo "ok - mutants_equivalent entries naming the mutation and its line (spacing aside) allow them, not run"
else
  echo "not ok - mutants_equivalent entries naming the mutation and its line (spacing aside) allow them, not run (exit $rc)"
  sed 's/^/    /' "$T/out.json" "$T/err.txt" | head -40
fi
"$BIN" verify --mutants --run-allowed "$P/" > "$T/out.txt" 2> "$T/err.txt"
rc=$?
if [ $rc -eq 0 ] && grep -q "twice .*2 mutants: 0 killed, 2 equivalent" "$T/out.txt" &&
   grep -q 'reverse-hunt.lua: mutants_equivalent\[1\] (drop __syncthreads() .*not needed' "$T/out.txt" &&
   ! grep -q 'twice.lua: .*not needed' "$T/out.txt" && ! grep -q "were not run" "$T/out.txt"; then
  echo "ok - verify --mutants --run-allowed runs the allowed mutants and says an allowance whose mutants are killed is not needed"
else
  echo "not ok - verify --mutants --run-allowed runs the allowed mutants and says an allowance whose mutants are killed is not needed (exit $rc)"
  sed 's/^/    /' "$T/out.txt" "$T/err.txt" | head -40
fi
hunt race

exercise 'mutants_equivalent = { { mutation = "weaken guard < to <=", line = "if (i < count)", why = "stale" } },'
"$BIN" verify --mutants "$P" > "$T/out.txt" 2> "$T/err.txt"
rc=$?
if [ $rc -eq 1 ] && grep -q 'mutants_equivalent\[1\].*names no mutant' "$T/out.txt"; then
  echo "ok - a mutants_equivalent entry that names no mutant is reported"
else
  echo "not ok - a mutants_equivalent entry that names no mutant is reported (exit $rc)"
  sed 's/^/    /' "$T/out.txt" "$T/err.txt" | head -40
fi

"$BIN" verify --backend=emu "$P" > "$T/out.txt" 2> "$T/err.txt"
rc=$?
if [ $rc -eq 0 ] && grep -q "reverse-hunt .*starter .*fail" "$T/out.txt"; then
  echo "ok - a kernel bug hunt verifies when its starter shows the bug it names (race)"
else
  echo "not ok - a kernel bug hunt verifies when its starter shows the bug it names (race) (exit $rc)"
  sed 's/^/    /' "$T/out.txt" "$T/err.txt" | head -40
fi
hunt out-of-bounds
"$BIN" verify --backend=emu "$P" > "$T/out.txt" 2> "$T/err.txt"
rc=$?
if [ $rc -eq 1 ] && grep -q 'without the bug the exercise names (bug = "out-of-bounds"): the emulator showed .*race' "$T/out.txt"; then
  echo "ok - a bug hunt whose starter fails another way (race, not out-of-bounds) does not verify"
else
  echo "not ok - a bug hunt whose starter fails another way (race, not out-of-bounds) does not verify (exit $rc)"
  sed 's/^/    /' "$T/out.txt" "$T/err.txt" | head -40
fi

# ---- a mutant that never ends: past its instruction budget, killed; without one, "timed out" ----
L="$T/slow/01-loop"
mkdir -p "$L/solutions"
cat > "$L/chapter.lua" <<'EOF'
return { id = "loop-ch", title = "Loop", order = 1, exercises = { "count" } }
EOF
cat > "$L/count.cu" <<'EOF'
extern "C" __global__ void count(const volatile int *in, int *out, int n)
{
}
EOF
cat > "$L/solutions/count.cu" <<'EOF'
extern "C" __global__ void count(const volatile int *in, int *out, int n)
{
    int k = 0;
    while (k < n) {
        if (in[k] >= 0)
            k++;
    }
    out[threadIdx.x] = k;
}
EOF
cat > "$L/count.lua" <<'EOF'
return {
  id = "count", source = "count.cu", hints = { "one", "two" }, timeout = 2,
  mutants_equivalent = { { mutation = "drop guard", line = "if (in[k] >= 0)", why = "every value is 0" } },
  run = function(t)
    local x = gpu.array("i32", 8)      -- zeros: in[k] > 0 never holds, so that mutant never ends
    local y = gpu.array("i32", 32)
    t:kernel("count"):launch{ grid = 1, block = 32, args = { x, y, gpu.i32(8) } }
    local want = gpu.array("i32", 32)
    for i = 0, 31 do want[i] = 8 end
    t:expect_equal(y, want)
  end,
}
EOF
CUDOJO_MUTANT_TIMEOUT_S=2 "$BIN" verify --mutants --jobs 2 "$L" > "$T/out.txt" 2> "$T/err.txt"
rc=$?
if [ $rc -eq 0 ] && grep -q "count .*mutants: 2 killed, 1 equivalent$" "$T/out.txt"; then
  echo "ok - verify --mutants kills a mutant that loops by its instruction budget, before its time runs out"
else
  echo "not ok - verify --mutants kills a mutant that loops by its instruction budget, before its time runs out (exit $rc)"
  sed 's/^/    /' "$T/out.txt" "$T/err.txt" | head -40
fi
# The same loop in a whole program (kind = "program", emulator runtime): the
# budget reaches the program's launches too (the course's um-perf has such a
# mutant, half >= 0; under make san's load it ran out of time twice).
G="$T/slowprog/01-loop"
mkdir -p "$G/solutions"
cat > "$G/chapter.lua" <<'EOF2'
return { id = "loopp-ch", title = "Loop", order = 1, exercises = { "countp" } }
EOF2
cat > "$G/solutions/countp.cu" <<'EOF2'
#include <cstdio>
__global__ void count(const volatile int *in, int *out, int n)
{
    int k = 0;
    while (k < n) {
        if (in[k] >= 0)
            k++;
    }
    out[threadIdx.x] = k;
}
int main()
{
    int *in, *out, h = 0;
    cudaMalloc(&in, 8 * sizeof(int));
    cudaMemset(in, 0, 8 * sizeof(int));
    cudaMalloc(&out, 32 * sizeof(int));
    count<<<1, 32>>>(in, out, 8);
    cudaMemcpy(&h, out, sizeof(int), cudaMemcpyDeviceToHost);
    printf("count %d\n", h);
    return 0;
}
EOF2
cp "$G/solutions/countp.cu" "$G/countp.cu"
cat > "$G/countp.lua" <<'EOF2'
return {
  id = "countp", kind = "program", source = "countp.cu", hints = { "one", "two" }, timeout = 20,
  mutants_equivalent = { { mutation = "drop guard", line = "if (in[k] >= 0)", why = "every value is 0" } },
  run = function(t)
    local r = t:program{}
    if t:expect_exit(r) then t:expect_output(r, "count 8\n") end
  end,
}
EOF2
CUDOJO_MUTANT_TIMEOUT_S=10 "$BIN" verify --mutants --json --jobs 2 "$G" > "$T/outp.json" 2> "$T/err.txt"
rc=$?
if python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
e = d['exercises'][0]
assert e['solution'] == 'pass' and e['survived'] == 0 and e['timed_out'] == 0 and e['retried'] == 0, e
assert e['killed'] >= 1, e
" "$T/outp.json"; then
  echo "ok - verify --mutants kills a looping mutant of a whole program by its budget, at its first run"
else
  echo "not ok - verify --mutants kills a looping mutant of a whole program by its budget, at its first run (exit $rc)"
  sed 's/^/    /' "$T/outp.json" "$T/err.txt" | head -40
fi
CUDOJO_MUTANT_LAUNCH_BUDGET=0 CUDOJO_MUTANT_TIMEOUT_S=0.5 "$BIN" verify --mutants --jobs 2 "$L" > "$T/out.txt" 2> "$T/err.txt"
rc=$?
if [ $rc -eq 1 ] && grep -q "count .*mutants: 1 killed, 1 equivalent, 1 timed out" "$T/out.txt" &&
   grep -q "solutions/count.cu:5: weaken guard >= to > timed out twice (0.5 s, then 2 s)" "$T/out.txt" &&
   grep -q "1 timed out twice" "$T/out.txt"; then
  echo "ok - verify --mutants reports a mutant out of time twice as timed out (exit 1), not as killed"
else
  echo "not ok - verify --mutants reports a mutant out of time twice as timed out (exit 1), not as killed (exit $rc)"
  sed 's/^/    /' "$T/out.txt" "$T/err.txt" | head -40
fi

# ---- the whole course ----
start=$(date +%s)
"$BIN" verify --mutants --json lessons/[0-9]* > "$T/course.json" 2> "$T/err.txt"
rc=$?
python3 - "$T/course.json" "$rc" "$T/err.txt" "$(( $(date +%s) - start ))" <<'PY'
import json, sys
path, rc, err, secs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
try:
    d = json.load(open(path))
except Exception as e:
    print("not ok - verify --mutants printed no JSON (exit %d): %s" % (rc, e))
    print("    " + open(err).read()[-2000:].replace("\n", "\n    "))
    sys.exit(0)
for ex in d["exercises"]:
    if ex["ok"]:
        print("ok - mutants of %s: %d, every one killed%s" % (ex["exercise"], ex["mutants"],
              " or allowed" if ex["equivalent"] or ex["undetected"] or ex["invalid"] else ""))
        continue
    print("not ok - mutants of %s (%s)" % (ex["exercise"], ex["file"]))
    if ex["solution"] != "pass":
        print("    the solution does not pass: %s" % ex.get("solution_summary"))
    for s in ex["survivors"]:
        print("    %s:%d: %s survived\n      - %s\n      + %s" % (ex["file"], s["line"], s["mutation"], s["before"], s["after"]))
    for s in ex.get("timed_out_mutants", []):
        print("    %s:%d: %s timed out twice\n      - %s\n      + %s" % (ex["file"], s["line"], s["mutation"], s["before"], s["after"]))
    for n in ex["notes"]:
        print("    " + n)
print("# %d exercises, %d mutants: %d killed, %d survived, %d invalid, %d equivalent, %d undetected, %d timed out, "
      "%d runs again after running out of time, %d allowed not run, %s s" % (
    d["n_exercises"], d["mutants"], d["killed"], d["survived"], d["invalid"], d["equivalent"], d["undetected"],
    d.get("timed_out", 0), sum(e.get("retried", 0) for e in d["exercises"]), d.get("not_run", 0), secs))
PY
