// tests/programs/printf_formats.cu: device printf beyond the basics, from one
// thread so the order is defined. Every integer size and base, flags (- + 0
// space #), widths and precisions, float conversions (%f %e %E %g %G %a) of
// floats (promoted to double) and doubles, infinities and a NaN made on the
// device, strings (width, precision, built in local memory, a null pointer),
// characters, %p (glibc's "(nil)" for NULL, as the H200 prints it), %%, 24
// arguments in one call, a format chosen at run time,
// and printf's return value (the number of arguments, on a GPU).
#include <cmath>
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

__global__ void formats(const float *f, const double *d, int *ret) {
    printf("ints: %d %i %u %ld %lld %llu %hd\n", -42, 42, 3000000000u, -1234567890123L, -9000000000000000000LL,
           18000000000000000000ULL, (short)-12);
    printf("bases: %o %x %X %#o %#x %#X\n", 511, 48879, 48879, 8, 255, 255);
    printf("flags: [%5d] [%-5d] [%05d] [%+d] [% d] [%+5d] [%-+6d] [%.3d] [%8.3d]\n", 42, 42, 42, 42, 42, -42, 7, 5,
           5);
    printf("floats: %f %.0f %.1f %10.4f [%-10.2f] %+f %e %E %.2e\n", f[0], f[0], f[1], f[2], f[2], f[3], f[4], f[4],
           f[5]);
    printf("g: %g %G %g %g %.3g %g %#g\n", f[0], f[4], f[5], f[6], f[2], d[0], f[0]);
    printf("doubles: %.15f %.17g %e %a\n", d[1], d[1], d[2], f[0]);
    float zero = f[7];
    float inf = 1.0f / zero, nan = zero / zero;
    printf("special: %f %f %e %g %5.1f [%8f]\n", inf, -inf, inf, nan, inf, nan);
    char word[8];
    for (int i = 0; i < 5; i++) word[i] = 'v' + i;
    word[5] = 0;
    const char *none = nullptr;
    printf("strings: [%s] [%8s] [%-8s] [%.3s] [%s] [%s]\n", "cuda", "cuda", "cuda", "emulator", word, none);
    printf("chars: %c%c%c [%3c] [%-3c]\n", 'G', 'P', 'U', 'x', 'y');
    printf("pointers: %p %p\n", (void *)0x1000, (void *)nullptr);
    printf("percent: 100%% done, %%d is literal\n");
    int n = printf("24 args: %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %.1f %.1f %s %c\n", 1, 2, 3, 4,
                   5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21.0, 22.0f, "23", '4');
    ret[0] = n;
    ret[1] = printf("no arguments\n");
    const char *fmt = f[0] > 1.0f ? "runtime format A: %d\n" : "runtime format B: %d\n";
    ret[2] = printf(fmt, 7);
    ret[3] = printf("%s %s %s\n", "three", "string", "args");
}

int main(void) {
    float hf[8] = {3.14159265f, 2.25f, -0.000123456f, 1.0f, 123456.789f, 1.0e-10f, 1.0e20f, 0.0f};
    double hd[3] = {0.1, 1.0 / 3.0, 6.02214076e23};
    float *d_f;
    double *d_d;
    int *d_r, r[4];
    cudaCheck(cudaMalloc(&d_f, sizeof hf));
    cudaCheck(cudaMalloc(&d_d, sizeof hd));
    cudaCheck(cudaMalloc(&d_r, sizeof r));
    cudaCheck(cudaMemcpy(d_f, hf, sizeof hf, cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(d_d, hd, sizeof hd, cudaMemcpyHostToDevice));
    fflush(stdout);
    formats<<<1, 1>>>(d_f, d_d, d_r);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaDeviceSynchronize());
    fflush(stdout);
    cudaCheck(cudaMemcpy(r, d_r, sizeof r, cudaMemcpyDeviceToHost));
    printf("device printf returned %d, %d, %d, %d\n", r[0], r[1], r[2], r[3]);
    cudaCheck(cudaFree(d_f));
    cudaCheck(cudaFree(d_d));
    cudaCheck(cudaFree(d_r));
    bool ok = r[0] == 24 && r[1] == 0 && r[2] == 1 && r[3] == 3;
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
