/* kernels/emu/emu_gshadow.c: races on global memory between threads of one
 * block (checks on).
 *
 * `*sum += x[i]` from every thread, or an in-place stencil on global memory,
 * loses updates on a GPU; compute-sanitizer's racecheck only looks at shared
 * memory, so these show up as wrong numbers with no explanation. Here every
 * 4-byte global word a block touches gets a shadow entry in an open-addressing
 * hash table (cleared per block by a generation number) with the last
 * writer and readers of the current barrier epoch. Reported: read after
 * write, write after read, and write after write of a different value by
 * different threads with no barrier between; an atomic races with a plain
 * access of the same word (two atomics never do). Races between different
 * blocks are not tracked. */
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/xalloc.h"
#include "kernels/emu/emu_worker.h"

typedef struct GShadow {
    uint64_t word;          /* address >> 2 */
    uint32_t gen, w_epoch, r_epoch, w_stamp;
    uint16_t w_tid, r_tid, r_tid2, w_wsync, r_wsync;
    uint8_t w_atomic, w_mask, r_mask, r_mask2;   /* bytes of the word touched (as in Shadow) */
    int32_t w_line, r_line;
} GShadow;

static size_t slot_of(uint64_t word, size_t cap) {
    uint64_t h = word * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 20) & (cap - 1);
}

static void grow(Worker *W) {
    size_t ncap = W->gs_cap ? W->gs_cap * 2 : 4096;
    GShadow *old = W->gs, *nt = xcalloc(ncap, sizeof *nt);
    for (size_t i = 0; i < W->gs_cap; i++) {
        if (old[i].gen != W->gs_gen) continue;
        size_t j = slot_of(old[i].word, ncap);
        while (nt[j].gen == W->gs_gen) j = (j + 1) & (ncap - 1);
        nt[j] = old[i];
    }
    free(old);
    W->gs = nt;
    W->gs_cap = ncap;
}

static GShadow *entry(Worker *W, uint64_t word) {
    if ((W->gs_count + 1) * 2 > W->gs_cap) grow(W);
    GShadow *t = W->gs;
    size_t j = slot_of(word, W->gs_cap);
    while (t[j].gen == W->gs_gen) {
        if (t[j].word == word) return &t[j];
        j = (j + 1) & (W->gs_cap - 1);
    }
    memset(&t[j], 0, sizeof t[j]);
    t[j].gen = W->gs_gen;
    t[j].word = word;
    W->gs_count++;
    return &t[j];
}

void emu_gshadow_begin_block(Worker *W) {
    W->gs_gen++;
    W->gs_count = 0;
    if (W->gs_gen == 0) {   /* wrapped: stale entries could look current */
        memset(W->gs, 0, W->gs_cap * sizeof(GShadow));
        W->gs_gen = 1;
    }
}

void emu_gshadow_free(Worker *W) {
    free(W->gs);
    W->gs = NULL;
    W->gs_cap = 0;
}

/* "out[3]" for a global address, from the allocation table. */
static void global_name(Worker *W, uint64_t addr, char *buf, size_t n) {
    AllocTable *t = W->L->allocs;
    int i = emu_alloc_find(t, addr);
    if (i < 0 || addr >= t->v[i].base + t->v[i].size) {
        snprintf(buf, n, "global address 0x%llx", (unsigned long long)addr);
        return;
    }
    size_t elem = t->v[i].elem ? t->v[i].elem : 1;
    snprintf(buf, n, "%s[%llu]", t->v[i].label, (unsigned long long)((addr - t->v[i].base) / elem));
}

static void report(Worker *W, Warp *w, int lane, const Instr *in, uint64_t addr, const char *what, unsigned other,
                   int other_line, int kind) {
    unsigned c[3], o[3];
    emu_thread_coords(W, (unsigned)(w->index * 32 + lane), c);
    emu_thread_coords(W, other, o);
    char nm[96], lines[64];
    global_name(W, addr, nm, sizeof nm);
    int line = other_line > in->line ? other_line : in->line;
    int first = other_line > 0 && other_line < in->line ? other_line : in->line;
    if (other_line > 0 && other_line != in->line) snprintf(lines, sizeof lines, N_("lines %d and %d"), first, line);
    else snprintf(lines, sizeof lines, N_("line %d"), line);
    if (kind == 1)
        emu_report(W, w, lane, "race-warp", DIAG_WARNING, line,
                   N_("Intra-warp hazard on global memory (%s, %s): thread (%u,%u,%u) and thread (%u,%u,%u) of "
                      "block (%u,%u,%u), in the same warp, access %s with no __syncwarp() in between."), what, lines,
                   c[0], c[1], c[2], o[0], o[1], o[2], W->block[0], W->block[1], W->block[2], nm);
    else if (strstr(what, "atomic"))
        emu_report(W, w, lane, "race-global", DIAG_ERROR, line,
                   N_("Global-memory race (%s, %s): thread (%u,%u,%u) and thread (%u,%u,%u) of block (%u,%u,%u) "
                      "access %s, one atomically and one not, with no __syncthreads() in between; an atomic only "
                      "protects against other atomics. Make both accesses atomic, or put a barrier between them."),
                   what, lines, c[0], c[1], c[2], o[0], o[1], o[2], W->block[0], W->block[1], W->block[2], nm);
    else
        emu_report(W, w, lane, "race-global", DIAG_ERROR, line,
                   N_("Global-memory race (%s, %s): thread (%u,%u,%u) and thread (%u,%u,%u) of block (%u,%u,%u) "
                      "access %s with no __syncthreads() in between and no atomic; the result depends on timing "
                      "(updates get lost). Use atomicAdd & co., or give each thread its own element."), what, lines,
                   c[0], c[1], c[2], o[0], o[1], o[2], W->block[0], W->block[1], W->block[2], nm);
}

/* How two accesses of one word relate: 0 unordered (race), 1 same warp with
 * no __syncwarp between (hazard), 2 ordered. `stamp_same`: the same
 * instruction execution, where lanes really do collide. */
static int relation(const Warp *w, unsigned tid, unsigned other, uint16_t other_wsync, bool stamp_same) {
    if (other / 32 != tid / 32) return 0;
    if (stamp_same) return 0;
    return other_wsync == w->wsync ? 1 : 2;
}

void emu_gshadow_access(Worker *W, Warp *w, int lane, const Instr *in, uint64_t addr, int bytes, int kind,
                        bool same_value) {
    /* Reads of arrays no kernel has written (the inputs) cannot race: skip
     * them, which keeps the table small. A read before the first write of
     * an array is missed in that block only. */
    AllocTable *t = W->L->allocs;
    int ai = W->hint;
    if (ai < 0 || ai >= t->n || addr < t->v[ai].base || addr >= t->v[ai].base + t->v[ai].size)
        ai = emu_alloc_find(t, addr);
    if (ai < 0) return;
    if (W->L->xb) {
        /* reads of an array no kernel has written yet (an input) cannot race
         * with another block's write until one does: skipping them keeps the
         * cost of the check off the common case */
        if (kind == 2 || (kind == 0 && (in->flags & F_STRONG))) emu_xblock_sync(W);
        /* a release store publishes the block's earlier writes, as a fence
           before a flag does; a relaxed or volatile one only its earlier
           reads (a look-back status word sent after the tile was read: the
           tile may be overwritten then), never its writes: a result stored
           plainly and then flagged through volatile without __threadfence()
           is a race (tests/bugs/race_flag_without_fence.cu) */
        if (kind == 1 && (in->flags & F_STRONG_ST)) {
            if (in->flags & F_RELEASE_ST) emu_xblock_fence(W);
            else emu_xblock_publish(W);
        }
        if (kind == 1 || (kind == 0 && __atomic_load_n(&t->v[ai].written, __ATOMIC_RELAXED)))
            emu_xblock_access(W, w, lane, in, &t->v[ai], addr, bytes, kind == 1, same_value);
    }
    if (kind == 0) {
        if (!__atomic_load_n(&t->v[ai].written, __ATOMIC_RELAXED)) return;
    } else if (!__atomic_load_n(&t->v[ai].written, __ATOMIC_RELAXED)) {   /* other threads set it too */
        __atomic_store_n(&t->v[ai].written, 1, __ATOMIC_RELAXED);
    }
    uint16_t tid = (uint16_t)(w->index * 32 + lane);
    uint32_t ep = W->epoch;
    for (uint64_t word = addr >> 2; word <= (addr + (uint64_t)bytes - 1) >> 2; word++) {
        GShadow *e = entry(W, word);
        uint8_t mask = emu_word_mask(word, addr, bytes);
        if (kind == 2) {   /* atomic: races with plain accesses, never with atomics */
            bool cas = in->sub == AOP_CAS;
            if (e->w_epoch == ep && !e->w_atomic && (e->w_mask & mask)) {
                if (e->w_tid != tid) {
                    int rel = relation(w, tid, e->w_tid, e->w_wsync, false);
                    if (rel < 2)
                        report(W, w, lane, in, addr, "atomic update after a plain write", e->w_tid, e->w_line, rel);
                }
                continue;   /* keep the plain writer: every other thread's atomic races with it */
            } else if (!cas && e->r_epoch == ep) {
                uint16_t other = (e->r_tid != tid && (e->r_mask & mask)) ? e->r_tid
                               : (e->r_tid2 != tid && (e->r_mask2 & mask)) ? e->r_tid2 : tid;
                if (other != tid) {
                    int rel = relation(w, tid, other, e->r_wsync, false);
                    if (rel < 2) report(W, w, lane, in, addr, "atomic update after a plain read", other, e->r_line, rel);
                }
            }
            e->w_mask = mask;
            e->w_epoch = ep;
            e->w_tid = tid;
            e->w_atomic = cas ? 2 : 1;   /* 2: the plain read starting a CAS loop never races */
            e->w_wsync = w->wsync;
            e->w_line = in->line;
            e->w_stamp = w->stamp;
            continue;
        }
        if (kind == 0) {
            if (e->w_epoch == ep && e->w_tid != tid && e->w_atomic != 2 && (e->w_mask & mask)) {
                int rel = relation(w, tid, e->w_tid, e->w_wsync, !e->w_atomic && e->w_stamp == w->stamp);
                if (rel < 2)
                    report(W, w, lane, in, addr, e->w_atomic ? N_("plain read after an atomic update") : N_("read after write"),
                           e->w_tid, e->w_line, rel);
            }
            if (e->r_epoch != ep) {
                e->r_epoch = ep;
                e->r_tid = e->r_tid2 = tid;
                e->r_mask = e->r_mask2 = mask;
                e->r_wsync = w->wsync;
                e->r_line = in->line;
            } else if (e->r_tid == tid) {
                e->r_mask |= mask;
            } else {
                e->r_mask2 = e->r_tid2 == tid ? (uint8_t)(e->r_mask2 | mask) : mask;
                e->r_tid2 = tid;
                e->r_line = in->line;
            }
            continue;
        }
        /* the value already there changes nothing, unless lanes of one store
         * collide after reading the word (a lost update: counter++ by a warp) */
        if (e->w_epoch == ep && e->w_tid != tid && !e->w_atomic && (e->w_mask & mask)) {
            bool same_instr = e->w_tid / 32 == tid / 32 && e->w_stamp == w->stamp;
            bool rmw = e->r_epoch == ep && (e->r_tid / 32 == tid / 32 || e->r_tid2 / 32 == tid / 32);
            if (same_instr && (!same_value || rmw))
                report(W, w, lane, in, addr, N_("write after write"), e->w_tid, e->w_line, 0);
            else if (!same_value) {
                int rel = relation(w, tid, e->w_tid, e->w_wsync, false);
                if (rel < 2) report(W, w, lane, in, addr, N_("write after write"), e->w_tid, e->w_line, rel);
            }
        } else if (!same_value && e->w_epoch == ep && e->w_tid != tid && e->w_atomic && (e->w_mask & mask)) {
            int rel = relation(w, tid, e->w_tid, e->w_wsync, false);
            if (rel < 2) report(W, w, lane, in, addr, "plain write after an atomic update", e->w_tid, e->w_line, rel);
        } else if (!same_value && e->r_epoch == ep) {
            uint16_t other = (e->r_tid != tid && (e->r_mask & mask)) ? e->r_tid
                           : (e->r_tid2 != tid && (e->r_mask2 & mask)) ? e->r_tid2 : tid;
            if (other != tid) {
                int rel = relation(w, tid, other, e->r_wsync, false);
                if (rel < 2) report(W, w, lane, in, addr, N_("write after read"), other, e->r_line, rel);
            }
        }
        e->w_mask = (e->w_epoch == ep && e->w_tid == tid) ? (uint8_t)(e->w_mask | mask) : mask;
        e->w_epoch = ep;
        e->w_tid = tid;
        e->w_atomic = 0;
        e->w_wsync = w->wsync;
        e->w_line = in->line;
        e->w_stamp = w->stamp;
    }
}
