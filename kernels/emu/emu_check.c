/* kernels/emu/emu_check.c: the checked path of memory accesses and the
 * findings it makes.
 *
 * One lane's access is resolved here when the whole-warp fast path
 * (emu_mem.c) cannot vouch for it: generic addresses by their window,
 * alignment, shared memory against the block's size (and the gap before
 * dynamic shared memory), local memory against the thread's frame, global
 * addresses against the allocation table. A bad access becomes a finding
 * that names the array, the index and its size, never a host crash. Also the
 * findings' bookkeeping (one per code and line, the smallest block/thread
 * as the example) and the names used in every message. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/xalloc.h"
#include "kernels/emu/emu_mem.h"

/* ---- findings -------------------------------------------------------------------- */
/* The (x,y,z) of linear thread tid of the block. */
void emu_thread_coords(const Worker *W, unsigned tid, unsigned out[3]) {
    unsigned bx = W->L->block.x, by = W->L->block.y;
    out[0] = tid % bx;
    out[1] = (tid / bx) % by;
    out[2] = tid / (bx * by);
}

Finding *emu_finding(Worker *W, const char *code, int sev, int line, uint64_t order) {
    for (int i = 0; i < W->nf; i++) {
        Finding *f = &W->f[i];
        if (f->line == line && !strcmp(f->code, code)) {
            f->count++;
            if (order >= f->order) return NULL;
            f->order = order;
            free(f->message);
            f->message = NULL;
            return f;
        }
    }
    if (W->nf == W->capf) {
        W->capf = W->capf ? W->capf * 2 : 16;
        W->f = xrealloc(W->f, sizeof *W->f * (size_t)W->capf);
    }
    Finding *f = &W->f[W->nf++];
    memset(f, 0, sizeof *f);
    snprintf(f->code, sizeof f->code, "%s", code);
    f->severity = sev;
    f->line = line;
    f->count = 1;
    f->order = order;
    return f;
}

void emu_report(Worker *W, Warp *w, int lane, const char *code, int sev, int line, const char *fmt, ...) {
    unsigned tid = (unsigned)(w->index * 32 + lane);
    Finding *f = emu_finding(W, code, sev, line, W->block_linear << 11 | tid);
    if (!f) return;
    memcpy(f->block, W->block, sizeof f->block);
    emu_thread_coords(W, tid, f->thread);
    va_list ap;
    va_start(ap, fmt);
    f->message = xvasprintf(fmt, ap);
    va_end(ap);
}

/* The thread and block of a lane, for THR. */
void emu_thread_args(const Worker *W, const Warp *w, int lane, unsigned c[6]) {
    emu_thread_coords(W, (unsigned)(w->index * 32 + lane), c);
    c[3] = W->block[0];
    c[4] = W->block[1];
    c[5] = W->block[2];
}

/* Bytes one lane moves: a float4 load is one 16-byte element (0: unknown). */
static size_t access_width(const Instr *in) {
    return in && in->size ? (size_t)in->size * (in->vec > 1 ? (size_t)in->vec : 1) : 0;
}

/* The shared variable at (or just before) byte off, indexed in the access's units. */
void emu_shared_name(const Worker *W, const Instr *in, uint64_t off, char *buf, size_t n) {
    const SharedVar *best = NULL;
    for (int i = 0; i < W->k->n_svars; i++) {
        const SharedVar *v = &W->k->svars[i];
        if (v->off <= off && (!best || v->off >= best->off)) best = v;
    }
    if (!best) { snprintf(buf, n, N_("shared memory byte %llu"), (unsigned long long)off); return; }
    /* PTX declares shared arrays as bytes: index in units of the access (a
     * float4 access counts float4s, as the source's index does) */
    size_t elem = access_width(in) ? access_width(in) : best->elem;
    snprintf(buf, n, "%s[%llu]", best->name, (unsigned long long)((off - best->off) / elem));
}

static size_t shared_elems(const Worker *W, const Instr *in, uint64_t off, const char **name) {
    const SharedVar *best = NULL;
    for (int i = 0; i < W->k->n_svars; i++) {
        const SharedVar *v = &W->k->svars[i];
        if (v->off <= off && (!best || v->off >= best->off)) best = v;
    }
    if (!best) { *name = NULL; return 0; }
    *name = best->name;
    size_t size = best->size ? best->size : W->L->dyn_shared;
    return size / (access_width(in) ? access_width(in) : best->elem);
}

/* Where a misaligned address points, for the message: "in + 4 bytes",
 * "tile + 8 bytes (shared)", or the raw address when it is in no array. */
static void name_address(Worker *W, const Instr *in, int space, uint64_t addr, char *buf, size_t n) {
    if (space == SP_SHARED) {
        const SharedVar *best = NULL;
        for (int i = 0; i < W->k->n_svars; i++) {
            const SharedVar *v = &W->k->svars[i];
            if (v->off <= addr && (!best || v->off >= best->off)) best = v;
        }
        if (best) snprintf(buf, n, N_("%s + %llu bytes (shared memory)"), best->name, (unsigned long long)(addr - best->off));
        else snprintf(buf, n, N_("shared memory byte %llu"), (unsigned long long)addr);
        return;
    }
    if (space == SP_GLOBAL) {
        AllocTable *t = W->L->allocs;
        int i = emu_alloc_find(t, addr);
        if (i >= 0 && addr < t->v[i].end) {
            snprintf(buf, n, N_("%s + %llu bytes"), t->v[i].label, (unsigned long long)(addr - t->v[i].base));
            return;
        }
    }
    (void)in;
    snprintf(buf, n, N_("address 0x%llx"), (unsigned long long)addr);
}

/* ---- address resolution ------------------------------------------------------ */
/* Binary search of the sorted table: the last allocation starting at or below addr. */
int emu_alloc_find(AllocTable *t, uint64_t addr) {
    int lo = 0, hi = t->n - 1, best = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (t->v[mid].base <= addr) { best = mid; lo = mid + 1; }
        else hi = mid - 1;
    }
    return best;
}

static const char *verb(int kind) { return kind == ACC_READ ? N_("read") : kind == ACC_WRITE ? N_("wrote") : N_("atomically updated"); }

static void report_global_oob(Worker *W, Warp *w, int lane, const Instr *in, uint64_t addr, int bytes, int kind) {
    unsigned c[6];
    emu_thread_args(W, w, lane, c);
    AllocTable *t = W->L->allocs;
    int i = emu_alloc_find(t, addr);
    const Alloc *a = NULL;
    if (i >= 0 && addr < t->v[i].end) a = &t->v[i];
    else if (i + 1 < t->n && t->v[i + 1].base - addr <= 65536) a = &t->v[i + 1];
    const char *code = "oob-global";
    if (addr < 65536) {
        emu_report(W, w, lane, code, DIAG_ERROR, in->line,
                   N_(THR " %s %d bytes at address 0x%llx: that is a null (or nearly null) pointer."),
                   c[0], c[1], c[2], c[3], c[4], c[5], kind == ACC_READ ? N_("read") : N_("wrote"), bytes,
                   (unsigned long long)addr);
        return;
    }
    if (a) {
        /* elem 0: the allocation's type is unknown (a CUDA program's cudaMalloc): count in accesses */
        size_t elem = a->elem ? a->elem : access_width(in) ? access_width(in) : 1;
        int64_t off = (int64_t)(addr - a->base);
        int64_t idx = off >= 0 ? off / (int64_t)elem : -((-off + (int64_t)elem - 1) / (int64_t)elem);
        emu_report(W, w, lane, code, DIAG_ERROR, in->line,
                   N_(THR " %s %s[%lld] but %s has %llu element%s."),
                   c[0], c[1], c[2], c[3], c[4], c[5], kind == ACC_READ ? N_("read") : kind == ACC_WRITE ? N_("wrote") : N_("updated"),
                   a->label, (long long)idx, a->label, (unsigned long long)(a->size / elem), a->size / elem == 1 ? "" : "s");
        return;
    }
    emu_report(W, w, lane, code, DIAG_ERROR, in->line,
               N_(THR " %s address 0x%llx, which is not inside any allocation."),
               c[0], c[1], c[2], c[3], c[4], c[5], kind == ACC_READ ? N_("read") : N_("wrote"), (unsigned long long)addr);
}

/* Host pointer for `bytes` at `addr` in `space`, or NULL after reporting.
 * *shared_off is set for shared accesses (else stays UINT64_MAX). */
unsigned char *emu_mem_resolve(Worker *W, Warp *w, int lane, const Instr *in, int space, uint64_t addr,
                               int bytes, int kind, uint64_t *shared_off) {
    if (space == SP_GENERIC) {
        uint64_t win = addr & EMU_WIN_MASK;
        if (win == EMU_SHARED_WIN) { space = SP_SHARED; addr -= EMU_SHARED_WIN; }
        else if (win == EMU_LOCAL_WIN) { space = SP_LOCAL; addr -= EMU_LOCAL_WIN; }
        else space = SP_GLOBAL;
    }
    if (addr & (uint64_t)(bytes - 1)) {
        unsigned c[6];
        emu_thread_args(W, w, lane, c);
        char where[128];
        name_address(W, in, space, addr, where, sizeof where);
        emu_report(W, w, lane, "misaligned", DIAG_ERROR, in->line,
                   N_(THR " %s %d bytes at %s, which is not a multiple of %d: a %d-byte access needs a "
                      "%d-byte aligned address."),
                   c[0], c[1], c[2], c[3], c[4], c[5], kind == ACC_READ ? N_("read") : N_("wrote"), bytes, where, bytes,
                   bytes, bytes);
        return NULL;
    }
    switch (space) {
    case SP_SHARED:
        if (addr + (uint64_t)bytes > W->shared_size || addr >= W->shared_size ||
            (addr + (uint64_t)bytes > W->k->shared_static && addr < W->k->shared_dyn_off)) {
            unsigned c[6];
            emu_thread_args(W, w, lane, c);
            const char *var = NULL;
            size_t elems = addr < (1ull << 40) ? shared_elems(W, in, addr, &var) : 0;
            char nm[96];
            if (elems || (var && addr < (1ull << 40))) {
                emu_shared_name(W, in, addr, nm, sizeof nm);
                emu_report(W, w, lane, "oob-shared", DIAG_ERROR, in->line,
                           N_(THR " %s %s but %s has %zu element%s (in shared memory)."), c[0], c[1], c[2], c[3],
                           c[4], c[5], verb(kind), nm, var, elems, elems == 1 ? "" : "s");
            } else
                emu_report(W, w, lane, "oob-shared", DIAG_ERROR, in->line,
                           N_(THR " %s shared memory at byte %lld, but the block has only %zu bytes of shared memory."),
                           c[0], c[1], c[2], c[3], c[4], c[5], verb(kind), (long long)addr, W->shared_size);
            return NULL;
        }
        *shared_off = addr;
        return W->shared + addr;
    case SP_LOCAL: {
        size_t ls = W->k->local_size;
        if (addr + (uint64_t)bytes > ls || addr >= ls) {
            unsigned c[6];
            emu_thread_args(W, w, lane, c);
            emu_report(W, w, lane, "oob-local", DIAG_ERROR, in->line,
                       N_(THR " %s its local array at byte %lld, but the thread's local frame has %zu bytes."),
                       c[0], c[1], c[2], c[3], c[4], c[5], verb(kind), (long long)addr, ls);
            return NULL;
        }
        return W->local + (size_t)(w->index * 32 + lane) * ls + addr;
    }
    default: {
        AllocTable *t = W->L->allocs;
        if (W->hint >= 0 && W->hint < t->n) {
            const Alloc *a = &t->v[W->hint];
            if (addr >= a->base && addr + (uint64_t)bytes <= a->base + a->size) return (unsigned char *)(uintptr_t)addr;
        }
        int i = emu_alloc_find(t, addr);
        if (i >= 0 && addr + (uint64_t)bytes <= t->v[i].base + t->v[i].size) {
            W->hint = i;
            return (unsigned char *)(uintptr_t)addr;
        }
        report_global_oob(W, w, lane, in, addr, bytes, kind);
        return NULL;
    }
    }
}
