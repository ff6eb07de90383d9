/* kernels/emurt/emurt_launch.c: launching a kernel — <<<>>> (nvcc's
 * __cudaPushCallConfiguration, the stub's __cudaPopCallConfiguration and
 * __cudaLaunchKernel), cudaLaunchKernel(ExC) — on the emulator.
 *
 * A launch builds the kernel's parameter buffer from `void **args` with the
 * sizes and offsets of the PTX .entry, names the pointer arguments'
 * allocations after the kernel's parameters in the learner's source (so a
 * finding says "wrote c[1000] but c has 1000 elements"), runs the kernel at
 * once, sends the findings and a "kernel" record, and keeps its printf
 * output for the next synchronisation point. A fault the emulator found
 * (out of bounds, misaligned, assert, trap) becomes the sticky error a GPU
 * would give, from the next synchronising call on. Before it runs, a
 * launch is checked against the GPU's limits (shared memory and its opt-in,
 * registers x threads from the sm_90 cubin); cudaLaunchKernelEx's
 * attributes (cooperative, clusters, priority, events) are checked here too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/costmodel.h"
#include "kernels/cubin_info.h"
#include "kernels/emurt/emurt_internal.h"
#include "kernels/profiles.h"
#include "kernels/progwire.h"

/* ---- parameter names from the learner's source ---------------------------------------------------------- */
static const char *line_start(const char *src, int line) {
    const char *p = src;
    for (int l = 1; l < line && p; l++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    return p;
}

/* The names of the kernel's parameters, read from its declaration at `line`
 * ("__global__ void vadd(const float *a, float *c, int n)" → a, c, n), so
 * findings say "c[1000]"; nothing when the text does not parse. */
static void param_names(RtFunc *f, int line, int n_params) {
    f->params_tried = true;
    const char *src = f->mod->source;
    if (!src || line <= 0 || n_params <= 0) return;
    const char *p = line_start(src, line);
    if (!p) return;
    /* the short name: "ns::vadd<float>(...)" → vadd */
    char base[128];
    const char *par = strchr(f->pretty, '(');
    size_t len = par ? (size_t)(par - f->pretty) : strlen(f->pretty);
    const char *tpl = memchr(f->pretty, '<', len);
    if (tpl) len = (size_t)(tpl - f->pretty);
    const char *start = f->pretty;
    for (const char *q = f->pretty; q < f->pretty + len; q++)
        if (*q == ' ' || *q == ':') start = q + 1;
    len -= (size_t)(start - f->pretty);
    if (!len || len >= sizeof base) return;
    memcpy(base, start, len);
    base[len] = 0;
    const char *hit = NULL;
    for (const char *q = p; (q = strstr(q, base)) && q < p + 2000; q += len) {
        const char *r = q + len;
        while (*r == ' ' || *r == '\t' || *r == '\n') r++;
        if (*r == '(' && (q == src || !(q[-1] == '_' || (q[-1] >= 'a' && q[-1] <= 'z') || (q[-1] >= 'A' && q[-1] <= 'Z') ||
                                         (q[-1] >= '0' && q[-1] <= '9')))) {
            hit = r + 1;
            break;
        }
    }
    if (!hit) return;
    char **names = xcalloc((size_t)n_params, sizeof *names);
    int n = 0, depth = 0;
    const char *last_id = NULL;
    size_t last_len = 0;
    bool in_default = false;
    for (const char *q = hit; *q && q < hit + 4000; q++) {
        char c = *q;
        if ((c == ',' || c == ')') && depth == 0) {
            if (last_id && n < n_params) names[n] = xstrndup(last_id, last_len);
            n++;
            last_id = NULL;
            in_default = false;
            if (c == ')') break;
            continue;
        }
        if (c == '(' || c == '<' || c == '[') depth++;
        else if ((c == ')' || c == '>' || c == ']') && depth > 0) depth--;
        else if (c == '=' && depth == 0) in_default = true;
        else if (!in_default && depth == 0 && (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
            const char *e = q;
            while (*e == '_' || (*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z') || (*e >= '0' && *e <= '9')) e++;
            last_id = q;
            last_len = (size_t)(e - q);
            q = e - 1;
        }
    }
    if (n != n_params) {
        for (int i = 0; i < n_params; i++) free(names[i]);
        free(names);
        return;
    }
    f->params = names;
    f->n_params = n_params;
}

/* ---- launching ---------------------------------------------------------------------------------------- */
static cudaError_t fault_of(const Diag *d) {
    for (; d; d = d->next) {
        if (d->severity != DIAG_ERROR || !d->code) continue;
        if (!strncmp(d->code, "oob-", 4)) return cudaErrorIllegalAddress;
        if (!strcmp(d->code, "misaligned")) return cudaErrorMisalignedAddress;
        if (!strcmp(d->code, "assert")) return cudaErrorAssert;
        if (!strcmp(d->code, "trap")) return cudaErrorLaunchFailure;
        if (!strcmp(d->code, "did-not-finish")) return cudaErrorLaunchTimeout;
    }
    return cudaSuccess;
}

#define LINE_METRICS_LAUNCHES 20

static void kernel_record(RtFunc *f, dim3 grid, dim3 block, size_t shared, RtStream *s, const LaunchReport *rep,
                          const EmuKernelInfo *ki) {
    /* as many as call records at most; the rest are counted ("kernels_dropped" at exit) */
    if (g_rt.kernels > PROGWIRE_MAX_CALLS) {
        g_rt.kernels_dropped++;
        return;
    }
    static CostModel cm;
    static bool have_cm;
    if (!have_cm) {
        costmodel_for_profile(profile_find("sm_90"), &cm);
        have_cm = true;
    }
    json_t *tot = rep->metrics ? json_object_get(rep->metrics, "totals") : NULL;
    uint64_t wi = (uint64_t)json_integer_value(json_object_get(tot, "warp_instructions"));
    uint64_t sec = (uint64_t)json_integer_value(json_object_get(tot, "global_sectors"));
    uint64_t blocks = (uint64_t)grid.x * grid.y * grid.z;
    int regs = -1, local = -1, shs = (int)ki->shared_static;
    const CubinKernel *k = rt_func_cubin(f);
    if (k) {
        regs = k->registers;
        local = k->local_bytes;
        shs = k->shared_static;
    }
    json_t *o = json_object();
    json_object_set_new(o, "name", progwire_string(f->pretty));
    json_object_set_new(o, "mangled", progwire_string(f->name));
    json_object_set_new(o, "grid", json_pack("[iii]", (int)grid.x, (int)grid.y, (int)grid.z));
    json_object_set_new(o, "block", json_pack("[iii]", (int)block.x, (int)block.y, (int)block.z));
    json_object_set_new(o, "shared", json_integer((json_int_t)shared));
    json_object_set_new(o, "stream", json_integer(s->id));
    json_object_set_new(o, "device", json_integer(s->dev));
    json_object_set_new(o, "registers", json_integer(regs));
    json_object_set_new(o, "local_bytes", json_integer(local));
    json_object_set_new(o, "shared_static", json_integer(shs));
    json_object_set_new(o, "ms", json_real(costmodel_kernel_us(&cm, wi, sec, blocks) / 1e3));
    json_object_set_new(o, "modeled", json_true());
    /* per-line metrics for a kernel's first launches only: a loop of launches
     * would otherwise crowd the timeline out of the worker's report budget */
    if (rep->metrics && f->launches++ < LINE_METRICS_LAUNCHES) json_object_set(o, "metrics", rep->metrics);
    else if (rep->metrics) {
        json_t *m = json_object();
        json_object_set(m, "totals", json_object_get(rep->metrics, "totals"));
        json_object_set_new(o, "metrics", m);
    }
    progwire_send("kernel", o);
}

/* A block's registers (the cubin's count per thread, rounded up to the
 * allocation unit, for each of its warps) must fit in the SM's register
 * file; else CUDA refuses the launch with cudaErrorLaunchOutOfResources. */
static cudaError_t registers_check(const RtFunc *f, dim3 block) {
    int regs = rt_kernel_registers(f);
    unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
    if (regs <= 0 || threads > 1024 || threads <= (unsigned long long)rt_max_threads_for_registers(regs))
        return cudaSuccess;
    int per_thread = (regs + SM90_REG_UNIT - 1) / SM90_REG_UNIT * SM90_REG_UNIT;
    unsigned long long need = (threads + 31) / 32 * 32 * (unsigned long long)per_thread;
    rt_findings(diag_new(DIAG_ERROR, "launch", NULL, 0, 0,
                         "%s<<<..., (%u,%u,%u)>>> failed (cudaErrorLaunchOutOfResources, \"too many resources requested "
                         "for launch\"): the kernel uses %d registers per thread (ptxas, sm_90), so %llu threads need "
                         "%llu registers and an SM has %d. Launch at most %d threads per block, or cap the registers "
                         "with __launch_bounds__(%d) or -maxrregcount.",
                         f->pretty, block.x, block.y, block.z, regs, threads, need, SM90_REGS,
                         rt_max_threads_for_registers(regs), (int)threads));
    return cudaErrorLaunchOutOfResources;
}

/* A launch that waited in s's queue, when its turn comes (emurt_queue.c). */
static void run_queued_launch(RtStream *s, RtQOp *op) {
    rt_launch_params(op->f, op->grid, op->block, op->params, op->psize, op->shared, s);
}

cudaError_t rt_launch_params(RtFunc *f, dim3 grid, dim3 block, const unsigned char *params, size_t psize,
                             size_t shared, RtStream *s) {
    if (s->capture) return rt_capture_launch(s, f, grid, block, params, psize, shared);
    cudaError_t err;
    BackendModule *bm = rt_module_get(f->mod, s->dev, &err);
    if (!bm) return err;
    EmuKernelInfo ki;
    if (!emu_module_kernel_info(bm, f->pretty, &ki) && !emu_module_kernel_info(bm, f->name, &ki))
        return cudaErrorInvalidDeviceFunction;
    /* more than 48 KiB of dynamic shared memory needs the opt-in, as on a
       GPU, and no opt-in goes past the device's 227 KiB a block */
    if (shared + ki.shared_static > 48 * 1024 && shared > (size_t)f->max_dyn_shared) {
        if (shared + ki.shared_static > 227 * 1024)
            rt_findings(diag_new(DIAG_ERROR, "launch", NULL, 0, 0,
                                 "%s<<<..., %zu>>> failed (cudaErrorInvalidValue): a block has at most 227 KiB "
                                 "(232448 bytes) of shared memory on sm_90 (sharedMemPerBlockOptin), and this one "
                                 "asks for %zu bytes with its static shared memory.",
                                 f->pretty, shared, shared + ki.shared_static));
        else if (f->max_dyn_shared > 0)
            rt_findings(diag_new(DIAG_ERROR, "launch", NULL, 0, 0,
                                 "%s<<<..., %zu>>> failed (cudaErrorInvalidValue): cudaFuncSetAttribute(%s, "
                                 "cudaFuncAttributeMaxDynamicSharedMemorySize) allowed %d bytes of dynamic shared "
                                 "memory, fewer than the launch asks for.",
                                 f->pretty, shared, f->pretty, f->max_dyn_shared));
        else
            rt_findings(diag_new(DIAG_ERROR, "launch", NULL, 0, 0,
                                 "%s<<<..., %zu>>> failed (cudaErrorInvalidValue): a block may use more than 48 KiB "
                                 "of shared memory only after cudaFuncSetAttribute(%s, "
                                 "cudaFuncAttributeMaxDynamicSharedMemorySize, %zu).",
                                 f->pretty, shared, f->pretty, shared));
        return cudaErrorInvalidValue;
    }
    cudaError_t rrc = registers_check(f, block);
    if (rrc) return rrc;
    if (rt_queue_needed(s)) {
        rt_queue_launch(s, f, grid, block, params, psize, shared, run_queued_launch);
        return cudaSuccess;
    }
    rt_flush_output(); /* CUDA prints earlier kernels' output when a launch starts */
    if (!f->params_tried) param_names(f, ki.first_line, ki.n_params);
    Backend *b = g_rt.dev[s->dev].b;
    for (int i = 0; i < f->n_params && i < ki.n_params; i++) {
        if (ki.param_sizes[i] != 8 || !f->params[i]) continue;
        uintptr_t v;
        memcpy(&v, params + ki.param_offsets[i], 8);
        RtAlloc *a = v ? rt_alloc_find((void *)v) : NULL;
        if (a && a->base == v && a->kind != RT_MEM_SYMBOL) emu_alloc_set_label(b, v, f->params[i]);
    }
    LaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    rt_managed_touch(params, psize, s, &cfg);
    cfg.grid = (Dim3){grid.x, grid.y, grid.z};
    cfg.block = (Dim3){block.x, block.y, block.z};
    cfg.shared_bytes = shared;
    cfg.stream = s->id;
    cfg.async = true;
    LaunchReport rep;
    const char *kname = emu_module_kernel_info(bm, f->pretty, &ki) ? f->pretty : f->name;
    Diag *d = emu_launch_raw(b, bm, kname, &cfg, params, psize, &rep);
    g_rt.kernels++;
    if (d) {
        cudaError_t rc = rt_error_from_diag(d, cudaErrorLaunchFailure);
        Diag *note = diag_new(DIAG_ERROR, "launch", NULL, 0, 0, "%s<<<(%u,%u,%u), (%u,%u,%u)>>> failed: %s",
                              f->pretty, grid.x, grid.y, grid.z, block.x, block.y, block.z, d->message);
        diag_free(&d);
        launch_report_fini(&rep);
        rt_findings(note);
        return rc;
    }
    kernel_record(f, grid, block, shared, s, &rep, &ki);
    cudaError_t fault = fault_of(rep.findings);
    if (fault && !g_rt.dev[s->dev].pending_fault) g_rt.dev[s->dev].pending_fault = fault;
    if (rep.device_output) strbuf_append(&g_rt.out, rep.device_output);
    if (rep.device_stderr) strbuf_append(&g_rt.err, rep.device_stderr);
    rt_findings(rep.findings);
    rep.findings = NULL;
    launch_report_fini(&rep);
    return cudaSuccess;
}

cudaError_t rt_launch(RtFunc *f, dim3 grid, dim3 block, void **args, size_t shared, RtStream *s) {
    cudaError_t err;
    BackendModule *bm = rt_module_get(f->mod, s->dev, &err);
    if (!bm) return err;
    EmuKernelInfo ki;
    if (!emu_module_kernel_info(bm, f->name, &ki)) return cudaErrorInvalidDeviceFunction;
    if (ki.n_params && !args) return cudaErrorInvalidValue;
    unsigned char *params = xcalloc(ki.param_size + 1, 1);
    for (int i = 0; i < ki.n_params; i++) {
        if (!args[i]) {
            free(params);
            return cudaErrorInvalidValue;
        }
        memcpy(params + ki.param_offsets[i], args[i], ki.param_sizes[i]);
    }
    err = rt_launch_params(f, grid, block, params, ki.param_size, shared, s);
    free(params);
    return err;
}

/* ---- <<<>>> and the launch API ------------------------------------------------------------------------------ */
typedef struct CallConfig {
    dim3 grid, block;
    size_t shared;
    void *stream;
} CallConfig;

static __thread CallConfig t_configs[16];
static __thread int t_n_configs;

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st *stream);
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st *stream) {
    if (t_n_configs == 16) return 1;
    t_configs[t_n_configs++] = (CallConfig){gridDim, blockDim, sharedMem, stream};
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream) {
    if (!t_n_configs) return cudaErrorMissingConfiguration;
    CallConfig c = t_configs[--t_n_configs];
    *gridDim = c.grid;
    *blockDim = c.block;
    *sharedMem = c.shared;
    *(void **)stream = c.stream;
    return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun) {
    rt_enter();
    RtFunc *f = rt_func_find(hostFun);
    if (kernel) *kernel = (cudaKernel_t)f;
    rt_leave_quiet();
    return f ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}

cudaError_t cudaGetKernel(cudaKernel_t *kernel, const void *entry) {
    rt_enter();
    RtFunc *f = rt_func_find(entry);
    if (kernel && f) *kernel = (cudaKernel_t)f;
    return rt_leave("cudaGetKernel", !kernel ? cudaErrorInvalidValue : f ? cudaSuccess : cudaErrorInvalidDeviceFunction,
                    0, "&kernel, %s", f ? f->pretty : "?");
}

/* A launch through the API once the call has begun (rt_enter). */
static cudaError_t launch_body(RtFunc *f, RtStream *s, dim3 grid, dim3 block, void **args, size_t shared) {
    cudaError_t rc = !f ? cudaErrorInvalidDeviceFunction : !s ? cudaErrorInvalidResourceHandle : cudaSuccess;
    if (!rc) rc = rt_sticky(s->dev, false);
    /* the legacy stream may not be made to wait for a capturing blocking stream */
    if (!rc && !s->id) rc = rt_capture_legacy_use(s->dev);
    /* CUDA 13 loads a module lazily, at the first launch of one of its kernels, and the
       load waits for the work in flight: on the H200 a program's first launch behind a
       gated host function waited for the gate (host_func_per_thread.cu; stream_order_ops.cu
       hung), a later kernel's first launch did not (streams.cu, three_streams.cu) */
    if (!rc && !s->capture && f->mod && !f->mod->launched[s->dev]) {
        rt_wait_lazy_load(s->dev, f->pretty);
        f->mod->launched[s->dev] = true;
    }
    if (!rc) rc = rt_launch(f, grid, block, args, shared, s);
    return rc;
}

static cudaError_t launch_call(const char *fn, const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                               cudaStream_t stream, bool ptsz) {
    progwire_turn();
    rt_enter();
    RtFunc *f = rt_func_find(func);
    RtStream *s = rt_stream(stream, ptsz);
    cudaError_t rc = launch_body(f, s, grid, block, args, shared);
    return rt_leave(fn, rc, s ? s->id : 0, "%s<<<(%u,%u,%u), (%u,%u,%u), %zu, %s>>>", f ? f->pretty : "?", grid.x,
                    grid.y, grid.z, block.x, block.y, block.z, shared, s ? rt_stream_name(s) : "?");
}

/* A cooperative launch runs like any other (a kernel that calls
 * grid.sync() is refused when its module loads: the emulator does not run
 * it), once its blocks fit on the device at once, as CUDA requires. */
static cudaError_t cooperative_check(RtFunc *f, dim3 grid, dim3 block, size_t shared) {
    int per_sm = 0;
    cudaError_t rc = rt_blocks_per_sm(f, (int)(block.x * block.y * block.z), shared, &per_sm);
    if (rc) return rc;
    struct cudaDeviceProp p;
    rt_device_props(rt_current_device(), &p);
    unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
    if (blocks <= (unsigned long long)per_sm * (unsigned long long)p.multiProcessorCount) return cudaSuccess;
    rt_findings(diag_new(DIAG_ERROR, "launch", NULL, 0, 0,
                         "cooperative launch of %s failed (cudaErrorCooperativeLaunchTooLarge): %llu blocks, but only "
                         "%d per SM x %d SMs can be resident at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor).",
                         f->pretty, blocks, per_sm, p.multiProcessorCount));
    return cudaErrorCooperativeLaunchTooLarge;
}

static cudaError_t cooperative_launch(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                                      cudaStream_t stream, bool ptsz) {
    progwire_turn();
    rt_enter();
    RtFunc *f = rt_func_find(func);
    RtStream *s = rt_stream(stream, ptsz);
    cudaError_t rc = f && s ? cooperative_check(f, grid, block, shared) : cudaSuccess;
    if (!rc) rc = launch_body(f, s, grid, block, args, shared);
    return rt_leave("cudaLaunchCooperativeKernel", rc, s ? s->id : 0, "%s<<<(%u,%u,%u), (%u,%u,%u), %zu, %s>>>",
                    f ? f->pretty : "?", grid.x, grid.y, grid.z, block.x, block.y, block.z, shared,
                    s ? rt_stream_name(s) : "?");
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                                        cudaStream_t stream) {
    return cooperative_launch(func, grid, block, args, shared, stream, false);
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                                             cudaStream_t stream);
cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                                             cudaStream_t stream) {
    return cooperative_launch(func, grid, block, args, shared, stream, true);
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t shared,
                               cudaStream_t stream);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t shared,
                               cudaStream_t stream) {
    return launch_call("cudaLaunchKernel", kernel, grid, block, args, shared, stream, false);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t shared,
                                    cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t shared,
                                    cudaStream_t stream) {
    return launch_call("cudaLaunchKernel", kernel, grid, block, args, shared, stream, true);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shared, cudaStream_t stream) {
    return launch_call("cudaLaunchKernel", func, grid, block, args, shared, stream, false);
}

cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                                  cudaStream_t stream);
cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                                  cudaStream_t stream) {
    return launch_call("cudaLaunchKernel", func, grid, block, args, shared, stream, true);
}

/* Thread-block clusters (sm_90): the dimensions must divide the grid and
 * hold at most 8 blocks (16 after cudaFuncAttributeNonPortableClusterSizeAllowed),
 * else cudaErrorInvalidClusterSize. The emulator runs no clusters: a
 * cluster of more than one block is refused with cudaErrorNotSupported and
 * a line on stderr; a 1x1x1 cluster is an ordinary launch. */
static cudaError_t cluster_check(const RtFunc *f, dim3 grid, unsigned cx, unsigned cy, unsigned cz) {
    if (!cx || !cy || !cz || grid.x % cx || grid.y % cy || grid.z % cz) return cudaErrorInvalidClusterSize;
    unsigned long long n = (unsigned long long)cx * cy * cz;
    if (n > (f->nonportable_cluster ? 16u : 8u)) return cudaErrorInvalidClusterSize;
    if (n == 1) return cudaSuccess;
    fflush(stdout);
    fprintf(stderr, "cudojo's emulator runtime does not implement thread-block clusters (%s launched with "
                    "cudaLaunchAttributeClusterDimension %ux%ux%u): run it on a GPU\n", f->pretty, cx, cy, cz);
    json_t *o = json_object();
    json_object_set_new(o, "fn", json_string("thread-block clusters (cudaLaunchAttributeClusterDimension)"));
    progwire_send("unimplemented", o);
    return cudaErrorNotSupported;
}

/* cudaLaunchKernelEx: the attributes a launch may carry. Cooperative and
 * cluster launches are checked as above; the completion and programmatic
 * events are recorded after the kernel (it has finished: the earliest a GPU
 * may fire them is no later); priority, scheduling and memory-sync hints
 * are accepted and change nothing here. */
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args) {
    progwire_turn();
    rt_enter();
    RtFunc *f = rt_func_find(func);
    RtStream *s = config ? rt_stream(config->stream, false) : NULL;
    cudaError_t rc = !config || (config->numAttrs && !config->attrs) ? cudaErrorInvalidValue
                     : !f ? cudaErrorInvalidDeviceFunction : !s ? cudaErrorInvalidResourceHandle : cudaSuccess;
    bool coop = false;
    cudaEvent_t events[2] = {NULL, NULL};
    const char *what = "";
    for (unsigned i = 0; !rc && i < config->numAttrs; i++) {
        const cudaLaunchAttribute *a = &config->attrs[i];
        switch (a->id) {
        case cudaLaunchAttributeIgnore:
        case cudaLaunchAttributeAccessPolicyWindow:
        case cudaLaunchAttributeSynchronizationPolicy:
        case cudaLaunchAttributeClusterSchedulingPolicyPreference:
        case cudaLaunchAttributeProgrammaticStreamSerialization:
        case cudaLaunchAttributePriority:
        case cudaLaunchAttributeMemSyncDomainMap:
        case cudaLaunchAttributeMemSyncDomain:
        case cudaLaunchAttributePreferredClusterDimension:
        case cudaLaunchAttributePreferredSharedMemoryCarveout:
        case cudaLaunchAttributeNvlinkUtilCentricScheduling: break;
        case cudaLaunchAttributeCooperative:
            coop = a->val.cooperative != 0;
            if (coop) what = ", cooperative";
            break;
        case cudaLaunchAttributeClusterDimension:
            rc = cluster_check(f, config->gridDim, a->val.clusterDim.x, a->val.clusterDim.y, a->val.clusterDim.z);
            what = ", cluster";
            break;
        case cudaLaunchAttributeProgrammaticEvent:
            events[0] = a->val.programmaticEvent.event;
            if (!rt_event_find(events[0])) rc = cudaErrorInvalidResourceHandle;
            break;
        case cudaLaunchAttributeLaunchCompletionEvent:
            events[1] = a->val.launchCompletionEvent.event;
            if (!rt_event_find(events[1])) rc = cudaErrorInvalidResourceHandle;
            break;
        default: rc = cudaErrorInvalidValue; break; /* a graph node's attribute, or unknown */
        }
    }
    if (!rc && coop) rc = cooperative_check(f, config->gridDim, config->blockDim, config->dynamicSmemBytes);
    if (!rc) rc = launch_body(f, s, config->gridDim, config->blockDim, args, config->dynamicSmemBytes);
    for (int i = 0; !rc && i < 2; i++)
        if (events[i]) rc = rt_event_record(rt_event_find(events[i]), s, 0);
    dim3 g = config ? config->gridDim : (dim3){0, 0, 0}, b = config ? config->blockDim : (dim3){0, 0, 0};
    return rt_leave("cudaLaunchKernelExC", rc, s ? s->id : 0, "%s<<<(%u,%u,%u), (%u,%u,%u), %zu, %s>>>%s",
                    f ? f->pretty : "?", g.x, g.y, g.z, b.x, b.y, b.z, config ? config->dynamicSmemBytes : 0,
                    s ? rt_stream_name(s) : "?", what);
}
