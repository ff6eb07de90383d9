// tests/programs/float_math.cu: float and double semantics a GPU defines
// exactly. IEEE operations in every rounding mode (__fadd_rz, __fmul_ru,
// __fdiv_rn, __fsqrt_rd, __fmaf_rn vs. a separately rounded multiply-add,
// __dadd_rd...), library functions whose result is exact by definition
// (frexp, ldexp, fmod, remainder, remquo, modf, nextafter, trunc, round, rint,
// copysign, fdim, ilogb, scalbn), division by zero and NaN propagation
// (fminf/fmaxf ignore a NaN, comparisons are false), float-to-int conversions
// that saturate (a GPU's (int)1e10f is INT_MAX, (int)NaN is 0), __saturatef,
// __int2float_rz/ru, denormals kept without --use_fast_math. Approximate
// intrinsics (__sinf, __expf, rsqrtf) are printed as "close" only.
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cfenv>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

// values come from memory so nothing is folded at compile time
__global__ void fmath(const float *f, const double *d, float *fo, double *dout, long long *io) {
    float a = f[0], b = f[1], c = f[2], zero = f[3], big = f[4], tiny = f[5], nan = f[6], neg = f[7];
    int k = 0;
    fo[k++] = __fadd_rz(a, b);
    fo[k++] = __fadd_ru(a, b);
    fo[k++] = __fadd_rd(a, b);
    fo[k++] = __fmul_rz(a, c);
    fo[k++] = __fmul_ru(a, c);
    fo[k++] = __fdiv_rn(a, c);
    fo[k++] = __fdiv_rz(a, c);
    fo[k++] = __fsqrt_rn(b);
    fo[k++] = __fsqrt_rd(b);
    fo[k++] = __frcp_rn(c);
    fo[k++] = __fmaf_rn(a, c, -b);
    fo[k++] = __fadd_rn(__fmul_rn(a, c), -b);  // two roundings: differs from the fma
    int e;
    fo[k++] = frexpf(big, &e);
    fo[k++] = (float)e;
    fo[k++] = ldexpf(a, -130);  // a denormal
    fo[k++] = fmodf(big, c);
    fo[k++] = remainderf(big, c);
    int q;
    fo[k++] = remquof(big, c, &q);
    fo[k++] = (float)(q & 7);
    float ip;
    fo[k++] = modff(neg, &ip);
    fo[k++] = ip;
    fo[k++] = nextafterf(a, 2.0f);
    fo[k++] = truncf(neg);
    fo[k++] = roundf(2.5f * a / a);
    fo[k++] = rintf(2.5f * a / a);
    fo[k++] = copysignf(a, neg);
    fo[k++] = fdimf(a, b);
    fo[k++] = (float)ilogbf(tiny);
    fo[k++] = scalbnf(a, 20);
    fo[k++] = a / zero;
    fo[k++] = neg / zero;
    fo[k++] = zero / zero;
    fo[k++] = fminf(nan, a);
    fo[k++] = fmaxf(a, nan);
    fo[k++] = nan + a;
    fo[k++] = (float)((nan < a) + (nan > a) * 2 + (nan == nan) * 4 + (nan != nan) * 8);
    fo[k++] = __saturatef(big) + __saturatef(neg) * 10 + __saturatef(nan) * 100 + __saturatef(0.25f * a) * 1000;
    fo[k++] = __int2float_rz(16777217 + (int)zero);
    fo[k++] = __int2float_ru(16777217 + (int)zero);
    fo[k++] = __uint2float_rd(4294967295u - (unsigned)zero);
    fo[k++] = __ll2float_rn(9007199254740993LL + (long long)zero);
    fo[k++] = tiny * 0.5f;  // denormal result: kept (no ftz)
    fo[k++] = tiny * tiny;  // underflow to 0
    fo[k++] = big * big;    // overflow to inf
    fo[k++] = __fdividef(a, c);
    fo[k++] = fabsf(__sinf(a) - sinf(a)) < 1e-6f ? 1.0f : 0.0f;
    fo[k++] = fabsf(__expf(a) - expf(a)) < 1e-5f ? 1.0f : 0.0f;
    fo[k++] = fabsf(rsqrtf(c) - 1.0f / sqrtf(c)) < 1e-6f ? 1.0f : 0.0f;
    // conversions a GPU defines (C leaves them undefined)
    int j = 0;
    io[j++] = (int)(big * big);
    io[j++] = (int)(-big * big);
    io[j++] = (int)nan;
    io[j++] = (unsigned)neg;
    io[j++] = (long long)(big * big);
    io[j++] = (long long)nan;
    io[j++] = (unsigned long long)neg;
    io[j++] = __float2int_rn(2.5f);
    io[j++] = __float2int_rn(3.5f);
    io[j++] = __float2int_ru(-2.5f);
    io[j++] = __float2int_rd(-2.5f);
    io[j++] = __float2uint_rn(neg);
    io[j++] = __float2ll_rz(big * big);
    io[j++] = __double2int_rz(d[2]);
    io[j++] = __double2ll_rn(d[3]);
    io[j++] = (short)(int)(1e6f * a);  // int to short wraps
    // doubles
    int n = 0;
    dout[n++] = __dadd_rz(d[0], d[1]);
    dout[n++] = __dadd_ru(d[0], d[1]);
    dout[n++] = __dmul_rd(d[0], d[1]);
    dout[n++] = __ddiv_rn(d[0], d[1]);
    dout[n++] = __dsqrt_rn(d[1]);
    dout[n++] = __fma_rn(d[0], d[1], -d[0]);
    dout[n++] = fmod(d[3], d[1]);
    dout[n++] = remainder(d[3], d[1]);
    dout[n++] = nextafter(d[0], 0.0);
    dout[n++] = d[0] / (d[1] - d[1]);
    dout[n++] = ldexp(d[0], -1074);
    dout[n++] = (double)(float)d[1];
    dout[n++] = __double2float_rz(d[1]);
    dout[n++] = __double2float_ru(d[1]);
}

// The host's reference: the same operations with the rounding mode set
// around them (the compiler must not fold or contract: volatile operands).
static float rnd_f(int mode, float x, float y, char op) {
    volatile float a = x, b = y, r;
    fesetround(mode);
    r = op == '+' ? a + b : op == '*' ? a * b : op == '/' ? a / b : sqrtf(a);
    fesetround(FE_TONEAREST);
    return r;
}
static double rnd_d(int mode, double x, double y, char op) {
    volatile double a = x, b = y, r;
    fesetround(mode);
    r = op == '+' ? a + b : op == '*' ? a * b : a / b;
    fesetround(FE_TONEAREST);
    return r;
}
static float to_f(int mode, double x) {
    volatile double a = x;
    fesetround(mode);
    volatile float r = (float)a;
    fesetround(FE_TONEAREST);
    return r;
}

int main(void) {
    float hf[8] = {1.1f, 2.0f, 3.0f, 0.0f, 1.0e30f, 1.0e-38f, NAN, -2.75f};
    double hd[4] = {1.0 / 3.0, 2.0, 3.0e9, 7.5};
    float *d_f, fo[64] = {0}, *d_fo;
    double *d_d, dout[16] = {0}, *d_do;
    long long *d_io, io[16] = {0};
    cudaCheck(cudaMalloc(&d_f, sizeof hf));
    cudaCheck(cudaMalloc(&d_d, sizeof hd));
    cudaCheck(cudaMalloc(&d_fo, sizeof fo));
    cudaCheck(cudaMalloc(&d_do, sizeof dout));
    cudaCheck(cudaMalloc(&d_io, sizeof io));
    cudaCheck(cudaMemcpy(d_f, hf, sizeof hf, cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(d_d, hd, sizeof hd, cudaMemcpyHostToDevice));
    cudaCheck(cudaMemset(d_fo, 0, sizeof fo));
    cudaCheck(cudaMemset(d_do, 0, sizeof dout));
    cudaCheck(cudaMemset(d_io, 0, sizeof io));
    fmath<<<1, 1>>>(d_f, d_d, d_fo, d_do, d_io);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(fo, d_fo, sizeof fo, cudaMemcpyDeviceToHost));
    cudaCheck(cudaMemcpy(dout, d_do, sizeof dout, cudaMemcpyDeviceToHost));
    cudaCheck(cudaMemcpy(io, d_io, sizeof io, cudaMemcpyDeviceToHost));

    float a = hf[0], b = hf[1], c = hf[2], big = hf[4], tiny = hf[5], neg = hf[7];
    int e, q;
    float ip;
    float fr = frexpf(big, &e), rq = remquof(big, c, &q), mf = modff(neg, &ip);
    volatile float vzero = 0.0f, vnan = NAN;
    const char *fname[] = {"__fadd_rz", "__fadd_ru", "__fadd_rd", "__fmul_rz", "__fmul_ru", "__fdiv_rn", "__fdiv_rz",
                           "__fsqrt_rn", "__fsqrt_rd", "__frcp_rn", "__fmaf_rn", "mul then add", "frexpf",
                           "frexpf exponent", "ldexpf (denormal)", "fmodf", "remainderf", "remquof", "remquof quotient",
                           "modff", "modff integral", "nextafterf", "truncf", "roundf(2.5)", "rintf(2.5)", "copysignf",
                           "fdimf", "ilogbf", "scalbnf", "1/0", "-2.75/0", "0/0", "fminf(NaN, a)", "fmaxf(a, NaN)",
                           "NaN + a", "NaN comparisons", "__saturatef", "__int2float_rz", "__int2float_ru",
                           "__uint2float_rd", "__ll2float_rn", "denormal product", "underflow", "overflow",
                           "__fdividef", "__sinf close to sinf", "__expf close to expf", "rsqrtf close"};
    float want[] = {rnd_f(FE_TOWARDZERO, a, b, '+'), rnd_f(FE_UPWARD, a, b, '+'), rnd_f(FE_DOWNWARD, a, b, '+'),
                    rnd_f(FE_TOWARDZERO, a, c, '*'), rnd_f(FE_UPWARD, a, c, '*'), a / c,
                    rnd_f(FE_TOWARDZERO, a, c, '/'), sqrtf(b), rnd_f(FE_DOWNWARD, b, 0, 's'), 1.0f / c,
                    fmaf(a, c, -b), rnd_f(FE_TONEAREST, rnd_f(FE_TONEAREST, a, c, '*'), -b, '+'), fr, (float)e,
                    ldexpf(a, -130), fmodf(big, c), remainderf(big, c), rq, (float)(q & 7), mf, ip,
                    nextafterf(a, 2.0f), truncf(neg), 3.0f, 2.0f, copysignf(a, neg), fdimf(a, b),
                    (float)ilogbf(tiny), scalbnf(a, 20), INFINITY, -INFINITY, vzero / vzero, a, a, vnan, 8.0f,
                    1.0f + 0.0f + 0.0f + 275.0f, 16777216.0f, 16777218.0f, 4294967040.0f, 9007199254740992.0f,
                    tiny * 0.5f, 0.0f, INFINITY, a / c, 1.0f, 1.0f, 1.0f};
    const int nf = sizeof want / sizeof want[0];
    int bad = 0;
    for (int i = 0; i < nf; i++) {
        bool same = memcmp(&fo[i], &want[i], 4) == 0 || (std::isnan(fo[i]) && std::isnan(want[i]));
        if (i == 44) same = fabsf(fo[i] - want[i]) <= 2 * FLT_EPSILON * fabsf(want[i]);  // __fdividef: 2 ulp
        bad += !same;
        printf("%-22s %-16.9g %a%s\n", fname[i], fo[i], fo[i], same ? "" : " (WRONG)");
    }
    // a GPU's conversions: saturate, NaN -> 0 (64-bit: the sign bit alone)
    long long iwant[] = {INT_MAX, INT_MIN, 0, 0, LLONG_MAX, LLONG_MIN, 0, 2, 4, -2, -3, 0, LLONG_MAX, INT_MAX, 3000000000LL,
                         (short)1100000};
    const char *iname[] = {"(int)1e60f", "(int)-1e60f", "(int)NaN", "(unsigned)-2.75f", "(long long)1e60f",
                           "(long long)NaN", "(unsigned long long)-2.75f", "__float2int_rn(2.5)",
                           "__float2int_rn(3.5)", "__float2int_ru(-2.5)", "__float2int_rd(-2.5)",
                           "__float2uint_rn(-2.75)", "__float2ll_rz(inf)", "__double2int_rz(3e9)",
                           "__double2ll_rn(7.5)+", "(short)1100000"};
    iwant[14] = 8;  // 7.5 rounds to even
    for (int i = 0; i < 16; i++) {
        bool same = io[i] == iwant[i];
        bad += !same;
        printf("%-26s %lld%s\n", iname[i], io[i], same ? "" : " (WRONG)");
    }
    const double *d = hd;
    double dwant[] = {rnd_d(FE_TOWARDZERO, d[0], d[1], '+'), rnd_d(FE_UPWARD, d[0], d[1], '+'),
                      rnd_d(FE_DOWNWARD, d[0], d[1], '*'), d[0] / d[1], sqrt(d[1]), fma(d[0], d[1], -d[0]),
                      fmod(d[3], d[1]), remainder(d[3], d[1]), nextafter(d[0], 0.0), INFINITY, ldexp(d[0], -1074),
                      (double)(float)d[1], (double)to_f(FE_TOWARDZERO, d[1]), (double)to_f(FE_UPWARD, d[1])};
    const char *dname[] = {"__dadd_rz", "__dadd_ru", "__dmul_rd", "__ddiv_rn", "__dsqrt_rn", "__fma_rn", "fmod",
                           "remainder", "nextafter", "1/3 / 0", "ldexp(1/3, -1074)", "(float)2.0",
                           "__double2float_rz", "__double2float_ru"};
    for (int i = 0; i < 14; i++) {
        bool same = memcmp(&dout[i], &dwant[i], 8) == 0;
        bad += !same;
        printf("%-22s %-24.17g %a%s\n", dname[i], dout[i], dout[i], same ? "" : " (WRONG)");
    }
    cudaCheck(cudaFree(d_f));
    cudaCheck(cudaFree(d_d));
    cudaCheck(cudaFree(d_fo));
    cudaCheck(cudaFree(d_do));
    cudaCheck(cudaFree(d_io));
    printf("%s\n", bad == 0 ? "PASS" : "FAIL");
    return bad == 0 ? 0 : 1;
}
