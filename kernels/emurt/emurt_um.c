/* kernels/emurt/emurt_um.c: the page model of managed memory — where each
 * 64 KiB page of a cudaMallocManaged allocation lives, the page faults and
 * migrations a GPU would take, and what they cost on the modeled timeline.
 *
 * A page is unpopulated (fresh), on the host, on the device, or duplicated
 * (read-mostly advice: valid on both). A kernel that is passed a pointer
 * into the allocation is taken to touch every page from there to its end:
 * each page not on the device is a GPU page fault, and a host page's bytes
 * migrate host -> device at pageable speed before the kernel, which also
 * stalls UM_FAULT_US per fault. Host code is seen for real: while the
 * program runs outside the runtime, device pages are PROT_NONE (duplicated
 * ones read-only), and the SIGSEGV handler below takes the CPU page fault —
 * the page moves to the host (its bytes device -> host) and the access
 * resumes. cudaMemPrefetchAsync moves pages without faults. Inside the
 * runtime (the emulator running a kernel, a copy) a protected page is opened
 * on first access and shut again when the call returns.
 *
 * Counts go to the worker as "um" records (kernels/progwire.h), which
 * t:program turns into r.um (lua/API.md); the same shape comes from CUPTI's
 * unified-memory counters on a GPU (kernels/cuda/inject_activity.c). The
 * numbers are a model: a GPU counts faults per fault group and 4 KiB CPU
 * page, so compare ratios, never exact counts. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/i18n.h"
#include "kernels/costmodel.h"
#include "kernels/emurt/emurt_internal.h"

#define UM_PAGE ((size_t)64 << 10)
#define UM_MAX 64
#define UM_FAULT_US 2.0 /* modeled stall per GPU page fault (fault handling, TLB shootdown) */

enum { PG_FRESH = 0, PG_HOST, PG_DEV, PG_DUP };

typedef struct UmRegion {
    uintptr_t base;                 /* 0: slot free */
    size_t size, n_pages;
    unsigned char *state;           /* PG_* per page */
    unsigned char *prot;            /* the protection the page has now: 0 none, 1 read, 2 read+write */
    bool read_mostly;
    int dev;
    char name[64];
} UmRegion;

static UmRegion g_um[UM_MAX];
static volatile long g_cpu_faults, g_cpu_d2h_pages; /* taken in the signal handler, flushed at the next call */
static struct sigaction g_old_segv;
static bool g_installed;

static UmRegion *region_of(uintptr_t p) {
    for (int i = 0; i < UM_MAX; i++)
        if (g_um[i].base && p >= g_um[i].base && p < g_um[i].base + g_um[i].size) return &g_um[i];
    return NULL;
}

static size_t page_len(const UmRegion *r, size_t i) {
    size_t off = i * UM_PAGE;
    return r->size - off < UM_PAGE ? r->size - off : UM_PAGE;
}

static int prot_bits(int prot) { return prot == 0 ? PROT_NONE : prot == 1 ? PROT_READ : PROT_READ | PROT_WRITE; }

/* Gives pages [from, to) of r protection `want`, one mprotect per run. */
static void set_prot(UmRegion *r, size_t from, size_t to, const unsigned char *want_of_state, unsigned char fixed) {
    size_t i = from;
    while (i < to) {
        unsigned char w = want_of_state ? want_of_state[r->state[i]] : fixed;
        if (r->prot[i] == w) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < to && (want_of_state ? want_of_state[r->state[j]] : fixed) == w && r->prot[j] != w) j++;
        size_t off = i * UM_PAGE, len = (j - i) * UM_PAGE;
        if (off + len > r->size) len = (r->size - off + 4095) & ~(size_t)4095;
        if (mprotect((void *)(r->base + off), len, prot_bits(w)) == 0) memset(r->prot + i, w, j - i);
        i = j;
    }
}

static void chain(int sig, siginfo_t *si, void *ctx) {
    if (g_old_segv.sa_flags & SA_RESETHAND) signal(sig, SIG_DFL); /* as the kernel would have done */
    if (g_old_segv.sa_flags & SA_SIGINFO) {
        if (g_old_segv.sa_sigaction) g_old_segv.sa_sigaction(sig, si, ctx);
        return;
    }
    if (g_old_segv.sa_handler == SIG_IGN) return;
    if (g_old_segv.sa_handler == SIG_DFL) {
        signal(sig, SIG_DFL); /* the access repeats and ends the process as it would have */
        return;
    }
    g_old_segv.sa_handler(sig);
}

/* SIGSEGV: a managed page the host (or, inside a call, the runtime) touched. */
static void on_segv(int sig, siginfo_t *si, void *ctx) {
    uintptr_t addr = (uintptr_t)si->si_addr;
    UmRegion *r = si->si_code == SEGV_ACCERR ? region_of(addr) : NULL;
    if (!r) {
        chain(sig, si, ctx);
        return;
    }
    size_t i = (addr - r->base) / UM_PAGE;
    if (__atomic_load_n(&g_rt.depth, __ATOMIC_RELAXED) > 0) {
        /* the runtime itself (a kernel on the emulator's threads, a copy): open the whole allocation */
        mprotect((void *)r->base, (r->size + 4095) & ~(size_t)4095, PROT_READ | PROT_WRITE);
        memset(r->prot, 2, r->n_pages);
        return;
    }
    /* host code: a CPU page fault; device bytes come back */
    if (r->state[i] == PG_DEV) __atomic_add_fetch(&g_cpu_d2h_pages, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&g_cpu_faults, 1, __ATOMIC_RELAXED);
    r->state[i] = PG_HOST;
    if (mprotect((void *)(r->base + i * UM_PAGE), (page_len(r, i) + 4095) & ~(size_t)4095, PROT_READ | PROT_WRITE) == 0)
        r->prot[i] = 2;
    else chain(sig, si, ctx);
}

void rt_um_init(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    g_installed = sigaction(SIGSEGV, &sa, &g_old_segv) == 0;
}

void rt_um_add(RtAlloc *a) {
    if (!g_installed || a->base % 4096) return;
    for (int k = 0; k < UM_MAX; k++) {
        UmRegion *r = &g_um[k];
        if (r->base) continue;
        r->size = a->size;
        r->n_pages = (a->size + UM_PAGE - 1) / UM_PAGE;
        r->state = calloc(r->n_pages, 1);
        r->prot = malloc(r->n_pages);
        if (!r->state || !r->prot) {
            free(r->state);
            free(r->prot);
            r->state = r->prot = NULL;
            return;
        }
        memset(r->prot, 2, r->n_pages);
        r->read_mostly = false;
        r->dev = a->dev;
        snprintf(r->name, sizeof r->name, "%s", a->name);
        __atomic_store_n(&r->base, a->base, __ATOMIC_RELEASE);
        return;
    }
}

void rt_um_forget(uintptr_t base) {
    for (int k = 0; k < UM_MAX; k++) {
        UmRegion *r = &g_um[k];
        if (r->base != base) continue;
        set_prot(r, 0, r->n_pages, NULL, 2);
        __atomic_store_n(&r->base, 0, __ATOMIC_RELEASE);
        free(r->state);
        free(r->prot);
        r->state = r->prot = NULL;
    }
}

void rt_um_set_read_mostly(const void *p, bool on) {
    UmRegion *r = region_of((uintptr_t)p);
    if (!r) return;
    r->read_mostly = on;
    if (!on)
        for (size_t i = 0; i < r->n_pages; i++)
            if (r->state[i] == PG_DUP) r->state[i] = PG_DEV;
}

static void send_um(const char *phase, long gpu_faults, long cpu_faults, size_t h2d, size_t d2h) {
    json_t *o = json_object();
    json_object_set_new(o, "phase", json_string(phase));
    /* kernel phase: the launch's own index in r.kernels; else the launches before */
    json_object_set_new(o, "kernel", json_integer(g_rt.kernels + (!strcmp(phase, "kernel") ? 1 : 0)));
    json_object_set_new(o, "gpu_faults", json_integer(gpu_faults));
    json_object_set_new(o, "cpu_faults", json_integer(cpu_faults));
    json_object_set_new(o, "h2d", json_integer((json_int_t)h2d));
    json_object_set_new(o, "d2h", json_integer((json_int_t)d2h));
    progwire_send("um", o);
}

/* Entering the runtime: the CPU faults taken since the last call go on the
 * timeline (the host waited for them) and to the worker. */
void rt_um_enter(void) {
    long faults = __atomic_exchange_n(&g_cpu_faults, 0, __ATOMIC_RELAXED);
    long pages = __atomic_exchange_n(&g_cpu_d2h_pages, 0, __ATOMIC_RELAXED);
    if (!faults) return;
    size_t bytes = (size_t)pages * UM_PAGE;
    if (bytes) {
        char name[96];
        snprintf(name, sizeof name, "CPU page faults: managed -> host (%ld faults)", faults);
        emu_model_copy(rt_backend(rt_current_device()), COPY_D2H, 0, bytes, false, name);
    }
    send_um("host", 0, faults, 0, bytes);
}

/* Leaving it (depth 1 -> 0): host code gets each page's protection. */
void rt_um_leave(void) {
    /* by state: fresh and device pages none, host pages read+write, duplicated read-only */
    static const unsigned char want[4] = {0, 2, 0, 1};
    for (int k = 0; k < UM_MAX; k++)
        if (g_um[k].base) set_prot(&g_um[k], 0, g_um[k].n_pages, want, 0);
}

/* Before a launch: the pages the kernel will touch move to the device.
 * Returns the modeled stall to add to the kernel (µs). */
double rt_um_kernel(const unsigned char *params, size_t psize, RtStream *s) {
    long faults = 0;
    size_t bytes = 0;
    char first[64] = "";
    for (size_t off = 0; off + 8 <= psize; off += 8) {
        uintptr_t v;
        memcpy(&v, params + off, 8);
        UmRegion *r = v ? region_of(v) : NULL;
        if (!r) continue;
        for (size_t i = (v - r->base) / UM_PAGE; i < r->n_pages; i++) {
            unsigned char st = r->state[i];
            if (st == PG_DEV || st == PG_DUP) continue;
            faults++;
            if (st == PG_HOST) bytes += page_len(r, i);
            r->state[i] = r->read_mostly && st == PG_HOST ? PG_DUP : PG_DEV;
            if (!first[0]) snprintf(first, sizeof first, "%s", r->name);
        }
    }
    if (!faults) return 0;
    if (bytes) {
        char name[160];
        snprintf(name, sizeof name, N_("GPU page faults: %s -> device (%ld faults)"), first, faults);
        emu_model_copy(rt_backend(s->dev), COPY_H2D, s->id, bytes, false, name);
    }
    send_um("kernel", faults, 0, bytes, 0);
    return faults * UM_FAULT_US;
}

/* cudaMemPrefetchAsync: pages of [p, p+count) move without faults.
 * Returns the bytes that moved (0: already there). */
size_t rt_um_prefetch(const void *p, size_t count, bool to_dev) {
    UmRegion *r = region_of((uintptr_t)p);
    if (!r || !count) return 0;
    size_t from = ((uintptr_t)p - r->base) / UM_PAGE;
    size_t to = ((uintptr_t)p - r->base + count + UM_PAGE - 1) / UM_PAGE;
    if (to > r->n_pages) to = r->n_pages;
    size_t bytes = 0;
    for (size_t i = from; i < to; i++) {
        unsigned char st = r->state[i];
        if (to_dev && (st == PG_HOST || st == PG_FRESH)) {
            if (st == PG_HOST) bytes += page_len(r, i);
            r->state[i] = r->read_mostly && st == PG_HOST ? PG_DUP : PG_DEV;
        } else if (!to_dev && st == PG_DEV) {
            bytes += page_len(r, i);
            r->state[i] = PG_HOST;
        } else if (!to_dev && st == PG_FRESH) r->state[i] = PG_HOST;
    }
    if (bytes) send_um("prefetch", 0, 0, to_dev ? bytes : 0, to_dev ? 0 : bytes);
    return bytes;
}

bool rt_um_tracked(const void *p) { return region_of((uintptr_t)p) != NULL; }

/* The share of a kernel's memory traffic that crosses the host link: its
 * pointer arguments into pinned (mapped, zero-copy) memory, weighed by the
 * bytes from the pointer to the end of each allocation. */
double rt_um_host_fraction(const unsigned char *params, size_t psize) {
    double host = 0, all = 0;
    for (size_t off = 0; off + 8 <= psize; off += 8) {
        uintptr_t v;
        memcpy(&v, params + off, 8);
        RtAlloc *a = v ? rt_alloc_find((void *)v) : NULL;
        if (!a || a->kind == RT_MEM_SYMBOL) continue;
        double n = (double)(a->base + a->size - v);
        all += n;
        if (a->kind == RT_MEM_PINNED) host += n;
    }
    return all > 0 ? host / all : 0;
}
