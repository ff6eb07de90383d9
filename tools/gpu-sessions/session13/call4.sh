#!/bin/sh
# session 13 call 4 (7324881): big host buffers pinned and copied in 128 MiB pieces: bench_grade 3 (16 workers),
# the longest shared holds left and the exclusive waits; test_cuda_backend (the GPU tests: the final call)
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
el "test_cuda_backend"
timeout 60 build/tests/kernels/test_cuda_backend 2>&1 | grep -E 'pieces|PASSED|FAILED'
el "bench_grade 3"
rm -rf /tmp/cudojo-bench-grade-*
BENCH_GRADE_KEEP=1 CUDOJO_BACKEND=cuda timeout 200 build/bench/bench_grade 3 > "$O/grade.txt" 2>&1; echo "rc=$?" >> "$O/grade.txt"
grep -E 'runs/s|projection|compile by|emulator check|GPU lock|solutions passing|solution failed|at least|trace:' "$O/grade.txt"
sed -n '/exclusive waits over/,/one at a time/p' "$O/grade.txt"
g=$(ls -d /tmp/cudojo-bench-grade-* | head -1); xz -c "$g/lock-trace.txt" > "$O/trace.txt.xz"; xz -c "$g/out/gradebook.json" > "$O/gradebook.json.xz"
echo "shared holds over 150 ms, by exercise:"; awk '$3=="release" && $4=="shared" && $5>150 {print $6}' "$g/lock-trace.txt" | sort | uniq -c | sort -rn | head -12
for l in reduce-peak scan-array fuse; do echo "$l: $(awk -v l=$l '$3=="release" && $4=="shared" && $6==l {n++; if($5>m) m=$5} END {printf "%d holds, longest %.0f ms", n, m}' "$g/lock-trace.txt")"; done
awk '$3=="take" && $4=="exclusive" {n++; if ($5>50) {b++; bs+=$5}; s+=$5} END {print n, "exclusive takes;", s/1000, "s waited;", b, "over 50 ms:", bs/1000, "s"}' "$g/lock-trace.txt"
el done
