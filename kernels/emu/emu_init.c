/* kernels/emu/emu_init.c: which bytes of global memory were ever written,
 * so a kernel reading one that nothing wrote is reported (`uninit-global`),
 * as compute-sanitizer's initcheck does on a GPU.
 *
 * Lua arrays start zero-filled and count as written; an allocation made
 * with Backend.mem_track_init(..., false) (gpu.array{init = false}, the
 * emulator runtime's cudaMalloc) gets a bitmap, one bit per byte, set by
 * every way bytes get there: kernel stores and atomics (emu_mem.c), copies
 * and memsets (emu_backend.c, the runtime through mem_track_init(true)). A
 * device-to-device copy carries the source's bits. Blocks run on several
 * host threads, so bits are set with atomic ORs and read relaxed; a read
 * races a write of another block only where the kernel itself races. */
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/xalloc.h"
#include "kernels/emu/emu_worker.h"

static bool bit(const uint8_t *m, uint64_t i) {
    return __atomic_load_n(&m[i >> 3], __ATOMIC_RELAXED) >> (i & 7) & 1;
}

static void set_bits(uint8_t *m, uint64_t from, uint64_t n) {
    for (uint64_t i = from; i < from + n; i++) {
        uint8_t b = (uint8_t)(1u << (i & 7));
        if (!(__atomic_load_n(&m[i >> 3], __ATOMIC_RELAXED) & b)) __atomic_fetch_or(&m[i >> 3], b, __ATOMIC_RELAXED);
    }
}

static Alloc *holding(AllocTable *t, uint64_t addr, uint64_t n) {
    int i = emu_alloc_find(t, addr);
    if (i < 0 || addr + n > t->v[i].base + t->v[i].size) return NULL;
    return &t->v[i];
}

void emu_init_track(AllocTable *t, uint64_t addr, uint64_t n, bool written) {
    Alloc *a = holding(t, addr, n);
    if (!a || !n) return;
    if (written) {
        if (a->init) set_bits(a->init, addr - a->base, n);
        return;
    }
    if (!a->init) {
        a->init = xcalloc((size_t)((a->size + 7) / 8), 1);
        t->n_tracked++;
        /* everything else in the allocation was written already */
        if (addr > a->base) set_bits(a->init, 0, addr - a->base);
        uint64_t end = addr + n - a->base;
        if (end < a->size) set_bits(a->init, end, a->size - end);
        return;
    }
    for (uint64_t i = addr - a->base; i < addr - a->base + n; i++) a->init[i >> 3] &= (uint8_t)~(1u << (i & 7));
}

void emu_init_copy(AllocTable *t, uint64_t dst, uint64_t src, uint64_t n) {
    Alloc *d = holding(t, dst, n), *s = holding(t, src, n);
    if (!d || !d->init || !n) return;
    if (!s || !s->init) {
        set_bits(d->init, dst - d->base, n);
        return;
    }
    /* bit by bit, in the order memmove copies (overlap inside one allocation) */
    uint64_t so = src - s->base, dof = dst - d->base;
    bool down = d == s && dof > so;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t j = down ? n - 1 - k : k;
        uint8_t b = (uint8_t)(1u << ((dof + j) & 7));
        if (bit(s->init, so + j)) d->init[(dof + j) >> 3] |= b;
        else d->init[(dof + j) >> 3] &= (uint8_t)~b;
    }
}

void emu_init_forget(AllocTable *t, Alloc *a) {
    if (!a->init) return;
    free(a->init);
    a->init = NULL;
    t->n_tracked--;
}

Alloc *emu_init_alloc(Worker *W, uint64_t addr) {
    AllocTable *t = W->L->allocs;
    if (!t->n_tracked) return NULL;
    int i = W->hint;
    if (i < 0 || i >= t->n || addr < t->v[i].base || addr >= t->v[i].base + t->v[i].size) {
        i = emu_alloc_find(t, addr);
        if (i < 0 || addr >= t->v[i].base + t->v[i].size) return NULL;
    }
    return t->v[i].init ? &t->v[i] : NULL;
}

void emu_init_write(Alloc *a, uint64_t addr, int bytes) {
    uint64_t off = addr - a->base;
    if (off + (uint64_t)bytes <= a->size) set_bits(a->init, off, (uint64_t)bytes);
}

void emu_init_read(Worker *W, Warp *w, int lane, const Instr *in, const Alloc *a, uint64_t addr, int bytes) {
    uint64_t off = addr - a->base;
    if (off + (uint64_t)bytes > a->size) return;
    uint64_t first = UINT64_MAX;
    bool some_written = false;
    for (uint64_t i = off; i < off + (uint64_t)bytes; i++) {
        if (!bit(a->init, i)) { if (first == UINT64_MAX) first = i; }
        else some_written = true;
    }
    if (first == UINT64_MAX) return;
    /* A load that finds written bytes beside never-written ones reads a
     * struct with its padding (a thrust::tuple<int, long> is written as a
     * 4-byte and an 8-byte store and read back 8 bytes at a time; a
     * tuple<bool, long>'s bool as 1 byte, read back 4 at a time): the
     * padding's value is never used. */
    if (some_written) return;
    unsigned c[3];
    emu_thread_coords(W, (unsigned)(w->index * 32 + lane), c);
    size_t elem = a->elem ? a->elem : (size_t)bytes;
    emu_report(W, w, lane, "uninit-global", DIAG_ERROR, in->line,
               N_("thread (%u,%u,%u) of block (%u,%u,%u) read %s[%llu], which nothing has written: it holds whatever "
                  "the memory held before (garbage on a GPU). Copy data into it or write it in a kernel first."),
               c[0], c[1], c[2], W->block[0], W->block[1], W->block[2], a->label,
               (unsigned long long)(first / elem));
}
