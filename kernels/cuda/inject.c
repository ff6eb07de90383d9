/* kernels/cuda/inject.c: the entry point of libcudojo_inject.so, the library
 * CUDA_INJECTION64_PATH names when a learner's program runs on a GPU.
 *
 * The driver calls InitializeInjection inside the program's first cuInit.
 * It opens the report channel (kernels/progwire.h), loads CUPTI through
 * kernels/cuda/cupti.c with hooks that feed one Injector
 * (kernels/cuda/inject.h), enables the activity kinds the timeline needs
 * and registers the exit handler that flushes CUPTI and sends the kernel
 * records and the timeline. Nothing here calls the CUDA runtime (we run
 * inside its callbacks); the driver is asked only for the device's name,
 * after cuInit has finished, and, on the drain's thread (progwire.h), to
 * synchronise the program's contexts. Without CUPTI the program still
 * runs: the "hello" goes out and the calls are simply not seen. */
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cuda/cupti.h"
#include "kernels/cuda/inject.h"
#include "kernels/progwire.h"

int InitializeInjection(void);

typedef CUptiResult (*FnEnable)(CUpti_ActivityKind);
typedef CUptiResult (*FnStreamId)(CUcontext, CUstream, uint8_t, uint32_t *);
typedef CUptiResult (*FnDeviceId)(CUcontext, uint32_t *);
typedef CUptiResult (*FnContextId)(CUcontext, uint32_t *);
typedef CUptiResult (*FnConfigureUm)(CUpti_ActivityUnifiedMemoryCounterConfig *, uint32_t);
typedef CUptiResult (*FnResultName)(CUptiResult, const char **);
typedef CUptiResult (*FnEventTimestamps)(uint8_t);
typedef CUresult (*FnDeviceGet)(CUdevice *, int);
typedef CUresult (*FnDeviceGetName)(char *, int, CUdevice);
typedef CUresult (*FnDeviceGetCount)(int *);
typedef CUresult (*FnPrimaryCtxGetState)(CUdevice, unsigned int *, int *);
typedef CUresult (*FnPrimaryCtxRetain)(CUcontext *, CUdevice);
typedef CUresult (*FnPrimaryCtxRelease)(CUdevice);
typedef CUresult (*FnCtxPushCurrent)(CUcontext);
typedef CUresult (*FnCtxPopCurrent)(CUcontext *);
typedef CUresult (*FnCtxSynchronize)(void);

static Injector *g_ij;
static FnStreamId g_stream_id;
static FnDeviceId g_device_id;
static FnContextId g_context_id;

/* ---- the hooks the Injector is given ---- */

static void hook_call(void *user, const char *fn, const char *args, int stream, int rc, const char *error,
                      double t_us) {
    (void)user;
    progwire_call(fn, args, stream, rc, error, t_us);
}

static void hook_send(void *user, const char *type, json_t *fields) {
    (void)user;
    progwire_send(type, fields);
}

static void hook_hello(void *user, const char *device) {
    (void)user;
    progwire_hello(device);
}

static bool hook_stream_id(void *user, CUcontext ctx, const void *stream, uint64_t *key) {
    (void)user;
    uint32_t sid, cid;
    if (!g_stream_id || !g_context_id || !ctx || g_stream_id(ctx, (CUstream)stream, 0, &sid) != CUPTI_SUCCESS ||
        g_context_id(ctx, &cid) != CUPTI_SUCCESS)
        return false;
    *key = (uint64_t)cid << 32 | sid;
    return true;
}

static bool hook_device_name(void *user, CUcontext ctx, char *buf, size_t len) {
    (void)user;
    /* libcudart loaded the driver; we only look it up (RTLD_NOLOAD). */
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (!h) return false;
    FnDeviceGet get = (FnDeviceGet)dlsym(h, "cuDeviceGet");
    FnDeviceGetName get_name = (FnDeviceGetName)dlsym(h, "cuDeviceGetName");
    uint32_t ordinal = 0;
    if (ctx && g_device_id && g_device_id(ctx, &ordinal) != CUPTI_SUCCESS) ordinal = 0;
    CUdevice dev;
    bool ok = get && get_name && get(&dev, (int)ordinal) == CUDA_SUCCESS &&
              get_name(buf, (int)len, dev) == CUDA_SUCCESS;
    dlclose(h);
    return ok;
}

/* ---- the drain (progwire.h) ---- */

/* The driver's entry points the drain needs, looked up once in the driver
 * libcudart loaded (RTLD_NOLOAD; the handle is kept). */
static struct {
    FnDeviceGetCount count;
    FnDeviceGet get;
    FnPrimaryCtxGetState state;
    FnPrimaryCtxRetain retain;
    FnPrimaryCtxRelease release;
    FnCtxPushCurrent push;
    FnCtxPopCurrent pop;
    FnCtxSynchronize sync;
} g_drv;

static void drain_lookup(void) {
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (!h) return;
    g_drv.count = (FnDeviceGetCount)dlsym(h, "cuDeviceGetCount");
    g_drv.get = (FnDeviceGet)dlsym(h, "cuDeviceGet");
    g_drv.state = (FnPrimaryCtxGetState)dlsym(h, "cuDevicePrimaryCtxGetState");
    g_drv.retain = (FnPrimaryCtxRetain)dlsym(h, "cuDevicePrimaryCtxRetain");
    g_drv.release = (FnPrimaryCtxRelease)dlsym(h, "cuDevicePrimaryCtxRelease_v2");
    g_drv.push = (FnCtxPushCurrent)dlsym(h, "cuCtxPushCurrent_v2");
    g_drv.pop = (FnCtxPopCurrent)dlsym(h, "cuCtxPopCurrent_v2");
    g_drv.sync = (FnCtxSynchronize)dlsym(h, "cuCtxSynchronize");
}

/* Waits for the work queued on every device whose primary context is
 * active: the runtime's contexts, so every stream of the program. A context
 * the program made itself (cuCtxCreate) is not seen. Runs on the drain's
 * own thread while the gate holds new work back; an error (a context a
 * fault lost) only ends the wait. */
static void drain_gpu(void) {
    /* a sync would invalidate a global-mode capture (inject.h); one that begins
       from now on waits at the gate, counted open first (on_api) */
    if (injector_capturing(g_ij)) return;
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, drain_lookup);
    int n = 0;
    if (!g_drv.count || !g_drv.get || !g_drv.state || !g_drv.retain || !g_drv.release || !g_drv.push ||
        !g_drv.pop || !g_drv.sync || g_drv.count(&n) != CUDA_SUCCESS)
        return;
    for (int i = 0; i < n; i++) {
        CUdevice dev;
        unsigned int flags;
        int active = 0;
        CUcontext ctx, popped;
        if (g_drv.get(&dev, i) != CUDA_SUCCESS || g_drv.state(dev, &flags, &active) != CUDA_SUCCESS || !active ||
            g_drv.retain(&ctx, dev) != CUDA_SUCCESS)
            continue;
        if (g_drv.push(ctx) == CUDA_SUCCESS) {
            (void)g_drv.sync();
            (void)g_drv.pop(&popped);
        }
        (void)g_drv.release(dev);
    }
}

/* ---- what CUPTI calls ---- */

/* The unified-memory counters (managed-memory migrations and page faults).
 * Returns CUPTI's answer; a refusal (an old driver, a GPU without
 * unified-memory profiling) only leaves them out, with CUPTI's word for why. */
static CUptiResult enable_um(void) {
    FnEnable enable = (FnEnable)cupti_symbol("cuptiActivityEnable");
    FnConfigureUm configure = (FnConfigureUm)cupti_symbol("cuptiActivityConfigureUnifiedMemoryCounter");
    if (!enable || !configure) return CUPTI_ERROR_NOT_SUPPORTED;
    static const CUpti_ActivityUnifiedMemoryCounterKind kinds[] = {
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT};
    enum { N = sizeof kinds / sizeof kinds[0] };
    CUpti_ActivityUnifiedMemoryCounterConfig cfg[N];
    for (size_t i = 0; i < N; i++)
        cfg[i] = (CUpti_ActivityUnifiedMemoryCounterConfig){
            .scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE,
            .kind = kinds[i], .deviceId = 0, .enable = 1};
    CUptiResult rc = configure(cfg, N);
    if (rc != CUPTI_SUCCESS && rc != CUPTI_ERROR_NOT_READY) {
        /* one kind the driver does not count fails the whole configuration:
         * keep the kinds it takes one by one */
        bool take[N];
        int kept = 0;
        for (size_t i = 0; i < N; i++) {
            for (size_t j = 0; j < N; j++) cfg[j].enable = j == i;
            take[i] = configure(cfg, N) == CUPTI_SUCCESS;
            kept += take[i];
        }
        for (size_t j = 0; j < N; j++) cfg[j].enable = take[j];
        if (kept) rc = configure(cfg, N);
    }
    if (rc == CUPTI_SUCCESS) rc = enable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
    if (rc == CUPTI_SUCCESS) {
        injector_set_um_enabled(g_ij, true);
        return rc;
    }
    FnResultName name = (FnResultName)cupti_symbol("cuptiGetResultString");
    const char *why = NULL;
    if (!name || name(rc, &why) != CUPTI_SUCCESS || !why) why = "an error CUPTI did not name";
    injector_set_um_refusal(g_ij, why);
    return rc;
}

/* CUPTI_ERROR_NOT_READY at start (an H200 answers so: the driver is not up
 * yet while the injection initialises): the counters are tried again after
 * each of the program's first runtime calls, which makes them work there
 * (chapter 13's prefetch: 0 GPU faults, 67.1 MB prefetched each way).
 * CUDOJO_INJECT_UM=early keeps the first answer; =0 never asks. */
static int g_um_retries;

/* The runtime calls that put work on the GPU: before the first of them a
 * timed program waits for its turn alone on the GPU (progwire_turn). */
static bool is_gpu_work(const char *fn) {
    static const char *const prefixes[] = {"cudaLaunch", "__cudaLaunch", "cudaMemcpy", "cudaMemset",
                                           "cudaEventRecord", "cudaGraphLaunch", "cudaMemPrefetch"};
    if (!fn) return false;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(fn, prefixes[i], strlen(prefixes[i]))) return true;
    return false;
}

static void on_api(void *user, uint32_t domain, uint32_t cbid, const void *cbdata) {
    (void)user;
    const CUpti_CallbackData *cb = cbdata;
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cb->callbackSite == CUPTI_API_ENTER && is_gpu_work(cb->functionName))
        progwire_turn();
    /* cudaDeviceReset destroys the context and with it CUPTI's buffers for
     * it: hand them over first (never under the Injector's lock). */
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cb->callbackSite == CUPTI_API_ENTER &&
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020)
        cupti_flush();
    if (cb->callbackSite == CUPTI_API_EXIT && __atomic_load_n(&g_um_retries, __ATOMIC_RELAXED) > 0 &&
        __atomic_sub_fetch(&g_um_retries, 1, __ATOMIC_SEQ_CST) >= 0 && enable_um() != CUPTI_ERROR_NOT_READY)
        __atomic_store_n(&g_um_retries, 0, __ATOMIC_RELAXED);
    injector_api(g_ij, domain, cbid, cb, cupti_now_ns());
    /* A capture begins only past a drain's gate, and only after injector_api
       counted it open (at its entry): the drain hook reads the count after
       shutting the gate (progwire_gate), so it never synchronises a context
       under a capture that began meanwhile. */
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cb->callbackSite == CUPTI_API_ENTER && cb->functionName &&
        !strncmp(cb->functionName, "cudaStreamBeginCapture", 22))
        progwire_gate();
}

static void on_activity(void *user, const void *record) {
    (void)user;
    injector_activity(g_ij, record);
}

static void at_exit(void) {
    cupti_flush();
    injector_finish(g_ij, cupti_take_dropped());
}

/* The optional kinds: CUDA events with their device times, managed-memory
 * migrations and page faults. */
static void enable_extras(void) {
    FnEnable enable = (FnEnable)cupti_symbol("cuptiActivityEnable");
    FnEventTimestamps event_ts = (FnEventTimestamps)cupti_symbol("cuptiActivityEnableCudaEventDeviceTimestamps");
    if (!enable) return;
    if (event_ts && event_ts(1) == CUPTI_SUCCESS) enable(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
    const char *um = getenv("CUDOJO_INJECT_UM");
    if (um && !strcmp(um, "0")) return;
    if (enable_um() == CUPTI_ERROR_NOT_READY && !(um && !strcmp(um, "early")))
        __atomic_store_n(&g_um_retries, 8, __ATOMIC_RELAXED);
}

static void initialize_once(void) {
    progwire_set_drain(drain_gpu);   /* before the drain's threads can ask for it */
    progwire_init("cuda");
    InjectHooks ih = {.call = hook_call, .send = hook_send, .hello = hook_hello, .stream_id = hook_stream_id,
                      .device_name = hook_device_name};
    g_ij = injector_new(&ih, 0);   /* before CUPTI can call us */
    CuptiHooks hooks = {.api = on_api, .activity = on_activity, .runtime_only = true};
    cupti_set_hooks(&hooks);
    char why[200] = "";
    if (!cupti_start(why, sizeof why)) {
        /* The program runs untraced; say why on the channel's stderr side. */
        progwire_hello("");
        if (!progwire_active()) fprintf(stderr, "cudojo: no CUDA trace: %s\n", why);
        else {
            json_t *o = json_object();
            json_object_set_new(o, "why", progwire_string(why));
            progwire_send("trace_unavailable", o);
        }
        return;
    }
    g_stream_id = (FnStreamId)cupti_symbol("cuptiGetStreamIdEx");
    g_device_id = (FnDeviceId)cupti_symbol("cuptiGetDeviceId");
    g_context_id = (FnContextId)cupti_symbol("cuptiGetContextId");
    enable_extras();
    atexit(at_exit);   /* runs before libcudart's teardown, registered earlier */
}

/* Called by the CUDA driver (CUDA_INJECTION64_PATH); 1 = success. */
__attribute__((visibility("default"))) int InitializeInjection(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, initialize_once);
    return 1;
}
