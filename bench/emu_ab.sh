#!/bin/sh
# bench/emu_ab.sh: compares the PTX emulator's speed in two builds on a noisy,
# shared machine. Runs `bench_emu --ab` of build A and of build B in turns
# (A B, B A, A B, ... so drift hits both alike) ROUNDS times, then prints per
# kernel and mode (plain: metrics and checks off; checked: both on) the
# median rate of each build and B/A: the median over the rounds of that
# round's ratio, with the lowest and highest ratio seen (the spread).
#
#   bench/emu_ab.sh A/bench/bench_emu B/bench/bench_emu [ROUNDS (5)] [REPS (3)] [KERNEL]
#
# The rates are from the process's CPU time (bench_emu --ab), so other work
# on the machine counts less, though it still shares the caches. KERNEL runs
# only the kernels whose label contains it ("SGEMM").
# Each bench_emu reads tests/conformance/ from the directory it runs in: run
# from a repository root. Never part of the tests.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 BENCH_EMU_A BENCH_EMU_B [ROUNDS] [REPS] [KERNEL]" >&2
    exit 2
fi
a=$1 b=$2 rounds=${3:-5} reps=${4:-3} only=${5:-}
for bin in "$a" "$b"; do
    [ -x "$bin" ] || { echo "$0: $bin is not an executable" >&2; exit 2; }
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
r=1
while [ "$r" -le "$rounds" ]; do
    if [ $((r % 2)) -eq 1 ]; then first=$a; second=$b; fa=A; fb=B; else first=$b; second=$a; fa=B; fb=A; fi
    "$first" --ab "$reps" ${only:+"$only"} | sed "s/^ab/$fa\t$r/" >>"$out"
    "$second" --ab "$reps" ${only:+"$only"} | sed "s/^ab/$fb\t$r/" >>"$out"
    echo "round $r of $rounds done" >&2
    r=$((r + 1))
done
# lines: build, round, kernel, mode, rate
awk -F'\t' '
function median(arr, n,   i, j, t) {
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && arr[j] < arr[j - 1]; j--) { t = arr[j]; arr[j] = arr[j - 1]; arr[j - 1] = t }
    return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
}
{
    key = $3 "\t" $4
    if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
    rate[$1, key, $2] = $5
    rounds[$2] = 1
}
END {
    printf "%-32s %-8s %9s %9s %7s %7s %7s\n", "kernel", "mode", "A M/s", "B M/s", "B/A", "min", "max"
    for (k = 1; k <= nk; k++) {
        key = order[k]
        na = nb = nr = 0
        for (r in rounds) {
            if ((("A", key, r) in rate)) va[++na] = rate["A", key, r]
            if ((("B", key, r) in rate)) vb[++nb] = rate["B", key, r]
            if ((("A", key, r) in rate) && (("B", key, r) in rate) && rate["A", key, r] > 0)
                vr[++nr] = rate["B", key, r] / rate["A", key, r]
        }
        if (!nr) continue
        ma = median(va, na); mb = median(vb, nb); mr = median(vr, nr)
        lo = vr[1]; hi = vr[nr]
        split(key, kk, "\t")
        printf "%-32s %-8s %9.1f %9.1f %7.3f %7.3f %7.3f\n", kk[1], kk[2], ma, mb, mr, lo, hi
        lr[kk[2]] += log(mr); nl[kk[2]]++
    }
    for (m in lr) printf "geometric mean B/A, %s: %.3f\n", m, exp(lr[m] / nl[m])
}' "$out"
