// managed_pages.cu: managed memory's page model (kernels/emurt/emurt_um.c).
// The host fills 4 MiB of managed memory, a kernel doubles it (64 GPU page
// faults of 64 KiB), the host sums it (64 CPU page faults), a prefetch to
// the GPU and back moves it without faults around a second kernel, and the
// host sums again. With an argument it then writes through a null pointer:
// the managed-page SIGSEGV handler must hand that crash on to progwire's.
#include <cstdio>

__global__ void twice(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}

int main(int argc, char **argv)
{
    const int n = 1 << 20;
    float *x;
    cudaMallocManaged(&x, n * sizeof(float));
    for (int i = 0; i < n; i++) x[i] = 1.0f;
    twice<<<n / 256, 256>>>(x, n);
    cudaDeviceSynchronize();
    double s1 = 0;
    for (int i = 0; i < n; i++) s1 += x[i];
    cudaMemLocation gpu = {cudaMemLocationTypeDevice, 0}, cpu = {cudaMemLocationTypeHost, 0};
    cudaMemPrefetchAsync(x, n * sizeof(float), gpu, 0, 0);
    twice<<<n / 256, 256>>>(x, n);
    cudaMemPrefetchAsync(x, n * sizeof(float), cpu, 0, 0);
    cudaDeviceSynchronize();
    double s2 = 0;
    for (int i = 0; i < n; i++) s2 += x[i];
    printf("sums %.0f %.0f\n", s1, s2);
    fflush(stdout);
    if (argc > 1) *(volatile int *)0 = 1;
    cudaFree(x);
    return 0;
}
