// tests/conformance/io.cu: device printf (vprintf), assert (__assertfail) and
// malloc/free inside a kernel.
#ifndef assert
#define assert(e) ((e) ? (void)0 : __assertfail(#e, __FILE__, __LINE__, __func__, 1))
#endif

// One thread prints every conversion the tests compare; four more print one
// line each (lines are compared as a sorted set: warps may interleave).
extern "C" __global__ void io_printf(const int *a, const float *f, int n) {
    int t = threadIdx.x;
    if (t == 0) {
        printf("int %d neg %d unsigned %u hex %x HEX %X oct %o\n", a[0], -a[1], (unsigned)a[2], a[3], a[3], a[0]);
        printf("ll %lld ull %llu char %c str %s pct %%\n", (long long)a[0] * 100000000ll, 18446744073709551615ull,
               'A' + a[4] % 26, "cudojo");
        printf("float %f %.3f %e %g %10.4f|%-8d|%08d\n", f[0], f[1], f[2], f[3], f[0], a[0], a[1]);
    }
    if (t >= 1 && t <= 4 && t < n) printf("thread %d value %d\n", t, a[t]);
}

extern "C" __global__ void io_assert(const int *a, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = a[i] + 1;
    assert(a[i] != 13); // ASSERT-LINE
}

extern "C" __global__ void io_malloc(const int *a, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int len = 1 + (a[i] & 15);
    int *buf = (int *)malloc(len * sizeof(int));
    if (!buf) { out[i] = -1; return; }
    for (int k = 0; k < len; k++) buf[k] = a[i] * k;
    int s = 0;
    for (int k = len - 1; k >= 0; k--) s += buf[k] ^ k;
    free(buf);
    out[i] = s;
}
