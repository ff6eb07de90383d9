#!/bin/sh
# session 19 call 2 (HEAD e238f4c): call 1 showed a program run's worker idle most of its 4.9 s (1.7 s waiting
# for the GPU lock between yields, CPU 1.65 s): are more workers than cores faster? bench_grade 10 with
# BENCH_GRADE_JOBS=32, then 32 with CUDOJO_HOST_PIECE_MB=32. A sampler keeps each process's utime/stime
# (from /proc, every 0.5 s) and sums them by name: where the system time goes.
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export XDG_CACHE_HOME=/tmp/xc XDG_DATA_HOME=/tmp/xd NO_COLOR=1
for d in build/tests/*/ build/bench/ build/fuzz/; do ln -sfn "$PWD/dist/cudojo/lib" "$d/lib"; done
export CUDOJO_BIN=$PWD/dist/cudojo/cudojo.sh
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
sampler() {  # pid comm utime stime (ticks), one block per 0.5 s
  while :; do for f in /proc/[0-9]*/stat; do cat "$f" 2>/dev/null; echo; done | \
    awk 'NF{i=index($0,"("); j=0; for(k=length($0);k>0;k--) if(substr($0,k,1)==")"){j=k;break}
         c=substr($0,i+1,j-i-1); gsub(/ /,"_",c); n=split(substr($0,j+2),a," "); print $1, c, a[12], a[13]}'
    sleep 0.5; done > /tmp/samples-$1.txt
}
bg() {  # label, limit, then env assignments
  label=$1; lim=$2; shift 2
  rm -rf /tmp/cudojo-bench-grade-*
  head -1 /proc/stat > "$O/stat0-$label.txt"
  sampler "$label" & sp=$!
  env "$@" CUDOJO_BACKEND=cuda timeout "$lim" build/bench/bench_grade 10 > "$O/grade-$label.txt" 2>&1
  echo "rc=$?"; kill $sp; head -1 /proc/stat > "$O/stat1-$label.txt"
  awk '{u[$1]=$3; s[$1]=$4; c[$1]=$2} END{for(p in u){U[c[p]]+=u[p]; S[c[p]]+=s[p]} for(k in U) printf "%9.1f %9.1f %s\n", U[k]/100, S[k]/100, k}' \
    /tmp/samples-$label.txt | sort -k2 -rn | head -25 > "$O/cpu-by-name-$label.txt"
  echo "  user s   system s  (processes seen by the 0.5 s sampler)"; head -12 "$O/cpu-by-name-$label.txt"
  grep -E 'runs/s|^steady|^CPU|one at a time|solution failed|^GPU lock|pin-pieces|program-exit' "$O/grade-$label.txt" | cut -c1-250
  cat "$O/stat0-$label.txt" "$O/stat1-$label.txt"
}
el "bench_grade 10, 32 workers"; bg j32 280 BENCH_GRADE_JOBS=32
el "bench_grade 10, 32 workers, 32 MiB pin pieces"; bg j32p32 280 BENCH_GRADE_JOBS=32 CUDOJO_HOST_PIECE_MB=32
el done
