// tests/conformance/float_ops.cu: IEEE f32/f64 add, sub, mul, fma, div, sqrt,
// rcp, neg, abs, min/max, copysign over edge values (±0, denormals, ±inf, NaN,
// FLT_MAX). Compiled without fast math: these must be bit-exact (div.rn,
// sqrt.rn, no ftz). Separate outputs keep the compiler from fusing mul+add.

extern "C" __global__ void f32_arith(const float *a, const float *b, const float *c, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i], z = c[i];
    out[0 * n + i] = x + y;
    out[1 * n + i] = x - y;
    out[2 * n + i] = x * y;
    out[3 * n + i] = fmaf(x, y, z);
    out[4 * n + i] = x / y;
    out[5 * n + i] = sqrtf(x);
    out[6 * n + i] = 1.0f / y;
    out[7 * n + i] = -x;
}

extern "C" __global__ void f32_misc(const float *a, const float *b, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i];
    out[0 * n + i] = fminf(x, y);
    out[1 * n + i] = fmaxf(x, y);
    out[2 * n + i] = fabsf(x);
    out[3 * n + i] = copysignf(x, y);
    out[4 * n + i] = x * 0.5f + 0.25f;          // contracted into fma.rn.f32
    out[5 * n + i] = __fmul_rn(x, y) + 1.0f;    // __fmul_rn forbids the fusion
}

extern "C" __global__ void f64_arith(const double *a, const double *b, const double *c, double *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = a[i], y = b[i], z = c[i];
    out[0 * n + i] = x + y;
    out[1 * n + i] = x - y;
    out[2 * n + i] = x * y;
    out[3 * n + i] = fma(x, y, z);
    out[4 * n + i] = x / y;
    out[5 * n + i] = sqrt(x);
    out[6 * n + i] = 1.0 / y;
    out[7 * n + i] = -x;
    out[8 * n + i] = fmin(x, y);
    out[9 * n + i] = fmax(x, y);
    out[10 * n + i] = fabs(x);
}
