#!/bin/sh
# tools/gpu-payload.sh: one archive holding everything tools/gpu-check.sh and
# tools/gpu-bench.sh need on a GPU machine that has the NVIDIA driver and the
# CUDA toolkit but none of our -dev packages (the H200 we test on): the
# bundle (dist/cudojo, with its shared libraries), the test, bench and fuzz
# binaries, the conformance programs compiled by this machine's nvcc, and
# the tree (lessons, tests, tools). Built from a clean worktree of HEAD, so
# what runs there is what is committed.
#   sh tools/gpu-payload.sh [ARCHIVE]        (default .gpu/payload.tar.xz)
# Then on the device machine, from the repository root (`carry` [".gpu"]):
#   mkdir -p /tmp/p && tar xJf .gpu/payload.tar.xz -C /tmp/p && cd /tmp/p &&
#   sh tools/gpu-check.sh "$OUT" smi doctor selftest verify
# The device tool carries at most 64 MiB: this script refuses a bigger one.
set -u
here=$(pwd)
out=${1:-.gpu/payload.tar.xz}
case $out in /*) ;; *) out=$here/$out ;; esac
mkdir -p "$(dirname "$out")" || exit 1
wt=$(mktemp -d /tmp/cudojo-payload-XXXXXX) || exit 1
rmdir "$wt"
trap 'git -C "$here" worktree remove --force "$wt" >/dev/null 2>&1; rm -rf "$wt"' EXIT INT TERM
git -C "$here" worktree add --detach "$wt" HEAD >/dev/null 2>&1 || exit 1
cd "$wt" || exit 1
step() { echo "gpu-payload: $*" >&2; }
run() { "$@" > "$wt.log" 2>&1 || { tail -30 "$wt.log" >&2; echo "gpu-payload: failed: $*" >&2; exit 1; }; }
jobs=$(nproc 2>/dev/null || echo 2)
# One make per target group: tests-build and bundle race on shared outputs in one make.
step "building the tests ($(git log --oneline -1 | cut -c1-60))"; run make -j"$jobs" tests-build
step "building the bundle"; run make -j"$jobs" bundle
step "building the benches"
run make -j"$jobs" anchors build/bench/bench_predict build/bench/bench_grade build/bench/bench_verdict build/bench/bench_timeline \
    build/bench/bench_arrays build/bench/bench_nvcc build/bench/bench_compile
step "compiling the conformance programs"; run sh tests/programs/run.sh --compile-only
cmocka=""
for d in "$(pkg-config --variable=libdir cmocka 2>/dev/null)" /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
    [ -n "$d" ] && [ -f "$d/libcmocka.so.0" ] && { cmocka=$d/libcmocka.so.0; break; }
done
[ -n "$cmocka" ] || { echo "gpu-payload: no libcmocka.so.0 (apt-get install libcmocka-dev)" >&2; exit 1; }
cp -L "$cmocka" dist/cudojo/lib/ || exit 1
for f in build/tests/*/test_* build/bench/* build/fuzz/* dist/cudojo/bin/* dist/cudojo/cudojo build/cudojo; do
    [ -f "$f" ] && [ -x "$f" ] && strip --strip-unneeded "$f" 2>/dev/null
done
step "packing"
# the static libraries were linked into the binaries above: not needed there; xz, not
# gzip: its window sees that the test binaries share most of their bytes (24 MiB, not 62)
tar cf - --exclude=.git --exclude=build/obj --exclude=build/pic --exclude='build/*.a' . | xz -T0 -6 > "$out.tmp" || exit 1
mv "$out.tmp" "$out"
size=$(stat -c %s "$out")
echo "gpu-payload: $out, $((size / 1048576)) MiB, from $(git log --oneline -1 | cut -c1-60)"
if [ "$size" -gt $((60 * 1048576)) ]; then
    echo "gpu-payload: over 60 MiB: the device tool carries 64 MiB with the working tree" >&2
    exit 1
fi
