#!/bin/sh
# session 19 call 1 (HEAD e238f4c): where grading's CPU goes on the H200. bench_grade 10 (whole course,
# compile ahead default) with the folder kept; a sampler counts the running processes by name every
# 0.5 s (what the cores run: nvcc's stages, the programs, the workers, the emulator) and /proc/stat
# before and after (user, system, idle, iowait of the node). Brings back the gradebook, grade.err's
# tail and the lock trace's summary for the analysis here.
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
sampler() {
  while :; do ps -eo state=,comm= | awk '$1=="R"{print $2}'; echo "--tick"; sleep 0.5; done > /tmp/samples.txt
}
rm -rf /tmp/cudojo-bench-grade-*
head -1 /proc/stat > "$O/stat0.txt"
sampler & sp=$!
el "bench_grade 10 kept"
BENCH_GRADE_KEEP=1 CUDOJO_BACKEND=cuda timeout 420 build/bench/bench_grade 10 > "$O/grade.txt" 2>&1
echo "rc=$?"
kill $sp
head -1 /proc/stat > "$O/stat1.txt"
el "bench done"
awk '/^--tick/{t++; next} {c[$1]++} END{printf "ticks %d\n", t; for (k in c) printf "%8.2f %s\n", c[k]/t, k}' /tmp/samples.txt | sort -rn | head -40 > "$O/running-by-name.txt"
cat "$O/running-by-name.txt"
grep -E 'runs/s|^steady|^CPU|one at a time|solution failed|ahead|compile by kind|emulator check' "$O/grade.txt" | cut -c1-250
cat "$O/stat0.txt" "$O/stat1.txt"
d=$(ls -d /tmp/cudojo-bench-grade-* | head -1)
tail -c 20000 "$d/grade.err" > "$O/grade-err-tail.txt" 2>/dev/null
xz -T0 -6 -c "$d/out/gradebook.json" > "$O/gradebook.json.xz"
xz -T0 -6 -c "$d/lock-trace.txt" > "$O/lock-trace.txt.xz" 2>/dev/null
ls -la "$O"
el done
