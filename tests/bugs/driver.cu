// tests/bugs/driver.cu: runs one bug kernel on a real GPU, for
// compute-sanitizer (tools/sanitizer-compare.sh runs it under memcheck,
// racecheck, initcheck and synccheck).
//
//   nvcc -O2 -o build/bugs-driver tests/bugs/driver.cu -lnvrtc -lcuda
//   compute-sanitizer --tool memcheck build/bugs-driver tests/bugs/oob_off_by_one.cu
//
// It reads the kernel file, takes the launch from its `// LAUNCH: grid=..
// block=.. n=.. [shared=..] [in=..]` comment, compiles it with NVRTC
// (-lineinfo, so the sanitizer can name lines), allocates `in` and `out` at
// exactly n floats (so every byte past them is out of bounds), fills `in` the
// way tests/emu/test_bugs.c does, launches `<file stem>(in, out, n)` and
// synchronises. Exit status: 0 if the kernel completed, 1 if CUDA reported an
// error, 2 for a usage or setup problem.
#include <cuda.h>
#include <nvrtc.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_CU(call)                                                                  \
    do {                                                                                \
        CUresult rc_ = (call);                                                          \
        if (rc_ != CUDA_SUCCESS) {                                                      \
            const char *s_ = NULL;                                                      \
            cuGetErrorString(rc_, &s_);                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, s_ ? s_ : "?"); \
            return 1;                                                                   \
        }                                                                               \
    } while (0)

struct Launch {
    unsigned grid[3], block[3];
    int n;
    unsigned shared;
    char in_fill[16];
};

static void parse_dim(const char *s, unsigned d[3]) {
    d[0] = d[1] = d[2] = 1;
    sscanf(s, "%ux%ux%u", &d[0], &d[1], &d[2]);
}

static int parse_launch(const char *text, Launch *l) {
    memset(l, 0, sizeof *l);
    const char *p = strstr(text, "// LAUNCH:");
    if (!p) return -1;
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    char *spec = (char *)malloc(len + 1);
    memcpy(spec, p + 10, len - 10);
    spec[len - 10] = 0;
    for (char *tok = strtok(spec, " \t"); tok; tok = strtok(NULL, " \t")) {
        if (!strncmp(tok, "grid=", 5)) parse_dim(tok + 5, l->grid);
        else if (!strncmp(tok, "block=", 6)) parse_dim(tok + 6, l->block);
        else if (!strncmp(tok, "n=", 2)) l->n = atoi(tok + 2);
        else if (!strncmp(tok, "shared=", 7)) l->shared = (unsigned)atoi(tok + 7);
        else if (!strncmp(tok, "in=", 3)) snprintf(l->in_fill, sizeof l->in_fill, "%s", tok + 3);
    }
    free(spec);
    return (l->n > 0 && l->grid[0] && l->block[0]) ? 0 : -1;
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = (char *)malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    fclose(f);
    return s;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s tests/bugs/KERNEL.cu\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    char *src = read_file(path);
    if (!src) {
        fprintf(stderr, "cannot read %s\n", path);
        return 2;
    }
    Launch l;
    if (parse_launch(src, &l)) {
        fprintf(stderr, "%s: no complete // LAUNCH: comment\n", path);
        return 2;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(strlen(base) - 3), base);

    nvrtcProgram prog;
    nvrtcCreateProgram(&prog, src, base, 0, NULL, NULL);
    const char *opts[] = {"-arch=compute_80", "-lineinfo"};
    nvrtcResult nr = nvrtcCompileProgram(prog, 2, opts);
    size_t log_size = 0;
    nvrtcGetProgramLogSize(prog, &log_size);
    if (log_size > 1) {
        char *log = (char *)malloc(log_size);
        nvrtcGetProgramLog(prog, log);
        fprintf(stderr, "%s", log);
        free(log);
    }
    if (nr != NVRTC_SUCCESS) return 2;
    size_t ptx_size = 0;
    nvrtcGetPTXSize(prog, &ptx_size);
    char *ptx = (char *)malloc(ptx_size);
    nvrtcGetPTX(prog, ptx);
    nvrtcDestroyProgram(&prog);

    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CHECK_CU(cuInit(0));
    CHECK_CU(cuDeviceGet(&dev, 0));
    CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK_CU(cuCtxSetCurrent(ctx));
    CHECK_CU(cuModuleLoadData(&mod, ptx));
    CHECK_CU(cuModuleGetFunction(&fn, mod, name));

    size_t bytes = (size_t)l.n * sizeof(float);
    float *host = (float *)malloc(bytes);
    for (int i = 0; i < l.n; i++) {
        if (!strcmp(l.in_fill, "unit")) host[i] = l.n > 1 ? (float)i / (float)(l.n - 1) : 0.0f;
        else if (!strcmp(l.in_fill, "signed")) host[i] = i == l.n / 2 ? -1.0f : (float)i;
        else host[i] = (float)(i % 97);
    }
    CUdeviceptr din, dout;
    CHECK_CU(cuMemAlloc(&din, bytes));
    CHECK_CU(cuMemAlloc(&dout, bytes));
    CHECK_CU(cuMemcpyHtoD(din, host, bytes));
    CHECK_CU(cuMemsetD8(dout, 0, bytes));
    int n = l.n;
    void *args[] = {&din, &dout, &n};
    CHECK_CU(cuLaunchKernel(fn, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2], l.shared, 0,
                            args, NULL));
    CHECK_CU(cuCtxSynchronize());
    CHECK_CU(cuMemcpyDtoH(host, dout, bytes));
    printf("%s: completed\n", name);
    cuMemFree(din);
    cuMemFree(dout);
    cuModuleUnload(mod);
    cuDevicePrimaryCtxRelease(dev);
    free(host);
    free(ptx);
    free(src);
    return 0;
}
