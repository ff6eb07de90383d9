// tests/conformance/bit_ops.cu: popc, clz, ffs, brev, bfind, bfe, bfi, prmt, shf, bmsk, lop3.
// Intrinsics where CUDA has them, inline asm where it does not (bfe/bfi/bfind and
// prmt's sign-replicating selector), so the exact PTX instruction is exercised.
// Outputs: op k of element i in out[k * n + i].

extern "C" __global__ void bit_count(const unsigned *a, const unsigned long long *b, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i];
    unsigned long long y = b[i];
    out[0 * n + i] = __popc(x);
    out[1 * n + i] = __popcll(y);
    out[2 * n + i] = __clz((int)x);
    out[3 * n + i] = __clzll((long long)y);
    out[4 * n + i] = __ffs((int)x);
    out[5 * n + i] = __ffsll((long long)y);
}

extern "C" __global__ void bit_brev(const unsigned *a, const unsigned long long *b, unsigned *out,
                                    unsigned long long *out64, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = __brev(a[i]);
    out64[i] = __brevll(b[i]);
}

extern "C" __global__ void bit_bfind(const unsigned *a, const unsigned long long *b, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], r[6];
    unsigned long long y = b[i];
    asm("bfind.u32 %0, %1;" : "=r"(r[0]) : "r"(x));
    asm("bfind.s32 %0, %1;" : "=r"(r[1]) : "r"(x));
    asm("bfind.shiftamt.u32 %0, %1;" : "=r"(r[2]) : "r"(x));
    asm("bfind.u64 %0, %1;" : "=r"(r[3]) : "l"(y));
    asm("bfind.s64 %0, %1;" : "=r"(r[4]) : "l"(y));
    asm("bfind.shiftamt.s32 %0, %1;" : "=r"(r[5]) : "r"(x));
    for (int k = 0; k < 6; k++) out[k * n + i] = r[k];
}

// pos and len come from p[i]: low byte = pos, next byte = len (both 0..255 are legal).
extern "C" __global__ void bit_bfe_bfi(const unsigned *a, const unsigned *b, const unsigned *p,
                                       unsigned *out, unsigned long long *out64, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i], pos = p[i] & 0xff, len = (p[i] >> 8) & 0xff;
    unsigned r0, r1, r2;
    int sx = (int)x, s1;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r0) : "r"(x), "r"(pos), "r"(len));
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(s1) : "r"(sx), "r"(pos), "r"(len));
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r2) : "r"(x), "r"(y), "r"(pos), "r"(len));
    r1 = (unsigned)s1;
    out[0 * n + i] = r0;
    out[1 * n + i] = r1;
    out[2 * n + i] = r2;
    unsigned long long lx = ((unsigned long long)x << 32) | y, ly = ((unsigned long long)y << 32) | ~x, q0, q1, q2;
    long long sq;
    asm("bfe.u64 %0, %1, %2, %3;" : "=l"(q0) : "l"(lx), "r"(pos), "r"(len));
    asm("bfe.s64 %0, %1, %2, %3;" : "=l"(sq) : "l"((long long)lx), "r"(pos), "r"(len));
    asm("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(q2) : "l"(lx), "l"(ly), "r"(pos), "r"(len));
    q1 = (unsigned long long)sq;
    out64[0 * n + i] = q0;
    out64[1 * n + i] = q1;
    out64[2 * n + i] = q2;
}

extern "C" __global__ void bit_prmt(const unsigned *a, const unsigned *b, const unsigned *s, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i], sel = s[i], r;
    out[0 * n + i] = __byte_perm(x, y, sel);
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(sel));
    out[1 * n + i] = r;
    out[2 * n + i] = __byte_perm(x, 0, 0x0123);    // byte swap
    out[3 * n + i] = __byte_perm(x, y, 0x7531);
}

extern "C" __global__ void bit_funnel(const unsigned *a, const unsigned *b, const unsigned *s, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned lo = a[i], hi = b[i], sh = s[i];
    out[0 * n + i] = __funnelshift_l(lo, hi, sh);
    out[1 * n + i] = __funnelshift_lc(lo, hi, sh);
    out[2 * n + i] = __funnelshift_r(lo, hi, sh);
    out[3 * n + i] = __funnelshift_rc(lo, hi, sh);
}

// bmsk (sm_70, no intrinsic: CUB's BFE/BFI helpers use it): a mask of b bits
// from bit a, in both modes, with registers and immediates.
extern "C" __global__ void bit_bmsk(const unsigned *a, const unsigned *b, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned pos = a[i], width = b[i], r0, r1, r2, r3;
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(r0) : "r"(pos), "r"(width));
    asm("bmsk.wrap.b32 %0, %1, %2;" : "=r"(r1) : "r"(pos), "r"(width));
    asm("bmsk.wrap.b32 %0, 1, %1;" : "=r"(r2) : "r"(width));
    asm("bmsk.clamp.b32 %0, %1, 32;" : "=r"(r3) : "r"(pos));
    out[0 * n + i] = r0;
    out[1 * n + i] = r1;
    out[2 * n + i] = r2;
    out[3 * n + i] = r3;
}

// lop3.b32 (sm_50, no intrinsic: cicc emits it for some SIMD intrinsics,
// CUTLASS and hand-tuned code write it): any function of three words, by
// its truth table immLut, here ten of them (constants, each input alone,
// xor3, majority, a select, and mixed ones).
#define LOP3(d, lut) asm("lop3.b32 %0, %1, %2, %3, " #lut ";" : "=r"(d) : "r"(x), "r"(y), "r"(z))
extern "C" __global__ void bit_lop3(const unsigned *a, const unsigned *b, const unsigned *c, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i], z = c[i], r[10];
    LOP3(r[0], 0x00);
    LOP3(r[1], 0xFF);
    LOP3(r[2], 0xF0);
    LOP3(r[3], 0xCC);
    LOP3(r[4], 0xAA);
    LOP3(r[5], 0x96);
    LOP3(r[6], 0xE8);
    LOP3(r[7], 0xCA);
    LOP3(r[8], 0x1B);
    LOP3(r[9], 0x6A);
    for (int k = 0; k < 10; k++) out[k * n + i] = r[k];
}
