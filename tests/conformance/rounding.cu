// tests/conformance/rounding.cu: the rounding-mode intrinsics (.rn/.rz/.ru/.rd)
// for f32 and f64 arithmetic and for every int<->float conversion. The CPU
// references compute the same operations under <fenv.h> rounding modes.

extern "C" __global__ void round_f32(const float *a, const float *b, const float *c, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i], z = c[i];
    float *o = out + i;
    o[0 * n] = __fadd_rn(x, y);  o[1 * n] = __fadd_rz(x, y);  o[2 * n] = __fadd_ru(x, y);  o[3 * n] = __fadd_rd(x, y);
    o[4 * n] = __fmul_rn(x, y);  o[5 * n] = __fmul_rz(x, y);  o[6 * n] = __fmul_ru(x, y);  o[7 * n] = __fmul_rd(x, y);
    o[8 * n] = __fdiv_rn(x, y);  o[9 * n] = __fdiv_rz(x, y);  o[10 * n] = __fdiv_ru(x, y); o[11 * n] = __fdiv_rd(x, y);
    o[12 * n] = __fmaf_rn(x, y, z); o[13 * n] = __fmaf_rz(x, y, z); o[14 * n] = __fmaf_ru(x, y, z); o[15 * n] = __fmaf_rd(x, y, z);
    o[16 * n] = __fsqrt_rn(x); o[17 * n] = __fsqrt_rz(x); o[18 * n] = __fsqrt_ru(x); o[19 * n] = __fsqrt_rd(x);
    o[20 * n] = __fsub_rn(x, y); o[21 * n] = __fsub_rz(x, y); o[22 * n] = __fsub_ru(x, y); o[23 * n] = __fsub_rd(x, y);
    o[24 * n] = __frcp_rn(y); o[25 * n] = __frcp_rz(y); o[26 * n] = __frcp_ru(y); o[27 * n] = __frcp_rd(y);
}

extern "C" __global__ void round_f64(const double *a, const double *b, const double *c, double *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = a[i], y = b[i], z = c[i];
    double *o = out + i;
    o[0 * n] = __dadd_rn(x, y);  o[1 * n] = __dadd_rz(x, y);  o[2 * n] = __dadd_ru(x, y);  o[3 * n] = __dadd_rd(x, y);
    o[4 * n] = __dmul_rn(x, y);  o[5 * n] = __dmul_rz(x, y);  o[6 * n] = __dmul_ru(x, y);  o[7 * n] = __dmul_rd(x, y);
    o[8 * n] = __ddiv_rn(x, y);  o[9 * n] = __ddiv_rz(x, y);  o[10 * n] = __ddiv_ru(x, y); o[11 * n] = __ddiv_rd(x, y);
    o[12 * n] = __fma_rn(x, y, z); o[13 * n] = __fma_rz(x, y, z); o[14 * n] = __fma_ru(x, y, z); o[15 * n] = __fma_rd(x, y, z);
    o[16 * n] = __dsqrt_rn(x); o[17 * n] = __dsqrt_rz(x); o[18 * n] = __dsqrt_ru(x); o[19 * n] = __dsqrt_rd(x);
}

// float/double -> integers: cvt.{rni,rzi,rpi,rmi} saturate to the range and turn NaN into 0.
extern "C" __global__ void round_f2i(const float *a, const double *d, int *out, long long *out64, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i];
    double y = d[i];
    int *o = out + i;
    o[0 * n] = __float2int_rn(x); o[1 * n] = __float2int_rz(x); o[2 * n] = __float2int_ru(x); o[3 * n] = __float2int_rd(x);
    o[4 * n] = (int)__float2uint_rn(x); o[5 * n] = (int)__float2uint_rz(x);
    o[6 * n] = (int)__float2uint_ru(x); o[7 * n] = (int)__float2uint_rd(x);
    o[8 * n] = __double2int_rn(y); o[9 * n] = __double2int_rz(y); o[10 * n] = __double2int_ru(y); o[11 * n] = __double2int_rd(y);
    o[12 * n] = (int)__double2uint_rz(y);
    long long *q = out64 + i;
    q[0 * n] = __float2ll_rn(x); q[1 * n] = __float2ll_rz(x); q[2 * n] = __float2ll_ru(x); q[3 * n] = __float2ll_rd(x);
    q[4 * n] = __double2ll_rn(y); q[5 * n] = __double2ll_rz(y);
    q[6 * n] = (long long)__double2ull_rz(y);
}

// integers -> float/double with each rounding, and double -> float.
extern "C" __global__ void round_i2f(const int *a, const long long *b, const double *d, float *out, double *outd, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i];
    long long y = b[i];
    double z = d[i];
    float *o = out + i;
    o[0 * n] = __int2float_rn(x); o[1 * n] = __int2float_rz(x); o[2 * n] = __int2float_ru(x); o[3 * n] = __int2float_rd(x);
    o[4 * n] = __uint2float_rn((unsigned)x); o[5 * n] = __uint2float_rz((unsigned)x);
    o[6 * n] = __uint2float_ru((unsigned)x); o[7 * n] = __uint2float_rd((unsigned)x);
    o[8 * n] = __ll2float_rn(y); o[9 * n] = __ll2float_rz(y); o[10 * n] = __ll2float_ru(y); o[11 * n] = __ll2float_rd(y);
    o[12 * n] = __ull2float_rn((unsigned long long)y);
    o[13 * n] = __double2float_rn(z); o[14 * n] = __double2float_rz(z);
    o[15 * n] = __double2float_ru(z); o[16 * n] = __double2float_rd(z);
    double *q = outd + i;
    q[0 * n] = __ll2double_rn(y); q[1 * n] = __ll2double_rz(y); q[2 * n] = __ll2double_ru(y); q[3 * n] = __ll2double_rd(y);
    q[4 * n] = __int2double_rn(x); q[5 * n] = __ull2double_rd((unsigned long long)y);
}

// Rounding to integral values in float: cvt.rni/rzi/rpi/rmi.f32.f32 and f64.
extern "C" __global__ void round_frnd(const float *a, const double *d, float *out, double *outd, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i];
    double y = d[i];
    out[0 * n + i] = rintf(x);
    out[1 * n + i] = truncf(x);
    out[2 * n + i] = ceilf(x);
    out[3 * n + i] = floorf(x);
    outd[0 * n + i] = rint(y);
    outd[1 * n + i] = trunc(y);
    outd[2 * n + i] = ceil(y);
    outd[3 * n + i] = floor(y);
}
