// tests/programs/argv_stdin_file.cu: a program that talks to the outside
// world. argv gives a scale factor and an output file name, stdin gives the
// numbers (one per line, '#' comments skipped); the GPU scales and sums
// them; the result goes to the output file, which is read back and printed,
// and to stdout. A missing argument is reported with usage and exit status 2.
// cudojo: args=3 result.txt
// cudojo: stdin=inputs/argv_stdin_file.in
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

__global__ void scale_sum(const long long *x, long long *y, int n, long long k, unsigned long long *sum) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = x[i] * k;
    atomicAdd(sum, (unsigned long long)y[i]);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s SCALE OUTFILE < numbers\n", argv[0]);
        return 2;
    }
    long long k = atoll(argv[1]);
    const char *out_name = argv[2];
    printf("argc = %d, scale = %lld, output file %s\n", argc, k, out_name);

    std::vector<long long> xs;
    char line[256];
    int comments = 0;
    while (fgets(line, sizeof line, stdin)) {
        if (line[0] == '#') { comments++; continue; }
        if (strspn(line, " \t\r\n") == strlen(line)) continue;
        xs.push_back(atoll(line));
    }
    int n = (int)xs.size();
    printf("read %d numbers from stdin (%d comment lines skipped)\n", n, comments);

    long long *d_x, *d_y;
    unsigned long long *d_sum, sum = 0;
    cudaCheck(cudaMalloc(&d_x, n * sizeof(long long)));
    cudaCheck(cudaMalloc(&d_y, n * sizeof(long long)));
    cudaCheck(cudaMalloc(&d_sum, sizeof sum));
    cudaCheck(cudaMemcpy(d_x, xs.data(), n * sizeof(long long), cudaMemcpyHostToDevice));
    cudaCheck(cudaMemset(d_sum, 0, sizeof sum));
    scale_sum<<<(n + 63) / 64, 64>>>(d_x, d_y, n, k, d_sum);
    cudaCheck(cudaGetLastError());
    std::vector<long long> ys(n);
    cudaCheck(cudaMemcpy(ys.data(), d_y, n * sizeof(long long), cudaMemcpyDeviceToHost));
    cudaCheck(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));

    FILE *f = fopen(out_name, "w");
    if (!f) { perror(out_name); return 1; }
    for (int i = 0; i < n; i++) fprintf(f, "%lld\n", ys[i]);
    fprintf(f, "sum %lld\n", (long long)sum);
    fclose(f);

    f = fopen(out_name, "r");
    if (!f) { perror(out_name); return 1; }
    int lines = 0;
    char last[256] = "";
    while (fgets(line, sizeof line, f)) {
        lines++;
        if (lines <= 3) printf("file line %d: %s", lines, line);
        strcpy(last, line);
    }
    fclose(f);
    printf("file has %d lines, the last: %s", lines, last);

    long long ref = 0;
    for (long long x : xs) ref += x * k;
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_y));
    cudaCheck(cudaFree(d_sum));
    bool ok = (long long)sum == ref && lines == n + 1;
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
