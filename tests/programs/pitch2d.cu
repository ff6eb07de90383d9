// tests/programs/pitch2d.cu: a 2D image in pitched device memory —
// cudaMallocPitch, cudaMemcpy2D in and out (host rows packed), a kernel that
// walks rows by the pitch in bytes, a device-to-device cudaMemcpy2DAsync of a
// sub-rectangle, and the pitch checked only as a predicate (its value is the
// device's choice).
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

// img: (h, pitch bytes) of float; scales each pixel by its row number + 1
__global__ void scale_rows(float *img, size_t pitch, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float *row = (float *)((char *)img + y * pitch);
    row[x] *= (float)(y + 1);
}

int main(void) {
    const int w = 37, h = 11;
    float host[h][w], back[h][w];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) host[y][x] = (float)(x + 100 * y);
    float *d_img, *d_sub;
    size_t pitch, sub_pitch;
    cudaCheck(cudaMallocPitch((void **)&d_img, &pitch, w * sizeof(float), h));
    cudaCheck(cudaMallocPitch((void **)&d_sub, &sub_pitch, 4 * sizeof(float), 3));
    printf("pitch >= row bytes: %s\n", pitch >= w * sizeof(float) ? "yes" : "no");
    printf("pitch is a multiple of 4: %s\n", pitch % 4 == 0 ? "yes" : "no");
    int bad = pitch >= w * sizeof(float) && pitch % 4 == 0 ? 0 : 1;

    cudaCheck(cudaMemcpy2D(d_img, pitch, host, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
    dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
    scale_rows<<<grid, block>>>(d_img, pitch, w, h);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy2D(back, w * sizeof(float), d_img, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost));

    int scaled_bad = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) scaled_bad += back[y][x] != host[y][x] * (y + 1);
    printf("scaled image mismatches: %d\n", scaled_bad);
    bad += scaled_bad;
    printf("back[0][36] = %.0f, back[10][0] = %.0f, back[10][36] = %.0f\n", back[0][36], back[10][0], back[10][36]);

    // the 4x3 block at (x=5, y=2), device to device, then to the host packed
    cudaStream_t s;
    cudaCheck(cudaStreamCreate(&s));
    cudaCheck(cudaMemcpy2DAsync(d_sub, sub_pitch, (char *)d_img + 2 * pitch + 5 * sizeof(float), pitch,
                                4 * sizeof(float), 3, cudaMemcpyDeviceToDevice, s));
    float sub[3][4];
    cudaCheck(cudaMemcpy2DAsync(sub, 4 * sizeof(float), d_sub, sub_pitch, 4 * sizeof(float), 3,
                                cudaMemcpyDeviceToHost, s));
    cudaCheck(cudaStreamSynchronize(s));
    for (int y = 0; y < 3; y++) {
        printf("sub row %d:", y);
        for (int x = 0; x < 4; x++) {
            printf(" %.0f", sub[y][x]);
            if (sub[y][x] != back[y + 2][x + 5]) bad++;
        }
        printf("\n");
    }
    // a width larger than the pitch is an error
    cudaError_t e = cudaMemcpy2D(d_img, pitch, host, w * sizeof(float), pitch + 4, 1, cudaMemcpyHostToDevice);
    printf("cudaMemcpy2D with width > dpitch: %s\n", cudaGetErrorName(e));
    if (e == cudaSuccess) bad++;
    cudaGetLastError();

    cudaCheck(cudaStreamDestroy(s));
    cudaCheck(cudaFree(d_sub));
    cudaCheck(cudaFree(d_img));
    printf("%s\n", bad == 0 ? "PASS" : "FAIL");
    return bad == 0 ? 0 : 1;
}
