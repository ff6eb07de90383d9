/* kernels/emurt/emurt_guard.c: host code that touches device memory
 * crashes, as it does on a GPU.
 *
 * cudaMalloc memory is ordinary host memory to the emulator, so `h = d_x[0]`
 * in host code would quietly work. While the program runs outside the
 * runtime (no thread inside a CUDA call), every cudaMalloc allocation is
 * mapped PROT_NONE; entering a call maps them back. A host access then
 * faults with SIGSEGV, and the crash handler (kernels/progwire.c) first
 * writes a finding that names the allocation ("alloc1+16 is device memory
 * ..."). Pinned and managed memory stay accessible, as on a GPU.
 *
 * Cost: mprotect takes time in proportion to the pages it changes (about
 * 40 µs per MiB and call here), so only the first GUARD_BYTES of each
 * allocation are protected — a host loop over d_x, or d_x[0], starts there
 * — and calls that touch no device memory (error queries, polling) leave
 * the guard shut. With more than GUARD_MAX allocations (or
 * CUDOJO_EMU_GUARD=0) nothing is protected. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kernels/emurt/emurt_internal.h"

#define GUARD_MAX 64
#define GUARD_BYTES ((size_t)64 << 10)

typedef struct Guarded {
    uintptr_t base;
    size_t len;
} Guarded;

static Guarded g_guarded[GUARD_MAX];
static int g_n_guarded;
static int g_enabled = -1;

static bool enabled(void) {
    if (g_enabled < 0) {
        const char *v = getenv("CUDOJO_EMU_GUARD");
        g_enabled = !(v && v[0] == '0');
    }
    return g_enabled;
}

void rt_guard_open(void) {
    rt_um_enter(); /* managed memory's CPU page faults since the last call (emurt_um.c) */
    for (int i = 0; i < g_n_guarded; i++)
        mprotect((void *)g_guarded[i].base, g_guarded[i].len, PROT_READ | PROT_WRITE);
    g_n_guarded = 0;
}

void rt_guard_close(void) {
    rt_um_leave(); /* managed pages get the protection host code sees (emurt_um.c) */
    if (!enabled() || g_n_guarded) return; /* shut already (a pure call) */
    int n = 0;
    for (int i = 0; i < g_rt.n_allocs; i++) n += g_rt.allocs[i].kind == RT_MEM_DEVICE;
    if (!n || n > GUARD_MAX) return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < g_rt.n_allocs; i++) {
        const RtAlloc *a = &g_rt.allocs[i];
        if (a->kind != RT_MEM_DEVICE || a->base % page || !a->size) continue;
        size_t len = (a->size + page - 1) / page * page;
        if (len > GUARD_BYTES) len = GUARD_BYTES;
        if (mprotect((void *)a->base, len, PROT_NONE) == 0) g_guarded[g_n_guarded++] = (Guarded){a->base, len};
    }
}

/* ---- the finding, from the signal handler (no allocation, no locks, no stdio) ---- */
typedef struct Buf {
    char *p;
    size_t n, cap;
} Buf;

static void put(Buf *b, const char *s) {
    while (*s && b->n + 1 < b->cap) b->p[b->n++] = *s++;
}

static void put_dec(Buf *b, uint64_t v) {
    char t[24];
    int i = 23;
    t[i] = 0;
    do {
        t[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(b, t + i);
}

/* JSON-safe: the names are ours ("alloc3", a symbol name) */
static void put_name(Buf *b, const char *s) {
    for (; *s && b->n + 1 < b->cap; s++)
        if (*s != '"' && *s != '\\' && (unsigned char)*s >= 0x20) b->p[b->n++] = *s;
}

static size_t crash_note(int sig, uintptr_t addr, char *buf, size_t n) {
    if (sig != SIGSEGV && sig != SIGBUS) return 0;
    const Guarded *hit = NULL;
    for (int i = 0; i < g_n_guarded; i++)
        if (addr >= g_guarded[i].base && addr < g_guarded[i].base + g_guarded[i].len) hit = &g_guarded[i];
    if (!hit) return 0;
    const RtAlloc *a = NULL;
    for (int i = 0; i < g_rt.n_allocs; i++)
        if (g_rt.allocs[i].base == hit->base) a = &g_rt.allocs[i];
    if (!a) return 0;
    Buf b = {buf, 0, n};
    put(&b, "{\"type\":\"finding\",\"diag\":[{\"severity\":\"error\",\"code\":\"host-deref-device\",\"message\":\"");
    put(&b, "The host code touched ");
    put_name(&b, a->name);
    put(&b, "+");
    put_dec(&b, addr - a->base);
    put(&b, ", which is device memory (from cudaMalloc, ");
    put_dec(&b, a->size);
    put(&b, " bytes): the CPU cannot read or write it, so on a GPU the program crashes here too. "
            "Copy the data to a host array with cudaMemcpy first (or use cudaMallocManaged).\"}]}\n");
    return b.n + 1 < n ? b.n : 0;
}

void rt_guard_init(void) {
    progwire_set_crash_note(crash_note);
    rt_um_init(); /* after progwire's crash handler, which the managed-page handler chains to */
}
