/* tests/kernels/test_inject.c: the CUPTI injection library
 * (kernels/cuda/inject.c, inject_trace.c, inject_call.c, inject_activity.c).
 *
 * Without a GPU: the built libcudojo_inject.so exports InitializeInjection
 * and nothing else, and calling it with no driver sends a "hello" and leaves
 * the program alive; the Injector, fed hand-made CUPTI callback data and
 * activity records, writes the call, kernel and timeline records a lesson
 * reads (stream numbers in creation order, error names, <<<>>> launches,
 * kernels demangled, host waits on the host row, overlap kept).
 * With CUDOJO_TEST_GPU=1 (make test-gpu): a real nvcc program runs under
 * CUDA_INJECTION64_PATH and its records are checked; skipped otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <generated_cuda_runtime_api_meta.h>

#include "base/xalloc.h"
#include "kernels/cuda/inject.h"
#include "kernels/progwire.h"
#include "kernels/timeline.h"

/* ---- helpers ---- */

#define assert_found(p, why)                                                                                  \
    do {                                                                                                      \
        if (!(p)) fail_msg("%s is missing; got: %s", #p, (why));                                             \
    } while (0)

/* <build>/inject/libcudojo_inject.so, found from this binary (<build>/tests/kernels/). */
static char *inject_path(void) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    assert_true(n > 0);
    exe[n] = 0;
    for (int i = 0; i < 3; i++) *strrchr(exe, '/') = 0;
    return xasprintf("%s/inject/libcudojo_inject.so", exe);
}

/* Every JSON line of `text`, in order. */
static json_t *parse_lines(const char *text) {
    json_t *out = json_array();
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        json_t *j = json_loadb(p, len, 0, NULL);
        if (j) json_array_append_new(out, j);
        p += len + (nl ? 1 : 0);
    }
    return out;
}

static char *read_all(int fd) {
    size_t cap = 1 << 16, len = 0;
    char *buf = xmalloc(cap);
    ssize_t r;
    while ((r = read(fd, buf + len, cap - len - 1)) > 0) {
        len += (size_t)r;
        if (cap - len < 1024) buf = xrealloc(buf, cap *= 2);
    }
    buf[len] = 0;
    return buf;
}

/* The nth (from 1) record of `type` whose "fn" is `fn` (any when NULL). */
static json_t *record(json_t *recs, const char *type, const char *fn, int nth) {
    size_t i;
    json_t *r;
    json_array_foreach(recs, i, r) {
        if (strcmp(json_string_value(json_object_get(r, "type")), type)) continue;
        const char *f = json_string_value(json_object_get(r, "fn"));
        if (fn && (!f || strcmp(f, fn))) continue;
        if (--nth == 0) return r;
    }
    return NULL;
}

static const char *str(json_t *o, const char *key) {
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static json_int_t num(json_t *o, const char *key) {
    return json_integer_value(json_object_get(o, key));
}

/* ---- an Injector whose records land in a JSON array ---- */

typedef struct Fake {
    json_t *recs;
    const void *known_stream;       /* stream_id answers 500 for this handle */
} Fake;

static void fake_call(void *user, const char *fn, const char *args, int stream, int rc, const char *error,
                      double t_us) {
    Fake *f = user;
    json_array_append_new(f->recs, json_pack("{sssssssisisssf}", "type", "call", "fn", fn, "args", args, "stream",
                                             stream, "rc", rc, "error", error, "t_us", t_us));
}

static void fake_send(void *user, const char *type, json_t *fields) {
    Fake *f = user;
    json_object_set_new(fields, "type", json_string(type));
    json_array_append_new(f->recs, fields);
}

static void fake_hello(void *user, const char *device) {
    Fake *f = user;
    json_array_append_new(f->recs, json_pack("{ssss}", "type", "hello", "device", device));
}

static bool fake_stream_id(void *user, CUcontext ctx, const void *stream, uint64_t *key) {
    Fake *f = user;
    (void)ctx;
    if (!stream) return *key = 7, true;   /* the legacy stream (context id 0) */
    if (stream == f->known_stream) return *key = 500, true;
    return false;
}

static bool fake_device_name(void *user, CUcontext ctx, char *buf, size_t len) {
    (void)user, (void)ctx;
    snprintf(buf, len, "Fake GPU");
    return true;
}

static Fake fake;
static Injector *ij;
static uint32_t next_corr;
static uint64_t clock_ns;

static int setup(void **state) {
    (void)state;
    fake = (Fake){.recs = json_array()};
    InjectHooks h = {fake_call, fake_send, fake_hello, fake_stream_id, fake_device_name, &fake};
    ij = injector_new(&h, 1000);
    next_corr = 100;
    clock_ns = 1000;
    return 0;
}

static int teardown(void **state) {
    (void)state;
    injector_free(&ij);
    json_decref(fake.recs);
    return 0;
}

/* One runtime call: enter and exit callbacks; returns its correlation id. */
static uint32_t call(uint32_t cbid, const char *fn, const void *params, int rc, const char *symbol) {
    uint32_t corr = ++next_corr;
    CUpti_CallbackData cb = {.callbackSite = CUPTI_API_ENTER, .functionName = fn, .functionParams = params,
                             .functionReturnValue = &rc, .symbolName = symbol,
                             .context = (CUcontext)(uintptr_t)0x1000, .correlationId = corr};
    injector_api(ij, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &cb, clock_ns += 1000);
    cb.callbackSite = CUPTI_API_EXIT;
    injector_api(ij, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &cb, clock_ns += 1000);
    return corr;
}

static cudaStream_t make_stream(uintptr_t handle, int priority) {
    cudaStream_t s = (cudaStream_t)handle;
    if (priority) {
        cudaStreamCreateWithPriority_v5050_params p = {&s, cudaStreamNonBlocking, priority};
        call(CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050, "cudaStreamCreateWithPriority", &p, 0, NULL);
    } else {
        cudaStreamCreate_v3020_params p = {&s};
        call(CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020, "cudaStreamCreate", &p, 0, NULL);
    }
    return s;
}

static uint32_t launch(const char *mangled, unsigned grid, unsigned block, cudaStream_t s) {
    cudaLaunchKernel_v7000_params p = {.gridDim = {grid, 1, 1}, .blockDim = {block, 1, 1}, .stream = s};
    return call(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, "__cudaLaunchKernel", &p, 0, mangled);
}

static uint32_t copy_async(size_t bytes, cudaStream_t s) {
    cudaMemcpyAsync_v3020_params p = {(void *)0xd000, (void *)0xa000, bytes, cudaMemcpyHostToDevice, s};
    return call(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync", &p, 0, NULL);
}

static void kernel_done(const char *mangled, uint32_t corr, uint32_t sid, uint64_t start, uint64_t end) {
    CUpti_ActivityKernel10 k = {.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, .registersPerThread = 32,
                                .start = start, .end = end, .streamId = sid, .gridX = 4096, .gridY = 1,
                                .gridZ = 1, .blockX = 256, .blockY = 1, .blockZ = 1, .staticSharedMemory = 1024,
                                .dynamicSharedMemory = 0, .localMemoryPerThread = 8, .correlationId = corr,
                                .name = mangled};
    injector_activity(ij, (const CUpti_Activity *)&k);
}

static void copy_done(uint32_t corr, uint32_t sid, uint64_t start, uint64_t end, bool pinned) {
    CUpti_ActivityMemcpy6 m = {.kind = CUPTI_ACTIVITY_KIND_MEMCPY, .copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD,
                               .srcKind = pinned ? CUPTI_ACTIVITY_MEMORY_KIND_PINNED
                                                 : CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
                               .dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, .bytes = 1 << 24, .start = start,
                               .end = end, .streamId = sid, .correlationId = corr};
    injector_activity(ij, (const CUpti_Activity *)&m);
}

static void sync_done(CUpti_ActivitySynchronizationType type, uint32_t corr, uint32_t sid, uint64_t start,
                      uint64_t end) {
    CUpti_ActivitySynchronization2 s = {.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, .type = type, .start = start,
                                        .end = end, .correlationId = corr, .streamId = sid};
    injector_activity(ij, (const CUpti_Activity *)&s);
}

/* The timeline's event of `kind` on `stream` (any when INT_MIN), nth from 1. */
static json_t *tl_event(json_t *recs, const char *kind, int stream, int nth) {
    json_t *tl = json_object_get(record(recs, "timeline", NULL, 1), "timeline");
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(tl, "events"), i, e) {
        if (strcmp(str(e, "kind"), kind)) continue;
        if (stream != INT_MIN && num(e, "stream") != stream) continue;
        if (--nth == 0) return e;
    }
    return NULL;
}

static double t_start(json_t *e) { return json_number_value(json_object_get(e, "start_us")); }
static double t_end(json_t *e) { return t_start(e) + json_number_value(json_object_get(e, "dur_us")); }

/* ---- the library ---- */

static void library__exports_only_InitializeInjection(void **state) {
    (void)state;
    char *path = inject_path();
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    assert_found(h, dlerror());
    assert_non_null(dlsym(h, "InitializeInjection"));
    static const char *const internal[] = {"progwire_init", "progwire_send", "injector_new", "injector_api",
                                           "cupti_start", "timeline_new", "xmalloc", "inject_error_name"};
    for (size_t i = 0; i < sizeof internal / sizeof internal[0]; i++)
        assert_null(dlsym(h, internal[i]));   /* the handle's own tree: not this binary's copies */
    dlclose(h);
    free(path);
}

static void library__links_no_nvidia_library(void **state) {
    (void)state;
    char *path = inject_path();
    char *cmd = xasprintf("readelf -d '%s' 2>/dev/null | grep NEEDED", path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[256];
    int needed = 0;
    while (fgets(line, sizeof line, p)) {
        needed++;
        if (strstr(line, "libcudart") || strstr(line, "libcupti") || strstr(line, "libcuda.so"))
            fail_msg("the injection library links %s", line);
    }
    pclose(p);
    free(cmd);
    free(path);
    if (!needed) skip();   /* no readelf here */
}

static void initialize__sends_hello_and_returns__without_a_gpu(void **state) {
    (void)state;
    char *path = inject_path();
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        char fd[16];
        snprintf(fd, sizeof fd, "%d", fds[1]);
        setenv("CUDOJO_REPORT_FD", fd, 1);
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
        if (!init) _exit(3);
        if (init() != 1 || init() != 1) _exit(4);   /* idempotent */
        exit(0);   /* the exit handlers run: flush, timeline, "exit" */
    }
    close(fds[1]);
    char *out = read_all(fds[0]);
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    json_t *recs = parse_lines(out);
    json_t *hello = record(recs, "hello", NULL, 1);
    assert_found(hello, out);
    assert_string_equal(str(hello, "runtime"), "cuda");
    assert_int_equal(num(hello, "pid"), pid);
    assert_ptr_equal(record(recs, "hello", NULL, 2), NULL);   /* once */
    assert_null(record(recs, "call", NULL, 1));
    json_decref(recs);
    free(out);
    free(path);
}

typedef void (*FakeApi)(uint32_t, int, const char *, const void *, int, uint32_t, const char *);
typedef void (*FakeRecord)(const void *, size_t);
typedef int (*FakeEnabled)(int);

/* The child: the stand-in CUPTI first (cupti.c's dlopen by soname gets it),
 * then the library, then a few calls and records; exit() flushes. */
static void stand_in_child(const char *fake_path, const char *path) {
    void *cupti = dlopen(fake_path, RTLD_NOW | RTLD_GLOBAL);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
    FakeApi api = cupti ? (FakeApi)dlsym(cupti, "fake_cupti_api") : NULL;
    FakeRecord rec = cupti ? (FakeRecord)dlsym(cupti, "fake_cupti_record") : NULL;
    FakeEnabled enabled = cupti ? (FakeEnabled)dlsym(cupti, "fake_cupti_enabled") : NULL;
    if (!init || !api || !rec || !enabled) _exit(3);
    init();
    if (!enabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) || !enabled(CUPTI_ACTIVITY_KIND_MEMCPY) ||
        !enabled(CUPTI_ACTIVITY_KIND_MEMSET) || !enabled(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION))
        _exit(4);
    void *p = (void *)0xd000;
    cudaMalloc_v3020_params m = {&p, 4000};
    api(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, CUPTI_API_EXIT, "cudaMalloc", &m, 0, 1, NULL);   /* loaded us */
    cudaStream_t s = (cudaStream_t)0xa1;
    cudaStreamCreate_v3020_params sc = {&s};
    api(CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020, CUPTI_API_ENTER, "cudaStreamCreate", &sc, 0, 2, NULL);
    api(CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020, CUPTI_API_EXIT, "cudaStreamCreate", &sc, 0, 2, NULL);
    cudaLaunchKernel_v7000_params l = {.gridDim = {2, 1, 1}, .blockDim = {64, 1, 1}, .stream = s};
    api(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_API_ENTER, "cudaLaunchKernel", &l, 0, 3, "_Z4spinPfii");
    api(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_API_EXIT, "cudaLaunchKernel", &l, 0, 3, "_Z4spinPfii");
    CUpti_ActivityKernel10 k = {.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, .registersPerThread = 18,
                                .start = 5000, .end = 9000, .contextId = 1, .streamId = 100 + 0xa1, .gridX = 2,
                                .gridY = 1, .gridZ = 1, .blockX = 64, .blockY = 1, .blockZ = 1, .correlationId = 99,
                                .name = "_Z4spinPfii"};
    rec(&k, sizeof k);
    CUpti_ActivityMemcpy6 c = {.kind = CUPTI_ACTIVITY_KIND_MEMCPY, .copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH,
                               .srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                               .dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, .bytes = 4000, .start = 9500,
                               .end = 9900, .contextId = 1, .streamId = 7, .correlationId = 98};
    rec(&c, sizeof c);
    exit(0);
}

static void initialize__turns_cupti_callbacks_and_records_into_the_report__with_a_stand_in_cupti(void **state) {
    (void)state;
    char *path = inject_path(), *cupti = xstrdup(path);
    strcpy(strrchr(cupti, '/'), "/fake/libcupti.so.13");
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        char fd[16];
        snprintf(fd, sizeof fd, "%d", fds[1]);
        setenv("CUDOJO_REPORT_FD", fd, 1);
        unsetenv("CUDOJO_TIMELINE");
        stand_in_child(cupti, path);
    }
    close(fds[1]);
    char *out = read_all(fds[0]);
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status)) fail_msg("the child exited with %d; it said: %s", WEXITSTATUS(status), out);
    json_t *r = parse_lines(out);
    assert_string_equal(str(json_array_get(r, 0), "type"), "hello");   /* before the first call */
    assert_string_equal(str(record(r, "call", "cudaMalloc", 1), "args"), "&0xd000, 4000");
    assert_string_equal(str(record(r, "call", "cudaStreamCreate", 1), "args"), "&stream 1");
    json_t *l = record(r, "call", "cudaLaunchKernel", 1);
    assert_found(l, out);
    assert_string_equal(str(l, "args"), "spin<<<(2,1,1), (64,1,1), 0, stream 1>>>");
    json_t *k = record(r, "kernel", NULL, 1);
    assert_found(k, out);
    assert_int_equal(num(k, "stream"), 1);   /* by cuptiGetStreamIdEx at creation */
    assert_int_equal(num(k, "registers"), 18);
    json_t *tl = json_object_get(record(r, "timeline", NULL, 1), "timeline");
    assert_found(tl, out);
    assert_int_equal(num(tl, "dropped"), 2);
    json_t *d2h = tl_event(r, "d2h", 0, 1);   /* the legacy stream, learned at the first call */
    assert_found(d2h, out);
    assert_false(json_is_true(json_object_get(d2h, "pinned")));
    assert_non_null(tl_event(r, "kernel", 1, 1));
    /* the timeline goes before the exit record */
    size_t n = json_array_size(r);
    assert_string_equal(str(json_array_get(r, n - 1), "type"), "exit");
    assert_string_equal(str(json_array_get(r, n - 2), "type"), "timeline");
    json_decref(r);
    free(out);
    free(cupti);
    free(path);
}

/* ---- the Injector ---- */

static void calls__number_streams_in_creation_order__legacy_is_0(void **state) {
    (void)state;
    cudaStream_t a = make_stream(0xa1, 0), b = make_stream(0xb2, -1);
    copy_async(4000, b);
    copy_async(4000, NULL);
    copy_async(4000, a);
    json_t *r = fake.recs;
    assert_string_equal(str(record(r, "call", "cudaStreamCreate", 1), "args"), "&stream 1");
    assert_string_equal(str(record(r, "call", "cudaStreamCreateWithPriority", 1), "args"),
                        "&stream 2, 1, -1");
    json_t *c1 = record(r, "call", "cudaMemcpyAsync", 1);
    assert_int_equal(num(c1, "stream"), 2);
    assert_string_equal(str(c1, "args"), "0xd000, 0xa000, 4000, cudaMemcpyHostToDevice, stream 2");
    assert_int_equal(num(record(r, "call", "cudaMemcpyAsync", 2), "stream"), 0);
    assert_int_equal(num(record(r, "call", "cudaMemcpyAsync", 3), "stream"), 1);
    assert_string_equal(str(record(r, "call", "cudaMemcpyAsync", 3), "error"), "cudaSuccess");
}

static void calls__send_hello_with_the_device_before_the_first_call(void **state) {
    (void)state;
    make_stream(0xa1, 0);
    json_t *first = json_array_get(fake.recs, 0);
    assert_string_equal(str(first, "type"), "hello");
    assert_string_equal(str(first, "device"), "Fake GPU");
    assert_null(record(fake.recs, "hello", NULL, 2));
}

static void calls__name_the_error__when_a_call_fails(void **state) {
    (void)state;
    void *p = (void *)0x1;
    cudaMalloc_v3020_params m = {&p, (size_t)1 << 45};
    call(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc", &m, 2, NULL);
    json_t *c = record(fake.recs, "call", "cudaMalloc", 1);
    assert_int_equal(num(c, "rc"), 2);
    assert_string_equal(str(c, "error"), "cudaErrorMemoryAllocation");
    assert_string_equal(str(c, "args"), "&(nil), 35184372088832");
    assert_int_equal(num(c, "stream"), -1);
}

static void calls__count_time_from_the_first_call(void **state) {
    (void)state;
    make_stream(0xa1, 0);   /* enter at 2000 ns, t0 = 1000 */
    make_stream(0xa2, 0);   /* enter at 4000 ns */
    assert_float_equal(json_number_value(json_object_get(record(fake.recs, "call", NULL, 1), "t_us")), 1.0, 1e-9);
    assert_float_equal(json_number_value(json_object_get(record(fake.recs, "call", NULL, 2), "t_us")), 3.0, 1e-9);
}

static void calls__skip_registration_hooks_and_the_runtime_calling_itself(void **state) {
    (void)state;
    call(CUPTI_RUNTIME_TRACE_CBID___cudaRegisterFatBinary_v13000, "__cudaRegisterFatBinary", NULL, 0, NULL);
    call(CUPTI_RUNTIME_TRACE_CBID___cudaPushCallConfiguration_v13000, "__cudaPushCallConfiguration", NULL, 0, NULL);
    /* cudaDeviceSynchronize whose implementation makes another runtime call */
    int rc = 0;
    CUpti_CallbackData outer = {.callbackSite = CUPTI_API_ENTER, .functionName = "cudaDeviceSynchronize",
                                .functionReturnValue = &rc, .correlationId = 1};
    CUpti_CallbackData inner = {.callbackSite = CUPTI_API_ENTER, .functionName = "cudaGetLastError",
                                .functionReturnValue = &rc, .correlationId = 2};
    injector_api(ij, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, &outer, 10);
    injector_api(ij, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020, &inner, 11);
    inner.callbackSite = outer.callbackSite = CUPTI_API_EXIT;
    injector_api(ij, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020, &inner, 12);
    injector_api(ij, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, &outer, 13);
    assert_non_null(record(fake.recs, "call", "cudaDeviceSynchronize", 1));
    assert_null(record(fake.recs, "call", "cudaGetLastError", 1));
    assert_null(record(fake.recs, "call", "__cudaRegisterFatBinary", 1));
    assert_null(record(fake.recs, "call", "__cudaPushCallConfiguration", 1));
    assert_null(record(fake.recs, "call", NULL, 2));
}

/* A capture open (from its begin's entry, less a begin that failed, until
 * an end that succeeded or was invalidated) says the drain must not
 * synchronise the context (inject.c drain_gpu). */
static void captures__are_open_from_their_begin_to_their_end(void **state) {
    (void)state;
    cudaStream_t s = make_stream(0x5100, 0);
    cudaStreamBeginCapture_v10000_params b = {s, cudaStreamCaptureModeGlobal};
    cudaGraph_t g = NULL;
    cudaStreamEndCapture_v10000_params e = {s, &g};
    assert_false(injector_capturing(ij));
    /* open from the entry of the begin, before it returns */
    uint32_t corr = ++next_corr;
    int ok = 0;
    CUpti_CallbackData cb = {.callbackSite = CUPTI_API_ENTER, .functionName = "cudaStreamBeginCapture",
                             .functionParams = &b, .functionReturnValue = &ok,
                             .context = (CUcontext)(uintptr_t)0x1000, .correlationId = corr};
    injector_api(ij, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000, &cb,
                 clock_ns += 1000);
    assert_true(injector_capturing(ij));
    cb.callbackSite = CUPTI_API_EXIT;
    injector_api(ij, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000, &cb,
                 clock_ns += 1000);
    assert_true(injector_capturing(ij));
    /* an end that names a stream with no capture leaves it open */
    call(CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000, "cudaStreamEndCapture", &e, cudaErrorIllegalState, NULL);
    assert_true(injector_capturing(ij));
    call(CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000, "cudaStreamEndCapture", &e, cudaSuccess, NULL);
    assert_false(injector_capturing(ij));
    /* a begin that failed opens nothing; an invalidated capture is ended */
    call(CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000, "cudaStreamBeginCapture", &b, cudaErrorIllegalState,
         NULL);
    assert_false(injector_capturing(ij));
    call(CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000, "cudaStreamBeginCapture_ptsz", &b, cudaSuccess,
         NULL);
    assert_true(injector_capturing(ij));
    call(CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000, "cudaStreamEndCapture_ptsz", &e,
         cudaErrorStreamCaptureInvalidated, NULL);
    assert_false(injector_capturing(ij));
    call(CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000, "cudaStreamEndCapture", &e, cudaSuccess, NULL);
    assert_false(injector_capturing(ij));                      /* never below none */
}

static void launch__reads_as_triple_chevrons(void **state) {
    (void)state;
    cudaStream_t s = make_stream(0xa1, 0);
    launch("_Z3addPKfPfi", 4096, 256, s);
    launch("_Z3addPKfPfi", 8, 32, NULL);
    json_t *c = record(fake.recs, "call", "cudaLaunchKernel", 1);
    assert_non_null(c);
    assert_string_equal(str(c, "args"), "add<<<(4096,1,1), (256,1,1), 0, stream 1>>>");
    assert_int_equal(num(c, "stream"), 1);
    assert_string_equal(str(record(fake.recs, "call", "cudaLaunchKernel", 2), "args"),
                        "add<<<(8,1,1), (32,1,1), 0, stream 0>>>");
}

static void launch__takes_the_documented_parameters__when_triple_chevrons_call_cudaLaunchKernel(void **state) {
    (void)state;
    cudaStream_t s = make_stream(0xa1, 0);
    int rc = 0;
    /* __cudaLaunchKernel's own parameters unreadable (all zero), the inner call's fine */
    cudaLaunchKernel_v7000_params junk = {0};
    cudaLaunchKernel_v7000_params p = {.gridDim = {64, 2, 1}, .blockDim = {128, 1, 1}, .sharedMem = 256, .stream = s};
    CUpti_CallbackData outer = {.callbackSite = CUPTI_API_ENTER, .functionName = "__cudaLaunchKernel",
                                .functionParams = &junk, .functionReturnValue = &rc, .symbolName = "_Z1kv",
                                .correlationId = 50};
    CUpti_CallbackData inner = {.callbackSite = CUPTI_API_ENTER, .functionName = "cudaLaunchKernel",
                                .functionParams = &p, .functionReturnValue = &rc, .symbolName = "_Z1kv",
                                .correlationId = 51};
    injector_api(ij, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, &outer, 10);
    injector_api(ij, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &inner, 11);
    inner.callbackSite = outer.callbackSite = CUPTI_API_EXIT;
    injector_api(ij, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &inner, 12);
    injector_api(ij, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, &outer, 13);
    json_t *c = record(fake.recs, "call", "cudaLaunchKernel", 1);
    assert_string_equal(str(c, "args"), "k<<<(64,2,1), (128,1,1), 256, stream 1>>>");
    assert_int_equal(num(c, "stream"), 1);
    assert_null(record(fake.recs, "call", "cudaLaunchKernel", 2));
    kernel_done("_Z1kv", 51, 77, 1000, 2000);   /* the kernel carries the inner call's id */
    injector_finish(ij, 0);
    assert_int_equal(num(record(fake.recs, "kernel", NULL, 1), "stream"), 1);
}

static void launch__on_the_per_thread_default_stream__gets_its_own_number(void **state) {
    (void)state;
    make_stream(0xa1, 0);
    cudaLaunchKernel_v7000_params p = {.gridDim = {1, 1, 1}, .blockDim = {32, 1, 1}, .stream = NULL};
    uint32_t corr = call(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000, "__cudaLaunchKernel_ptsz", &p, 0,
                         "_Z1kv");
    json_t *c = record(fake.recs, "call", "cudaLaunchKernel", 1);
    assert_string_equal(str(c, "args"), "k<<<(1,1,1), (32,1,1), 0, cudaStreamPerThread>>>");
    assert_int_equal(num(c, "stream"), 2);
    kernel_done("_Z1kv", corr, 99, 1000, 2000);
    injector_finish(ij, 0);
    json_t *streams = json_object_get(json_object_get(record(fake.recs, "timeline", NULL, 1), "timeline"), "streams");
    assert_string_equal(str(json_array_get(streams, 2), "name"), "default (per-thread)");
    assert_non_null(tl_event(fake.recs, "kernel", 2, 1));
}

static void finish__kernel_record_has_cuptis_time_and_resources(void **state) {
    (void)state;
    cudaStream_t s = make_stream(0xa1, 0);
    uint32_t corr = launch("_Z3addPKfPfi", 4096, 256, s);
    kernel_done("_Z3addPKfPfi", corr, 42, 5000000, 5042000);
    injector_finish(ij, 0);
    json_t *k = record(fake.recs, "kernel", NULL, 1);
    assert_non_null(k);
    assert_string_equal(str(k, "name"), "add");
    assert_string_equal(str(k, "mangled"), "_Z3addPKfPfi");
    assert_float_equal(json_number_value(json_object_get(k, "ms")), 0.042, 1e-9);
    assert_false(json_is_true(json_object_get(k, "modeled")));
    assert_int_equal(num(k, "stream"), 1);   /* by the launch's correlation id */
    assert_int_equal(num(k, "registers"), 32);
    assert_int_equal(num(k, "shared_static"), 1024);
    assert_int_equal(num(k, "local_bytes"), 8);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(k, "grid"), 0)), 4096);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(k, "block"), 0)), 256);
}

static void timeline__keeps_a_copy_overlapping_a_kernel_on_another_stream(void **state) {
    (void)state;
    cudaStream_t s1 = make_stream(0xa1, 0), s2 = make_stream(0xb2, -1);
    uint32_t k = launch("_Z4spinPfii", 4096, 256, s1);
    uint32_t c = copy_async(1 << 24, s2);
    cudaStreamSynchronize_v3020_params sp = {s2};
    uint32_t sy = call(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, "cudaStreamSynchronize", &sp, 0, NULL);
    kernel_done("_Z4spinPfii", k, 41, 10000000, 13000000);
    copy_done(c, 42, 10100000, 10400000, true);
    sync_done(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, sy, 42, 10050000, 10410000);
    sync_done(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, sy + 1, 41, 10050000, 10410000);
    cudaEventQuery_v3020_params qp = {(cudaEvent_t)0xe1};
    uint32_t q = call(CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020, "cudaEventQuery", &qp, 600, NULL);
    sync_done(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, q, 42, 10420000, 10421000);
    injector_finish(ij, 3);
    json_t *tl = json_object_get(record(fake.recs, "timeline", NULL, 1), "timeline");
    assert_non_null(tl);
    assert_string_equal(str(tl, "source"), "cupti");
    assert_string_equal(str(tl, "device"), "Fake GPU");
    assert_false(json_is_true(json_object_get(tl, "modeled")));
    assert_int_equal(num(tl, "dropped"), 3);
    json_t *kern = tl_event(fake.recs, "kernel", 1, 1), *h2d = tl_event(fake.recs, "h2d", 2, 1);
    assert_non_null(kern);
    assert_non_null(h2d);
    assert_string_equal(str(kern, "name"), "spin");
    assert_string_equal(str(h2d, "name"), "cudaMemcpyAsync");
    assert_int_equal(num(h2d, "bytes"), 1 << 24);
    assert_true(json_is_true(json_object_get(h2d, "pinned")));
    assert_true(t_start(h2d) < t_end(kern) && t_start(kern) < t_end(h2d));   /* they overlap */
    json_t *wait = tl_event(fake.recs, "sync", -1, 1);
    assert_non_null(wait);
    assert_string_equal(str(wait, "name"), "cudaStreamSynchronize(stream 2)");
    assert_null(tl_event(fake.recs, "sync", INT_MIN, 2));   /* neither the GPU-side wait nor a query is a host wait */
    assert_string_equal(str(record(fake.recs, "call", "cudaEventQuery", 1), "error"), "cudaErrorNotReady");
    json_t *streams = json_object_get(tl, "streams");
    assert_int_equal(json_array_size(streams), 3);
    json_t *st2 = json_array_get(streams, 2);
    assert_int_equal(num(st2, "id"), 2);
    assert_string_equal(str(st2, "name"), "stream 2 (non-blocking)");
    assert_int_equal(num(st2, "priority"), -1);
}

static void timeline__finds_the_stream_by_cuptis_id__when_the_call_is_unknown(void **state) {
    (void)state;
    make_stream(0xa1, 0);
    fake.known_stream = (const void *)0xb2;
    make_stream(0xb2, 0);
    kernel_done("_Z1kv", 9999, 500, 100000, 200000);   /* launched where we did not see it */
    kernel_done("_Z1kv", 9998, 7, 300000, 400000);     /* CUPTI's legacy stream id */
    kernel_done("_Z1kv", 9997, 12345, 500000, 600000); /* never seen: a new number */
    injector_finish(ij, 0);
    assert_int_equal(num(record(fake.recs, "kernel", NULL, 1), "stream"), 2);
    assert_int_equal(num(record(fake.recs, "kernel", NULL, 2), "stream"), 0);
    assert_int_equal(num(record(fake.recs, "kernel", NULL, 3), "stream"), 3);
    assert_non_null(tl_event(fake.recs, "kernel", 3, 1));
}

static void timeline__keeps_apart_equal_stream_ids_of_two_contexts(void **state) {
    (void)state;
    CUpti_ActivityKernel10 k = {.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, .start = 1000, .end = 2000,
                                .contextId = 1, .streamId = 13, .gridX = 1, .gridY = 1, .gridZ = 1, .blockX = 1,
                                .blockY = 1, .blockZ = 1, .correlationId = 0, .name = "_Z1kv"};
    injector_activity(ij, (const CUpti_Activity *)&k);
    k.contextId = 2, k.start = 3000, k.end = 4000;   /* another device's stream 13 */
    injector_activity(ij, (const CUpti_Activity *)&k);
    injector_finish(ij, 0);
    json_int_t a = num(record(fake.recs, "kernel", NULL, 1), "stream");
    json_int_t b = num(record(fake.recs, "kernel", NULL, 2), "stream");
    assert_true(a > 0 && b > 0);
    assert_int_not_equal(a, b);
}

static void timeline__shows_managed_memory_migrations_and_totals(void **state) {
    (void)state;
    CUpti_ActivityUnifiedMemoryCounter3 u = {.kind = CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER,
                                             .counterKind =
                                                 CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
                                             .value = 65536, .start = 1000, .end = 3000, .streamId = 7};
    injector_activity(ij, (const CUpti_Activity *)&u);
    u.start = 4000, u.end = 5000;
    injector_activity(ij, (const CUpti_Activity *)&u);
    u.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT, u.value = 3;
    injector_activity(ij, (const CUpti_Activity *)&u);
    u.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT, u.value = 5;
    injector_activity(ij, (const CUpti_Activity *)&u);
    injector_finish(ij, 0);
    json_t *um = record(fake.recs, "unified_memory", NULL, 1);
    assert_non_null(um);
    assert_int_equal(num(um, "h2d_bytes"), 131072);
    assert_int_equal(num(um, "h2d_migrations"), 2);
    assert_int_equal(num(um, "cpu_page_faults"), 3);
    assert_int_equal(num(um, "gpu_page_faults"), 5);
    json_t *m = tl_event(fake.recs, "h2d", INT_MIN, 2);
    assert_non_null(m);
    assert_string_equal(str(m, "name"), "page migration");
    assert_int_equal(num(m, "bytes"), 65536);
}

/* um-perf on the H200: fault-driven migrations of a few 64 MB buffers make
 * tens of thousands of counter records; they once filled the activity list
 * and the kernels that came after them were lost ("launched no kernel"). */
static void timeline__keeps_every_kernel__when_page_migrations_flood_in(void **state) {
    (void)state;
    CUpti_ActivityUnifiedMemoryCounter3 u = {.kind = CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER,
                                             .counterKind =
                                                 CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
                                             .value = 4096, .streamId = 7};
    int n = 3 * TIMELINE_MAX_ENTRIES;
    for (int i = 0; i < n; i++) {   /* apart from each other: nothing to join */
        u.start = 1000 + (uint64_t)i * 5000, u.end = u.start + 1000;
        injector_activity(ij, (const CUpti_Activity *)&u);
    }
    for (int i = 0; i < 3; i++)
        kernel_done("_Z1kv", 0, 7, 1000 + (uint64_t)(n + i) * 5000, 2000 + (uint64_t)(n + i) * 5000);
    injector_finish(ij, 0);
    assert_non_null(record(fake.recs, "kernel", NULL, 3));
    json_t *um = record(fake.recs, "unified_memory", NULL, 1);
    assert_int_equal(num(um, "h2d_bytes"), (json_int_t)n * 4096);   /* the totals count every record */
}

/* Back-to-back migrations (one fault group after another) are one bar. */
static void timeline__joins_back_to_back_page_migrations(void **state) {
    (void)state;
    CUpti_ActivityUnifiedMemoryCounter3 u = {.kind = CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER,
                                             .counterKind =
                                                 CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
                                             .value = 4096, .streamId = 7};
    for (int i = 0; i < 100; i++) {
        u.start = 1000 + (uint64_t)i * 1000, u.end = u.start + 1000;
        injector_activity(ij, (const CUpti_Activity *)&u);
    }
    injector_finish(ij, 0);
    json_t *m = tl_event(fake.recs, "h2d", INT_MIN, 1);
    assert_non_null(m);
    assert_int_equal(num(m, "bytes"), 100 * 4096);
    assert_null(tl_event(fake.recs, "h2d", INT_MIN, 2));
}

static void finish__counts_what_a_million_launch_loop_leaves_out(void **state) {
    (void)state;
    int n = 2 * TIMELINE_MAX_ENTRIES + 5;
    for (int i = 0; i < n; i++) kernel_done("_Z1kv", 0, 7, 1000 + (uint64_t)i * 10, 1005 + (uint64_t)i * 10);
    injector_finish(ij, 1);
    json_t *tl = json_object_get(record(fake.recs, "timeline", NULL, 1), "timeline");
    assert_int_equal(json_array_size(json_object_get(tl, "events")), TIMELINE_MAX_ENTRIES);
    assert_int_equal(num(tl, "dropped"), n - TIMELINE_MAX_ENTRIES + 1);
    assert_non_null(record(fake.recs, "kernel", NULL, PROGWIRE_MAX_CALLS));
    assert_null(record(fake.recs, "kernel", NULL, PROGWIRE_MAX_CALLS + 1));
}

static void finish__sends_hello_and_an_empty_timeline__when_no_call_came(void **state) {
    (void)state;
    injector_finish(ij, 0);
    injector_finish(ij, 0);   /* once */
    assert_string_equal(str(json_array_get(fake.recs, 0), "type"), "hello");
    assert_non_null(record(fake.recs, "timeline", NULL, 1));
    assert_null(record(fake.recs, "timeline", NULL, 2));
    assert_null(record(fake.recs, "kernel", NULL, 1));
    assert_null(record(fake.recs, "unified_memory", NULL, 1));
}

static void kernel_name__drops_parameters_and_return_type(void **state) {
    (void)state;
    static const char *const cases[][2] = {
        {"_Z4busyPKfPfii", "busy"},  {"_Z5scaleIfEvPT_i", "scale<float>"}, {"_ZN2ns1kEv", "ns::k"},
        {"plain_c_kernel", "plain_c_kernel"}, {"_ZN12_GLOBAL__N_14anonEv", "(anonymous namespace)::anon"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *n = inject_kernel_name(cases[i][0]);
        assert_string_equal(n, cases[i][1]);
        free(n);
    }
}

static void error_name__covers_the_toolkits_codes(void **state) {
    (void)state;
    assert_string_equal(inject_error_name(0), "cudaSuccess");
    assert_string_equal(inject_error_name(1), "cudaErrorInvalidValue");
    assert_string_equal(inject_error_name(9), "cudaErrorInvalidConfiguration");
    assert_string_equal(inject_error_name(700), "cudaErrorIllegalAddress");
    assert_string_equal(inject_error_name(999), "cudaErrorUnknown");
    assert_null(inject_error_name(123456));
}

/* ---- on a GPU ---- */

static const char *GPU_PROGRAM =
    "#include <cstdio>\n"
    "__global__ void spin(float *x, int n, int iters) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n) return;\n"
    "    float v = x[i];\n"
    "    for (int j = 0; j < iters; j++) v = v * 0.999f + 1.0f;\n"
    "    x[i] = v;\n"
    "}\n"
    "int main() {\n"
    "    int n = 1 << 22;\n"
    "    float *h, *d1, *d2;\n"
    "    cudaMallocHost(&h, n * 4);\n"
    "    cudaMalloc(&d1, n * 4);\n"
    "    cudaMalloc(&d2, n * 4);\n"
    "    cudaMemset(d1, 0, n * 4);\n"
    "    cudaStream_t s1, s2;\n"
    "    cudaStreamCreate(&s1);\n"
    "    cudaStreamCreateWithPriority(&s2, cudaStreamNonBlocking, -1);\n"
    "    spin<<<n / 256, 256, 0, s1>>>(d1, n, 20000);\n"
    "    cudaMemcpyAsync(d2, h, n * 4, cudaMemcpyHostToDevice, s2);\n"
    "    cudaStreamSynchronize(s2);\n"
    "    cudaStreamSynchronize(s1);\n"
    "    cudaError_t e = cudaMalloc(&d2, (size_t)1 << 50);\n"
    "    printf(\"%s %s\\n\", cudaGetErrorName(e), cudaGetErrorName(cudaGetLastError()));\n"
    "    return 0;\n"
    "}\n";

static void gpu__program_under_injection_reports_calls_kernels_and_an_overlapping_timeline(void **state) {
    (void)state;
    if (!getenv("CUDOJO_TEST_GPU")) skip();
    const char *cuda = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
    char dir[] = "/tmp/cudojo-inject-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *src = xasprintf("%s/spin.cu", dir), *exe = xasprintf("%s/spin", dir);
    FILE *f = fopen(src, "w");
    assert_non_null(f);
    fputs(GPU_PROGRAM, f);
    fclose(f);
    char *cmd = xasprintf("'%s/bin/nvcc' -cudart shared -o '%s' '%s'", cuda, exe, src);
    assert_int_equal(system(cmd), 0);
    char *path = inject_path();
    int fds[2], outp[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(pipe(outp), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        close(outp[0]);
        dup2(outp[1], 1);
        char fd[16];
        snprintf(fd, sizeof fd, "%d", fds[1]);
        setenv("CUDOJO_REPORT_FD", fd, 1);
        setenv("CUDA_INJECTION64_PATH", path, 1);
        execl(exe, exe, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    close(outp[1]);
    char *rep = read_all(fds[0]);
    char *out = read_all(outp[0]);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_string_equal(out, "cudaErrorMemoryAllocation cudaErrorMemoryAllocation\n");
    json_t *r = parse_lines(rep);
    json_t *hello = record(r, "hello", NULL, 1);
    assert_found(hello, rep);
    assert_string_equal(str(hello, "runtime"), "cuda");
    assert_true(strlen(str(hello, "device")) > 0);
    assert_string_equal(str(record(r, "call", "cudaStreamCreate", 1), "args"), "&stream 1");
    json_t *l = record(r, "call", "cudaLaunchKernel", 1);
    assert_found(l, rep);
    assert_string_equal(str(l, "args"), "spin<<<(16384,1,1), (256,1,1), 0, stream 1>>>");
    assert_int_equal(num(record(r, "call", "cudaMemcpyAsync", 1), "stream"), 2);
    assert_null(record(r, "call", "cudaLaunchKernel", 2));   /* one launch, one record */
    json_t *bad = record(r, "call", "cudaMalloc", 3);
    assert_string_equal(str(bad, "error"), "cudaErrorMemoryAllocation");
    json_t *k = record(r, "kernel", NULL, 1);
    assert_found(k, rep);
    assert_string_equal(str(k, "name"), "spin");
    assert_int_equal(num(k, "stream"), 1);
    assert_true(num(k, "registers") > 0);
    assert_true(json_number_value(json_object_get(k, "ms")) > 0);
    json_t *tl = json_object_get(record(r, "timeline", NULL, 1), "timeline");
    assert_string_equal(str(tl, "source"), "cupti");
    json_t *kern = tl_event(r, "kernel", 1, 1), *h2d = tl_event(r, "h2d", 2, 1);
    assert_found(kern, rep);
    assert_found(h2d, rep);
    assert_true(json_is_true(json_object_get(h2d, "pinned")));
    assert_int_equal(num(h2d, "bytes"), 1 << 24);
    assert_true(t_start(h2d) < t_end(kern) && t_start(kern) < t_end(h2d));
    assert_non_null(tl_event(r, "memset", 0, 1));
    json_t *wait = tl_event(r, "sync", -1, 1);
    assert_found(wait, rep);
    assert_string_equal(str(wait, "name"), "cudaStreamSynchronize(stream 2)");
    assert_non_null(record(r, "exit", NULL, 1));
    json_decref(r);
    free(rep);
    free(out);
    char *rm = xasprintf("rm -rf '%s'", dir);
    if (system(rm)) {}
    free(rm);
    free(cmd);
    free(path);
    free(src);
    free(exe);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(library__exports_only_InitializeInjection),
        cmocka_unit_test(library__links_no_nvidia_library),
        cmocka_unit_test(initialize__sends_hello_and_returns__without_a_gpu),
        cmocka_unit_test(initialize__turns_cupti_callbacks_and_records_into_the_report__with_a_stand_in_cupti),
        T(calls__number_streams_in_creation_order__legacy_is_0),
        T(calls__send_hello_with_the_device_before_the_first_call),
        T(calls__name_the_error__when_a_call_fails),
        T(calls__count_time_from_the_first_call),
        T(calls__skip_registration_hooks_and_the_runtime_calling_itself),
        T(launch__reads_as_triple_chevrons),
        T(captures__are_open_from_their_begin_to_their_end),
        T(launch__takes_the_documented_parameters__when_triple_chevrons_call_cudaLaunchKernel),
        T(launch__on_the_per_thread_default_stream__gets_its_own_number),
        T(finish__kernel_record_has_cuptis_time_and_resources),
        T(timeline__keeps_a_copy_overlapping_a_kernel_on_another_stream),
        T(timeline__finds_the_stream_by_cuptis_id__when_the_call_is_unknown),
        T(timeline__keeps_apart_equal_stream_ids_of_two_contexts),
        T(timeline__shows_managed_memory_migrations_and_totals),
        T(timeline__keeps_every_kernel__when_page_migrations_flood_in),
        T(timeline__joins_back_to_back_page_migrations),
        T(finish__counts_what_a_million_launch_loop_leaves_out),
        T(finish__sends_hello_and_an_empty_timeline__when_no_call_came),
        cmocka_unit_test(kernel_name__drops_parameters_and_return_type),
        cmocka_unit_test(error_name__covers_the_toolkits_codes),
        cmocka_unit_test(gpu__program_under_injection_reports_calls_kernels_and_an_overlapping_timeline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
