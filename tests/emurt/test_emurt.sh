#!/bin/sh
# tests/emurt/test_emurt.sh: cudojo's emulator runtime (our libcudart.so.13)
# runs nvcc-built programs without a GPU: what they print, and what the
# runtime reports over CUDOJO_REPORT_FD (kernels/progwire.h) — the hello,
# call records with allocation names and streams, kernel records, findings
# in the learner's file and line, the modeled timeline, the exit code, a
# loud failure for a function it lacks, a crash record whose frames
# addr2line maps to the learner's line, host code touching device memory
# crashing, damaged fat binaries refused. Also: the library exports only the
# CUDA API, every symbol at version libcudart.so.13. The parts that need
# nvcc-built programs skip without nvcc.
BUILD=${BUILD:-build}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
nvcc=$CUDA_HOME/bin/nvcc
here=$(dirname "$0")
major=$(awk '/define CUDART_VERSION/ {print int($3 / 1000)}' "$CUDA_HOME/include/cuda_runtime_api.h" 2>/dev/null)
if [ -z "$major" ]; then echo "skip - emurt (no CUDA headers under $CUDA_HOME)"; exit 0; fi
lib=$BUILD/emurt/libcudart.so.$major
if [ ! -f "$lib" ]; then echo "skip - emurt (no emulator runtime: $lib is not built)"; exit 0; fi
libdir=$(cd "$BUILD/emurt" && pwd)
# `make san` builds the library with ASan: a program that is not instrumented
# can load it only with the ASan runtime loaded first.
asan=$(ldd "$lib" 2>/dev/null | awk '/libasan\.so/ { print $3 }')
[ -n "$asan" ] && export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/    /'; }
check() { if [ "$2" = 0 ]; then ok "$1"; else notok "$1" "${3:-}"; fi; }

# build NAME: nvcc as cudojo builds programs (PTX for compute_80 embedded)
build() {
    "$nvcc" -lineinfo -g -cudart shared -gencode arch=compute_80,code=compute_80 \
        -o "$work/$1" "$here/programs/$1.cu" 2> "$work/$1.nvcc" || { notok "emurt: nvcc builds $1" "$(cat "$work/$1.nvcc")"; return 1; }
}
# run NAME [ARGS]: on our library, records to NAME.jsonl, stdout to NAME.out
run() {
    n=$1; shift
    # a crash is expected of some: sh -c keeps the shell's "Segmentation fault" line out of the output
    (cd "$work" && LD_LIBRARY_PATH=$libdir LD_PRELOAD=$asan CUDOJO_REPORT_FD=3 CUDOJO_EMU_THREADS=1 \
        sh -c '"$0" "$@" 3> "$(basename "$0").jsonl" > "$(basename "$0").out" 2> "$(basename "$0").err"' "./$n" "$@" 2> /dev/null)
    echo $? > "$work/$n.rc"
}
has() { grep -q -- "$2" "$work/$1"; }
# cc_build NAME WHAT: a plain-C program against the library (no nvcc needed)
cc_build() {
    cc -I"$CUDA_HOME/include" -o "$work/$1" "$here/programs/$1.c" -L"$libdir" -l:libcudart.so.$major 2> "$work/$1.cc" ||
        { notok "emurt: cc builds the $2 program" "$(cat "$work/$1.cc")"; return 1; }
}
# exact NAME (after run NAME): it printed stdin exactly and exited 0; why NAME: what differed
exact() { diff - "$work/$1.out" > "$work/$1.diff" && [ "$(cat "$work/$1.rc")" = 0 ]; }
why() { cat "$work/$1.diff" "$work/$1.err"; }

# ---- the library itself ----
bad=$(nm -D --defined-only "$lib" | awk '$2 != "A" {print $3}' | grep -v '^cuda[A-Z]' | grep -v '^__cuda')
check "emurt: exports nothing but the CUDA API" "$([ -z "$bad" ]; echo $?)" "$bad"
unv=$(nm -D --defined-only "$lib" | awk '$2 != "A" {print $3}' | grep -v "@@libcudart.so.$major\$")
check "emurt: every export has the version node libcudart.so.$major" "$([ -z "$unv" ]; echo $?)" "$unv"
missing=$(nm -D --defined-only "$CUDA_HOME/lib64/libcudart.so.$major" 2>/dev/null | awk '$2 == "T" {sub(/@.*/, "", $3); print $3}' |
    grep -E '^(cuda[A-Z]|__cuda)' | sort -u | while read -r f; do nm -D --defined-only "$lib" | grep -q " $f@" || echo "$f"; done)
check "emurt: defines (or stubs) every function NVIDIA's libcudart exports" "$([ -z "$missing" ]; echo $?)" "$missing"

# ---- hostile fat binaries (plain cc: runs without nvcc too) ----
if cc_build hostile "hostile fat binary"; then
    run hostile
    check "emurt: damaged fat binaries fail the launch with a CUDA error, never a crash" \
        "$(printf 'wrong wrapper magic: cudaErrorNoKernelImageForDevice\nsize beyond the image: cudaErrorNoKernelImageForDevice\ndata outside the image: cudaErrorNoKernelImageForDevice\ngarbage zstd: cudaErrorNoKernelImageForDevice\nPTX that does not parse: cudaErrorNotSupported\nstill running\n' | diff - "$work/hostile.out" > "$work/hostile.diff"; echo $?)" "$(cat "$work/hostile.diff" "$work/hostile.err")"
    check "emurt: each damaged fat binary is a finding saying what is wrong" \
        "$([ "$(grep -c '"code":"fatbin"' "$work/hostile.jsonl")" = 4 ] && has hostile.jsonl '"code":"emu-unsupported"'; echo $?)" "$(grep finding "$work/hostile.jsonl")"
fi

# ---- a memory pool destroyed while a block of it is held (plain cc) ----
if cc_build pool_lifetime "pool lifetime"; then
    run pool_lifetime
    check "emurt: a pool destroyed while a block is held is released by the block's cudaFree or cudaFreeAsync, never read after" \
        "$(printf 'cudaFree after destroy: cudaSuccess cudaSuccess cudaSuccess cudaSuccess\ncudaFreeAsync after destroy: cudaSuccess cudaSuccess cudaSuccess cudaSuccess\nstill running\n' | exact pool_lifetime; echo $?)" "$(why pool_lifetime)"
fi

# ---- cudaDeviceReset while a cudaFreeAsync waits in a held stream (plain cc) ----
if cc_build pool_reset "pool reset"; then
    run pool_reset
    ok8='cudaSuccess cudaSuccess cudaSuccess cudaSuccess cudaSuccess cudaSuccess cudaSuccess cudaSuccess'
    check "emurt: a cudaFreeAsync queued before cudaDeviceReset frees nothing when it runs: not the reset pool, not a new allocation at the same address" \
        "$(printf 'created pool: %s\ndefault pool: %s\nstill running\n' "$ok8" "$ok8" | exact pool_reset; echo $?)" "$(why pool_reset)"
fi

# ---- cudaFree of a pool allocation: the pool's counters (plain cc) ----
if cc_build pool_cudafree "pool cudaFree"; then
    run pool_cudafree
    check "emurt: cudaFree of a pool allocation frees its memory (reserved 0, even when the pool keeps everything) while the pool's used counter keeps its bytes, as on the H200" \
        "$(printf 'allocated: used 1048576, reserved 2097152\ncudaFree: cudaSuccess\nafter cudaFree: used 1048576, reserved 0\nafter a synchronisation and a trim: used 1048576, reserved 0\nafter cudaFreeAsync of another: used 1048576, reserved 2097152\ndestroy: cudaSuccess\n' | exact pool_cudafree; echo $?)" "$(why pool_cudafree)"
fi

# ---- an event recorded inside a stream capture (plain cc) ----
if cc_build captured_event "captured event"; then
    run captured_event
    inv=cudaErrorStreamCaptureInvalidated
    check "emurt: querying or synchronizing with an event recorded in a capture is cudaErrorCapturedEvent and invalidates the whole capture (from a joined stream too); a wait from another capture (its origin or a joined stream) would merge the two: cudaErrorStreamCaptureMerge, both invalidated, as on the H200" \
        "$(printf 'query: cudaErrorCapturedEvent, end: %s\nsynchronize: cudaErrorCapturedEvent, end: %s\nfork: cudaSuccess, query in the fork: cudaErrorCapturedEvent, end: %s\nfork and join: cudaSuccess\nwait from another capture: cudaErrorStreamCaptureMerge, ends: %s %s\na joined stream waits on another capture: cudaErrorStreamCaptureMerge, ends: %s %s\nafter: cudaSuccess\n' "$inv" "$inv" "$inv" "$inv" "$inv" "$inv" "$inv" | exact captured_event; echo $?)" "$(why captured_event)"
fi

# ---- cudaGraphNodeFindInClone after either graph changed (plain cc) ----
if cc_build graph_clone_find "graph clone"; then
    run graph_clone_find
    check "emurt: cudaGraphNodeFindInClone finds a node's own copy after nodes were destroyed or added in either graph, and none for a node added after the clone" \
        "$(printf 'b before: b\ndestroy a: cudaSuccess\nb: b\nc: c\nd: cudaErrorInvalidValue\ndestroy the clone'"'"'s b: cudaSuccess\nc after: c\nstill running\n' | exact graph_clone_find; echo $?)" "$(why graph_clone_find)"
fi

# ---- pitch * rows past size_t (plain cc) ----
if cc_build pitched_overflow "pitched overflow"; then
    run pitched_overflow
    check "emurt: a 2D/3D memset or copy whose pitch times rows wraps is cudaErrorInvalidValue, an allocation that large cudaErrorMemoryAllocation, never a write outside" \
        "$(printf 'memset2D: cudaErrorInvalidValue\nmemcpy2D: cudaErrorInvalidValue\nmemcpy2DAsync: cudaErrorInvalidValue\nmemset3D: cudaErrorInvalidValue\nmalloc3D: cudaErrorMemoryAllocation\nmallocPitch: cudaErrorMemoryAllocation\nafter: cudaSuccess\n' | exact pitched_overflow; echo $?)" "$(why pitched_overflow)"
fi

if [ ! -x "$nvcc" ]; then echo "skip - emurt: programs built by nvcc (no nvcc at $nvcc)"; exit 0; fi

# ---- uninitialised device memory ----
if build uninit; then
    run uninit
    f=$(grep '"type":"finding"' "$work/uninit.jsonl" | grep '"code":"uninit-global"')
    check "emurt: a kernel reading cudaMalloc memory nothing wrote is an uninit-global finding at its line, naming the element" \
        "$(printf '%s' "$f" | grep 'programs/uninit.cu","line":12' | grep -q 'read b\[512\]'; echo $?)" "$(grep finding "$work/uninit.jsonl")"
    check "emurt: memory a copy or a memset filled reads cleanly (one finding only)" \
        "$([ "$(grep -c '"type":"finding"' "$work/uninit.jsonl")" = 1 ]; echo $?)" "$(grep finding "$work/uninit.jsonl")"
fi

# ---- a struct read back with its padding (thrust::tuple<int, long>, tuple<bool, long>) ----
if build uninit_padding; then
    run uninit_padding
    f=$(grep '"type":"finding"' "$work/uninit_padding.jsonl" | grep '"code":"uninit-global"')
    check "emurt: loads of structs whose padding was never written are no finding; the loads of the struct nothing wrote are (pairs[256], as 8- or 16-byte elements)" \
        "$([ -n "$f" ] && [ "$(printf '%s\n' "$f" | grep -vc 'read pairs\[512\]\|read pairs\[256\]')" = 0 ]; echo $?)" "$f"
fi

# ---- a result published before a flag (kernels/emu/emu_xblock.c) ----
if build flag_publish; then
    for mode in volatile fence release; do
        run flag_publish $mode
        f=$(grep '"type":"finding"' "$work/flag_publish.jsonl")
        if [ $mode = volatile ]; then
            check "emurt: a result flagged through volatile without __threadfence() is a race at its read, the flag is not" \
                "$([ "$(printf '%s\n' "$f" | grep -c '"code":"race-global"')" = 1 ] && printf '%s' "$f" | grep -q '"line":22'; echo $?)" "$f"
        else
            check "emurt: a result published with $mode before its flag is no finding" \
                "$([ -z "$f" ] && has flag_publish.out 'last 28'; echo $?)" "$f"
        fi
    done
fi

# ---- every writer marks what it wrote (kernels/emurt: rt_mem_copy, rt_mem_fill) ----
if build init_writers; then
    run init_writers
    f=$(grep '"type":"finding"' "$work/init_writers.jsonl")
    check "emurt: device memory written by cudaMemcpy (H2D, D2D, Default, Async), cudaMemset(Async), 2D/3D copies and memsets, cudaMemcpyPeer and graph memset/memcpy nodes reads as initialised" \
        "$(printf '%s' "$f" | grep -q 'read by_'; [ $? = 1 ]; echo $?)" "$(printf '%s\n' "$f" | grep 'read by_')"
    check "emurt: a fresh cudaMalloc buffer read by the same kernel is still the one uninit-global finding" \
        "$([ "$(printf '%s\n' "$f" | grep -o '"code":"uninit-global"' | wc -l)" = 1 ] && printf '%s' "$f" | grep -q 'read fresh\['; echo $?)" "$f"
fi

# ---- an out-of-bounds write ----
if build oob; then
    run oob
    # The H200 itself lets this one-element overrun pass (cudaSuccess throughout:
    # the write lands in the allocation's padding; seen with cudojo exec, run 5).
    # The emulator turns every out-of-bounds access into the fault a GPU gives
    # when the access does hit unmapped memory, so the bug cannot go unseen.
    check "emurt: an out-of-bounds write becomes a GPU fault's sticky cudaErrorIllegalAddress" \
        "$(printf 'launch: cudaSuccess\nsynchronize: cudaErrorIllegalAddress\nmalloc after the fault: cudaErrorIllegalAddress\nlast error: an illegal memory access was encountered\nlast error again (cleared): cudaSuccess\nsynchronize again (sticky): cudaErrorIllegalAddress\n' | diff - "$work/oob.out" > "$work/oob.diff"; echo $?)" "$(cat "$work/oob.diff")"
    check "emurt: hello names the runtime and the emulated device" \
        "$(head -1 "$work/oob.jsonl" | grep -q '"runtime":"emu".*"device":"cudojo PTX emulator' ; echo $?)" "$(head -1 "$work/oob.jsonl")"
    check "emurt: the finding names the learner's file:line, the array by its parameter name, block and thread" \
        "$(grep '"type":"finding"' "$work/oob.jsonl" | grep '"code":"oob-global"' | grep 'programs/oob.cu","line":13' |
            grep -q 'wrote c\[1000\] but c has 1000 elements.*"block":\[3,0,0\],"thread":\[232,0,0\]'; echo $?)" "$(cat "$work/oob.jsonl")"
    check "emurt: cudaMalloc's call record names the allocation as the source does (DWARF line table)" \
        "$(has oob.jsonl '"fn":"cudaMalloc","args":"&d_c, 4000"'; echo $?)"
    check "emurt: a kernel record with the demangled name, grid, block and metrics, modeled" \
        "$(grep '"type":"kernel"' "$work/oob.jsonl" | grep '"name":"fill(float\*, int)"' | grep '"grid":\[4,1,1\],"block":\[256,1,1\]' |
            grep -q '"modeled":true,"metrics":{"totals"'; echo $?)"
    check "emurt: a modeled timeline and the exit code at the end" \
        "$(tail -2 "$work/oob.jsonl" | head -1 | grep -q '"timeline":{"modeled":true' && tail -1 "$work/oob.jsonl" | grep -q '"code":0,"type":"exit"'; echo $?)" "$(tail -2 "$work/oob.jsonl")"
fi

# ---- streams, events, kernel printf ----
if build events; then
    run events
    check "emurt: kernel printf comes out at the synchronisation, a cudaEventQuery loop ends, elapsed time is positive" \
        "$(printf 'host before the wait\npolled: done\nkernel says hello from block 0\nelapsed: cudaSuccess, positive: yes\nx[5] = 2.0000\n' | diff - "$work/events.out" > "$work/events.diff"; echo $?)" "$(cat "$work/events.diff"; cat "$work/events.err")"
    check "emurt: an async copy's call record has its stream" \
        "$(grep '"fn":"cudaMemcpyAsync"' "$work/events.jsonl" | head -1 | grep -q 'd_x+0, h_x+0, 262144, cudaMemcpyHostToDevice, stream 1","stream":1'; echo $?)" "$(grep cudaMemcpyAsync "$work/events.jsonl")"
    check "emurt: cudaEventElapsedTime says its figure is modeled" \
        "$(has events.jsonl '"fn":"cudaEventElapsedTime","args":"&ms = [0-9.]* (modeled)'; echo $?)"
    check "emurt: the timeline has the stream's copies and kernel" \
        "$(tail -2 "$work/events.jsonl" | grep '"kind":"h2d","stream":1' | grep '"kind":"kernel","stream":1' | grep -q '"kind":"d2h","stream":1'; echo $?)"
fi

# ---- a function we lack, then a host crash ----
if build unimpl; then
    run unimpl
    check "emurt: an unimplemented function returns cudaErrorNotSupported and says so" \
        "$(grep -q 'cudaMallocArray: cudaErrorNotSupported' "$work/unimpl.out" &&
           grep -q "cudojo's emulator runtime does not implement cudaMallocArray" "$work/unimpl.err" &&
           has unimpl.jsonl '{"fn":"cudaMallocArray","type":"unimplemented"}'; echo $?)"
    check "emurt: the exit record has the program's exit code" "$(has unimpl.jsonl '"code":3,"type":"exit"'; echo $?)"
    run unimpl crash
    frame=$(sed -n 's/.*"type":"crash","signal":11,"addr":"0x0","frames":\["\(0x[0-9a-f]*\)".*/\1/p' "$work/unimpl.jsonl")
    check "emurt: a host crash sends a crash record (SIGSEGV at 0x0)" "$([ -n "$frame" ]; echo $?)" "$(cat "$work/unimpl.jsonl")"
    if command -v addr2line > /dev/null && [ -n "$frame" ]; then
        check "emurt: the crash's first frame is the learner's line (addr2line)" \
            "$(addr2line -e "$work/unimpl" "$frame" | grep -q 'unimpl.cu:17$'; echo $?)" "$(addr2line -e "$work/unimpl" "$frame")"
    fi
fi

# ---- --default-stream per-thread: the _ptds/_ptsz entry points ----
if "$nvcc" --default-stream per-thread -lineinfo -g -cudart shared -gencode arch=compute_80,code=compute_80 \
        -o "$work/ptds" "$here/programs/ptds.cu" 2> "$work/ptds.nvcc"; then
    run ptds
    check "emurt: a --default-stream per-thread program's symbol and 2D copies work" \
        "$(printf 'to symbol: cudaSuccess\nfrom symbol: cudaSuccess\n2D: cudaSuccess\n2D async: cudaSuccess\n2 4 6 8 | 1 4\n' | diff - "$work/ptds.out" > "$work/ptds.diff"; echo $?)" "$(cat "$work/ptds.diff" "$work/ptds.err")"
else
    notok "emurt: nvcc builds ptds" "$(cat "$work/ptds.nvcc")"
fi

# ---- host code reading device memory ----
if build hostderef; then
    run hostderef
    check "emurt: host code reading cudaMalloc memory crashes, as on a GPU, after kernels, copies and pinned memory worked" \
        "$(grep -q 'copied back: 100 131, pinned 7' "$work/hostderef.out" && ! grep -q 'read on the host' "$work/hostderef.out" &&
           [ "$(cat "$work/hostderef.rc")" -ne 0 ]; echo $?)" "$(cat "$work/hostderef.out" "$work/hostderef.err")"
    check "emurt: a finding names the device allocation the host touched" \
        "$(has hostderef.jsonl '"code":"host-deref-device","message":"The host code touched d_x+16, which is device memory'; echo $?)" \
        "$(grep finding "$work/hostderef.jsonl")"
fi

# ---- deterministic timelines ----
if [ -x "$work/events" ]; then
    for i in 1 2; do
        (cd "$work" && LD_LIBRARY_PATH=$libdir LD_PRELOAD=$asan CUDOJO_REPORT_FD=3 CUDOJO_EMU_DETERMINISTIC=1 ./events 3> "det$i.jsonl" > /dev/null 2>&1)
    done
    check "emurt: with CUDOJO_EMU_DETERMINISTIC=1 two runs give the same timeline" \
        "$(grep -q '"type":"timeline"' "$work/det1.jsonl" && [ "$(grep '"type":"timeline"' "$work/det1.jsonl")" = "$(grep '"type":"timeline"' "$work/det2.jsonl")" ]; echo $?)"
fi

# ---- the modeled timeline is a function of the program, not of the host's clocks ----
# On a loaded virtual machine the CPU clock now and then charges a few
# microseconds of host code as 30 us to 4 ms: measured, that moved an
# enqueue past the copy it should overlap (nonblocking-streams failed about
# 1 run in 100). CUDOJO_EMU_TEST_HOST_JUMP=US@N adds such a jump before the
# call of the Nth call record: 26 is chunk 1's copy in.
# tl NAME [ENV...]: runs pipeline with ENV, its timeline record to NAME.tl
tl() {
    n=$1; shift
    (cd "$work" && env LD_LIBRARY_PATH=$libdir LD_PRELOAD=$asan CUDOJO_REPORT_FD=3 CUDOJO_EMU_THREADS=1 "$@" \
        ./pipeline 3> "$n.jsonl" > "$n.out" 2>&1)
    grep '"type":"timeline"' "$work/$n.jsonl" > "$work/$n.tl"
}
# overlaps NAME: every chunk's copy in but the first overlaps the kernel of the chunk before it
overlaps() {
    python3 - "$work/$1.tl" <<'PY'
import json, sys
ev = json.loads(open(sys.argv[1]).read())["timeline"]["events"]
h2d = [e for e in ev if e["kind"] == "h2d"]
ks = [e for e in ev if e["kind"] == "kernel"]
end = lambda e: e["start_us"] + e["dur_us"]
ok = len(h2d) == 4 and len(ks) == 4 and all(
    h2d[c]["start_us"] < end(ks[c - 1]) and ks[c - 1]["start_us"] < end(h2d[c]) for c in range(1, 4))
sys.exit(0 if ok else 1)
PY
}
if build pipeline; then
    tl plain
    tl jump CUDOJO_EMU_TEST_HOST_JUMP=2000@26
    tl measured CUDOJO_EMU_HOST_TIME=1 CUDOJO_EMU_TEST_HOST_JUMP=2000@26
    tl threads CUDOJO_EMU_THREADS=2
    check "emurt: each chunk's copy in overlaps the kernel of the chunk before it on the modeled timeline" \
        "$(grep -q 'sum 268173312' "$work/plain.out" && overlaps plain; echo $?)" "$(cat "$work/plain.out" "$work/plain.tl")"
    check "emurt: a 2 ms jump of the host's CPU clock between two enqueues leaves the modeled timeline as it was" \
        "$([ -s "$work/jump.tl" ] && cmp -s "$work/plain.tl" "$work/jump.tl"; echo $?)" "$(cat "$work/jump.out" "$work/jump.tl")"
    check "emurt: with CUDOJO_EMU_HOST_TIME=1 the host's measured time is on the timeline (the jump: 2 ms of host code, no overlap)" \
        "$(grep -Eq '"name":"host code","start_us":[0-9.]+,"dur_us":2[0-9]{3}' "$work/measured.tl" && ! overlaps measured; echo $?)" \
        "$(cat "$work/measured.tl")"
    check "emurt: the modeled timeline is the same with 1 and 2 emulator threads" \
        "$([ -s "$work/threads.tl" ] && cmp -s "$work/plain.tl" "$work/threads.tl"; echo $?)" "$(cat "$work/threads.tl")"
fi

# ---- managed memory's page model ----
if build managed_pages; then
    run managed_pages
    check "emurt: a managed array filled by the host, doubled by a kernel and read back keeps its values" \
        "$(grep -q 'sums 2097152 4194304' "$work/managed_pages.out"; echo $?)" "$(cat "$work/managed_pages.out" "$work/managed_pages.err")"
    check "emurt: the kernel's first touch of 4 MiB of host-written managed memory is 64 GPU page faults pulling 4 MiB" \
        "$(has managed_pages.jsonl '"phase":"kernel","kernel":1,"gpu_faults":64,"cpu_faults":0,"h2d":4194304,"d2h":0,"type":"um"'; echo $?)" \
        "$(grep '"um"' "$work/managed_pages.jsonl")"
    check "emurt: the host reading it back takes 64 CPU page faults, the prefetched second kernel none" \
        "$(has managed_pages.jsonl '"phase":"host","kernel":1,"gpu_faults":0,"cpu_faults":64' &&
           ! has managed_pages.jsonl '"phase":"kernel","kernel":2' &&
           ! has managed_pages.jsonl '"phase":"host","kernel":2'; echo $?)" "$(grep '"um"' "$work/managed_pages.jsonl")"
    run managed_pages crash
    check "emurt: a null write after managed memory is still a crash with a crash record (the page handler chains)" \
        "$(has managed_pages.jsonl '"type":"crash","signal":11' && [ "$(cat "$work/managed_pages.rc")" -ne 0 ]; echo $?)" \
        "$(cat "$work/managed_pages.rc"; grep crash "$work/managed_pages.jsonl")"
fi
