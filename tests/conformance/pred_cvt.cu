// tests/conformance/pred_cvt.cu: setp (ordered and unordered, with NaN), selp,
// predicate logic, and cvt between every integer width (truncation, sign and
// zero extension), with .sat, and between f32 and f64.

// Bit k of out[i] is comparison k. C's !(x < y) is the unordered "uge";
// setp_asm.cu has the unordered forms C cannot spell.
extern "C" __global__ void setp_f32(const float *a, const float *b, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i];
    unsigned m = 0;
    m |= (unsigned)(x < y) << 0;
    m |= (unsigned)(x <= y) << 1;
    m |= (unsigned)(x > y) << 2;
    m |= (unsigned)(x >= y) << 3;
    m |= (unsigned)(x == y) << 4;
    m |= (unsigned)(x != y) << 5;
    m |= (unsigned)!(x < y) << 6;
    m |= (unsigned)!(x >= y) << 7;
    m |= (unsigned)(x != x) << 8;
    m |= (unsigned)!(x == y) << 9;
    double dx = x, dy = y;
    m |= (unsigned)(dx < dy) << 10;
    m |= (unsigned)!(dx <= dy) << 11;
    m |= (unsigned)(dx == dy) << 12;
    out[i] = m;
}

extern "C" __global__ void setp_int(const int *a, const int *b, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i];
    unsigned ux = x, uy = y;
    long long lx = (long long)x * 3, ly = (long long)y * 5;
    unsigned m = 0;
    m |= (unsigned)(x < y) << 0;
    m |= (unsigned)(x <= y) << 1;
    m |= (unsigned)(x > y) << 2;
    m |= (unsigned)(x >= y) << 3;
    m |= (unsigned)(x == y) << 4;
    m |= (unsigned)(x != y) << 5;
    m |= (unsigned)(ux < uy) << 6;
    m |= (unsigned)(ux <= uy) << 7;
    m |= (unsigned)(ux > uy) << 8;
    m |= (unsigned)(ux >= uy) << 9;
    m |= (unsigned)(lx < ly) << 10;
    m |= (unsigned)((unsigned long long)lx > (unsigned long long)ly) << 11;
    m |= (unsigned)(lx == ly) << 12;
    out[i] = m;
}

// selp and and/or/xor/not of predicates (non-short-circuit forms).
extern "C" __global__ void selp_predlogic(const int *a, const int *b, const float *f, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i];
    float z = f[i];
    bool p = x < y, q = (x & 4) != 0, r = z > 0.5f;
    out[0 * n + i] = p ? x : y;
    out[1 * n + i] = (p & q) ? 11 : 22;
    out[2 * n + i] = (p | r) ? x * 3 : y - 1;
    out[3 * n + i] = (p ^ q ^ r) ? 1 : -1;
    out[4 * n + i] = (!p & r) | (q & !r) ? x : 7;
    out[5 * n + i] = __float_as_int(r ? z : -z);
}

// Integer width conversions. Stores through each width check truncation; loads
// through signed/unsigned narrow types check sign and zero extension.
extern "C" __global__ void cvt_widths(const long long *a, long long *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long v = a[i];
    long long *o = out + i;
    o[0 * n] = (signed char)v;
    o[1 * n] = (unsigned char)v;
    o[2 * n] = (short)v;
    o[3 * n] = (unsigned short)v;
    o[4 * n] = (int)v;
    o[5 * n] = (unsigned)v;
    o[6 * n] = (long long)(float)(int)v;
    o[7 * n] = (long long)(double)v;
    o[8 * n] = (long long)(unsigned long long)(double)(unsigned long long)v;
}

// .sat conversions: __saturatef (cvt.sat.f32.f32), integer narrowing with
// .sat, and float->int that saturates at the type's range.
extern "C" __global__ void cvt_sat(const int *a, const float *f, int *out, float *outf, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i];
    float y = f[i];
    int r0, r1, r2, r3;
    asm("cvt.sat.s8.s32 %0, %1;" : "=r"(r0) : "r"(x));
    asm("cvt.sat.u8.s32 %0, %1;" : "=r"(r1) : "r"(x));
    asm("cvt.sat.s16.s32 %0, %1;" : "=r"(r2) : "r"(x));
    asm("cvt.sat.u16.u32 %0, %1;" : "=r"(r3) : "r"(x));
    // The upper register bits after a narrow cvt are not what we test: narrow in C.
    out[0 * n + i] = (signed char)r0;
    out[1 * n + i] = (unsigned char)r1;
    out[2 * n + i] = (short)r2;
    out[3 * n + i] = (unsigned short)r3;
    out[4 * n + i] = (int)y;                       // cvt.rzi.s32.f32 saturates, NaN -> 0
    out[5 * n + i] = (int)(unsigned)y;             // cvt.rzi.u32.f32
    outf[0 * n + i] = __saturatef(y);
    outf[1 * n + i] = (float)(double)y * 2.0f;
}

extern "C" __global__ void cvt_f32_f64(const float *a, const double *d, double *out, float *outf, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = (double)a[i];
    outf[i] = (float)d[i];
}
