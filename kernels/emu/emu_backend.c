/* kernels/emu/emu_backend.c: the PTX emulator as a Backend.
 *
 * Device memory is host memory mapped with a guard zone before and a red
 * zone after each allocation, so an access just past either end lands in
 * memory we own and is reported by name ("read a[1000064] but a has 1000003
 * elements", "read a[-1]") instead of touching someone else's data. A view
 * (mem_view) maps the parent's pages a second time between guards of its
 * own, so its bounds are checked as an array of its own. Modules are parsed and every kernel decoded
 * at load time, so a PTX problem shows before anything runs. A launch is
 * validated like a GPU launch, then blocks run on the backend's pool of host
 * threads (emu_run.c, emu_pool.c), and findings, metrics and printf output
 * go into the report.
 *
 * Streams, events and asynchronous copies (emu_streams.c): every operation
 * runs at once, in program order, so results are exact; the scheduler keeps
 * the modeled timeline of when it would have run on the profile's GPU. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/i18n.h"
#include "base/number.h"
#include "base/xalloc.h"
#include "kernels/emu/emu.h"
#include "kernels/emu/emu_pool.h"
#include "kernels/emu/emu_run.h"
#include "kernels/emu/emu_streams.h"
#include "kernels/emu/emu_trace.h"
#include "kernels/emu/emu_trace_rec.h"
#include "kernels/host_pool.h"
#include "kernels/profiles.h"

typedef struct EmuBackend {
    Backend base;
    EmuOptions opts;
    EmuOptions opened;              /* the options it was opened with (emu_options_set(NULL)) */
    AllocTable allocs;
    unsigned char *heap;
    size_t heap_size;
    EmuSched *sched;                /* streams, events, the modeled timeline */
    EmuTraceRec *trace;             /* the warp debugger's armed recorder (emu_trace.c), or NULL */
    EmuPool *pool;                  /* host threads for the blocks of launches (emu_pool.c), made on first use */
    HostPool *host_pool;            /* the Lua arrays' big host buffers (kernels/host_pool.h), made on first use */
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
/* The metrics' L1 model's name and place for a new allocation (Alloc.l1_*,
 * emu_metrics.c l1_read): a fresh id, and the set of its first line from
 * its label and size, never its host address, so the L1's hits are the
 * same on every host and run. A view comes with its parent's. */
static void l1_place(AllocTable *t, Alloc *a) {
    if (a->l1_id) return;
    if (!++t->l1_ids) t->l1_ids = 1;
    a->l1_id = t->l1_ids;
    uint64_t h = 0xcbf29ce484222325ull;   /* FNV-1a */
    for (const char *c = a->label; c && *c; c++) h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
    a->l1_salt = (h ^ a->size) * 0x9e3779b97f4a7c15ull;
}

static void table_insert(AllocTable *t, Alloc a) {
    l1_place(t, &a);
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
    emu_init_forget(t, &t->v[i]);
    emu_xblock_forget(&t->v[i]);
    free(t->v[i].label);
    memmove(&t->v[i], &t->v[i + 1], sizeof *t->v * (size_t)(t->n - i - 1));
    t->n--;
}

/* The guard zone before every allocation: an access up to this far before
 * it is named as its element -k (report_global_oob looks this far back). */
#define GUARD_BEFORE 65536

static Diag *emu_mem_alloc(Backend *b, size_t bytes, const char *label, size_t elem, DevPtr *out) {
    EmuBackend *e = (EmuBackend *)b;
    *out = 0;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t red = bytes / 8 > 65536 ? bytes / 8 : 65536;
    size_t len = (GUARD_BEFORE + bytes + red + page - 1) / page * page;
    unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return diag_error("emu", N_("out of memory: cannot allocate %zu bytes for %s on the emulator"), bytes,
                          label ? label : "an array");
    Alloc a = {(uint64_t)(uintptr_t)(p + GUARD_BEFORE), bytes, (uint64_t)(uintptr_t)p + len, elem,
               xstrdup(label ? label : "array"), p, len, 0, NULL, NULL, false, 0, 0, 0};
    table_insert(&e->allocs, a);
    *out = a.base;
    return NULL;
}

/* Makes the allocation's mapping shared (its pages can then be mapped a
 * second time): a shared copy is moved over it, at the same addresses. */
static Diag *make_shareable(Alloc *a) {
    unsigned char *q = mmap(NULL, a->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (q == MAP_FAILED) return diag_error("emu", N_("out of memory: cannot share %s's pages for a view"), a->label);
    memcpy(q + (a->base - (uint64_t)(uintptr_t)a->map), (void *)(uintptr_t)a->base, a->size);
    if (mremap(q, a->map_len, a->map_len, MREMAP_MAYMOVE | MREMAP_FIXED, a->map) == MAP_FAILED) {
        munmap(q, a->map_len);
        return diag_error("emu", N_("cannot share %s's pages for a view"), a->label);
    }
    a->shared_map = true;
    return NULL;
}

static int table_find_exact(AllocTable *t, DevPtr p);

static Diag *emu_mem_view(Backend *b, DevPtr parent, size_t offset, size_t bytes, const char *label, size_t elem,
                          DevPtr *out) {
    EmuBackend *e = (EmuBackend *)b;
    *out = 0;
    pthread_rwlock_wrlock(&e->allocs.lock);
    int i = table_find_exact(&e->allocs, parent);
    Diag *d = NULL;
    if (i < 0 || !e->allocs.v[i].map)   /* (a view's reads are not checked for initialisation) */
        d = diag_error("emu", N_("invalid argument: a view needs an allocation of mem_alloc"));
    else if (offset > e->allocs.v[i].size || bytes > e->allocs.v[i].size - offset)
        d = diag_error("emu", N_("invalid argument: a view of %zu bytes at byte %zu of %s, which has %llu bytes"), bytes,
                       offset, e->allocs.v[i].label, (unsigned long long)e->allocs.v[i].size);
    else if (!e->allocs.v[i].shared_map)
        d = make_shareable(&e->allocs.v[i]);
    if (d) {
        pthread_rwlock_unlock(&e->allocs.lock);
        return d;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint64_t start = parent + offset, pstart = start / page * page;
    size_t plen = bytes ? (size_t)((start + bytes + page - 1) / page * page - pstart) : page;
    size_t red = bytes / 8 > 65536 ? bytes / 8 : 65536;
    size_t len = GUARD_BEFORE + plen + (red + page - 1) / page * page;
    unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED ||
        mremap((void *)(uintptr_t)pstart, 0, plen, MREMAP_MAYMOVE | MREMAP_FIXED, p + GUARD_BEFORE) == MAP_FAILED) {
        if (p != MAP_FAILED) munmap(p, len);
        pthread_rwlock_unlock(&e->allocs.lock);
        return diag_error("emu", N_("out of memory: cannot map a view of %zu bytes on the emulator"), bytes);
    }
    Alloc a = {(uint64_t)(uintptr_t)(p + GUARD_BEFORE) + (start - pstart), bytes, (uint64_t)(uintptr_t)p + len,
               elem, xstrdup(label ? label : "view"), p, len, 0, NULL, NULL, true, 0, 0, 0};
    const Alloc *parent_a = &e->allocs.v[i];   /* the L1 model sees the parent's lines */
    a.l1_id = parent_a->l1_id;
    a.l1_off = parent_a->l1_off + offset;
    a.l1_salt = parent_a->l1_salt;
    table_insert(&e->allocs, a);
    pthread_rwlock_unlock(&e->allocs.lock);
    *out = a.base;
    return NULL;
}

static Diag *emu_mem_register(Backend *b, void *host, size_t bytes, const char *label) {
    EmuBackend *e = (EmuBackend *)b;
    uint64_t base = (uint64_t)(uintptr_t)host;
    Alloc a = {base, bytes, base + bytes, 0, xstrdup(label ? label : "registered"), NULL, 0, 0, NULL, NULL, false,
               0, 0, 0};
    pthread_rwlock_wrlock(&e->allocs.lock);
    table_insert(&e->allocs, a);
    pthread_rwlock_unlock(&e->allocs.lock);
    return NULL;
}

static int table_find_exact(AllocTable *t, DevPtr p);

static void emu_mem_unregister(Backend *b, void *host) {
    EmuBackend *e = (EmuBackend *)b;
    pthread_rwlock_wrlock(&e->allocs.lock);
    int i = table_find_exact(&e->allocs, (DevPtr)(uintptr_t)host);
    if (i >= 0 && !e->allocs.v[i].map) table_remove(&e->allocs, i);
    pthread_rwlock_unlock(&e->allocs.lock);
}

static void emu_options_set(Backend *b, const EmuOptions *o) {
    EmuBackend *e = (EmuBackend *)b;
    int threads = e->opts.threads;
    e->opts = o ? *o : e->opened;
    e->opts.threads = threads;
}

static void emu_options_get(Backend *b, EmuOptions *out) { *out = ((EmuBackend *)b)->opts; }

static int table_find_exact(AllocTable *t, DevPtr p) {
    for (int i = 0; i < t->n; i++)
        if (t->v[i].base == p) return i;
    return -1;
}

static Diag *emu_mem_free(Backend *b, DevPtr p) {
    EmuBackend *e = (EmuBackend *)b;
    if (!p) return NULL;
    int i = table_find_exact(&e->allocs, p);
    if (i < 0 || !e->allocs.v[i].map) return diag_error("emu", N_("invalid argument: 0x%llx was not returned by mem_alloc"),
                                                         (unsigned long long)p);
    munmap(e->allocs.v[i].map, e->allocs.v[i].map_len);
    table_remove(&e->allocs, i);
    return NULL;
}

static Diag *check_range(EmuBackend *e, DevPtr p, size_t bytes, const char *what);

static Diag *emu_mem_track_init(Backend *b, DevPtr p, size_t bytes, bool written) {
    EmuBackend *e = (EmuBackend *)b;
    if (!bytes) return NULL;
    Diag *d = check_range(e, p, bytes, written ? N_("marking memory written") : N_("marking memory uninitialised"));
    if (d) return d;
    emu_init_track(&e->allocs, p, bytes, written);
    return NULL;
}

static Diag *check_range(EmuBackend *e, DevPtr p, size_t bytes, const char *what) {
    int i = emu_alloc_find(&e->allocs, p);
    if (i < 0 || p + bytes > e->allocs.v[i].base + e->allocs.v[i].size || p < e->allocs.v[i].base)
        return diag_error("emu", N_("invalid argument: %s of %zu bytes at 0x%llx is outside every allocation"), what,
                          bytes, (unsigned long long)p);
    return NULL;
}

/* "copy a -> device" for the timeline, from the allocation's label. */
static void op_name(EmuBackend *e, DevPtr p, const char *fmt, char *buf, size_t n) {
    int i = emu_alloc_find(&e->allocs, p);
    snprintf(buf, n, fmt, i >= 0 ? e->allocs.v[i].label : "memory");
}

/* The plain copies and memset are synchronous, on the legacy default
 * stream, from pageable memory: what cudaMemcpy/cudaMemset do. */
static Diag *emu_copy_to_device(Backend *b, DevPtr dst, const void *src, size_t bytes) {
    EmuBackend *e = (EmuBackend *)b;
    if (!bytes) return NULL;
    Diag *d = check_range(e, dst, bytes, N_("copy to device"));
    if (d) return d;
    memcpy((void *)(uintptr_t)dst, src, bytes);
    emu_init_track(&e->allocs, dst, bytes, true);
    char name[160];
    op_name(e, dst, "copy %.120s -> device", name, sizeof name);
    emu_sched_copy(e->sched, COPY_H2D, 0, bytes, false, name);
    return NULL;
}

static Diag *emu_copy_to_host(Backend *b, void *dst, DevPtr src, size_t bytes) {
    EmuBackend *e = (EmuBackend *)b;
    if (!bytes) return NULL;
    Diag *d = check_range(e, src, bytes, N_("copy to host"));
    if (d) return d;
    memcpy(dst, (const void *)(uintptr_t)src, bytes);
    char name[160];
    op_name(e, src, "copy %.120s -> host", name, sizeof name);
    emu_sched_copy(e->sched, COPY_D2H, 0, bytes, false, name);
    return NULL;
}

static Diag *emu_memset(Backend *b, DevPtr dst, int value, size_t bytes) {
    EmuBackend *e = (EmuBackend *)b;
    if (!bytes) return NULL;
    Diag *d = check_range(e, dst, bytes, "memset");
    if (d) return d;
    memset((void *)(uintptr_t)dst, value, bytes);
    emu_init_track(&e->allocs, dst, bytes, true);
    char name[160];
    op_name(e, dst, "memset %.120s", name, sizeof name);
    emu_sched_memset(e->sched, 0, bytes, false, name);
    return NULL;
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
    /* every entry: a Thrust program has hundreds (a kernel per algorithm,
     * type and policy), and a launch of one left out would find no kernel */
    int ne = emu_program_entries(*prog, NULL, 0);
    const char **names = xcalloc((size_t)(ne ? ne : 1), sizeof *names);
    emu_program_entries(*prog, names, ne);
    *kernels = xcalloc((size_t)(ne ? ne : 1), sizeof **kernels);
    for (int i = 0; i < ne; i++) {
        d = emu_kernel_decode(*prog, names[i], &(*kernels)[i]);
        if (d) {
            for (int j = 0; j < i; j++) emu_kernel_free(&(*kernels)[j]);
            free(*kernels);
            free(names);
            *kernels = NULL;
            emu_program_free(prog);
            return d;
        }
    }
    free(names);
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
    if (!cm || !cm->ptx) return diag_error("emu", N_("the module has no PTX"));
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
        Alloc a = {(uint64_t)(uintptr_t)v->data, v->size, (uint64_t)(uintptr_t)v->data + v->size, 0,
                   xstrdup(v->name), NULL, 0, 0, NULL, NULL, false, 0, 0, 0};
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

static Diag *launch_common(Backend *b, BackendModule *m, const char *kernel, const LaunchConfig *cfg,
                           const KernelArg *args, int nargs, const void *raw, size_t raw_size,
                           LaunchReport *report) {
    EmuBackend *e = (EmuBackend *)b;
    launch_report_init(report);
    const Kernel *k = find_kernel(m, kernel);
    if (!k) return diag_error("emu", N_("named symbol not found: the module has no kernel called %s"), kernel);
    if (!raw && k->n_params != nargs)
        return diag_error("emu", N_("invalid argument: kernel %s takes %d parameters but the launch passed %d"), kernel,
                          k->n_params, nargs);
    if (uses_malloc(k) && !e->heap) {
        e->heap_size = HEAP_SIZE;
        e->heap = mmap(NULL, e->heap_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (e->heap == MAP_FAILED) { e->heap = NULL; return diag_error("emu", N_("out of memory for the device heap")); }
        table_insert(&e->allocs, (Alloc){(uint64_t)(uintptr_t)e->heap, e->heap_size,
                                         (uint64_t)(uintptr_t)e->heap + e->heap_size, 1,
                                         xstrdup("the device heap (malloc)"), NULL, 0, 0, NULL, NULL, false, 0, 0, 0});
    }
    if (emu_trace_stops_launches(e->trace))
        return diag_error("emu", N_("the warp debugger has its trace: the run stops before this launch"));
    Diag *sd = emu_sched_stream_check(e->sched, cfg->stream);
    if (sd) return sd;
    EmuRunRequest rq = {
        .kernel = k, .allocs = &e->allocs, .cfg = cfg, .args = args, .nargs = nargs,
        .opts = &e->opts, .source_path = m->source_path, .source = m->source,
        .heap = e->heap, .heap_size = e->heap_size,
        .params_raw = raw, .params_raw_size = raw_size,
        .trace = emu_trace_wants(e->trace, kernel, k->name) ? e->trace : NULL,
        .pool = &e->pool,
    };
    Diag *d = emu_run(&rq, report);
    if (d) return d;
    /* The modeled duration comes from what this launch executed. */
    json_t *tot = report->metrics ? json_object_get(report->metrics, "totals") : NULL;
    uint64_t wi = (uint64_t)json_integer_value(json_object_get(tot, "warp_instructions"));
    uint64_t sec = (uint64_t)json_integer_value(json_object_get(tot, "global_sectors"));
    emu_sched_kernel(e->sched, cfg->stream, cfg->async, kernel, cfg->grid, cfg->block, wi, sec, cfg->extra_us,
                     cfg->host_fraction);
    return NULL;
}

static Diag *emu_launch(Backend *b, BackendModule *m, const char *kernel, const LaunchConfig *cfg,
                        const KernelArg *args, int nargs, LaunchReport *report) {
    return launch_common(b, m, kernel, cfg, args, nargs, NULL, 0, report);
}

Diag *emu_launch_raw(Backend *b, BackendModule *m, const char *kernel, const LaunchConfig *cfg, const void *params,
                     size_t size, LaunchReport *report) {
    return launch_common(b, m, kernel, cfg, NULL, 0, params ? params : "", size, report);
}

bool emu_module_kernel_info(const BackendModule *m, const char *kernel, EmuKernelInfo *out) {
    const Kernel *k = find_kernel((BackendModule *)m, kernel);
    memset(out, 0, sizeof *out);
    if (!k) return false;
    out->n_params = k->n_params;
    out->param_offsets = k->param_offsets;
    out->param_sizes = k->param_sizes;
    out->param_size = k->param_size;
    for (int i = 0; i < k->n_code && !out->first_line; i++) out->first_line = k->code[i].line;
    out->shared_static = k->shared_static;
    out->local_size = k->local_size;
    out->n_regs = k->n_regs;
    out->maxntid = k->maxntid;
    return true;
}

bool emu_module_var(const BackendModule *m, const char *name, DevPtr *addr, size_t *size) {
    for (int i = 0; i < m->prog->n_vars; i++) {
        const ModVar *v = &m->prog->vars[i];
        if (v->space == SP_SHARED || !v->data || strcmp(v->name, name)) continue;
        *addr = (DevPtr)(uintptr_t)v->data;
        *size = v->size;
        return true;
    }
    return false;
}

void emu_model_copy(Backend *b, CopyDir dir, int stream, size_t bytes, bool pinned, const char *name) {
    emu_sched_copy(((EmuBackend *)b)->sched, dir, stream, bytes, pinned, name ? name : "copy");
}

void emu_model_memset(Backend *b, int stream, size_t bytes, bool async, const char *name) {
    emu_sched_memset(((EmuBackend *)b)->sched, stream, bytes, async, name ? name : "memset");
}

double emu_model_host_now(Backend *b) { return emu_sched_host_now(((EmuBackend *)b)->sched); }
void emu_model_host_catch_up(Backend *b, double us) { emu_sched_host_catch_up(((EmuBackend *)b)->sched, us); }

void emu_model_graph_begin(Backend *b) { emu_sched_graph_begin(((EmuBackend *)b)->sched); }
void emu_model_graph_end(Backend *b) { emu_sched_graph_end(((EmuBackend *)b)->sched); }

Diag *emu_stream_query(Backend *b, int stream, bool *done) {
    return emu_sched_stream_query(((EmuBackend *)b)->sched, stream, done);
}

Diag *emu_stream_wait_event(Backend *b, int stream, int event) {
    return emu_sched_stream_wait_event(((EmuBackend *)b)->sched, stream, event);
}

void emu_alloc_set_label(Backend *b, DevPtr p, const char *label) {
    EmuBackend *e = (EmuBackend *)b;
    int i = table_find_exact(&e->allocs, p);
    if (i < 0 || !label || !strcmp(e->allocs.v[i].label, label)) return;
    pthread_rwlock_wrlock(&e->allocs.lock);
    free(e->allocs.v[i].label);
    e->allocs.v[i].label = xstrdup(label);
    pthread_rwlock_unlock(&e->allocs.lock);
}

static void emu_destroy(Backend *b) {
    EmuBackend *e = (EmuBackend *)b;
    for (int i = 0; i < e->allocs.n; i++) {
        if (e->allocs.v[i].map) munmap(e->allocs.v[i].map, e->allocs.v[i].map_len);
        emu_init_forget(&e->allocs, &e->allocs.v[i]);
        emu_xblock_forget(&e->allocs.v[i]);
        free(e->allocs.v[i].label);
    }
    free(e->allocs.v);
    if (e->heap) munmap(e->heap, e->heap_size);
    pthread_rwlock_destroy(&e->allocs.lock);
    emu_sched_free(&e->sched);
    emu_trace_rec_free(&e->trace);
    emu_pool_free(&e->pool);
    host_pool_free(&e->host_pool);
    free(e);
}

/* ---- streams, events, asynchronous work ------------------------------------------------ */
static EmuSched *sched(Backend *b) { return ((EmuBackend *)b)->sched; }

static Diag *emu_stream_create(Backend *b, const StreamOptions *o, int *out) {
    return emu_sched_stream_create(sched(b), o, out);
}
static Diag *emu_stream_destroy(Backend *b, int s) { return emu_sched_stream_destroy(sched(b), s); }
static Diag *emu_stream_synchronize(Backend *b, int s) { return emu_sched_stream_synchronize(sched(b), s); }
static Diag *emu_device_synchronize(Backend *b) {
    emu_sched_device_synchronize(sched(b));
    return NULL;
}
static Diag *emu_event_create(Backend *b, int *out) { return emu_sched_event_create(sched(b), out); }
static Diag *emu_event_destroy(Backend *b, int ev) { return emu_sched_event_destroy(sched(b), ev); }
static Diag *emu_event_record(Backend *b, int ev, int s) { return emu_sched_event_record(sched(b), ev, s); }
static Diag *emu_event_synchronize(Backend *b, int ev) { return emu_sched_event_synchronize(sched(b), ev); }
static Diag *emu_event_query(Backend *b, int ev, bool *done) { return emu_sched_event_query(sched(b), ev, done); }

static Diag *emu_event_elapsed_ms(Backend *b, int ev0, int ev1, double *ms, bool *modeled) {
    *modeled = true;
    return emu_sched_event_elapsed_ms(sched(b), ev0, ev1, ms);
}

/* Host memory is host memory here; "pinned" only changes the model. */
static Diag *emu_host_alloc(Backend *b, size_t bytes, void **out) {
    (void)b;
    *out = calloc(bytes ? bytes : 1, 1);
    return *out ? NULL : diag_error("emu", N_("out of host memory for %zu pinned bytes"), bytes);
}

static void emu_host_free(Backend *b, void *p) {
    (void)b;
    free(p);
}

/* The arrays' host buffers: plain memory (calloc's big blocks are fresh,
 * zeroed pages), kept by the pool between runs. */
static void *pool_calloc(void *ud, size_t bytes, bool *zeroed, int *tag) {
    (void)ud;
    *tag = 0;
    void *p = calloc(bytes, 1);
    *zeroed = p != NULL;
    return p;
}

static void pool_free(void *ud, void *p, size_t bytes, int tag) {
    (void)ud, (void)bytes, (void)tag;
    free(p);
}

static void *emu_host_buffer_take(Backend *b, size_t bytes, bool *zeroed) {
    EmuBackend *e = (EmuBackend *)b;
    if (!e->host_pool) e->host_pool = host_pool_new(host_pool_default_cap(), pool_calloc, pool_free, NULL);
    return host_pool_take(e->host_pool, bytes, zeroed);
}

static void emu_host_buffer_give(Backend *b, void *p) { host_pool_give(((EmuBackend *)b)->host_pool, p); }

static Diag *emu_copy_async(Backend *b, const CopyRequest *rq) {
    EmuBackend *e = (EmuBackend *)b;
    Diag *d = emu_sched_stream_check(e->sched, rq->stream);
    if (d || !rq->bytes) return d;
    char name[160];
    switch (rq->dir) {
    case COPY_H2D:
        if ((d = check_range(e, rq->dev, rq->bytes, N_("copy to device")))) return d;
        memcpy((void *)(uintptr_t)rq->dev, rq->host, rq->bytes);
        emu_init_track(&e->allocs, rq->dev, rq->bytes, true);
        op_name(e, rq->dev, "copy %.120s -> device", name, sizeof name);
        break;
    case COPY_D2H:
        if ((d = check_range(e, rq->dev, rq->bytes, N_("copy to host")))) return d;
        memcpy(rq->host, (const void *)(uintptr_t)rq->dev, rq->bytes);
        op_name(e, rq->dev, "copy %.120s -> host", name, sizeof name);
        break;
    default:
        if ((d = check_range(e, rq->dev, rq->bytes, N_("device copy destination")))) return d;
        if ((d = check_range(e, rq->dev_src, rq->bytes, N_("device copy source")))) return d;
        memmove((void *)(uintptr_t)rq->dev, (const void *)(uintptr_t)rq->dev_src, rq->bytes);
        emu_init_copy(&e->allocs, rq->dev, rq->dev_src, rq->bytes);
        op_name(e, rq->dev_src, "copy %.120s on device", name, sizeof name);
        break;
    }
    emu_sched_copy(e->sched, rq->dir, rq->stream, rq->bytes, rq->pinned, rq->name ? rq->name : name);
    return NULL;
}

static Diag *emu_memset_async(Backend *b, DevPtr dst, int value, size_t bytes, int stream, const char *label) {
    EmuBackend *e = (EmuBackend *)b;
    Diag *d = emu_sched_stream_check(e->sched, stream);
    if (d || !bytes) return d;
    if ((d = check_range(e, dst, bytes, "memset"))) return d;
    memset((void *)(uintptr_t)dst, value, bytes);
    emu_init_track(&e->allocs, dst, bytes, true);
    char name[160];
    op_name(e, dst, "memset %.120s", name, sizeof name);
    emu_sched_memset(e->sched, stream, bytes, true, label ? label : name);
    return NULL;
}

static void emu_host_work_begin(Backend *b, const char *name) { emu_sched_host_begin(sched(b), name); }
static void emu_host_work_end(Backend *b, double us) { emu_sched_host_end(sched(b), us); }
static void emu_timeline_reset(Backend *b) { emu_sched_reset(sched(b)); }

static Diag *emu_timeline_get(Backend *b, Timeline **out) {
    *out = timeline_copy(emu_sched_timeline(sched(b)));
    return NULL;
}

static const BackendOps EMU_OPS;

/* The warp debugger's recorder (emu_trace.h) is the backend's to hold. */
Diag *emu_trace_arm(Backend *b, const EmuTraceRequest *rq) {
    if (!b || b->ops != &EMU_OPS)
        return diag_error("debug", "the warp debugger needs the emulator (this backend is %s)",
                          b && b->ops ? b->ops->name : "none");
    EmuBackend *e = (EmuBackend *)b;
    emu_trace_rec_free(&e->trace);
    e->trace = emu_trace_rec_new(rq);
    return NULL;
}

EmuTrace *emu_trace_take(Backend *b) {
    if (!b || b->ops != &EMU_OPS) return NULL;
    EmuBackend *e = (EmuBackend *)b;
    if (!e->trace) return NULL;
    EmuTrace *t = emu_trace_rec_take(e->trace);
    emu_trace_rec_free(&e->trace);
    return t;
}

static const BackendOps EMU_OPS = {
    .name = "emu",
    .destroy = emu_destroy,
    .device_info = emu_device_info,
    .mem_alloc = emu_mem_alloc,
    .mem_track_init = emu_mem_track_init,
    .mem_free = emu_mem_free,
    .mem_register = emu_mem_register,
    .mem_unregister = emu_mem_unregister,
    .copy_to_device = emu_copy_to_device,
    .copy_to_host = emu_copy_to_host,
    .memset = emu_memset,
    .module_load = emu_module_load,
    .module_unload = emu_module_unload,
    .launch = emu_launch,
    .peak_copy_gbs = emu_peak_copy_gbs,
    .stream_create = emu_stream_create,
    .stream_destroy = emu_stream_destroy,
    .stream_synchronize = emu_stream_synchronize,
    .device_synchronize = emu_device_synchronize,
    .event_create = emu_event_create,
    .event_destroy = emu_event_destroy,
    .event_record = emu_event_record,
    .event_synchronize = emu_event_synchronize,
    .event_query = emu_event_query,
    .event_elapsed_ms = emu_event_elapsed_ms,
    .host_alloc = emu_host_alloc,
    .host_free = emu_host_free,
    .host_buffer_take = emu_host_buffer_take,
    .host_buffer_give = emu_host_buffer_give,
    .copy_async = emu_copy_async,
    .memset_async = emu_memset_async,
    .host_work_begin = emu_host_work_begin,
    .host_work_end = emu_host_work_end,
    .timeline_reset = emu_timeline_reset,
    .timeline_get = emu_timeline_get,
    .mem_view = emu_mem_view,
    .emu_options_set = emu_options_set,
    .emu_options_get = emu_options_get,
};

Backend *emu_backend_new(const EmuOptions *opts, Diag **why) {
    *why = NULL;
    EmuBackend *e = xcalloc(1, sizeof *e);
    e->base.ops = &EMU_OPS;
    if (opts) e->opts = *opts;
    else { e->opts.metrics = true; e->opts.checks = true; }
    e->opened = e->opts;
    const char *env = getenv("CUDOJO_EMU_THREADS");
    long long n;
    if (number_whole(env, 0, 1024, &n)) e->opts.threads = (int)n;
    pthread_rwlock_init(&e->allocs.lock, NULL);
    CostModel cm;
    costmodel_for_profile(profile_find("sm_90"), &cm);
    e->sched = emu_sched_new(&cm);
    return &e->base;
}
