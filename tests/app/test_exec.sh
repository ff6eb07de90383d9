#!/bin/sh
# tests/app/test_exec.sh: `cudojo exec` as a user drives it: plain host
# programs (built with cc: exit status, output, signals, timeout, --json),
# then real CUDA programs built with nvcc -cudart shared on cudojo's
# emulator runtime (skipped until $BUILD/emurt is built or without nvcc):
# output, exit status, a finding with the program's file:line, --json,
# --trace. Prints ok/not ok/skip per case.
BIN=${CUDOJO_BIN:-build/cudojo}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
FIXTURES=$(pwd)/tests/kernels
T=$(mktemp -d /tmp/cudojo-exec-XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_DATA_HOME="$T/data" XDG_CACHE_HOME="$T/cache" NO_COLOR=1
cd "$T" || exit 1
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }
skip() { echo "skip - $1"; }
check() { # name, command (string), then a test expression on $out/$rc
    name=$1; cmd=$2; test=$3
    out=$(eval "$cmd" 2>&1); rc=$?
    if eval "$test"; then ok "$name"; else nok "$name" "rc=$rc" "$(printf "%s\n" "$out" | head -20)"; fi
}
json_ok() { # json on stdin, a python expression on d
    python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(0 if eval(sys.argv[1]) else 1)" "$1"
}

check "exec --help names every option" "$BIN exec --help" \
    '[ $rc = 0 ] && for o in --backend --trace --json --timeout --devices --profile --sanitizer; do printf "%s\n" "$out" | grep -q -- "$o" || exit 1; done'
check "exec of a program that does not exist is status 127" "$BIN exec ./no-such-program" \
    '[ $rc = 127 ] && printf "%s\n" "$out" | grep -q "not found"'
check "exec without a program is a usage error" "$BIN exec" '[ $rc = 2 ]'

cat > plain.c <<'EOF'
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    printf("args:%d %s\n", argc, argc > 1 ? argv[1] : "");
    fprintf(stderr, "to stderr\n");
    if (argc > 1 && !strcmp(argv[1], "crash")) { volatile int *p = 0; return *p; }
    if (argc > 1 && !strcmp(argv[1], "spin")) for (;;) {}
    if (argc > 1 && !strcmp(argv[1], "io")) {
        char b[64] = ""; FILE *f = fopen("in.txt", "r");
        if (f && fgets(b, sizeof b, f)) fputs(b, stdout);
        int c; while ((c = getchar()) != EOF) putchar(c);
        return 0;
    }
    return 3;
}
EOF
if cc -g -o plain plain.c; then
    # --backend=cuda: a host-only program needs neither a GPU nor the emulator runtime.
    check "exec passes output and the exit status through" "$BIN exec --backend=cuda ./plain --help" \
        '[ $rc = 3 ] && printf "%s\n" "$out" | grep -q "^args:2 --help" && printf "%s\n" "$out" | grep -q "^to stderr" && printf "%s\n" "$out" | grep -q "made no CUDA runtime call. It exited with status 3"'
    check "exec is 128+signal when the program crashes" "$BIN exec --backend=cuda ./plain crash" \
        '[ $rc = 139 ] && printf "%s\n" "$out" | grep -q "killed by SIGSEGV"'
    check "exec --timeout kills the program with status 124" "$BIN exec --backend=cuda --timeout 1 ./plain spin" \
        '[ $rc = 124 ] && printf "%s\n" "$out" | grep -q "did not finish within 1 s"'
    check "exec --json is one document with the program's stdout" "$BIN exec --backend=cuda --json ./plain x 2>/dev/null" \
        '[ $rc = 3 ] && printf "%s\n" "$out" | json_ok "d[\"exit_code\"] == 3 and d[\"stdout\"] == \"args:2 x\\n\" and d[\"touched_gpu\"] is False and d[\"stderr\"] == \"to stderr\\n\""'
    check "exec reads the user's stdin and runs in the current directory" \
        "echo hello > in.txt && printf 'x' | $BIN exec --backend=cuda --json ./plain io 2>/dev/null" \
        '[ $rc = 0 ] && printf "%s\n" "$out" | json_ok "d[\"stdout\"] == \"args:2 io\\nhello\\nx\""'
    if command -v script >/dev/null 2>&1; then
        # On a terminal the program is the foreground job: reading stdin does not stop it (SIGTTIN).
        check "exec lets the program read the user's terminal" \
            "(sleep 1; printf 'typed\\n'; sleep 1) | timeout 20 script -qec '$BIN exec --backend=cuda --timeout 10 ./plain io' /dev/null" \
            'printf "%s\n" "$out" | grep -q "^typed" && printf "%s\n" "$out" | grep -q "exited with status 0"'
    fi
    # Stand-ins for NVIDIA's tools in $CUDA_HOME/bin: each writes a recorded report to its output file
    # and runs the program (a host program needs no GPU with --backend=cuda).
    mkdir -p fake/bin
    printf '#!/bin/sh\nwhile [ $# -gt 0 ]; do case "$1" in --csv) shift ;; --log-file) log=$2; shift 2 ;; --*) shift 2 ;; *) break ;; esac; done\ncat "%s" > "$log"\nexec "$@"\n' \
        "$FIXTURES/profile/ncu.csv" > fake/bin/ncu
    printf '#!/bin/sh\nwhile [ $# -gt 0 ]; do case "$1" in --log-file) log=$2; shift 2 ;; --*) shift 2 ;; *) break ;; esac; done\ncat "%s" > "$log"\nexec "$@"\n' \
        "$FIXTURES/sanitizer/memcheck_oob.log" > fake/bin/compute-sanitizer
    chmod +x fake/bin/ncu fake/bin/compute-sanitizer
    check "exec --profile=ncu lists ncu's launches and metrics after the program's output" \
        "CUDA_HOME=$T/fake $BIN exec --backend=cuda --profile=ncu ./plain x" \
        '[ $rc = 3 ] && printf "%s\n" "$out" | grep -q "^args:2 x" && printf "%s\n" "$out" | grep -q "ncu profiled 2 kernel launches" && printf "%s\n" "$out" | grep -q "sm__warps_active.avg.pct_of_peak_sustained_active  *58.1 %" && printf "%s\n" "$out" | grep -q "It exited with status 3"'
    check "exec --profile=ncu --json has ncu's launches under tool" \
        "CUDA_HOME=$T/fake $BIN exec --backend=cuda --profile=ncu --json ./plain x 2>/dev/null" \
        '[ $rc = 3 ] && printf "%s\n" "$out" | json_ok "d[\"tool\"][\"name\"] == \"ncu\" and len(d[\"tool\"][\"kernels\"]) == 2 and d[\"tool\"][\"kernels\"][0][\"metrics\"][\"gpu__time_duration.sum\"] == 5792"'
    check "exec --sanitizer=memcheck lists the errors with their lines" \
        "CUDA_HOME=$T/fake $BIN exec --backend=cuda --sanitizer=memcheck ./plain x" \
        '[ $rc = 3 ] && printf "%s\n" "$out" | grep -q "compute-sanitizer memcheck: 3 errors" && printf "%s\n" "$out" | grep -q "Invalid __global__ write of size 4 bytes in scale(float \*, int) at .*oob-write.cu:31 (thread (232,0,0) in block (3,0,0)) ×2"'
    check "exec --profile=nsys without nsys says what to install and does not run the program" \
        "CUDA_HOME=$T/fake PATH=/usr/bin:/bin $BIN exec --backend=cuda --profile=nsys ./plain x" \
        '[ $rc = 125 ] && printf "%s\n" "$out" | grep -q "no nsys here" && ! printf "%s\n" "$out" | grep -q "^args"'
    check "exec refuses a tool it does not know, and two tools at once" \
        "$BIN exec --profile=nvprof ./plain; a=\$?; $BIN exec --profile=ncu --sanitizer=memcheck ./plain; echo rc=\$a,\$?" \
        'printf "%s\n" "$out" | grep -q "rc=2,2" && printf "%s\n" "$out" | grep -q "must be ncu"'
else
    skip "exec passes output and the exit status through (no cc)"
fi

EMURT=$(dirname "$BIN")/emurt/libcudart.so.13
if [ ! -f "$EMURT" ]; then
    check "exec on the emulator without its runtime says how to build it" "$BIN exec --backend=emu ./plain" \
        '[ $rc = 125 ] && printf "%s\n" "$out" | grep -q "emulator runtime"'
    skip "exec runs a CUDA program on the emulator runtime (not built: $EMURT)"
    exit 0
fi
NVCC=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
[ -x "$NVCC" ] || NVCC=$(command -v nvcc)
if [ -z "$NVCC" ]; then
    skip "exec runs a CUDA program on the emulator runtime (no nvcc)"
    exit 0
fi

cat > vadd.cu <<'EOF'
#include <cstdio>
__global__ void scale(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}
__global__ void past_the_end(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    x[i] = 1.0f;
}
int main(int argc, char **argv) {
    const int n = 1000;
    float h[n], *d;
    for (int i = 0; i < n; i++) h[i] = i;
    cudaMalloc(&d, n * sizeof(float));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    scale<<<(n + 255) / 256, 256>>>(d, n);
    if (argc > 1) past_the_end<<<(n + 255) / 256, 256>>>(d, n);
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d);
    printf("h[999] = %.1f\n", h[999]);
    return 5;
}
EOF
if ! "$NVCC" -g -lineinfo -cudart shared -gencode arch=compute_80,code=compute_80 -o vadd vadd.cu 2>nvcc.log; then
    nok "nvcc builds the test program" "$(head -5 nvcc.log)"
    exit 0
fi
check "exec runs a CUDA program on the emulator runtime" "$BIN exec --backend=emu ./vadd" \
    '[ $rc = 5 ] && printf "%s\n" "$out" | grep -q "^h\[999\] = 1998.0" && printf "%s\n" "$out" | grep -q "cudaMalloc ×1" && printf "%s\n" "$out" | grep -q "scale(float\*, int) ×1"'
check "exec shows a kernel's out-of-bounds write at the program's line" "$BIN exec --backend=emu ./vadd oob" \
    'printf "%s\n" "$out" | grep -q "^vadd.cu:8: error: .*x\[1000\]"'
check "exec --json has the calls, the kernels and the timeline" "$BIN exec --backend=emu --json ./vadd 2>/dev/null" \
    '[ $rc = 5 ] && printf "%s\n" "$out" | json_ok "d[\"touched_gpu\"] and d[\"runtime\"] == \"emu\" and len(d[\"kernels\"]) == 1 and any(c[\"fn\"] == \"cudaMemcpy\" for c in d[\"calls\"]) and d[\"stdout\"].startswith(\"h[999]\")"'
check "exec --profile=ncu on the emulator runs the program as usual and says ncu needs a GPU" \
    "CUDA_HOME=$T/fake $BIN exec --backend=emu --profile=ncu ./vadd" \
    '[ $rc = 5 ] && printf "%s\n" "$out" | grep -q "GPU only" && printf "%s\n" "$out" | grep -q "scale(float\*, int) ×1"'
check "exec --trace writes a Chrome trace" "$BIN exec --backend=emu --trace t.json ./vadd" \
    '[ $rc = 5 ] && json_ok "len(d[\"traceEvents\"]) > 0" < t.json'
# A program that needs one of NVIDIA's libraries (here cuBLAS): its calls fail on the emulator
# runtime; exec says so before the run, and --json has it as a warning.
cat > blas.cu <<'EOF'
#include <cstdio>
#include <cublas_v2.h>
int main() { cublasHandle_t h; printf("cublasCreate: %d\n", (int)cublasCreate(&h)); return 0; }
EOF
if "$NVCC" -cudart shared -o blas blas.cu -lcublas 2>/dev/null; then
    check "exec names the library that needs NVIDIA's driver on the emulator runtime" "$BIN exec --backend=emu ./blas" \
        '[ $rc = 0 ] && printf "%s\n" "$out" | grep -q "needs libcublas.so.[0-9]*; such NVIDIA libraries call the GPU driver"'
    check "exec --json has the driver library as a warning" "$BIN exec --backend=emu --json ./blas 2>/dev/null" \
        'printf "%s\n" "$out" | json_ok "any(f[\"code\"] == \"driver-library\" and \"libcublas.so\" in f[\"message\"] for f in d[\"findings\"])"'
    check "exec on a program on libcudart alone names no library" "$BIN exec --backend=emu ./vadd" \
        '! printf "%s\n" "$out" | grep -q "such NVIDIA libraries"'
else
    skip "exec names the library that needs NVIDIA's driver (cuBLAS did not link)"
fi
if "$NVCC" -o vstatic vadd.cu 2>/dev/null; then
    check "exec says to rebuild with -cudart shared when the runtime is linked in" "$BIN exec --backend=emu ./vstatic" \
        '[ $rc = 5 ] && printf "%s\n" "$out" | grep -q "rebuild it with .nvcc -cudart shared."'
fi
