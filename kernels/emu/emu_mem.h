/* kernels/emu/emu_mem.h: what the memory files share (emu_mem.c's fast
 * path, emu_check.c's checked path and messages, emu_shadow.c's shared-memory
 * shadow, emu_metrics.c's coalescing and bank-conflict counts, emu_native.c's
 * printf/malloc/free/assert). Included by those files only.
 *
 * The shadow's record functions are inline here: the fast path updates a
 * word's shadow itself when no hazard is possible and calls
 * emu_shadow_access for everything else. */
#ifndef CUDOJO_KERNELS_EMU_MEM_H
#define CUDOJO_KERNELS_EMU_MEM_H

#include "kernels/emu/emu_worker.h"

/* What an access does to memory (for messages and the shadow). */
enum { ACC_READ, ACC_WRITE, ACC_ATOMIC };

/* "thread (x,y,z) of block (x,y,z)", filled by emu_thread_args. */
#define THR "thread (%u,%u,%u) of block (%u,%u,%u)"

/* ---- checked path and messages (emu_check.c) ---------------------------------- */
/* c[0..2] the thread of lane `lane` of warp w, c[3..5] the block. */
void emu_thread_args(const Worker *W, const Warp *w, int lane, unsigned c[6]);
/* "s[5]" for shared byte `off`: the variable that holds it, or the one just
 * before it (an access past its end); "shared memory byte N" if none. */
void emu_shared_name(const Worker *W, const Instr *in, uint64_t off, char *buf, size_t n);
/* Host pointer for `bytes` at `addr` in `space` (SP_GENERIC resolved by its
 * window), or NULL after reporting the misaligned or out-of-bounds access.
 * *shared_off is set for shared accesses (else left as it is). */
unsigned char *emu_mem_resolve(Worker *W, Warp *w, int lane, const Instr *in, int space, uint64_t addr, int bytes,
                               int kind, uint64_t *shared_off);

/* ---- shared-memory shadow (emu_shadow.c) --------------------------------------- */
/* The full check of one lane's access of `bytes` at shared offset `off`:
 * uninitialised reads, races with other threads of this epoch (kind ACC_*;
 * a write compares W->store_same, set by the caller). */
void emu_shadow_access(Worker *W, Warp *w, int lane, const Instr *in, uint64_t off, int bytes, int kind);

/* The shadow of the 4-byte word holding shared byte off (checks on). */
static inline Shadow *emu_shadow_word(Worker *W, uint64_t off) {
    EMU_ASSERT(W->shadow && off < W->shared_size);
    return &W->shadow[off >> 2];
}

/* Records a read of `mask` by tid: two readers per epoch are remembered,
 * each with the bytes it read. */
static inline void emu_shadow_note_read(Shadow *s, uint32_t ep, uint16_t tid, uint8_t mask, const Warp *w, int line) {
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
static inline void emu_shadow_note_write(Shadow *s, uint32_t ep, uint16_t tid, uint8_t mask, uint8_t atomic,
                                         const Warp *w, int line) {
    s->w_mask = (s->w_epoch == ep && s->w_tid == tid) ? (uint8_t)(s->w_mask | mask) : mask;
    s->w_epoch = ep;
    s->w_tid = tid;
    s->w_atomic = atomic;
    s->w_wsync = w->wsync;
    s->w_line = line;
    s->w_stamp = w->stamp;
}

/* The other reader of this epoch whose bytes overlap `mask`, or tid if none. */
static inline uint16_t emu_shadow_other_reader(const Shadow *s, uint16_t tid, uint8_t mask) {
    if (s->r_tid != tid && (s->r_mask & mask)) return s->r_tid;
    if (s->r_tid2 != tid && (s->r_mask2 & mask)) return s->r_tid2;
    return tid;
}

/* ---- metrics (emu_metrics.c) ----------------------------------------------------- */
/* Sectors (global), wavefronts (shared) or a request (local) of one warp
 * access: the lanes in ok, all in first_space, `bytes` each. */
void emu_metrics_access(Worker *W, const Instr *in, const uint64_t *addr, uint32_t ok, int first_space, int bytes);

/* The same, when metrics are on (the test stays inline on the fast path). */
static inline void emu_access_metrics(Worker *W, const Instr *in, const uint64_t *addr, uint32_t ok, int first_space,
                                      int bytes) {
    if (W->L->metrics && ok) emu_metrics_access(W, in, addr, ok, first_space, bytes);
}

#endif
