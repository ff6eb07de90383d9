#!/bin/sh
# session 14 call 3 (traced holds): bench_grade 3 with the lock trace naming what each holder does, at the default
# yield look (25 ms) and at 5 ms (CUDOJO_GPU_YIELD_LOOK_MS=5); what the long exclusive waits waited for, by operation
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "test_program_elf"
CUDOJO_TEST_GPU=1 timeout 120 build/tests/kernels/test_program_elf > "$O/test_program_elf.txt" 2>&1; echo "rc=$?"; tail -1 "$O/test_program_elf.txt"
cat > /tmp/holds.py <<'PY'
import sys, collections
rows = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 6: rows.append((float(f[0]), int(f[1]), f[2], f[3], float(f[4]), f[5]))
rows.sort()
kind = lambda lab: lab.split("/", 1)[1] if "/" in lab else "(none)"
op = lambda lab: kind(lab).split(":")[0]
long_waits = collections.defaultdict(lambda: [0, 0.0]); by_label = collections.defaultdict(lambda: [0, 0.0])
last_release = None
for r in rows:
    if r[2] == "release" and r[3] != "exclusive": last_release = r
    if r[2] == "take" and r[3] == "exclusive" and r[4] > 50 and last_release:
        k = op(last_release[5]); long_waits[k][0] += 1; long_waits[k][1] += r[4]
        by_label[last_release[5]][0] += 1; by_label[last_release[5]][1] += r[4]
print("exclusive waits over 50 ms, by the operation of the shared hold that let go last:")
for k, (n, ms) in sorted(long_waits.items(), key=lambda x: -x[1][1]): print("  %-22s %4d waits %8.0f ms" % (k, n, ms))
print("  ... by holder (exercise/operation), top 12:")
for k, (n, ms) in sorted(by_label.items(), key=lambda x: -x[1][1])[:12]: print("  %-50s %4d waits %8.0f ms" % (k, n, ms))
shared = collections.defaultdict(lambda: [0, 0.0, 0.0])
for r in rows:
    if r[2] == "release" and r[3] != "exclusive":
        s = shared[op(r[5])]; s[0] += 1; s[1] += r[4]; s[2] = max(s[2], r[4])
print("shared holds by operation: count, sum, longest")
for k, (n, ms, mx) in sorted(shared.items(), key=lambda x: -x[1][1]): print("  %-22s %5d %9.0f ms  longest %6.0f ms" % (k, n, ms, mx))
longest = sorted([r for r in rows if r[2] == "release" and r[3] != "exclusive"], key=lambda r: -r[4])[:12]
print("longest shared holds:"); [print("  %8.0f ms %s" % (r[4], r[5])) for r in longest]
d = [r[4] for r in rows if r[2] in ("drain", "drain-late")]
print("drains: %d, %.0f ms in all, late %d" % (len(d), sum(d), sum(1 for r in rows if r[2] == "drain-late")))
PY
bg() {  # label, then env assignments
  label=$1; shift
  rm -rf /tmp/cudojo-bench-grade-*
  env "$@" BENCH_GRADE_KEEP=1 CUDOJO_BACKEND=cuda timeout 200 build/bench/bench_grade 3 > "$O/grade-$label.txt" 2>&1; echo "rc=$?"
  grep -E 'runs/s|projection|GPU lock|solutions passing|solution failed|at least' "$O/grade-$label.txt"
  g=$(ls -d /tmp/cudojo-bench-grade-* | head -1)
  python3 /tmp/holds.py "$g/lock-trace.txt" | tee "$O/holds-$label.txt" | head -${HOLDS_LINES:-60}
  xz -c "$g/lock-trace.txt" > "$O/trace-$label.txt.xz"
}
el "bench_grade 3, yield look 25 ms (default)"
bg look25 CUDOJO_X=1
el "bench_grade 3, yield look 5 ms"
HOLDS_LINES=8 bg look5 CUDOJO_GPU_YIELD_LOOK_MS=5
el done
