/* tests/emurt/programs/pitched_overflow.c: pitched calls whose
 * pitch * rows does not fit a size_t (built with cc, no nvcc needed): the
 * wrapped span passed validation and the rows were written far outside
 * the allocation (a crash, or another allocation overwritten). Each must
 * fail with a CUDA error. */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>

int main(void) {
    void *a = NULL, *b = NULL;
    if (cudaMalloc(&a, 4096) || cudaMalloc(&b, 4096)) return 2;
    size_t huge = (SIZE_MAX >> 1) + 1;          /* 2 * huge wraps to 0 */
    printf("memset2D: %s\n", cudaGetErrorName(cudaMemset2D(a, huge, 0, 1, 3)));
    printf("memcpy2D: %s\n", cudaGetErrorName(cudaMemcpy2D(a, huge, b, 1, 1, 3, cudaMemcpyDeviceToDevice)));
    printf("memcpy2DAsync: %s\n",
           cudaGetErrorName(cudaMemcpy2DAsync(a, 1, b, huge, 1, 3, cudaMemcpyDeviceToDevice, 0)));
    struct cudaPitchedPtr pp = {a, 512, 1, huge / 256};  /* a slice of 512 * huge / 256 bytes wraps */
    printf("memset3D: %s\n", cudaGetErrorName(cudaMemset3D(pp, 0, (struct cudaExtent){1, 1, 5})));
    struct cudaPitchedPtr out;
    printf("malloc3D: %s\n",
           cudaGetErrorName(cudaMalloc3D(&out, (struct cudaExtent){1 << 20, (size_t)1 << 30, (size_t)1 << 30})));
    size_t pitch;
    void *c = NULL;
    printf("mallocPitch: %s\n", cudaGetErrorName(cudaMallocPitch(&c, &pitch, 1 << 20, SIZE_MAX / 4096)));
    cudaGetLastError();
    printf("after: %s\n", cudaGetErrorName(cudaMemset2D(a, 512, 0, 512, 8)));
    return 0;
}
