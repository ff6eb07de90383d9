// tests/conformance/memory.cu: every state space and access width: vector
// loads/stores (float2/float4/int4), .nc (__ldg), volatile, 8/16/64-bit
// elements, local arrays indexed at run time, __constant__ and __device__ data
// with initialisers (shorter than the array: the tail is zero), static and
// dynamic shared memory.

extern "C" __global__ void mem_vector(const float4 *a, const float2 *b, const int4 *c, float4 *oa, float2 *ob,
                                      int4 *oc, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = a[i];
    float2 w = b[i];
    int4 k = c[i];
    oa[i] = make_float4(v.w, v.z + 1.0f, v.y * 2.0f, v.x);
    ob[i] = make_float2(w.y, w.x - 3.0f);
    oc[i] = make_int4(k.y, k.z ^ k.w, k.x + 1, k.w);
}

extern "C" __global__ void mem_ldg_volatile(const float *__restrict__ a, const int *__restrict__ b, float *out,
                                            volatile int *vol, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = __ldg(&a[i]);
    int y = __ldg(&b[(i * 7) % n]);
    float4 q = __ldg((const float4 *)a + (i / 4));
    out[i] = x * 2.0f + (float)y + q.x;
    vol[i] = y;
    vol[i] = vol[i] + 1;
}

extern "C" __global__ void mem_widths(const signed char *a, const unsigned short *b, const short *c,
                                      const unsigned long long *d, int *out, unsigned char *ob, short *oc,
                                      unsigned long long *od, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[0 * n + i] = a[i];
    out[1 * n + i] = b[i];
    out[2 * n + i] = c[i];
    out[3 * n + i] = (int)(d[i] >> 17);
    ob[i] = (unsigned char)(a[i] * 3 + 1);
    oc[i] = (short)(c[i] - b[i]);
    od[i] = d[i] * 0x9E3779B97F4A7C15ull;
}

// A local array that stays in local memory: its index is only known at run time.
extern "C" __global__ void mem_local(const int *idx, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int arr[16];
    for (int k = 0; k < 16; k++) arr[k] = i * 100 + k;
    int j = idx[i] & 15;
    arr[j] += 1000;
    arr[(j + 5) & 15] = -arr[j];
    int s = 0;
    for (int k = 0; k < 16; k++) s += arr[k] * (k + 1);
    out[i] = s + arr[idx[(i + 1) % n] & 15];
}

__constant__ float c_coef[8] = {0.5f, -1.25f, 2.0f, 3.5f, -0.125f};
__constant__ int c_table[4] = {7, 11, 13};

extern "C" __global__ void mem_const(const float *a, float *out, int *outi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i];
    int k = i & 7;
    out[i] = c_coef[k] * x + c_coef[(k + 3) & 7];
    outi[i] = c_table[i & 3] * (i + 1);
}

__device__ int g_counter_base = 40;
__device__ float g_scale[4] = {1.5f, 2.5f};
__device__ unsigned long long g_big = 0x123456789abcdefull;

extern "C" __global__ void mem_device_global(const float *a, float *out, unsigned long long *big, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = a[i] * g_scale[i & 3] + (float)g_counter_base;
    big[i] = g_big + (unsigned long long)i;
}

#define SH_N 128
// Static shared memory: reverse a block's elements through __shared__.
extern "C" __global__ void mem_shared_static(const int *a, int *out, int n) {
    __shared__ int s[SH_N];
    __shared__ double d[SH_N / 2];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? a[i] : 0;
    if (t < SH_N / 2) d[t] = 0.5 * t;
    __syncthreads();
    int r = s[blockDim.x - 1 - t];
    if (i < n) out[i] = r + (int)(d[t / 2] * 2.0);
}

// Dynamic shared memory carved into a float array followed by an int array.
extern "C" __global__ void mem_shared_dynamic(const float *a, float *out, int n) {
    extern __shared__ float dyn[];
    int *counts = (int *)&dyn[blockDim.x];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    dyn[t] = i < n ? a[i] : 0.0f;
    counts[t] = t * 3;
    __syncthreads();
    float v = dyn[(t + 1) % blockDim.x] + (float)counts[(t + 2) % blockDim.x];
    if (i < n) out[i] = v;
}
