// tests/programs/printf_star.cu: what CUDA's device printf does with a width
// taken from an argument (`%*d`, `%-*s`, a negative width that
// left-justifies), with `%.*f` (not in the device's grammar), with every
// length modifier, and what it returns. The device packs the arguments of
// the specifications it knows (NVIDIA's grammar: flags, width digits or `*`,
// precision digits, sizes h l ll, types cdiouxXpeEfgGaAs), the host formats
// them; one it does not know takes no argument. printf returns the number
// of arguments the device kept (each `*` one of them). Measured on the H200
// (session 8): `.*`, hh, z, j, t are not kept by the device; a mix of them
// with supported ones shifts the arguments (garbage), so each line keeps
// them apart. The host knows hh and reads its argument past the last one
// kept, from the record's copy of the format (session 9: `%hhd %hhu` with
// nothing kept printed 110 104, 'n' and 'h' of "not on the device"); z, j,
// t are printed as written, and so is a `.*` without a `*` width before it,
// even after a kept argument (session 9: `after one: 7 [%.*f]`; session 8:
// `%*.*f` took its width and precision). One thread, so the order is
// defined.
#include <cstddef>
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

__global__ void star(int w, int p, int *ret, double x) {
    ret[0] = printf("width: [%*d] [%-*d] [%*s] [%-*s] [%*d]\n", w, 42, w, 42, w, "ab", w, "ab", -w, 7);
    ret[1] = printf("precision: [%.*f] [%.*e] [%.*s] [%.*d] [%.*f]\n", p, 3.14159, p, 31415.9, p, "cudojo", p + 2, 5,
                    -p, 1.5);
    ret[2] = printf("lengths: %hd %hu %ld %lu %lld %llx\n", 70000, 70000, -1234567890123L, 1234567890123UL,
                    -9000000000000LL, 0xdeadbeefcafeULL);
    ret[3] = printf("not on the device: %hhd %hhu %zu %zd %jd %td\n", -5, 300, (size_t)5000000000ULL, (ptrdiff_t)-3,
                    (long long)-9, (ptrdiff_t)12);
    ret[4] = printf("after one: %d [%.*f]\n", 7, p, x);
}

int main(void) {
    int *d_r, r[5];
    cudaCheck(cudaMalloc(&d_r, sizeof r));
    fflush(stdout);
    star<<<1, 1>>>(6, 2, d_r, 1.5);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaDeviceSynchronize());
    fflush(stdout);
    cudaCheck(cudaMemcpy(r, d_r, sizeof r, cudaMemcpyDeviceToHost));
    printf("device printf returned %d, %d, %d, %d, %d\n", r[0], r[1], r[2], r[3], r[4]);
    cudaCheck(cudaFree(d_r));
    bool ok = r[0] == 10 && r[1] == 0 && r[2] == 6 && r[3] == 0 && r[4] == 1;
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
