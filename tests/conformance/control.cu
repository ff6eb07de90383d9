// tests/conformance/control.cu: divergence and reconvergence (data-dependent
// branches, nested loops with break/continue, early return), __noinline__
// device functions (call/ret with .param passing), 2-D and 3-D grids and
// grid-stride loops.

extern "C" __global__ void ctrl_divergent_loops(const int *a, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = a[i], acc = 0;
    for (int r = 0; r < (v & 7); r++) {
        for (int c = 0; c <= r + (i & 3); c++) {
            if ((r + c) % 3 == 0) continue;
            acc += r * c + 1;
            if (acc > 200 + (v & 63)) break;
        }
        if (v & 8) acc ^= r;
        else acc += 2;
    }
    switch (v % 4) {
    case 0: acc *= 3; break;
    case 1: acc -= 7; break;
    case 2: acc = -acc; break;
    default: break;
    }
    int w = 0;
    while (v > 1 && w < 40) { v = (v & 1) ? 3 * v + 1 : v / 2; w++; }   // Collatz steps
    out[i] = acc * 64 + w;
}

// Threads leave at different points; the ones that stay still see a converged
// warp for the shuffle at the end (only lanes that reach it are named).
extern "C" __global__ void ctrl_early_return(const int *a, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = a[i];
    out[i] = -1;
    if (v % 5 == 0) return;
    out[i] = v * 2;
    if (v % 7 == 0) { out[i] = 7; return; }
    for (int k = 0; k < 10; k++) {
        if (v + k == 50) { out[i] = 1000 + k; return; }
    }
    out[i] += 1;
}

__device__ __noinline__ int poly(int x, int y) {
    return x * x - 3 * y + (x ^ y);
}

__device__ __noinline__ float blend(float a, float b, float t) {
    return a + (b - a) * t;
}

__device__ __noinline__ void store_pair(int *p, int x, int y) {
    p[0] = x;
    p[1] = y;
}

extern "C" __global__ void ctrl_noinline(const int *a, const float *f, int *out, float *outf, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int r = poly(a[i], i);
    if (a[i] & 1) r = poly(r & 0xff, a[i]);
    out[i] = r;
    outf[i] = blend(f[i], 2.0f * f[i] + 1.0f, 0.25f);
    int pair[2];
    store_pair(pair, r, i);
    out[n + i] = pair[0] - pair[1];
}

// Every thread writes its linear id and its coordinates; out must be a
// permutation-free dense array.
extern "C" __global__ void ctrl_grid2d(int *out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    out[y * w + x] = (x << 16) | (y << 4) | (int)(threadIdx.y * blockDim.x + threadIdx.x) % 16;
}

extern "C" __global__ void ctrl_grid3d(int *out, int nx, int ny, int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    out[(z * ny + y) * nx + x] = (int)(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)) * 1000 +
                                 (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}

extern "C" __global__ void ctrl_grid_stride(const float *a, float *out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = a[i] * 3.0f - 1.0f;
}
