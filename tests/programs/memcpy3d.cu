// tests/programs/memcpy3d.cu: 3D memory. cudaMalloc3D (a pitched pointer
// for a width x height x depth volume), cudaMemcpy3D from a packed host
// array (make_cudaPitchedPtr, make_cudaExtent), a kernel that walks the
// volume by pitch and slice pitch, cudaMemset3D of one slice, and a
// cudaMemcpy3D of a sub-box back to the host (srcPos offsets in bytes for x).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

// v[z][y][x] += z (ints), through the pitched pointer
__global__ void add_z(cudaPitchedPtr p, int w, int h, int d) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z = blockIdx.z;
    if (x >= w || y >= h || z >= d) return;
    char *slice = (char *)p.ptr + z * p.pitch * h;
    int *row = (int *)(slice + y * p.pitch);
    row[x] += z;
}

int main(void) {
    const int w = 13, h = 7, d = 5;
    static int host[d][h][w], back[d][h][w];
    for (int z = 0; z < d; z++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) host[z][y][x] = 10000 * z + 100 * y + x;
    cudaExtent ext = make_cudaExtent(w * sizeof(int), h, d);
    cudaPitchedPtr dv;
    cudaCheck(cudaMalloc3D(&dv, ext));
    printf("pitch >= row bytes: %s, xsize %zu, ysize %zu\n", dv.pitch >= w * sizeof(int) ? "yes" : "no", dv.xsize,
           dv.ysize);

    cudaMemcpy3DParms in = {};
    in.srcPtr = make_cudaPitchedPtr(host, w * sizeof(int), w, h);
    in.dstPtr = dv;
    in.extent = ext;
    in.kind = cudaMemcpyHostToDevice;
    cudaCheck(cudaMemcpy3D(&in));
    add_z<<<dim3(1, 1, d), dim3(16, 8)>>>(dv, w, h, d);
    cudaCheck(cudaGetLastError());
    // slice 2 to zero bytes
    cudaPitchedPtr slice2 = dv;
    slice2.ptr = (char *)dv.ptr + 2 * dv.pitch * h;
    cudaCheck(cudaMemset3D(slice2, 0, make_cudaExtent(w * sizeof(int), h, 1)));

    cudaMemcpy3DParms out = {};
    out.srcPtr = dv;
    out.dstPtr = make_cudaPitchedPtr(back, w * sizeof(int), w, h);
    out.extent = ext;
    out.kind = cudaMemcpyDeviceToHost;
    cudaCheck(cudaMemcpy3D(&out));
    int bad = 0;
    for (int z = 0; z < d; z++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) bad += back[z][y][x] != (z == 2 ? 0 : host[z][y][x] + z);
    printf("whole volume: back[4][6][12] = %d, back[2][3][3] = %d, mismatches %d\n", back[4][6][12], back[2][3][3],
           bad);

    // the 3x2x2 box at x = 4, y = 1, z = 3
    int box[2][2][3];
    cudaMemcpy3DParms sub = {};
    sub.srcPtr = dv;
    sub.srcPos = make_cudaPos(4 * sizeof(int), 1, 3);
    sub.dstPtr = make_cudaPitchedPtr(box, 3 * sizeof(int), 3, 2);
    sub.extent = make_cudaExtent(3 * sizeof(int), 2, 2);
    sub.kind = cudaMemcpyDeviceToHost;
    cudaCheck(cudaMemcpy3D(&sub));
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++) {
            printf("box z%d y%d:", z, y);
            for (int x = 0; x < 3; x++) {
                printf(" %d", box[z][y][x]);
                bad += box[z][y][x] != back[z + 3][y + 1][x + 4];
            }
            printf("\n");
        }
    cudaCheck(cudaFree(dv.ptr));
    printf("%s\n", bad == 0 ? "PASS" : "FAIL");
    return bad == 0 ? 0 : 1;
}
