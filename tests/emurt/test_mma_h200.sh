#!/bin/sh
# tests/emurt/test_mma_h200.sh: the emulator's tensor cores give what an
# H200 gives, bit for bit. tests/conformance/mma_probe.cu (designed and
# random tiles for mma.sync m16n8k16 f16/bf16, m16n8k8 f16/tf32, f16 and f32
# accumulators, wmma m16n16k16 f16/bf16, m16n16k8 tf32) runs on the emulator
# runtime; its results must hash to those an H200 (sm_90, CUDA 13.0)
# produced from the same inputs (capture of 2026-12-01, fitted by
# tools/mma_fit.c; the model is described in kernels/emu/emu_mma.c). Skips
# without nvcc or the emulator runtime.
BUILD=${BUILD:-build}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
nvcc=$CUDA_HOME/bin/nvcc
here=$(dirname "$0")
major=$(awk '/define CUDART_VERSION/ {print int($3 / 1000)}' "$CUDA_HOME/include/cuda_runtime_api.h" 2>/dev/null)
if [ -z "$major" ] || [ ! -x "$nvcc" ]; then echo "skip - mma_h200 (no nvcc under $CUDA_HOME)"; exit 0; fi
lib=$BUILD/emurt/libcudart.so.$major
if [ ! -f "$lib" ]; then echo "skip - mma_h200 (no emulator runtime: $lib is not built)"; exit 0; fi
libdir=$(cd "$BUILD/emurt" && pwd)
asan=$(ldd "$lib" 2>/dev/null | awk '/libasan\.so/ { print $3 }')
[ -n "$asan" ] && export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ok() { echo "ok - $1"; }
notok() { echo "not ok - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/    /'; }

# The H200's results: sha256 of each OP.d, and of all inputs (OP.a OP.b OP.c in manifest order).
INPUTS=d03b01d0810dfb1765244385ec4c794d85ab5a8a57577fc69f03026a6965fcbe
H200='c9a5ccfd76c20fc169fb83c9da3a661308546a852192c78678308f02314654b4 mma_m16n8k16_f16_f32
861440a24d8eab9c4edf9fda613d758b48a8da665e37e96db1044467df56b3e7 mma_m16n8k16_bf16_f32
eb93540c38e06c2346aa61e167e3b6f64f044c4def2ec666879ea68d7331ec2a mma_m16n8k16_f16_f16
4af102350c2e1f5139e4073d729cf1e32a2549dc0c8b091eaf275707692b7a30 mma_m16n8k8_f16_f32
638e1aa736c5dc83d0dabd57668258a641870b3646da9988f1f6dd3cce559c47 mma_m16n8k8_tf32_f32
b9981f8acdd89bff4a16776e149b8dc1d51d0c62c692ce669427a91f9a73fbd3 wmma_m16n16k16_f16_f32
7b2531b00fd7010eb5b134528299c50020f2aa290bf3a48dbde83fed1f28ab3c wmma_m16n16k16_f16_f16
c09957e2d7fb4547346f1491a87fdb8cbeb0e1287bbc9138eff351d14b9a268e wmma_m16n16k16_bf16_f32
6beb140b4707474f07cf16b04a9a247e0b7f938070de888632f83aec84c53cdc wmma_m16n16k8_tf32_f32'

if ! "$nvcc" -cudart shared -gencode arch=compute_90,code=compute_90 -o "$work/mma_probe" \
        "$here/../conformance/mma_probe.cu" 2> "$work/nvcc.err"; then
    notok "mma_h200: nvcc builds tests/conformance/mma_probe.cu" "$(cat "$work/nvcc.err")"
    exit 0
fi
if ! LD_LIBRARY_PATH=$libdir LD_PRELOAD=$asan CUDOJO_EMU_THREADS=1 "$work/mma_probe" "$work/out" > "$work/run.out" 2>&1; then
    notok "mma_h200: mma_probe runs on the emulator runtime" "$(cat "$work/run.out")"
    exit 0
fi
inputs=$(cd "$work/out" && awk '/^op / {print $2}' manifest.txt | while read -r op; do cat "$op.a" "$op.b" "$op.c"; done |
    sha256sum | cut -c1-64)
if [ "$inputs" != "$INPUTS" ]; then
    notok "mma_h200: mma_probe's inputs are the ones the H200 capture was made from" \
        "inputs hash $inputs: mma_probe.cu changed its inputs; capture again on the GPU (./mma_probe DIR) and update the hashes"
    exit 0
fi
ok "mma_h200: mma_probe's inputs are the ones the H200 capture was made from"
printf '%s\n' "$H200" | while read -r want op; do
    got=$(sha256sum < "$work/out/$op.d" | cut -c1-64)
    if [ "$got" = "$want" ]; then ok "mma_h200: $op results are bit-identical to the H200's"
    else notok "mma_h200: $op results are bit-identical to the H200's" \
        "sha256 $got, the H200's $want (tools/mma_fit.c on a capture shows which elements differ)"
    fi
done
