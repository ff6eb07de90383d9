// tests/programs/grids_3d.cu: 2D and 3D grids and blocks. A matrix
// transpose on a 2D grid of 2D blocks (edges not multiples of the block), a
// 3D stencil-free volume fill on a 3D grid of 3D blocks where every element
// records which block and thread wrote it, and gridDim/blockDim read inside
// the kernel.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

// out (cols, rows) = transpose of in (rows, cols)
__global__ void transpose(const int *in, int *out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

// vol (nz, ny, nx): each element encodes its coordinates and the linear block id
__global__ void fill_volume(int *vol, int nx, int ny, int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    int block_id = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    vol[(z * ny + y) * nx + x] = block_id * 1000000 + z * 10000 + y * 100 + x;
}

__global__ void shape(int *s) {
    s[0] = gridDim.x; s[1] = gridDim.y; s[2] = gridDim.z;
    s[3] = blockDim.x; s[4] = blockDim.y; s[5] = blockDim.z;
}

int main(void) {
    int failures = 0;
    const int rows = 45, cols = 70;
    std::vector<int> a(rows * cols), t(rows * cols);
    for (int i = 0; i < rows * cols; i++) a[i] = i;
    int *d_a, *d_t;
    cudaCheck(cudaMalloc(&d_a, a.size() * sizeof(int)));
    cudaCheck(cudaMalloc(&d_t, t.size() * sizeof(int)));
    cudaCheck(cudaMemcpy(d_a, a.data(), a.size() * sizeof(int), cudaMemcpyHostToDevice));
    dim3 block2(16, 16), grid2((cols + 15) / 16, (rows + 15) / 16);
    transpose<<<grid2, block2>>>(d_a, d_t, rows, cols);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(t.data(), d_t, t.size() * sizeof(int), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) bad += t[c * rows + r] != a[r * cols + c];
    printf("transpose %dx%d on a %ux%u grid of %ux%u blocks: t[1] = %d, t[3149] = %d, mismatches %d\n", rows, cols,
           grid2.x, grid2.y, block2.x, block2.y, t[1], t[rows * cols - 1], bad);
    failures += bad;

    const int nx = 20, ny = 9, nz = 7;
    dim3 block3(8, 4, 2), grid3((nx + 7) / 8, (ny + 3) / 4, (nz + 1) / 2);
    std::vector<int> v(nx * ny * nz, -1);
    int *d_v;
    cudaCheck(cudaMalloc(&d_v, v.size() * sizeof(int)));
    cudaCheck(cudaMemset(d_v, 0xff, v.size() * sizeof(int)));
    fill_volume<<<grid3, block3>>>(d_v, nx, ny, nz);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(v.data(), d_v, v.size() * sizeof(int), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int z = 0; z < nz; z++)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++) {
                int bid = ((z / 2) * grid3.y + y / 4) * grid3.x + x / 8;
                bad += v[(z * ny + y) * nx + x] != bid * 1000000 + z * 10000 + y * 100 + x;
            }
    printf("volume %dx%dx%d on a %ux%ux%u grid: last element %d, mismatches %d\n", nx, ny, nz, grid3.x, grid3.y,
           grid3.z, v.back(), bad);
    failures += bad;

    int *d_s, s[6];
    cudaCheck(cudaMalloc(&d_s, sizeof s));
    shape<<<dim3(3, 2, 5), dim3(4, 3, 2)>>>(d_s);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(s, d_s, sizeof s, cudaMemcpyDeviceToHost));
    printf("inside the kernel: gridDim (%d,%d,%d), blockDim (%d,%d,%d)\n", s[0], s[1], s[2], s[3], s[4], s[5]);
    failures += s[0] != 3 || s[2] != 5 || s[5] != 2;

    cudaCheck(cudaFree(d_a));
    cudaCheck(cudaFree(d_t));
    cudaCheck(cudaFree(d_v));
    cudaCheck(cudaFree(d_s));
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? 0 : 1;
}
