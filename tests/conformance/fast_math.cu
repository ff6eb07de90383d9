// tests/conformance/fast_math.cu: compiled with --use_fast_math. Plain f32
// arithmetic becomes .ftz (denormal inputs and results flush to sign-preserving
// zero), division and sqrt become approximations, and the math functions map
// to sin/cos/ex2/lg2/rsqrt/tanh .approx. fm_ftz is exact; fm_approx is compared
// within the ulp/absolute bounds documented in tests/conformance/cases_float.h.

extern "C" __global__ void fm_ftz(const float *a, const float *b, const float *c, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i], z = c[i];
    out[0 * n + i] = x + y;
    out[1 * n + i] = x - y;
    out[2 * n + i] = x * y;
    out[3 * n + i] = fmaf(x, y, z);
    out[4 * n + i] = fminf(x, y);
    out[5 * n + i] = fmaxf(x, y);
}

extern "C" __global__ void fm_approx(const float *a, const float *b, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i];
    out[0 * n + i] = sinf(x);
    out[1 * n + i] = cosf(x);
    out[2 * n + i] = expf(y);
    out[3 * n + i] = logf(fabsf(x) + 0.5f);
    out[4 * n + i] = rsqrtf(fabsf(x) + 0.25f);
    out[5 * n + i] = tanhf(y);
    out[6 * n + i] = x / (fabsf(y) + 1.0f);
    out[7 * n + i] = sqrtf(fabsf(x));
    out[8 * n + i] = exp2f(y);
    out[9 * n + i] = log2f(fabsf(x) + 0.5f);
}
