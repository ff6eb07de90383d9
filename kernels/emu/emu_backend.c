/* kernels/emu/emu_backend.c: the PTX emulator as a Backend.
 *
 * Device memory is host memory mapped with a red zone after each
 * allocation, so an access just past the end lands in memory we own and is
 * reported by name ("read a[1000064] but a has 1000003 elements") instead of
 * touching someone else's data. Modules are parsed and every kernel decoded
 * at load time, so a PTX problem shows before anything runs. A launch is
 * validated like a GPU launch, then blocks run on a pool of host threads
 * (emu_run.c), and findings, metrics and printf output go into the report. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "kernels/emu/emu.h"
#include "kernels/emu/emu_run.h"

typedef struct EmuBackend {
    Backend base;
    EmuOptions opts;
    AllocTable allocs;
    unsigned char *heap;
    size_t heap_size;
} EmuBackend;

struct BackendModule {
    Program *prog;
    Kernel **kernels;
    int n_kernels;
    char **names;           /* exercise names (KernelInfo.name) per kernel, may be NULL */
    char *source_path, *source;
};

#define HEAP_SIZE (8u << 20)

/* ---- allocation table ------------------------------------------------------------ */
static void table_insert(AllocTable *t, Alloc a) {
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->v = xrealloc(t->v, sizeof *t->v * (size_t)t->cap);
    }
    int i = t->n;
    while (i > 0 && t->v[i - 1].base > a.base) { t->v[i] = t->v[i - 1]; i--; }
    t->v[i] = a;
    t->n++;
}

static void table_remove(AllocTable *t, int i) {
    free(t->v[i].label);
    memmove(&t->v[i], &t->v[i + 1], sizeof *t->v * (size_t)(t->n - i - 1));
    t->n--;
}

static Diag *emu_mem_alloc(Backend *b, size_t bytes, const char *label, size_t elem, DevPtr *out) {
    EmuBackend *e = (EmuBackend *)b;
    *out = 0;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t red = bytes / 8 > 65536 ? bytes / 8 : 65536;
    size_t len = (bytes + red + page - 1) / page * page;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return diag_error("emu", "out of memory: cannot allocate %zu bytes for %s on the emulator", bytes,
                          label ? label : "an array");
    Alloc a = {(uint64_t)(uintptr_t)p, bytes, (uint64_t)(uintptr_t)p + len, elem ? elem : 1,
               xstrdup(label ? label : "array"), p, len, 0};
    table_insert(&e->allocs, a);
    *out = a.base;
    return NULL;
}

static int table_find_exact(AllocTable *t, DevPtr p) {
    for (int i = 0; i < t->n; i++)
        if (t->v[i].base == p) return i;
    return -1;
}

static Diag *emu_mem_free(Backend *b, DevPtr p) {
    EmuBackend *e = (EmuBackend *)b;
    if (!p) return NULL;
    int i = table_find_exact(&e->allocs, p);
    if (i < 0 || !e->allocs.v[i].map) return diag_error("emu", "invalid argument: 0x%llx was not returned by mem_alloc",
                                                         (unsigned long long)p);
    munmap(e->allocs.v[i].map, e->allocs.v[i].map_len);
    table_remove(&e->allocs, i);
    return NULL;
}

static Diag *check_range(EmuBackend *e, DevPtr p, size_t bytes, const char *what) {
    int i = emu_alloc_find(&e->allocs, p);
    if (i < 0 || p + bytes > e->allocs.v[i].base + e->allocs.v[i].size || p < e->allocs.v[i].base)
        return diag_error("emu", "invalid argument: %s of %zu bytes at 0x%llx is outside every allocation", what,
                          bytes, (unsigned long long)p);
    return NULL;
}

static Diag *emu_copy_to_device(Backend *b, DevPtr dst, const void *src, size_t bytes) {
    if (!bytes) return NULL;
    Diag *d = check_range((EmuBackend *)b, dst, bytes, "copy to device");
    if (!d) memcpy((void *)(uintptr_t)dst, src, bytes);
    return d;
}

static Diag *emu_copy_to_host(Backend *b, void *dst, DevPtr src, size_t bytes) {
    if (!bytes) return NULL;
    Diag *d = check_range((EmuBackend *)b, src, bytes, "copy to host");
    if (!d) memcpy(dst, (const void *)(uintptr_t)src, bytes);
    return d;
}

static Diag *emu_memset(Backend *b, DevPtr dst, int value, size_t bytes) {
    if (!bytes) return NULL;
    Diag *d = check_range((EmuBackend *)b, dst, bytes, "memset");
    if (!d) memset((void *)(uintptr_t)dst, value, bytes);
    return d;
}

/* ---- device ------------------------------------------------------------------------- */
static Diag *emu_device_info(Backend *b, DeviceInfo *o) {
    (void)b;
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "cudojo PTX emulator (sm_90 profile)");
    o->cc_major = 9;
    o->cc_minor = 0;
    o->sm_count = 132;
    o->global_mem = (size_t)80 << 30;
    o->shared_per_block = EMU_SHARED_DEFAULT;
    o->shared_per_block_optin = EMU_SHARED_OPTIN;
    o->shared_per_sm = 233472;
    o->regs_per_sm = 65536;
    o->regs_per_block = 65536;
    o->max_threads_per_block = 1024;
    o->max_threads_per_sm = 2048;
    o->max_blocks_per_sm = 32;
    o->warp_size = 32;
    o->max_grid[0] = 2147483647;
    o->max_grid[1] = 65535;
    o->max_grid[2] = 65535;
    o->max_block[0] = 1024;
    o->max_block[1] = 1024;
    o->max_block[2] = 64;
    o->mem_clock_khz = 2619000;
    o->mem_bus_width = 5120;
    o->peak_bandwidth_gbs = 2.0 * o->mem_clock_khz * 1e3 * (o->mem_bus_width / 8) / 1e9;
    return NULL;
}

static double emu_peak_copy_gbs(Backend *b) {
    (void)b;
    return -1;
}

/* ---- modules ------------------------------------------------------------------------ */
static Diag *load_program(const char *ptx, size_t len, Program **prog, Kernel ***kernels, int *n) {
    *kernels = NULL;
    *n = 0;
    Diag *d = emu_program_parse(ptx, len, prog);
    if (d) return d;
    const char *names[256];
    int ne = emu_program_entries(*prog, names, 256);
    if (ne > 256) ne = 256;
    *kernels = xcalloc((size_t)(ne ? ne : 1), sizeof **kernels);
    for (int i = 0; i < ne; i++) {
        d = emu_kernel_decode(*prog, names[i], &(*kernels)[i]);
        if (d) {
            for (int j = 0; j < i; j++) emu_kernel_free(&(*kernels)[j]);
            free(*kernels);
            *kernels = NULL;
            emu_program_free(prog);
            return d;
        }
    }
    *n = ne;
    return NULL;
}

Diag *emu_parse_check(const char *ptx, size_t len) {
    Program *p;
    Kernel **ks;
    int n;
    Diag *d = load_program(ptx, len, &p, &ks, &n);
    if (d) return d;
    for (int i = 0; i < n; i++) emu_kernel_free(&ks[i]);
    free(ks);
    emu_program_free(&p);
    return NULL;
}

static Diag *emu_module_load(Backend *b, const CompiledModule *cm, BackendModule **out) {
    EmuBackend *e = (EmuBackend *)b;
    *out = NULL;
    if (!cm || !cm->ptx) return diag_error("emu", "the module has no PTX");
    BackendModule *m = xcalloc(1, sizeof *m);
    Diag *d = load_program(cm->ptx, cm->ptx_size ? cm->ptx_size : strlen(cm->ptx), &m->prog, &m->kernels,
                           &m->n_kernels);
    if (d) {
        free(m);
        if (cm->source_path && !d->file) {
            char *msg = d->message;
            d->message = xasprintf("%s (PTX compiled from %s)", msg, cm->source_path);
            free(msg);
        }
        return d;
    }
    m->names = xcalloc((size_t)(m->n_kernels ? m->n_kernels : 1), sizeof(char *));
    for (int i = 0; i < m->n_kernels; i++)
        for (int j = 0; j < cm->n_kernels; j++)
            if (cm->kernels[j].lowered && !strcmp(cm->kernels[j].lowered, m->kernels[i]->name) && !m->names[i])
                m->names[i] = xstrdup(cm->kernels[j].name);
    m->source_path = xstrdup(cm->source_path ? cm->source_path : "kernel.cu");
    m->source = xstrdup(cm->source);
    /* .global/.const variables are device memory the kernels may touch */
    for (int i = 0; i < m->prog->n_vars; i++) {
        ModVar *v = &m->prog->vars[i];
        if (v->space == SP_SHARED || !v->data) continue;
        Alloc a = {(uint64_t)(uintptr_t)v->data, v->size, (uint64_t)(uintptr_t)v->data + v->size, 1,
                   xstrdup(v->name), NULL, 0, 0};
        table_insert(&e->allocs, a);
    }
    *out = m;
    return NULL;
}

static void emu_module_unload(Backend *b, BackendModule **mp) {
    EmuBackend *e = (EmuBackend *)b;
    BackendModule *m = *mp;
    if (!m) return;
    for (int i = 0; i < m->prog->n_vars; i++) {
        ModVar *v = &m->prog->vars[i];
        if (!v->data) continue;
        int j = table_find_exact(&e->allocs, (uint64_t)(uintptr_t)v->data);
        if (j >= 0 && !e->allocs.v[j].map) table_remove(&e->allocs, j);
    }
    for (int i = 0; i < m->n_kernels; i++) {
        emu_kernel_free(&m->kernels[i]);
        free(m->names[i]);
    }
    free(m->kernels);
    free(m->names);
    free(m->source_path);
    free(m->source);
    emu_program_free(&m->prog);
    free(m);
    *mp = NULL;
}

/* ---- launch --------------------------------------------------------------------------- */
static const Kernel *find_kernel(BackendModule *m, const char *name) {
    for (int i = 0; i < m->n_kernels; i++)
        if ((m->names[i] && !strcmp(m->names[i], name)) || !strcmp(m->kernels[i]->name, name)) return m->kernels[i];
    return NULL;
}

static bool uses_malloc(const Kernel *k) {
    for (int i = 0; i < k->n_code; i++)
        if (k->code[i].op == OP_CALL_MALLOC) return true;
    return false;
}

static Diag *emu_launch(Backend *b, BackendModule *m, const char *kernel, const LaunchConfig *cfg,
                        const KernelArg *args, int nargs, LaunchReport *report) {
    EmuBackend *e = (EmuBackend *)b;
    launch_report_init(report);
    const Kernel *k = find_kernel(m, kernel);
    if (!k) return diag_error("emu", "named symbol not found: the module has no kernel called %s", kernel);
    if (k->n_params != nargs)
        return diag_error("emu", "invalid argument: kernel %s takes %d parameters but the launch passed %d", kernel,
                          k->n_params, nargs);
    if (uses_malloc(k) && !e->heap) {
        e->heap_size = HEAP_SIZE;
        e->heap = mmap(NULL, e->heap_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (e->heap == MAP_FAILED) { e->heap = NULL; return diag_error("emu", "out of memory for the device heap"); }
        table_insert(&e->allocs, (Alloc){(uint64_t)(uintptr_t)e->heap, e->heap_size,
                                         (uint64_t)(uintptr_t)e->heap + e->heap_size, 1,
                                         xstrdup("the device heap (malloc)"), NULL, 0, 0});
    }
    EmuRunRequest rq = {
        .kernel = k, .allocs = &e->allocs, .cfg = cfg, .args = args, .nargs = nargs,
        .opts = &e->opts, .source_path = m->source_path, .source = m->source,
        .heap = e->heap, .heap_size = e->heap_size,
    };
    return emu_run(&rq, report);
}

static void emu_destroy(Backend *b) {
    EmuBackend *e = (EmuBackend *)b;
    for (int i = 0; i < e->allocs.n; i++) {
        if (e->allocs.v[i].map) munmap(e->allocs.v[i].map, e->allocs.v[i].map_len);
        free(e->allocs.v[i].label);
    }
    free(e->allocs.v);
    if (e->heap) munmap(e->heap, e->heap_size);
    pthread_rwlock_destroy(&e->allocs.lock);
    free(e);
}

static const BackendOps EMU_OPS = {
    .name = "emu",
    .destroy = emu_destroy,
    .device_info = emu_device_info,
    .mem_alloc = emu_mem_alloc,
    .mem_free = emu_mem_free,
    .copy_to_device = emu_copy_to_device,
    .copy_to_host = emu_copy_to_host,
    .memset = emu_memset,
    .module_load = emu_module_load,
    .module_unload = emu_module_unload,
    .launch = emu_launch,
    .peak_copy_gbs = emu_peak_copy_gbs,
};

Backend *emu_backend_new(const EmuOptions *opts, Diag **why) {
    *why = NULL;
    EmuBackend *e = xcalloc(1, sizeof *e);
    e->base.ops = &EMU_OPS;
    if (opts) e->opts = *opts;
    else { e->opts.metrics = true; e->opts.checks = true; }
    const char *env = getenv("CUDOJO_EMU_THREADS");
    if (env && *env) {
        char *end;
        long n = strtol(env, &end, 10);
        if (!*end && n >= 0 && n <= 1024) e->opts.threads = (int)n;
    }
    pthread_rwlock_init(&e->allocs.lock, NULL);
    return &e->base;
}
