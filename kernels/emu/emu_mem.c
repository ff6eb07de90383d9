/* kernels/emu/emu_mem.c: loads, stores, atomics and the native calls
 * (printf, malloc, free, assert), with every access checked.
 *
 * Global addresses are host addresses, looked up in the allocation table
 * (sorted; the last hit is cached) before anything is touched, so a wild
 * pointer becomes a finding that names the allocation and the index, never
 * a host crash. Shared and local addresses are offsets checked against the
 * block's shared size and the thread's frame. With checks on, every shared
 * word has a shadow that catches races and uninitialised reads; with
 * metrics on, each warp access adds sectors (global) or wavefronts (shared)
 * to its source line. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/emu/emu_worker.h"

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

#define THR "thread (%u,%u,%u) of block (%u,%u,%u)"

static void thr_args(Worker *W, Warp *w, int lane, unsigned c[6]) {
    emu_thread_coords(W, (unsigned)(w->index * 32 + lane), c);
    c[3] = W->block[0];
    c[4] = W->block[1];
    c[5] = W->block[2];
}

/* "s[5]" for shared byte `off`: the variable that holds it, or the one just
 * before it (an access past its end); "shared memory byte N" if none. */
/* Bytes one lane moves: a float4 load is one 16-byte element (0: unknown). */
static size_t access_width(const Instr *in) {
    return in && in->size ? (size_t)in->size * (in->vec > 1 ? (size_t)in->vec : 1) : 0;
}

static void shared_name(const Worker *W, const Instr *in, uint64_t off, char *buf, size_t n) {
    const SharedVar *best = NULL;
    for (int i = 0; i < W->k->n_svars; i++) {
        const SharedVar *v = &W->k->svars[i];
        if (v->off <= off && (!best || v->off >= best->off)) best = v;
    }
    if (!best) { snprintf(buf, n, "shared memory byte %llu", (unsigned long long)off); return; }
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
        if (best) snprintf(buf, n, "%s + %llu bytes (shared memory)", best->name, (unsigned long long)(addr - best->off));
        else snprintf(buf, n, "shared memory byte %llu", (unsigned long long)addr);
        return;
    }
    if (space == SP_GLOBAL) {
        AllocTable *t = W->L->allocs;
        int i = emu_alloc_find(t, addr);
        if (i >= 0 && addr < t->v[i].end) {
            snprintf(buf, n, "%s + %llu bytes", t->v[i].label, (unsigned long long)(addr - t->v[i].base));
            return;
        }
    }
    (void)in;
    snprintf(buf, n, "address 0x%llx", (unsigned long long)addr);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define EMU_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define EMU_CLONES
#endif

/* ---- address resolution ------------------------------------------------------ */
int emu_alloc_find(AllocTable *t, uint64_t addr) {
    int lo = 0, hi = t->n - 1, best = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (t->v[mid].base <= addr) { best = mid; lo = mid + 1; }
        else hi = mid - 1;
    }
    return best;
}

enum { ACC_READ, ACC_WRITE, ACC_ATOMIC };

static const char *verb(int kind) { return kind == ACC_READ ? "read" : kind == ACC_WRITE ? "wrote" : "atomically updated"; }

static void report_global_oob(Worker *W, Warp *w, int lane, const Instr *in, uint64_t addr, int bytes, int kind) {
    unsigned c[6];
    thr_args(W, w, lane, c);
    AllocTable *t = W->L->allocs;
    int i = emu_alloc_find(t, addr);
    const Alloc *a = NULL;
    if (i >= 0 && addr < t->v[i].end) a = &t->v[i];
    else if (i + 1 < t->n && t->v[i + 1].base - addr <= 65536) a = &t->v[i + 1];
    const char *code = "oob-global";
    if (addr < 65536) {
        emu_report(W, w, lane, code, DIAG_ERROR, in->line,
                   THR " %s %d bytes at address 0x%llx: that is a null (or nearly null) pointer.",
                   c[0], c[1], c[2], c[3], c[4], c[5], kind == ACC_READ ? "read" : "wrote", bytes,
                   (unsigned long long)addr);
        return;
    }
    if (a) {
        /* elem 0: the allocation's type is unknown (a CUDA program's cudaMalloc): count in accesses */
        size_t elem = a->elem ? a->elem : access_width(in) ? access_width(in) : 1;
        int64_t off = (int64_t)(addr - a->base);
        int64_t idx = off >= 0 ? off / (int64_t)elem : -((-off + (int64_t)elem - 1) / (int64_t)elem);
        emu_report(W, w, lane, code, DIAG_ERROR, in->line,
                   THR " %s %s[%lld] but %s has %llu elements.",
                   c[0], c[1], c[2], c[3], c[4], c[5], kind == ACC_READ ? "read" : kind == ACC_WRITE ? "wrote" : "updated",
                   a->label, (long long)idx, a->label, (unsigned long long)(a->size / elem));
        return;
    }
    emu_report(W, w, lane, code, DIAG_ERROR, in->line,
               THR " %s address 0x%llx, which is not inside any allocation.",
               c[0], c[1], c[2], c[3], c[4], c[5], kind == ACC_READ ? "read" : "wrote", (unsigned long long)addr);
}

/* Host pointer for `bytes` at `addr` in `space`, or NULL after reporting.
 * *shared_off is set for shared accesses (else stays UINT64_MAX). */
static unsigned char *resolve(Worker *W, Warp *w, int lane, const Instr *in, int space, uint64_t addr,
                              int bytes, int kind, uint64_t *shared_off) {
    if (space == SP_GENERIC) {
        uint64_t win = addr & EMU_WIN_MASK;
        if (win == EMU_SHARED_WIN) { space = SP_SHARED; addr -= EMU_SHARED_WIN; }
        else if (win == EMU_LOCAL_WIN) { space = SP_LOCAL; addr -= EMU_LOCAL_WIN; }
        else space = SP_GLOBAL;
    }
    if (addr & (uint64_t)(bytes - 1)) {
        unsigned c[6];
        thr_args(W, w, lane, c);
        char where[128];
        name_address(W, in, space, addr, where, sizeof where);
        emu_report(W, w, lane, "misaligned", DIAG_ERROR, in->line,
                   THR " %s %d bytes at %s, which is not a multiple of %d: a %d-byte access needs a "
                   "%d-byte aligned address.",
                   c[0], c[1], c[2], c[3], c[4], c[5], kind == ACC_READ ? "read" : "wrote", bytes, where, bytes,
                   bytes, bytes);
        return NULL;
    }
    switch (space) {
    case SP_SHARED:
        if (addr + (uint64_t)bytes > W->shared_size || addr >= W->shared_size ||
            (addr + (uint64_t)bytes > W->k->shared_static && addr < W->k->shared_dyn_off)) {
            unsigned c[6];
            thr_args(W, w, lane, c);
            const char *var = NULL;
            size_t elems = addr < (1ull << 40) ? shared_elems(W, in, addr, &var) : 0;
            char nm[96];
            if (elems || (var && addr < (1ull << 40))) {
                shared_name(W, in, addr, nm, sizeof nm);
                emu_report(W, w, lane, "oob-shared", DIAG_ERROR, in->line,
                           THR " %s %s but %s has %zu elements (in shared memory).", c[0], c[1], c[2], c[3],
                           c[4], c[5], verb(kind), nm, var, elems);
            } else
                emu_report(W, w, lane, "oob-shared", DIAG_ERROR, in->line,
                           THR " %s shared memory at byte %lld, but the block has only %zu bytes of shared memory.",
                           c[0], c[1], c[2], c[3], c[4], c[5], verb(kind), (long long)addr, W->shared_size);
            return NULL;
        }
        *shared_off = addr;
        return W->shared + addr;
    case SP_LOCAL: {
        size_t ls = W->k->local_size;
        if (addr + (uint64_t)bytes > ls || addr >= ls) {
            unsigned c[6];
            thr_args(W, w, lane, c);
            emu_report(W, w, lane, "oob-local", DIAG_ERROR, in->line,
                       THR " %s its local array at byte %lld, but the thread's local frame has %zu bytes.",
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

/* ---- shared-memory shadow ------------------------------------------------------- */
/* A race between this access (line in->line) and another thread's access at
 * other_line; reported at the later of the two lines, where the missing
 * barrier belongs before. */
static void race_report(Worker *W, Warp *w, int lane, const Instr *in, uint64_t off, const char *what,
                        unsigned other, int other_line, bool same_warp) {
    unsigned c[6], o[3];
    thr_args(W, w, lane, c);
    emu_thread_coords(W, other, o);
    int line = other_line > in->line ? other_line : in->line;
    int first = other_line > 0 && other_line < in->line ? other_line : in->line;
    char lines[64], nm[80];
    shared_name(W, in, off, nm, sizeof nm);
    if (other_line > 0 && other_line != in->line) snprintf(lines, sizeof lines, "lines %d and %d", first, line);
    else snprintf(lines, sizeof lines, "line %d", line);
    if (same_warp)
        emu_report(W, w, lane, "race-warp", DIAG_WARNING, line,
                   "Intra-warp hazard (%s, %s): " THR " and thread (%u,%u,%u) of the same warp access %s "
                   "with no __syncwarp() in between; since Volta the lanes of a warp are not "
                   "guaranteed to run in lockstep.", what, lines, c[0], c[1], c[2], c[3], c[4], c[5], o[0], o[1],
                   o[2], nm);
    else
        emu_report(W, w, lane, "race-shared", DIAG_ERROR, line,
                   "Shared-memory race (%s, %s): " THR " and thread (%u,%u,%u) access %s "
                   "with no __syncthreads() in between.", what, lines, c[0], c[1], c[2], c[3], c[4], c[5], o[0],
                   o[1], o[2], nm);
}

/* Records a read of `mask` by tid: two readers per epoch are remembered,
 * each with the bytes it read. */
static inline void note_read(Shadow *s, uint32_t ep, uint16_t tid, uint8_t mask, const Warp *w, int line) {
    if (s->r_epoch != ep) {
        s->r_epoch = ep;
        s->r_tid = s->r_tid2 = tid;
        s->r_mask = s->r_mask2 = mask;
        s->r_atomic = 0;
        s->r_wsync = w->wsync;
        s->r_line = line;
    } else if (s->r_tid == tid) {
        s->r_mask |= mask;
    } else {
        s->r_mask2 = s->r_tid2 == tid ? (uint8_t)(s->r_mask2 | mask) : mask;
        s->r_tid2 = tid;
        s->r_line = line;
    }
}

/* atomic: 0 a plain store, 1 an atomic, 2 a compare-and-swap (whose loop
 * begins with a plain read of the word by design: that read never races). */
static inline void note_write(Shadow *s, uint32_t ep, uint16_t tid, uint8_t mask, uint8_t atomic, const Warp *w,
                              int line) {
    s->w_mask = (s->w_epoch == ep && s->w_tid == tid) ? (uint8_t)(s->w_mask | mask) : mask;
    s->w_epoch = ep;
    s->w_tid = tid;
    s->w_atomic = atomic;
    s->w_wsync = w->wsync;
    s->w_line = line;
    s->w_stamp = w->stamp;
}

/* The other reader of this epoch whose bytes overlap `mask`, or tid if none. */
static inline uint16_t other_reader(const Shadow *s, uint16_t tid, uint8_t mask) {
    if (s->r_tid != tid && (s->r_mask & mask)) return s->r_tid;
    if (s->r_tid2 != tid && (s->r_mask2 & mask)) return s->r_tid2;
    return tid;
}

static void shadow_access(Worker *W, Warp *w, int lane, const Instr *in, uint64_t off, int bytes, int kind) {
    uint16_t tid = (uint16_t)(w->index * 32 + lane);
    bool atomic = kind == ACC_ATOMIC;
    uint8_t akind = !atomic ? 0 : in->sub == AOP_CAS ? 2 : 1;
    uint32_t ep = W->epoch;
    for (uint64_t word = off >> 2; word <= (off + (uint64_t)bytes - 1) >> 2; word++) {
        Shadow *s = &W->shadow[word];
        uint8_t mask = emu_word_mask(word, off, bytes);
        if (kind == ACC_READ || atomic) {
            if (s->w_epoch < W->epoch0) {
                if (!atomic) {
                    unsigned c[6];
                    char nm[80];
                    thr_args(W, w, lane, c);
                    shared_name(W, in, word * 4 > off ? word * 4 : off, nm, sizeof nm);
                    emu_report(W, w, lane, "uninit-shared", DIAG_ERROR, in->line,
                               THR " read %s before any thread of the block wrote it.",
                               c[0], c[1], c[2], c[3], c[4], c[5], nm);
                }
            } else if (!(atomic && s->w_atomic) && !(!atomic && s->w_atomic == 2) && s->w_tid != tid &&
                       (s->w_mask & mask)) {
                /* two atomics never race; an atomic and a plain access do (except
                 * the read that starts a compare-and-swap loop) */
                bool same = s->w_tid / 32 == tid / 32;
                if (same ? (s->w_wsync == w->wsync && s->w_epoch == ep) : s->w_epoch == ep)
                    race_report(W, w, lane, in, word * 4,
                                atomic ? "atomic update after a plain write"
                                : s->w_atomic ? "plain read after an atomic update" : "read after write",
                                s->w_tid, s->w_line, same);
            }
            if (akind == 1 && s->r_epoch == ep) {
                uint16_t other = other_reader(s, tid, mask);
                if (other != tid) {
                    bool same = other / 32 == tid / 32;
                    if (!same || s->r_wsync == w->wsync)
                        race_report(W, w, lane, in, word * 4, "atomic update after a plain read", other, s->r_line,
                                    same);
                }
            }
            if (!atomic) note_read(s, ep, tid, mask, w, in->line);
        }
        if (kind == ACC_WRITE || atomic) {
            /* Writing the value that is already there changes nothing, unless lanes of
             * one store instruction collide after reading the word: a lost update
             * (counter++ by a whole warp). */
            if (!atomic && s->w_epoch == ep && s->w_tid != tid && !s->w_atomic && (s->w_mask & mask)) {
                bool same = s->w_tid / 32 == tid / 32;
                bool same_instr = same && s->w_stamp == w->stamp;
                bool rmw = s->r_epoch == ep && (s->r_tid / 32 == tid / 32 || s->r_tid2 / 32 == tid / 32);
                if (same_instr && (!W->store_same || rmw))
                    race_report(W, w, lane, in, word * 4, "write after write", s->w_tid, s->w_line, false);
                else if (!W->store_same && (!same || s->w_wsync == w->wsync))
                    race_report(W, w, lane, in, word * 4, "write after write", s->w_tid, s->w_line, same);
            }
            if (!atomic && !W->store_same && s->w_atomic && s->w_epoch == ep && s->w_tid != tid &&
                (s->w_mask & mask)) {
                bool same = s->w_tid / 32 == tid / 32;
                if (!same || s->w_wsync == w->wsync)
                    race_report(W, w, lane, in, word * 4, "plain write after an atomic update", s->w_tid, s->w_line,
                                same);
            }
            if (!atomic && !W->store_same && s->r_epoch == ep) {
                uint16_t other = other_reader(s, tid, mask);
                if (other != tid) {
                    bool same = other / 32 == tid / 32;
                    if (!same || s->r_wsync == w->wsync)
                        race_report(W, w, lane, in, word * 4, "write after read", other, s->r_line, same);
                }
            }
            /* an atomic after a plain write of this epoch keeps that writer: the
             * atomics of every other thread race with it */
            if (!(atomic && s->w_epoch == ep && !s->w_atomic))
                note_write(s, ep, tid, mask, akind, w, in->line);
        }
    }
}

/* ---- metrics ------------------------------------------------------------------ */
static void sort_u64(uint64_t *v, int n) {
    for (int i = 1; i < n; i++) {
        uint64_t x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > x) { v[j + 1] = v[j]; j--; }
        v[j + 1] = x;
    }
}

static void metrics_global(Worker *W, const Instr *in, const uint64_t *addr, uint32_t ok, int bytes) {
    int active = 0;
    uint64_t distinct = 0, last = 0;
    bool have = false, sorted = true;
    for (int l = 0; l < 32 && sorted; l++) {
        if (!(ok >> l & 1)) continue;
        active++;
        uint64_t s0 = addr[l] >> 5, s1 = (addr[l] + (uint64_t)bytes - 1) >> 5;
        if (!have) distinct += s1 - s0 + 1;
        else if (s0 > last) distinct += s1 - s0 + 1;
        else if (s0 == last) distinct += s1 - s0;
        else sorted = false;
        last = s1;
        have = true;
    }
    if (!sorted) {   /* lanes out of address order: sort the sectors */
        uint64_t sec[128];
        int n = 0;
        active = 0;
        for (int l = 0; l < 32; l++) {
            if (!(ok >> l & 1)) continue;
            active++;
            for (uint64_t s = addr[l] >> 5; s <= (addr[l] + (uint64_t)bytes - 1) >> 5 && n < 128; s++) sec[n++] = s;
        }
        sort_u64(sec, n);
        distinct = 0;
        for (int i = 0; i < n; i++)
            if (i == 0 || sec[i] != sec[i - 1]) distinct++;
    }
    if (!active) return;
    uint64_t ideal = ((uint64_t)active * (uint64_t)bytes + 31) / 32;
    W->t.global_requests++;
    W->t.global_sectors += distinct;
    W->t.global_ideal_sectors += ideal;
    if (in->line > 0 && in->line < W->n_lines) {
        LineStats *ls = &W->lines[in->line];
        ls->global_requests++;
        ls->global_sectors += distinct;
        ls->global_ideal += ideal;
    }
}

/* Wavefronts of one phase: the most distinct words in any one bank (the same
 * word is a broadcast). */
static uint64_t phase_wavefronts(const uint64_t *off, uint32_t ok, int lo, int hi, int bytes) {
    uint64_t first[32];
    uint32_t used = 0;
    bool simple = true;
    int n = 0;
    if (bytes <= 4) {   /* one word per lane: the common case, no inner loop */
        for (int l = lo; l < hi; l++) {
            if (!(ok >> l & 1)) continue;
            uint64_t wd = off[l] >> 2;
            int b = (int)(wd & 31);
            n++;
            if (!(used >> b & 1)) { used |= 1u << b; first[b] = wd; }
            else if (first[b] != wd) { simple = false; break; }
        }
        if (!n) return 0;
        if (simple) return 1;
        n = 0;
        used = 0;
        simple = true;
    }
    for (int l = lo; l < hi && simple; l++) {
        if (!(ok >> l & 1)) continue;
        for (uint64_t wd = off[l] >> 2; wd <= (off[l] + (uint64_t)bytes - 1) >> 2; wd++) {
            int b = (int)(wd & 31);
            n++;
            if (!(used >> b & 1)) { used |= 1u << b; first[b] = wd; }
            else if (first[b] != wd) { simple = false; break; }
        }
    }
    if (!n) return 0;
    if (simple) return 1;
    uint64_t words[128];
    n = 0;
    for (int l = lo; l < hi; l++) {
        if (!(ok >> l & 1)) continue;
        for (uint64_t wd = off[l] >> 2; wd <= (off[l] + (uint64_t)bytes - 1) >> 2 && n < 128; wd++) words[n++] = wd;
    }
    sort_u64(words, n);
    int per_bank[32] = {0};
    int worst = 0;
    for (int i = 0; i < n; i++) {
        if (i && words[i] == words[i - 1]) continue;
        int b = (int)(words[i] & 31);
        if (++per_bank[b] > worst) worst = per_bank[b];
    }
    return (uint64_t)worst;
}

static void metrics_shared(Worker *W, const Instr *in, const uint64_t *off, uint32_t ok, int bytes) {
    int phases = bytes <= 4 ? 1 : bytes == 8 ? 2 : 4;
    int per = 32 / phases;
    uint64_t wavefronts = 0, ideal = 0;
    for (int ph = 0; ph < phases; ph++) {
        uint64_t wf = phase_wavefronts(off, ok, ph * per, (ph + 1) * per, bytes);
        if (wf) { ideal++; wavefronts += wf; }
    }
    if (!ideal) return;
    W->t.shared_requests++;
    W->t.bank_conflict_wavefronts += wavefronts;
    W->t.shared_ideal_wavefronts += ideal;
    if (in->line > 0 && in->line < W->n_lines) {
        LineStats *ls = &W->lines[in->line];
        ls->shared_requests++;
        ls->shared_wavefronts += wavefronts;
        ls->shared_ideal += ideal;
    }
}

static int space_of(const Instr *in, uint64_t addr) {
    if (in->space != SP_GENERIC) return in->space == SP_CONST ? SP_GLOBAL : in->space;
    uint64_t win = addr & EMU_WIN_MASK;
    return win == EMU_SHARED_WIN ? SP_SHARED : win == EMU_LOCAL_WIN ? SP_LOCAL : SP_GLOBAL;
}

static void access_metrics(Worker *W, const Instr *in, const uint64_t *addr, uint32_t ok, int first_space, int bytes) {
    if (!W->L->metrics || !ok) return;
    if (first_space == SP_GLOBAL) metrics_global(W, in, addr, ok, bytes);
    else if (first_space == SP_SHARED) {
        uint64_t off[32];
        for (int l = 0; l < 32; l++) off[l] = addr[l] & ~EMU_WIN_MASK;
        metrics_shared(W, in, off, ok, bytes);
    } else W->t.local_requests++;
}

static inline uint64_t load_n(const unsigned char *p, int n) {
    switch (n) {
    case 1: return *p;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static inline void store_n(unsigned char *p, uint64_t v, int n) {
    switch (n) {
    case 1: *p = (unsigned char)v; break;
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

static inline uint64_t extend(uint64_t v, const Instr *in) {
    int t = in->type, bits = in->size * 8;
    if ((t == T_S8 || t == T_S16 || t == T_S32) && bits < 64) {
        int64_t s = (int64_t)(v << (64 - bits)) >> (64 - bits);
        return in->dbits >= 64 ? (uint64_t)s : (uint64_t)s & ((1ull << in->dbits) - 1);
    }
    return v;
}

/* Shadow updates with no hazard possible, inline; anything else takes the
 * full check in shadow_access. Only for accesses inside one 4-byte word. */
static inline void shadow_read_fast(Worker *W, Warp *w, int lane, const Instr *in, uint64_t off, int bytes) {
    uint16_t tid = (uint16_t)(w->index * 32 + lane);
    Shadow *s = &W->shadow[off >> 2];
    uint8_t mask = bytes == 4 ? 0xf : bytes < 4 ? emu_word_mask(off >> 2, off, bytes) : 0;
    if (bytes <= 4 && s->w_epoch >= W->epoch0 &&
        (s->w_epoch != W->epoch || s->w_tid == tid || s->w_atomic == 2 || !(s->w_mask & mask))) {
        note_read(s, W->epoch, tid, mask, w, in->line);
        return;
    }
    shadow_access(W, w, lane, in, off, bytes, ACC_READ);
}

static inline void shadow_write_fast(Worker *W, Warp *w, int lane, const Instr *in, uint64_t off, int bytes) {
    uint16_t tid = (uint16_t)(w->index * 32 + lane);
    Shadow *s = &W->shadow[off >> 2];
    uint8_t mask = bytes == 4 ? 0xf : bytes < 4 ? emu_word_mask(off >> 2, off, bytes) : 0;
    if (bytes <= 4 && (s->w_epoch != W->epoch || s->w_tid == tid || !(s->w_mask & mask)) &&
        (s->r_epoch != W->epoch || other_reader(s, tid, mask) == tid)) {
        note_write(s, W->epoch, tid, mask, false, w, in->line);
        return;
    }
    shadow_access(W, w, lane, in, off, bytes, ACC_WRITE);
}

/* The full-warp check, compiled twice: for AVX2 (64-bit compares in vector
 * registers) and for the x86-64 baseline, picked at run time. */
__attribute__((target("avx2"))) static bool lanes_inside_avx2(const uint64_t *addr, uint64_t lo, uint64_t span,
                                                              uint64_t align) {
    uint64_t bad = 0;
    for (int l = 0; l < 32; l++) bad |= (addr[l] & align) | (uint64_t)(addr[l] - lo > span);
    return !bad;
}

static bool lanes_inside_base(const uint64_t *addr, uint64_t lo, uint64_t span, uint64_t align) {
    uint64_t bad = 0;
    for (int l = 0; l < 32; l++) bad |= (addr[l] & align) | (uint64_t)(addr[l] - lo > span);
    return !bad;
}

/* true when every lane in m has lo <= addr <= lo + span and is aligned */
static inline bool lanes_inside(const uint64_t *addr, uint32_t m, uint64_t lo, uint64_t span, uint64_t align) {
    uint64_t bad = 0;
    if (m == EMU_FULL) {
        static int avx2 = -1;
        if (avx2 < 0) avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
        return avx2 ? lanes_inside_avx2(addr, lo, span, align) : lanes_inside_base(addr, lo, span, align);
    }
    for (int l = 0; l < 32; l++)
        if (m >> l & 1) bad |= (addr[l] & align) | (uint64_t)(addr[l] - lo > span);
    return !bad;
}

/* The common case, checked for the whole warp at once: every active lane
 * in one space, aligned and inside shared memory or inside the allocation
 * that the last access hit. Sets *space and returns what to add to an
 * address to get the host pointer; *space stays -1 for the careful path. */
static uintptr_t fast_base(Worker *W, const Instr *in, const uint64_t *addr, uint32_t m, int total, int *space) {
    int first = __builtin_ctz(m);
    int sp = in->space == SP_CONST ? SP_GLOBAL : in->space;
    uint64_t bias = 0;
    if (sp == SP_GENERIC) {
        uint64_t win = addr[first] & EMU_WIN_MASK;
        if (win == EMU_SHARED_WIN) { sp = SP_SHARED; bias = EMU_SHARED_WIN; }
        else if (win == 0) sp = SP_GLOBAL;
        else return 0;
    }
    uint64_t align = (uint64_t)total - 1;
    if (sp == SP_SHARED) {
        if (W->shared_size < (uint64_t)total) return 0;
        if (!lanes_inside(addr, m, bias, W->shared_size - (uint64_t)total, align)) return 0;
        if (W->k->shared_static < W->k->shared_dyn_off && W->L->dyn_shared) {
            /* the padding between static and dynamic shared memory is out of bounds */
            for (int l = first; l < 32; l++)
                if ((m >> l & 1) && addr[l] - bias + (uint64_t)total > W->k->shared_static &&
                    addr[l] - bias < W->k->shared_dyn_off) return 0;
        }
        *space = SP_SHARED;
        return (uintptr_t)W->shared - (uintptr_t)bias;   /* host pointer = address + this */
    }
    if (sp != SP_GLOBAL) return 0;
    AllocTable *t = W->L->allocs;
    if (W->hint < 0 || W->hint >= t->n || addr[first] < t->v[W->hint].base ||
        addr[first] >= t->v[W->hint].base + t->v[W->hint].size) {
        int i = emu_alloc_find(t, addr[first]);
        if (i < 0) return 0;
        W->hint = i;
    }
    const Alloc *a = &t->v[W->hint];
    if (a->size < (uint64_t)total) return 0;
    if (!lanes_inside(addr, m, a->base, a->size - (uint64_t)total, align)) return 0;
    *space = SP_GLOBAL;
    return 0;
}

EMU_CLONES void emu_exec_ld(Worker *W, Warp *w, const Instr *in, uint32_t m) {
    const uint64_t *A = w->r + (size_t)in->a[0] * 32;
    int size = in->size, vec = in->vec, total = size * vec;
    uint64_t addr[32];
    bool checks = W->L->checks;
    for (int l = 0; l < 32; l++) addr[l] = A[l] + (uint64_t)in->imm;
    int sp0 = -1;
    uintptr_t base = fast_base(W, in, addr, m, total, &sp0);
    if (sp0 >= 0 && vec == 1 && !(in->type == T_S8 || in->type == T_S16 || in->type == T_S32)) {
        uint64_t *D = w->r + (size_t)in->d[0] * 32;
        bool shadow = checks && sp0 == SP_SHARED, gshadow = checks && sp0 == SP_GLOBAL;
        const Alloc *ia = gshadow ? emu_init_alloc(W, addr[__builtin_ctz(m)]) : NULL;
        w->stamp++;
        if (!shadow && !gshadow && m == EMU_FULL && size == 4) {
            for (int l = 0; l < 32; l++) {
                uint32_t v;
                memcpy(&v, (const unsigned char *)(uintptr_t)(addr[l] + base), 4);
                D[l] = v;
            }
            access_metrics(W, in, addr, m, sp0, total);
            return;
        }
        for (int l = 0; l < 32; l++) {
            if (!(m >> l & 1)) continue;
            const unsigned char *p = (const unsigned char *)(uintptr_t)(addr[l] + base);
            if (shadow) shadow_read_fast(W, w, l, in, (uint64_t)(p - W->shared), total);
            else if (gshadow) {
                if (ia) emu_init_read(W, w, l, in, ia, addr[l], total);
                emu_gshadow_access(W, w, l, in, addr[l], total, 0, false);
            }
            D[l] = load_n(p, size);
        }
        access_metrics(W, in, addr, m, sp0, total);
        return;
    }
    uint32_t ok = 0;
    sp0 = -1;
    w->stamp++;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint64_t soff = UINT64_MAX;
        unsigned char *p = resolve(W, w, l, in, in->space, addr[l], total, ACC_READ, &soff);
        if (!p) {
            for (int i = 0; i < vec; i++) w->r[(size_t)in->d[i] * 32 + l] = 0;
            continue;
        }
        if (sp0 < 0) sp0 = space_of(in, addr[l]);
        ok |= 1u << l;
        if (checks && soff != UINT64_MAX) shadow_access(W, w, l, in, soff, total, ACC_READ);
        else if (checks && space_of(in, addr[l]) == SP_GLOBAL) {
            const Alloc *ia = emu_init_alloc(W, addr[l]);
            if (ia) emu_init_read(W, w, l, in, ia, addr[l], total);
            emu_gshadow_access(W, w, l, in, addr[l], total, 0, false);
        }
        for (int i = 0; i < vec; i++) w->r[(size_t)in->d[i] * 32 + l] = extend(load_n(p + i * size, size), in);
    }
    if (sp0 >= 0) access_metrics(W, in, addr, ok, sp0, total);
}

EMU_CLONES void emu_exec_st(Worker *W, Warp *w, const Instr *in, uint32_t m) {
    const uint64_t *A = w->r + (size_t)in->a[0] * 32;
    int size = in->size, vec = in->vec, total = size * vec;
    uint64_t addr[32];
    bool checks = W->L->checks;
    for (int l = 0; l < 32; l++) addr[l] = A[l] + (uint64_t)in->imm;
    int sp0 = -1;
    uintptr_t base = fast_base(W, in, addr, m, total, &sp0);
    if (sp0 >= 0 && vec == 1) {
        const uint64_t *V = w->r + (size_t)in->d[0] * 32;
        bool shadow = checks && sp0 == SP_SHARED, gshadow = checks && sp0 == SP_GLOBAL;
        uint64_t vmask = size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
        Alloc *ia = sp0 == SP_GLOBAL ? emu_init_alloc(W, addr[__builtin_ctz(m)]) : NULL;
        w->stamp++;
        for (int l = 0; l < 32; l++) {
            if (!(m >> l & 1)) continue;
            unsigned char *p = (unsigned char *)(uintptr_t)(addr[l] + base);
            if (ia) emu_init_write(ia, addr[l], total);
            if (shadow) {
                W->store_same = load_n(p, size) == (V[l] & vmask);
                shadow_write_fast(W, w, l, in, (uint64_t)(p - W->shared), total);
            }
            else if (gshadow) emu_gshadow_access(W, w, l, in, addr[l], total, 1, load_n(p, size) == (V[l] & vmask));
            store_n(p, V[l], size);
        }
        access_metrics(W, in, addr, m, sp0, total);
        return;
    }
    uint32_t ok = 0;
    sp0 = -1;
    w->stamp++;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint64_t soff = UINT64_MAX;
        unsigned char *p = resolve(W, w, l, in, in->space, addr[l], total, ACC_WRITE, &soff);
        if (!p) continue;
        if (sp0 < 0) sp0 = space_of(in, addr[l]);
        ok |= 1u << l;
        bool shared = soff != UINT64_MAX, global = !shared && space_of(in, addr[l]) == SP_GLOBAL;
        if (global) {
            Alloc *ia = emu_init_alloc(W, addr[l]);
            if (ia) emu_init_write(ia, addr[l], total);
        }
        if (checks && (shared || global)) {
            /* Writing the value already there is no race: compare before storing. */
            bool same = true;
            uint64_t vmask = size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
            for (int i = 0; i < vec; i++)
                if (load_n(p + i * size, size) != (w->r[(size_t)in->d[i] * 32 + l] & vmask)) same = false;
            if (shared) {
                W->store_same = same;
                shadow_access(W, w, l, in, soff, total, ACC_WRITE);
            } else {
                emu_gshadow_access(W, w, l, in, addr[l], total, 1, same);
            }
        }
        for (int i = 0; i < vec; i++) store_n(p + i * size, w->r[(size_t)in->d[i] * 32 + l], size);
    }
    if (sp0 >= 0) access_metrics(W, in, addr, ok, sp0, total);
}

/* cp.async: copied at once (the wait that follows has nothing to wait for),
 * each side checked like a load from global and a store to shared. */
void emu_exec_cpasync(Worker *W, Warp *w, const Instr *in, uint32_t m) {
    const uint64_t *D = w->r + (size_t)in->a[0] * 32, *S = w->r + (size_t)in->b * 32;
    const uint64_t *N = w->r + (size_t)in->c * 32;
    int size = in->size;
    bool checks = W->L->checks;
    w->stamp++;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint64_t dst = D[l] + (uint64_t)in->imm, src = S[l] + (uint64_t)(int64_t)in->f;
        uint64_t soff = UINT64_MAX, dummy = UINT64_MAX;
        unsigned char tmp[16] = {0};
        uint64_t n = N[l] < (uint64_t)size ? N[l] : (uint64_t)size;
        if (n) {
            const unsigned char *p = resolve(W, w, l, in, SP_GLOBAL, src, size, ACC_READ, &dummy);
            if (!p) continue;
            if (checks) {
                const Alloc *ia = emu_init_alloc(W, src);
                if (ia) emu_init_read(W, w, l, in, ia, src, (int)n);
                emu_gshadow_access(W, w, l, in, src, size, 0, false);
            }
            memcpy(tmp, p, (size_t)n);
        }
        unsigned char *q = resolve(W, w, l, in, SP_SHARED, dst, size, ACC_WRITE, &soff);
        if (!q) continue;
        if (checks && soff != UINT64_MAX) {
            W->store_same = !memcmp(q, tmp, (size_t)size);
            shadow_access(W, w, l, in, soff, size, ACC_WRITE);
        }
        memcpy(q, tmp, (size_t)size);
    }
}

/* ---- atomics -------------------------------------------------------------------- */
static uint64_t atom_new(int aop, int t, int size, uint64_t old, uint64_t b, uint64_t c) {
    int bits = size * 8;
    uint64_t msk = bits == 64 ? ~0ull : (1ull << bits) - 1;
    old &= msk;
    b &= msk;
    if (t == T_F32 || t == T_F64) {
        double x, y;
        if (t == T_F32) {
            uint32_t u = (uint32_t)old, v = (uint32_t)b;
            float fx, fy;
            memcpy(&fx, &u, 4);
            memcpy(&fy, &v, 4);
            if (aop == AOP_ADD) { float r = fx + fy; uint32_t o; memcpy(&o, &r, 4); return o; }
            x = fx; y = fy;
        } else {
            memcpy(&x, &old, 8);
            memcpy(&y, &b, 8);
            if (aop == AOP_ADD) { double r = x + y; uint64_t o; memcpy(&o, &r, 8); return o; }
        }
        if (aop == AOP_EXCH) return b;
        if (aop == AOP_CAS) return old == b ? c & msk : old;
        bool take = aop == AOP_MIN ? y < x : aop == AOP_MAX ? y > x : false;
        return take ? b : old;
    }
    bool sgn = t == T_S32 || t == T_S64;
    int64_t so = sgn ? (bits == 64 ? (int64_t)old : (int64_t)(int32_t)old) : 0;
    int64_t sb = sgn ? (bits == 64 ? (int64_t)b : (int64_t)(int32_t)b) : 0;
    switch (aop) {
    case AOP_ADD: return (old + b) & msk;
    case AOP_MIN: return sgn ? (sb < so ? b : old) : (b < old ? b : old);
    case AOP_MAX: return sgn ? (sb > so ? b : old) : (b > old ? b : old);
    case AOP_INC: return old >= b ? 0 : (old + 1) & msk;
    case AOP_DEC: return (old == 0 || old > b) ? b : old - 1;
    case AOP_EXCH: return b;
    case AOP_CAS: return old == b ? c & msk : old;
    case AOP_AND: return old & b;
    case AOP_OR: return old | b;
    case AOP_XOR: return old ^ b;
    default: return old;
    }
}

/* Shared-memory atomics of a whole warp that is in bounds: the block runs on
 * one host thread, so plain read-modify-write in lane order is atomic. */
static bool atom_shared_fast(Worker *W, Warp *w, const Instr *in, uint32_t m, const uint64_t *addr) {
    int sp = -1;
    uintptr_t base = fast_base(W, in, addr, m, in->size, &sp);
    if (sp != SP_SHARED) return false;
    const uint64_t *B = w->r + (size_t)in->b * 32;
    const uint64_t *C = in->c >= 0 ? w->r + (size_t)in->c * 32 : NULL;
    uint64_t *D = in->op == OP_ATOM ? w->r + (size_t)in->d[0] * 32 : NULL;
    bool checks = W->L->checks;
    int size = in->size;
    bool add32 = in->sub == AOP_ADD && size == 4 && in->type != T_F32;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        unsigned char *p = (unsigned char *)(uintptr_t)(addr[l] + base);
        if (checks) {
            uint64_t off = (uint64_t)(p - W->shared);
            Shadow *sh = &W->shadow[off >> 2];
            if (sh->w_epoch >= W->epoch0 && (sh->w_epoch != W->epoch || sh->w_atomic) && sh->r_epoch != W->epoch)
                note_write(sh, W->epoch, (uint16_t)(w->index * 32 + l), emu_word_mask(off >> 2, off, size),
                           in->sub == AOP_CAS ? 2 : 1, w, in->line);
            else shadow_access(W, w, l, in, off, size, ACC_ATOMIC);
        }
        uint64_t old = load_n(p, size);
        if (add32) store_n(p, (uint32_t)(old + B[l]), 4);
        else store_n(p, atom_new(in->sub, in->type, size, old, B[l], C ? C[l] : 0), size);
        if (D) D[l] = old;
    }
    access_metrics(W, in, addr, m, SP_SHARED, size);
    return true;
}

void emu_exec_atom(Worker *W, Warp *w, const Instr *in, uint32_t m) {
    const uint64_t *A = w->r + (size_t)in->a[0] * 32;
    const uint64_t *B = w->r + (size_t)in->b * 32;
    const uint64_t *C = in->c >= 0 ? w->r + (size_t)in->c * 32 : NULL;
    int size = in->size;
    uint64_t addr[32];
    uint32_t ok = 0;
    int sp0 = -1;
    W->t.atomics++;
    for (int l = 0; l < 32; l++) addr[l] = A[l] + (uint64_t)in->imm;
    if (in->space != SP_GLOBAL && atom_shared_fast(W, w, in, m, addr)) return;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint64_t soff = UINT64_MAX;
        int sp = space_of(in, addr[l]);
        unsigned char *p = resolve(W, w, l, in, in->space, addr[l], size, ACC_ATOMIC, &soff);
        if (!p) { if (in->d[0] >= 0) w->r[(size_t)in->d[0] * 32 + l] = 0; continue; }
        if (sp0 < 0) sp0 = sp;
        ok |= 1u << l;
        if (W->L->checks && soff != UINT64_MAX) shadow_access(W, w, l, in, soff, size, ACC_ATOMIC);
        else if (W->L->checks && sp == SP_GLOBAL) emu_gshadow_access(W, w, l, in, addr[l], size, 2, false);
        if (sp == SP_GLOBAL) {
            Alloc *ia = emu_init_alloc(W, addr[l]);
            if (ia) {
                if (W->L->checks) emu_init_read(W, w, l, in, ia, addr[l], size);
                emu_init_write(ia, addr[l], size);
            }
        }
        uint64_t old;
        uint64_t cv = C ? C[l] : 0;
        if (sp == SP_GLOBAL) {
            if (size == 4) {
                uint32_t *q = (uint32_t *)(void *)p;
                uint32_t o = __atomic_load_n(q, __ATOMIC_RELAXED), n;
                do { n = (uint32_t)atom_new(in->sub, in->type, 4, o, B[l], cv); }
                while (!__atomic_compare_exchange_n(q, &o, n, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
                old = o;
            } else {
                uint64_t *q = (uint64_t *)(void *)p;
                uint64_t o = __atomic_load_n(q, __ATOMIC_RELAXED), n;
                do { n = atom_new(in->sub, in->type, 8, o, B[l], cv); }
                while (!__atomic_compare_exchange_n(q, &o, n, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
                old = o;
            }
        } else {
            old = load_n(p, size);
            store_n(p, atom_new(in->sub, in->type, size, old, B[l], cv), size);
        }
        if (in->op == OP_ATOM) w->r[(size_t)in->d[0] * 32 + l] = old;
    }
    if (sp0 >= 0) access_metrics(W, in, addr, ok, sp0, size);
}

/* ---- native calls ------------------------------------------------------------------ */
static bool read_bytes(Worker *W, Warp *w, int lane, const Instr *in, uint64_t addr, void *out, int n) {
    uint64_t soff = UINT64_MAX;
    unsigned char *p = resolve(W, w, lane, in, SP_GENERIC, addr, n, ACC_READ, &soff);
    if (!p) return false;
    memcpy(out, p, (size_t)n);
    return true;
}

static uint64_t local_param(Worker *W, Warp *w, int lane, int off, int n) {
    uint64_t v = 0;
    const unsigned char *p = W->local + (size_t)(w->index * 32 + lane) * W->k->local_size + off;
    memcpy(&v, p, (size_t)n);
    return v;
}

static void set_local_param(Worker *W, Warp *w, int lane, int off, uint64_t v, int n) {
    unsigned char *p = W->local + (size_t)(w->index * 32 + lane) * W->k->local_size + off;
    memcpy(p, &v, (size_t)n);
}

static void read_cstring(Worker *W, Warp *w, int lane, const Instr *in, uint64_t addr, StrBuf *out) {
    for (int i = 0; i < 4096; i++) {
        char ch;
        if (!read_bytes(W, w, lane, in, addr + (uint64_t)i, &ch, 1) || !ch) return;
        strbuf_append_char(out, ch);
    }
}

/* Formats one printf call from the format string and the packed argument buffer. */
static void do_printf(Worker *W, Warp *w, int lane, const Instr *in, uint64_t fmt, uint64_t args, StrBuf *out) {
    StrBuf f;
    strbuf_init(&f);
    read_cstring(W, w, lane, in, fmt, &f);
    uint64_t pos = 0;
    for (const char *s = f.data; *s;) {
        if (*s != '%') { strbuf_append_char(out, *s++); continue; }
        if (s[1] == '%') { strbuf_append_char(out, '%'); s += 2; continue; }
        char spec[32];
        int n = 0;
        spec[n++] = *s++;
        while (*s && strchr("-+ #0", *s) && n < 20) spec[n++] = *s++;
        while (*s && ((*s >= '0' && *s <= '9') || *s == '.') && n < 26) spec[n++] = *s++;
        int lng = 0;
        while (*s == 'l' || *s == 'h' || *s == 'z' || *s == 'L') { if (*s == 'l' || *s == 'z') lng++; s++; }
        char conv = *s ? *s++ : 0;
        if (!conv) break;
        int sz = (strchr("fFeEgGaA", conv) || conv == 's' || conv == 'p' || lng) ? 8 : 4;
        pos = (pos + (uint64_t)sz - 1) / (uint64_t)sz * (uint64_t)sz;
        uint64_t v = 0;
        if (!read_bytes(W, w, lane, in, args + pos, &v, sz)) break;
        pos += (uint64_t)sz;
        char buf[512];
        if (strchr("fFeEgGaA", conv)) {
            spec[n++] = conv; spec[n] = 0;
            double d;
            memcpy(&d, &v, 8);
            snprintf(buf, sizeof buf, spec, d);
        } else if (conv == 's') {
            spec[n++] = 's'; spec[n] = 0;
            StrBuf str;
            strbuf_init(&str);
            read_cstring(W, w, lane, in, v, &str);
            snprintf(buf, sizeof buf, spec, str.data);
            strbuf_fini(&str);
        } else if (conv == 'p') {
            snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
        } else if (strchr("dic", conv)) {
            spec[n++] = 'l'; spec[n++] = 'l'; spec[n++] = conv == 'c' ? 'd' : conv; spec[n] = 0;
            long long x = sz == 8 ? (long long)v : (long long)(int32_t)v;
            if (conv == 'c') snprintf(buf, sizeof buf, "%c", (char)x);
            else snprintf(buf, sizeof buf, spec, x);
        } else if (strchr("uxXo", conv)) {
            spec[n++] = 'l'; spec[n++] = 'l'; spec[n++] = conv; spec[n] = 0;
            unsigned long long x = sz == 8 ? v : (uint32_t)v;
            snprintf(buf, sizeof buf, spec, x);
        } else {
            snprintf(buf, sizeof buf, "%%%c", conv);
        }
        strbuf_append(out, buf);
    }
    strbuf_fini(&f);
}

void emu_exec_native(Worker *W, Warp *w, const Instr *in, uint32_t m) {
    EmuLaunch *L = W->L;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        switch (in->op) {
        case OP_CALL_PRINTF: {
            uint64_t fmt = local_param(W, w, l, in->a[0], 8), args = local_param(W, w, l, in->a[1], 8);
            StrBuf out;
            strbuf_init(&out);
            do_printf(W, w, l, in, fmt, args, &out);
            if (W->npr == W->cappr) {
                W->cappr = W->cappr ? W->cappr * 2 : 64;
                W->pr = xrealloc(W->pr, sizeof *W->pr * (size_t)W->cappr);
            }
            W->pr[W->npr++] = (PrintRec){W->block_linear, W->pseq++, strbuf_steal(&out), false};
            strbuf_fini(&out);
            if (in->d[0] >= 0) set_local_param(W, w, l, in->d[0], 0, 4);
            break;
        }
        case OP_CALL_MALLOC: {
            uint64_t n = local_param(W, w, l, in->a[0], 8);
            uint64_t p = 0;
            pthread_mutex_lock(&L->lock);
            size_t need = (size_t)((n + 15) & ~15ull);
            if (n && need <= L->heap_size - L->heap_used) {
                p = L->heap_base + L->heap_used;
                L->heap_used += need;
            }
            pthread_mutex_unlock(&L->lock);
            if (in->d[0] >= 0) set_local_param(W, w, l, in->d[0], p, 8);
            break;
        }
        case OP_CALL_FREE:
            break;
        case OP_CALL_ASSERT: {
            StrBuf msg;
            strbuf_init(&msg);
            read_cstring(W, w, l, in, local_param(W, w, l, in->a[0], 8), &msg);
            unsigned c[6];
            thr_args(W, w, l, c);
            emu_report(W, w, l, "assert", DIAG_ERROR, in->line,
                       "Assertion `%s` failed in " THR "; the kernel stops here.", msg.data,
                       c[0], c[1], c[2], c[3], c[4], c[5]);
            /* the line a GPU prints on stderr when the host synchronises:
             * "a.cu:22: void k(const int *, int): block: [2,0,0], thread: [13,0,0] Assertion `x` failed." */
            StrBuf file, fn, line;
            strbuf_init(&file);
            strbuf_init(&fn);
            strbuf_init(&line);
            read_cstring(W, w, l, in, local_param(W, w, l, in->a[1], 8), &file);
            read_cstring(W, w, l, in, local_param(W, w, l, in->a[3], 8), &fn);
            strbuf_printf(&line, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file.data,
                          (unsigned)local_param(W, w, l, in->a[2], 4), fn.data, c[3], c[4], c[5], c[0], c[1], c[2],
                          msg.data);
            if (W->npr == W->cappr) {
                W->cappr = W->cappr ? W->cappr * 2 : 64;
                W->pr = xrealloc(W->pr, sizeof *W->pr * (size_t)W->cappr);
            }
            W->pr[W->npr++] = (PrintRec){W->block_linear, W->pseq++, strbuf_steal(&line), true};
            strbuf_fini(&line);
            strbuf_fini(&file);
            strbuf_fini(&fn);
            strbuf_fini(&msg);
            W->stop = true;
            __atomic_store_n(&L->abort_flag, 1, __ATOMIC_RELAXED);
            break;
        }
        default: break;
        }
    }
}
