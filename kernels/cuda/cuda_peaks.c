/* kernels/cuda/cuda_peaks.c: measuring the device's copy bandwidth and FMA
 * peaks (see cuda_peaks.h), and the cache that makes it once per device and
 * driver.
 *
 * The kernels are compiled with NVRTC for the device's own architecture
 * (a cubin, no JIT) and launched through cudart. Every method is validated
 * before it is timed (the copy's destination must equal its source), warmed
 * up, then timed with events on the legacy stream: the copy kernel's
 * configurations with a few repetitions each, the best one and cudaMemcpy
 * with `reps` each, medians compared. */
#include "kernels/cuda/cuda_peaks.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/fs.h"
#include "base/i18n.h"
#include "base/xalloc.h"
#include "kernels/compile.h"
#include "kernels/gpu_lock.h"

#define PEAKS_BYTES_DEFAULT ((size_t)1 << 31)  /* 2^29 floats */
#define PEAKS_BYTES_MIN ((size_t)64 << 20)
#define PEAKS_REPS_DEFAULT 31
#define PEAKS_PROBE_REPS 5                     /* per copy-kernel configuration */
#define PEAKS_WARMUP 20
#define FMA_ITERS 32768                        /* per chain per thread; 8 chains */
#define FMA_CHAINS 8

static const char PEAKS_SRC[] =
    "/* cudojo's peak kernels (kernels/cuda/cuda_peaks.c). */\n"
    "template <int U> __device__ __forceinline__ void copy_body(const float4 *__restrict__ s,\n"
    "                                                           float4 *__restrict__ d, unsigned long long n) {\n"
    "    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;\n"
    "    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    for (; i + (U - 1) * stride < n; i += U * stride) {\n"
    "        float4 v[U];\n"
    "#pragma unroll\n"
    "        for (int u = 0; u < U; u++) v[u] = s[i + u * stride];\n"
    "#pragma unroll\n"
    "        for (int u = 0; u < U; u++) d[i + u * stride] = v[u];\n"
    "    }\n"
    "    for (; i < n; i += stride) d[i] = s[i];\n"
    "}\n"
    "extern \"C\" __global__ void peak_copy1(const float4 *__restrict__ s, float4 *__restrict__ d,\n"
    "                                        unsigned long long n) { copy_body<1>(s, d, n); }\n"
    "extern \"C\" __global__ void peak_copy2(const float4 *__restrict__ s, float4 *__restrict__ d,\n"
    "                                        unsigned long long n) { copy_body<2>(s, d, n); }\n"
    "extern \"C\" __global__ void peak_copy4(const float4 *__restrict__ s, float4 *__restrict__ d,\n"
    "                                        unsigned long long n) { copy_body<4>(s, d, n); }\n"
    "__device__ __forceinline__ float fma_rn(float a, float b, float c) { return __fmaf_rn(a, b, c); }\n"
    "__device__ __forceinline__ double fma_rn(double a, double b, double c) { return __fma_rn(a, b, c); }\n"
    "/* 8 independent FMA chains per thread; m and c are parameters, so nothing folds. */\n"
    "template <typename T> __device__ __forceinline__ void fma_body(T *out, T m, T c, int iters) {\n"
    "    T a0 = (T)threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5,\n"
    "      a6 = a0 + 6, a7 = a0 + 7;\n"
    "#pragma unroll 16\n"
    "    for (int i = 0; i < iters; i++) {\n"
    "        a0 = fma_rn(a0, m, c); a1 = fma_rn(a1, m, c); a2 = fma_rn(a2, m, c); a3 = fma_rn(a3, m, c);\n"
    "        a4 = fma_rn(a4, m, c); a5 = fma_rn(a5, m, c); a6 = fma_rn(a6, m, c); a7 = fma_rn(a7, m, c);\n"
    "    }\n"
    "    out[(unsigned long long)blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;\n"
    "}\n"
    "extern \"C\" __global__ void peak_fma32(float *out, float m, float c, int iters) {\n"
    "    fma_body<float>(out, m, c, iters);\n"
    "}\n"
    "extern \"C\" __global__ void peak_fma64(double *out, double m, double c, int iters) {\n"
    "    fma_body<double>(out, m, c, iters);\n"
    "}\n";

const char *cuda_peaks_source(void) { return PEAKS_SRC; }

typedef struct Bench {
    int device;
    struct cudaDeviceProp prop;
    cudaLibrary_t lib;
    cudaEvent_t e0, e1;
    void *src, *dst;
    size_t bytes;
} Bench;

static Diag *cuda_fail(cudaError_t e, const char *what) {
    Diag *d = diag_error("gpu-peaks", "measuring the device's peaks: %s: %s", what, cudaGetErrorString(e));
    (void)cudaGetLastError();
    return d;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v); *spread = (max - min) / median. */
static double median_of(double *v, int n, double *spread) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    if (spread) *spread = med > 0 ? (v[n - 1] - v[0]) / med : 0;
    return med;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static Diag *load_kernels(Bench *B, const CudaPeaksOptions *o) {
    CompileOptions co = {0};
    co.virtual_arch = B->prop.major * 10 + B->prop.minor;
    co.cubin_arch = co.virtual_arch;
    co.opt_level = 3;
    co.cache_dir = o->compile_cache_dir;
    CompiledModule *m = NULL;
    Diag *d = compile_cuda("cudojo-peaks.cu", PEAKS_SRC, &co, &m);
    if (d) return d;
    cudaError_t e = cudaErrorInvalidValue;
    if (m->cubin) e = cudaLibraryLoadData(&B->lib, m->cubin, NULL, NULL, 0, NULL, NULL, 0);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        e = cudaLibraryLoadData(&B->lib, m->ptx, NULL, NULL, 0, NULL, NULL, 0);
    }
    compiled_module_free(&m);
    return e == cudaSuccess ? NULL : cuda_fail(e, "loading the peak kernels");
}

static Diag *kernel_of(Bench *B, const char *name, cudaKernel_t *k) {
    cudaError_t e = cudaLibraryGetKernel(k, B->lib, name);
    return e == cudaSuccess ? NULL : cuda_fail(e, name);
}

/* Times one launch of k (or a cudaMemcpy when k is NULL) in ms. */
static Diag *time_once(Bench *B, cudaKernel_t k, unsigned grid, unsigned block, void **args, double *ms) {
    cudaError_t e = cudaEventRecord(B->e0, 0);
    if (e == cudaSuccess) {
        if (k) e = cudaLaunchKernel((const void *)k, (dim3){grid, 1, 1}, (dim3){block, 1, 1}, args, 0, 0);
        else e = cudaMemcpyAsync(B->dst, B->src, B->bytes, cudaMemcpyDeviceToDevice, 0);
    }
    if (e == cudaSuccess) e = cudaEventRecord(B->e1, 0);
    if (e == cudaSuccess) e = cudaEventSynchronize(B->e1);
    float t = 0;
    if (e == cudaSuccess) e = cudaEventElapsedTime(&t, B->e0, B->e1);
    if (e != cudaSuccess) return cuda_fail(e, k ? "a timed kernel" : "a timed cudaMemcpy");
    *ms = t;
    return NULL;
}

/* Median GB/s (read + written) of n timed copies; one untimed first. */
static Diag *copy_gbs(Bench *B, cudaKernel_t k, unsigned grid, unsigned block, int n, double *gbs, double *spread) {
    unsigned long long n4 = B->bytes / 16;
    void *args[3] = {&B->src, &B->dst, &n4};
    double *ms = xcalloc((size_t)n, sizeof *ms), warm = 0;
    Diag *d = time_once(B, k, grid, block, args, &warm);
    for (int r = 0; r < n && !d; r++) d = time_once(B, k, grid, block, args, &ms[r]);
    if (!d) {
        double med = median_of(ms, n, spread);
        *gbs = med > 0 ? 2.0 * (double)B->bytes / (med * 1e-3) / 1e9 : -1;
    }
    free(ms);
    return d;
}

/* The copy really copies: the destination's first and last MiB equal the source's. */
static Diag *copy_validate(Bench *B, const char *what) {
    size_t chunk = (size_t)1 << 20;
    unsigned char *a = xmalloc(chunk), *b = xmalloc(chunk);
    Diag *d = NULL;
    for (int end = 0; end < 2 && !d; end++) {
        size_t off = end ? B->bytes - chunk : 0;
        cudaError_t e = cudaMemcpy(a, (char *)B->src + off, chunk, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess) e = cudaMemcpy(b, (char *)B->dst + off, chunk, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) d = cuda_fail(e, "reading back a copy");
        else if (memcmp(a, b, chunk)) d = diag_error("gpu-peaks", "the %s did not copy its source: not timed", what);
    }
    free(a);
    free(b);
    return d;
}

static Diag *clear_dst(Bench *B) {
    cudaError_t e = cudaMemset(B->dst, 0, B->bytes);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    return e == cudaSuccess ? NULL : cuda_fail(e, "cudaMemset");
}

/* The copy kernel's best configuration, then cudaMemcpy; the better wins. */
static Diag *measure_copy(Bench *B, int reps, CudaPeaks *out) {
    static const char *const names[] = {"peak_copy1", "peak_copy2", "peak_copy4"};
    static const int unroll[] = {1, 2, 4};
    static const unsigned blocks[] = {256, 512, 1024};
    cudaKernel_t ks[3];
    Diag *d = NULL;
    for (int i = 0; i < 3 && !d; i++) d = kernel_of(B, names[i], &ks[i]);
    if (!d) d = clear_dst(B);
    /* warm the clocks and memory up before anything is timed */
    for (int w = 0; w < PEAKS_WARMUP && !d; w++) {
        cudaError_t e = cudaMemcpy(B->dst, B->src, B->bytes, cudaMemcpyDeviceToDevice);
        if (e != cudaSuccess) d = cuda_fail(e, "cudaMemcpy");
    }
    if (!d) d = copy_validate(B, "cudaMemcpy");
    int per_sm = B->prop.maxThreadsPerMultiProcessor > 0 ? B->prop.maxThreadsPerMultiProcessor : 2048;
    double best = -1;
    int best_k = 0, best_waves = 1;
    unsigned best_block = 256, best_grid = 1;
    for (int ki = 0; ki < 3 && !d; ki++)
        for (int bi = 0; bi < 3 && !d; bi++)
            for (int waves = 1; waves <= 2 && !d; waves++) {
                unsigned bps = (unsigned)per_sm / blocks[bi];
                if (!bps) continue;
                unsigned grid = (unsigned)B->prop.multiProcessorCount * bps * (unsigned)waves;
                double g = -1, sp = 0;
                d = copy_gbs(B, ks[ki], grid, blocks[bi], PEAKS_PROBE_REPS, &g, &sp);
                if (!d && g > best) {
                    best = g;
                    best_k = ki, best_block = blocks[bi], best_grid = grid, best_waves = waves;
                }
            }
    if (!d) d = clear_dst(B);
    if (!d) d = copy_gbs(B, ks[best_k], best_grid, best_block, reps, &out->kernel_gbs, &out->kernel_spread);
    if (!d) d = copy_validate(B, "copy kernel");
    if (!d) d = copy_gbs(B, NULL, 0, 0, reps, &out->memcpy_gbs, &out->memcpy_spread);
    if (d) return d;
    /* English in the cache; doctor reads the numbers back (cmd_doctor.c). */
    snprintf(out->kernel_config, sizeof out->kernel_config, "%u threads x %u blocks/SM, %d float4 per thread per step",
             best_block, (unsigned)per_sm / best_block * (unsigned)best_waves, unroll[best_k]);
    bool kernel_wins = out->kernel_gbs >= out->memcpy_gbs;
    out->copy_gbs = kernel_wins ? out->kernel_gbs : out->memcpy_gbs;
    snprintf(out->copy_from, sizeof out->copy_from, "%s", kernel_wins ? N_("copy kernel") : "cudaMemcpy");
    return NULL;
}

/* GFLOP/s of one FMA kernel: median of 5 launches after one warm-up. */
static Diag *measure_fma(Bench *B, const char *name, bool f64, double *gflops) {
    cudaKernel_t k;
    Diag *d = kernel_of(B, name, &k);
    if (d) return d;
    unsigned block = 256;
    int per_sm = B->prop.maxThreadsPerMultiProcessor > 0 ? B->prop.maxThreadsPerMultiProcessor : 2048;
    unsigned grid = (unsigned)B->prop.multiProcessorCount * ((unsigned)per_sm / block) * 4;
    size_t threads = (size_t)grid * block;
    void *out = NULL;
    cudaError_t e = cudaMalloc(&out, threads * (f64 ? sizeof(double) : sizeof(float)));
    if (e != cudaSuccess) return cuda_fail(e, "cudaMalloc");
    float m32 = 0.999999f, c32 = 1e-7f;
    double m64 = 0.999999999, c64 = 1e-12;
    int iters = f64 ? FMA_ITERS / 2 : FMA_ITERS;
    void *args[4] = {&out, f64 ? (void *)&m64 : (void *)&m32, f64 ? (void *)&c64 : (void *)&c32, &iters};
    double ms[5], warm = 0;
    d = time_once(B, k, grid, block, args, &warm);
    for (int r = 0; r < 5 && !d; r++) d = time_once(B, k, grid, block, args, &ms[r]);
    if (!d) {
        double med = median_of(ms, 5, NULL);
        double flops = 2.0 * FMA_CHAINS * (double)iters * (double)threads;
        *gflops = med > 0 ? flops / (med * 1e-3) / 1e9 : -1;
    }
    cudaFree(out);
    return d;
}

static void bench_fini(Bench *B) {
    if (B->src) cudaFree(B->src);
    if (B->dst) cudaFree(B->dst);
    if (B->e0) cudaEventDestroy(B->e0);
    if (B->e1) cudaEventDestroy(B->e1);
    if (B->lib) cudaLibraryUnload(B->lib);
    (void)cudaGetLastError();
}

/* Two buffers of o->bytes (halved while they do not fit in a quarter of the free memory). */
static Diag *bench_alloc(Bench *B, const CudaPeaksOptions *o) {
    size_t want = o->bytes ? o->bytes : PEAKS_BYTES_DEFAULT, free_b = 0, total = 0;
    if (cudaMemGetInfo(&free_b, &total) != cudaSuccess) (void)cudaGetLastError();
    if (!o->bytes)
        while (want > PEAKS_BYTES_MIN && free_b && want > free_b / 4) want /= 2;
    want &= ~(size_t)((1 << 20) - 1);
    if (want < ((size_t)2 << 20)) want = (size_t)2 << 20;
    cudaError_t e = cudaMalloc(&B->src, want);
    if (e == cudaSuccess) e = cudaMalloc(&B->dst, want);
    if (e == cudaSuccess) e = cudaMemset(B->src, 0x3c, want);
    if (e != cudaSuccess) return cuda_fail(e, "allocating the copy's buffers");
    B->bytes = want;
    return NULL;
}

Diag *cuda_peaks_measure(int device, const CudaPeaksOptions *opts, CudaPeaks *out) {
    CudaPeaksOptions o = opts ? *opts : (CudaPeaksOptions){0};
    memset(out, 0, sizeof *out);
    out->copy_gbs = out->kernel_gbs = out->memcpy_gbs = out->fp32_gflops = out->fp64_gflops = -1;
    double t0 = now_ms();
    Bench B = {0};
    B.device = device;
    cudaError_t e = cudaGetDeviceProperties(&B.prop, device);
    if (e != cudaSuccess) return cuda_fail(e, "cudaGetDeviceProperties");
    snprintf(out->device, sizeof out->device, "%s", B.prop.name);
    Diag *d = cuda_peaks_fingerprint(device, out->fingerprint, sizeof out->fingerprint);
    if (!d && ((e = cudaEventCreate(&B.e0)) != cudaSuccess || (e = cudaEventCreate(&B.e1)) != cudaSuccess))
        d = cuda_fail(e, "cudaEventCreate");
    if (!d) d = load_kernels(&B, &o);
    if (!d) d = bench_alloc(&B, &o);
    out->reps = o.reps > 0 ? o.reps : PEAKS_REPS_DEFAULT;
    if (!d) d = measure_copy(&B, out->reps, out);
    if (!d && !o.skip_flops) d = measure_fma(&B, "peak_fma32", false, &out->fp32_gflops);
    if (!d && !o.skip_flops) d = measure_fma(&B, "peak_fma64", true, &out->fp64_gflops);
    out->bytes = B.bytes;
    bench_fini(&B);
    out->measured_at = (long long)time(NULL);
    out->measure_ms = now_ms() - t0;
    return d;
}

/* The kernel driver's own version ("580.65.06") from /proc, "" when absent. */
static void driver_release(char *buf, size_t len) {
    buf[0] = 0;
    char *text = NULL;
    Diag *d = fs_read_file_max("/proc/driver/nvidia/version", 4096, &text, NULL);
    if (!d && text) {
        const char *p = strstr(text, "Kernel Module");
        if (p) {
            p += strlen("Kernel Module");
            while (*p == ' ' || *p == '\t') p++;
            size_t n = strcspn(p, " \t\n");
            snprintf(buf, len, "%.*s", (int)(n < 64 ? n : 64), p);
        }
    }
    diag_free(&d);
    free(text);
}

static void uuid_text(const struct cudaDeviceProp *p, char out[48]) {
    const unsigned char *u = (const unsigned char *)p->uuid.bytes;
    snprintf(out, 48, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
             u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

Diag *cuda_peaks_fingerprint(int device, char *buf, size_t len) {
    struct cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, device);
    if (e != cudaSuccess) return cuda_fail(e, "cudaGetDeviceProperties");
    int drv = 0, rt = 0, sm_khz = 0, mem_khz = 0;
    if (cudaDriverGetVersion(&drv) != cudaSuccess) drv = 0;
    if (cudaRuntimeGetVersion(&rt) != cudaSuccess) rt = 0;
    if (cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, device) != cudaSuccess) sm_khz = 0;
    if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess) mem_khz = 0;
    (void)cudaGetLastError();
    char uuid[48], release[80];
    uuid_text(&p, uuid);
    driver_release(release, sizeof release);
    snprintf(buf, len, "%s|%s|driver %s (CUDA %d)|runtime %d|sm %d kHz|memory %d kHz x %d bits|ecc %d|method %d", p.name,
             uuid, release[0] ? release : "?", drv, rt, sm_khz, mem_khz, p.memoryBusWidth, p.ECCEnabled,
             CUDA_PEAKS_METHOD);
    return NULL;
}

char *cuda_peaks_cache_path(int device, const char *cache_dir) {
    struct cudaDeviceProp p;
    char uuid[48] = "GPU-unknown";
    if (cudaGetDeviceProperties(&p, device) == cudaSuccess) uuid_text(&p, uuid);
    else (void)cudaGetLastError();
    char *base = cache_dir ? xstrdup(cache_dir) : xdg_cache_dir();
    char *name = xasprintf("peaks/gpu-%s.json", uuid + 4);
    char *path = path_join(base, name);
    free(base);
    free(name);
    return path;
}

json_t *cuda_peaks_to_json(const CudaPeaks *p) {
    return json_pack("{s:i, s:s, s:s, s:f, s:s, s:f, s:f, s:f, s:f, s:s, s:f, s:f, s:I, s:i, s:I, s:f, s:b}", "method",
                     CUDA_PEAKS_METHOD, "fingerprint", p->fingerprint, "device", p->device, "copy_gbs", p->copy_gbs,
                     "copy_from", p->copy_from, "kernel_gbs", p->kernel_gbs, "memcpy_gbs", p->memcpy_gbs,
                     "kernel_spread", p->kernel_spread, "memcpy_spread", p->memcpy_spread, "kernel_config",
                     p->kernel_config, "fp32_gflops", p->fp32_gflops, "fp64_gflops", p->fp64_gflops, "bytes",
                     (json_int_t)p->bytes, "reps", p->reps, "measured_at", (json_int_t)p->measured_at, "measure_ms",
                     p->measure_ms, "cached", p->cached);
}

static double num(const json_t *j, const char *k) {
    const json_t *v = json_object_get(j, k);
    return json_is_number(v) ? json_number_value(v) : -1;
}

static void str(const json_t *j, const char *k, char *buf, size_t len) {
    const char *v = json_string_value(json_object_get(j, k));
    snprintf(buf, len, "%s", v ? v : "");
}

bool cuda_peaks_from_json(const json_t *j, CudaPeaks *out) {
    memset(out, 0, sizeof *out);
    if (!json_is_object(j) || num(j, "method") != CUDA_PEAKS_METHOD || num(j, "copy_gbs") <= 0) return false;
    str(j, "fingerprint", out->fingerprint, sizeof out->fingerprint);
    str(j, "device", out->device, sizeof out->device);
    str(j, "copy_from", out->copy_from, sizeof out->copy_from);
    str(j, "kernel_config", out->kernel_config, sizeof out->kernel_config);
    out->copy_gbs = num(j, "copy_gbs");
    out->kernel_gbs = num(j, "kernel_gbs");
    out->memcpy_gbs = num(j, "memcpy_gbs");
    out->kernel_spread = num(j, "kernel_spread");
    out->memcpy_spread = num(j, "memcpy_spread");
    out->fp32_gflops = num(j, "fp32_gflops");
    out->fp64_gflops = num(j, "fp64_gflops");
    out->bytes = num(j, "bytes") > 0 ? (size_t)num(j, "bytes") : 0;
    out->reps = (int)num(j, "reps");
    out->measured_at = (long long)num(j, "measured_at");
    out->measure_ms = num(j, "measure_ms");
    return out->fingerprint[0] != 0;
}

Diag *cuda_peaks_get(int device, const char *cache_dir, CudaPeaks *out) {
    char fp[512];
    Diag *d = cuda_peaks_fingerprint(device, fp, sizeof fp);
    if (d) return d;
    char *path = cuda_peaks_cache_path(device, cache_dir);
    json_t *j = json_load_file(path, 0, NULL);
    bool hit = j && cuda_peaks_from_json(j, out) && !strcmp(out->fingerprint, fp);
    if (j) json_decref(j);
    if (hit) {
        out->cached = true;
        free(path);
        return NULL;
    }
    /* Nothing else may use this GPU while it is measured (graders side by side). */
    GpuLock lock = GPU_LOCK_INIT;
    gpu_lock_acquire(&lock);
    d = cuda_peaks_measure(device, NULL, out);
    gpu_lock_release(&lock);
    if (!d) {
        json_t *doc = cuda_peaks_to_json(out);
        json_object_set_new(doc, "cached", json_true());     /* as a later reader sees it */
        char *text = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
        char *dir = path_dirname(path);
        Diag *w = fs_mkdir_p(dir);
        if (!w) w = fs_write_file_atomic(path, text, strlen(text));
        diag_free(&w);     /* an unwritable cache costs a measurement next time, nothing else */
        free(dir);
        free(text);
        json_decref(doc);
    }
    free(path);
    return d;
}
