/* tests/support/fake_backend.c: a host-memory Backend whose kernels are C
 * functions (see fake_backend.h). */
#include "tests/support/fake_backend.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

typedef struct FakeAlloc {
    unsigned char *p;
    size_t bytes;
    char *label;
    size_t elem;
    bool live;
} FakeAlloc;

typedef struct FakeKernel {
    char *name;
    FakeKernelFn fn;
    void *user;
} FakeKernel;

typedef struct Fake {
    Backend base;
    BackendOps ops;                 /* per instance, so the name can change */
    char name[32];
    FakeAlloc *allocs;
    int n_allocs;
    FakeKernel *kernels;
    int n_kernels;
    Diag *next_findings;
    char *next_failure;
    json_t *next_metrics;
    double time_ms;
    int launches;
} Fake;

struct BackendModule {
    const CompiledModule *cm;
};

static Fake *fake_of(Backend *b) { return (Fake *)b; }

static void fake_destroy(Backend *b) {
    Fake *f = fake_of(b);
    for (int i = 0; i < f->n_allocs; i++) {
        free(f->allocs[i].p);
        free(f->allocs[i].label);
    }
    free(f->allocs);
    for (int i = 0; i < f->n_kernels; i++) free(f->kernels[i].name);
    free(f->kernels);
    diag_free(&f->next_findings);
    free(f->next_failure);
    if (f->next_metrics) json_decref(f->next_metrics);
    free(f);
}

static Diag *fake_device_info(Backend *b, DeviceInfo *out) {
    (void)b;
    memset(out, 0, sizeof *out);
    strcpy(out->name, "cudojo fake backend");
    out->cc_major = 8;
    out->cc_minor = 0;
    out->sm_count = 2;
    out->global_mem = (size_t)1 << 30;
    out->shared_per_block = 48 << 10;
    out->max_threads_per_block = 1024;
    out->max_threads_per_sm = 2048;
    out->warp_size = 32;
    return NULL;
}

static Diag *fake_alloc(Backend *b, size_t bytes, const char *label, size_t elem, DevPtr *out) {
    Fake *f = fake_of(b);
    FakeAlloc a = {xcalloc(bytes ? bytes : 1, 1), bytes, xstrdup(label), elem, true};
    f->allocs = xrealloc(f->allocs, (size_t)(f->n_allocs + 1) * sizeof *f->allocs);
    f->allocs[f->n_allocs++] = a;
    *out = (DevPtr)(uintptr_t)a.p;
    return NULL;
}

/* The live allocation holding [p, p+bytes), or NULL. */
static FakeAlloc *find(Fake *f, DevPtr p, size_t bytes) {
    for (int i = 0; i < f->n_allocs; i++) {
        FakeAlloc *a = &f->allocs[i];
        uintptr_t lo = (uintptr_t)a->p;
        if (a->live && p >= lo && p + bytes <= lo + a->bytes) return a;
    }
    return NULL;
}

static Diag *fake_free(Backend *b, DevPtr p) {
    Fake *f = fake_of(b);
    for (int i = 0; i < f->n_allocs; i++) {
        FakeAlloc *a = &f->allocs[i];
        if (a->live && (uintptr_t)a->p == p) {
            a->live = false;
            XFREE(a->p);
            return NULL;
        }
    }
    return diag_error("fake", "fake backend: free of %#llx, which is not a live allocation", (unsigned long long)p);
}

static Diag *fake_to_device(Backend *b, DevPtr dst, const void *src, size_t bytes) {
    if (!find(fake_of(b), dst, bytes)) return diag_error("fake", "fake backend: copy to device out of range");
    memcpy((void *)(uintptr_t)dst, src, bytes);
    return NULL;
}

static Diag *fake_to_host(Backend *b, void *dst, DevPtr src, size_t bytes) {
    if (!find(fake_of(b), src, bytes)) return diag_error("fake", "fake backend: copy to host out of range");
    memcpy(dst, (const void *)(uintptr_t)src, bytes);
    return NULL;
}

static Diag *fake_memset(Backend *b, DevPtr dst, int value, size_t bytes) {
    if (!find(fake_of(b), dst, bytes)) return diag_error("fake", "fake backend: memset out of range");
    memset((void *)(uintptr_t)dst, value, bytes);
    return NULL;
}

static Diag *fake_module_load(Backend *b, const CompiledModule *m, BackendModule **out) {
    (void)b;
    *out = xcalloc(1, sizeof **out);
    (*out)->cm = m;
    return NULL;
}

static void fake_module_unload(Backend *b, BackendModule **m) {
    (void)b;
    XFREE(*m);
}

static Diag *fake_launch(Backend *b, BackendModule *m, const char *kernel, const LaunchConfig *cfg,
                         const KernelArg *args, int nargs, LaunchReport *report) {
    Fake *f = fake_of(b);
    if (!m || !m->cm) return diag_error("fake", "fake backend: launch without a module");
    f->launches++;
    report->findings = f->next_findings;
    f->next_findings = NULL;
    report->metrics = f->next_metrics;
    f->next_metrics = NULL;
    if (f->next_failure) {
        Diag *d = diag_error("launch", "%s", f->next_failure);
        XFREE(f->next_failure);
        return d;
    }
    for (int i = 0; i < f->n_kernels; i++) {
        if (!strcmp(f->kernels[i].name, kernel)) {
            f->kernels[i].fn(cfg->grid, cfg->block, args, nargs, f->kernels[i].user);
            if (cfg->timed_reps > 0 && f->time_ms >= 0) {
                report->ms_median = report->ms_min = f->time_ms;
                report->reps = cfg->timed_reps;
            }
            return NULL;
        }
    }
    return diag_error("fake", "fake backend: no C function registered for kernel '%s'", kernel);
}

static double fake_peak(Backend *b) {
    (void)b;
    return 1000.0;
}

Backend *fake_backend_new(void) {
    Fake *f = xcalloc(1, sizeof *f);
    strcpy(f->name, "fake");
    f->ops = (BackendOps){
        .name = f->name,
        .destroy = fake_destroy,
        .device_info = fake_device_info,
        .mem_alloc = fake_alloc,
        .mem_free = fake_free,
        .copy_to_device = fake_to_device,
        .copy_to_host = fake_to_host,
        .memset = fake_memset,
        .module_load = fake_module_load,
        .module_unload = fake_module_unload,
        .launch = fake_launch,
        .peak_copy_gbs = fake_peak,
    };
    f->base.ops = &f->ops;
    f->time_ms = -1;
    return &f->base;
}

void fake_backend_register(Backend *b, const char *kernel, FakeKernelFn fn, void *user) {
    Fake *f = fake_of(b);
    f->kernels = xrealloc(f->kernels, (size_t)(f->n_kernels + 1) * sizeof *f->kernels);
    f->kernels[f->n_kernels++] = (FakeKernel){xstrdup(kernel), fn, user};
}

void fake_backend_queue_finding(Backend *b, Diag *finding) { diag_append(&fake_of(b)->next_findings, finding); }

void fake_backend_fail_next_launch(Backend *b, const char *message) {
    Fake *f = fake_of(b);
    free(f->next_failure);
    f->next_failure = xstrdup(message);
}

void fake_backend_set_time(Backend *b, double ms) { fake_of(b)->time_ms = ms; }

void fake_backend_set_name(Backend *b, const char *name) {
    Fake *f = fake_of(b);
    strncpy(f->name, name, sizeof f->name - 1);
}

void fake_backend_set_metrics(Backend *b, json_t *metrics) {
    Fake *f = fake_of(b);
    if (f->next_metrics) json_decref(f->next_metrics);
    f->next_metrics = metrics;
}

int fake_backend_live_allocations(const Backend *b) {
    const Fake *f = (const Fake *)b;
    int n = 0;
    for (int i = 0; i < f->n_allocs; i++) n += f->allocs[i].live;
    return n;
}

bool fake_backend_saw_label(const Backend *b, const char *label) {
    const Fake *f = (const Fake *)b;
    for (int i = 0; i < f->n_allocs; i++)
        if (f->allocs[i].label && !strcmp(f->allocs[i].label, label)) return true;
    return false;
}

int fake_backend_launches(const Backend *b) { return ((const Fake *)b)->launches; }
