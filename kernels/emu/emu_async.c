/* kernels/emu/emu_async.c: sm_90's transaction barriers (mbarrier.*) and
 * bulk copies (cp.async.bulk.*), run at once.
 *
 * An mbarrier is 8 bytes of shared memory whose layout PTX leaves opaque;
 * here it is: bits 0-20 the pending arrivals of the current phase, 21-41
 * the expected arrivals (what pending is reset to), 42-62 the tx-count
 * (signed, PTX's range is ±(2^20 - 1)), 63 the current phase's parity. A
 * phase completes when pending arrivals and tx-count are both zero: the
 * parity flips, pending is reset, tx-count is zero. The state an arrive
 * returns is the word with the parity of the phase it arrived in and the
 * arrivals that phase still waited for after it (mbarrier.pending_count
 * reads them); test_wait/try_wait with a state are true once the current
 * parity differs from the state's, with .parity once it differs from the
 * operand's.
 *
 * A bulk copy moves its bytes when it is issued, so its tx-count
 * completes at once (before the arrive.expect_tx that usually follows it:
 * the tx-count goes below zero for a moment, as PTX allows). Each 16-byte
 * chunk is checked like a load and a store by the issuing thread (bounds,
 * alignment, uninitialised memory, races inside the block). The race checks
 * know barriers only: a completed phase starts a new epoch for the block
 * (as a barrier does), so threads that wait on the mbarrier and then read
 * what the copy or the arriving threads wrote do not race with them; a
 * race across a phase's end is missed, never invented. A try_wait or
 * test_wait that finds its phase incomplete ends the warp's
 * slice, so the warps that will arrive run first. */
#include <string.h>

#include "base/i18n.h"
#include "kernels/emu/emu_mem.h"

#define MB_PENDING_MASK ((1ull << 21) - 1)
#define MB_EXPECTED_SHIFT 21
#define MB_TX_SHIFT 42
#define MB_PHASE (1ull << 63)

typedef struct Mbar { uint32_t pending, expected; int32_t tx; bool phase; } Mbar;

static Mbar mbar_unpack(uint64_t v) {
    Mbar b;
    b.pending = (uint32_t)(v & MB_PENDING_MASK);
    b.expected = (uint32_t)((v >> MB_EXPECTED_SHIFT) & MB_PENDING_MASK);
    uint32_t tx = (uint32_t)((v >> MB_TX_SHIFT) & MB_PENDING_MASK);
    b.tx = (int32_t)(tx << 11) >> 11;   /* sign-extend 21 bits */
    b.phase = (v & MB_PHASE) != 0;
    return b;
}

static uint64_t mbar_pack(Mbar b) {
    return (uint64_t)(b.pending & MB_PENDING_MASK) | (uint64_t)(b.expected & MB_PENDING_MASK) << MB_EXPECTED_SHIFT |
           (uint64_t)((uint32_t)b.tx & MB_PENDING_MASK) << MB_TX_SHIFT | (b.phase ? MB_PHASE : 0);
}

/* The phase is over when every arrival and every byte came: the next one
 * starts. For the race checks it ends an epoch, as a barrier does: what
 * the arriving threads (and copies) wrote before is ordered before what
 * the waiting threads read after. */
static void mbar_maybe_complete(Worker *W, Mbar *b) {
    if (b->pending == 0 && b->tx == 0) {
        b->phase = !b->phase;
        b->pending = b->expected;
        W->epoch++;
    }
}

/* The 8 bytes of the mbarrier at `addr` (shared offset, or generic), or
 * NULL after reporting an address outside shared memory. */
static unsigned char *mbar_at(Worker *W, Warp *w, int lane, const Instr *in, int space, uint64_t addr) {
    if (space == SP_GENERIC && (addr & EMU_WIN_MASK) != EMU_SHARED_WIN) {
        unsigned c[6];
        emu_thread_args(W, w, lane, c);
        emu_report(W, w, lane, "oob-shared", DIAG_ERROR, in->line,
                   N_(THR " used an mbarrier at address 0x%llx, which is not in shared memory: an mbarrier "
                      "object lives in shared memory."), c[0], c[1], c[2], c[3], c[4], c[5], (unsigned long long)addr);
        return NULL;
    }
    uint64_t off = UINT64_MAX;
    return emu_mem_resolve(W, w, lane, in, space, addr, 8, ACC_ATOMIC, &off);
}

/* One lane's mbarrier operation; false when a wait found its phase not yet complete. */
static bool mbar_lane(Worker *W, Warp *w, int l, const Instr *in) {
    const uint64_t *A = in->a[0] >= 0 ? w->r + (size_t)in->a[0] * 32 : NULL;
    const uint64_t *B = in->b >= 0 ? w->r + (size_t)in->b * 32 : NULL;
    uint64_t *D = in->d[0] >= 0 && in->sub != MB_TEST_WAIT && in->sub != MB_TRY_WAIT ? w->r + (size_t)in->d[0] * 32 : NULL;
    uint64_t val = B ? B[l] : 0;
    if (in->sub == MB_PENDING) {
        D[l] = (uint32_t)(val & MB_PENDING_MASK);
        return true;
    }
    unsigned char *p = mbar_at(W, w, l, in, in->space, A[l]);
    if (!p) return true;
    uint64_t word;
    memcpy(&word, p, 8);
    Mbar b = mbar_unpack(word);
    switch (in->sub) {
    case MB_INIT:
        b = (Mbar){(uint32_t)val & MB_PENDING_MASK, (uint32_t)val & MB_PENDING_MASK, 0, false};
        break;
    case MB_INVAL:
        b = (Mbar){0, 0, 0, false};
        break;
    case MB_EXPECT_TX:
        b.tx += (int32_t)(uint32_t)val;
        break;
    case MB_COMPLETE_TX:
        b.tx -= (int32_t)(uint32_t)val;
        mbar_maybe_complete(W, &b);
        break;
    case MB_ARRIVE: {
        uint32_t count = (in->sub2 & MBF_EXPECT_TX) ? 1 : (uint32_t)val & MB_PENDING_MASK;
        if (in->sub2 & MBF_EXPECT_TX) b.tx += (int32_t)(uint32_t)val;
        if (in->sub2 & MBF_DROP) b.expected -= count < b.expected ? count : b.expected;
        bool phase = b.phase;
        b.pending -= count < b.pending ? count : b.pending;
        uint64_t state = (b.pending & MB_PENDING_MASK) | (phase ? MB_PHASE : 0);
        mbar_maybe_complete(W, &b);
        if (D) D[l] = state;
        break;
    }
    case MB_TEST_WAIT: case MB_TRY_WAIT: {
        bool waited = (in->sub2 & MBF_PARITY) ? (val & 1) != 0 : (val & MB_PHASE) != 0;
        bool done = b.phase != waited;
        uint32_t *P = &w->p[in->d[0]];
        *P = done ? *P | 1u << l : *P & ~(1u << l);
        return done;
    }
    default:
        break;
    }
    word = mbar_pack(b);
    memcpy(p, &word, 8);
    return true;
}

bool emu_exec_mbarrier(Worker *W, Warp *w, const Instr *in, uint32_t m) {
    bool all_done = true;
    for (int l = 0; l < 32; l++)
        if (m >> l & 1) all_done &= mbar_lane(W, w, l, in);
    return all_done;
}

/* Completes `bytes` of the mbarrier at shared/generic address `addr`. */
static void complete_tx(Worker *W, Warp *w, int l, const Instr *in, uint64_t addr, uint32_t bytes) {
    unsigned char *p = mbar_at(W, w, l, in, SP_GENERIC, (addr & EMU_WIN_MASK) ? addr : addr + EMU_SHARED_WIN);
    if (!p) return;
    uint64_t word;
    memcpy(&word, p, 8);
    Mbar b = mbar_unpack(word);
    b.tx -= (int32_t)bytes;
    mbar_maybe_complete(W, &b);
    word = mbar_pack(b);
    memcpy(p, &word, 8);
}

/* A shared address of a bulk copy: generic (the window) or a shared offset. */
static uint64_t shared_off(uint64_t a) {
    return (a & EMU_WIN_MASK) == EMU_SHARED_WIN ? a - EMU_SHARED_WIN : a;
}

/* One lane's bulk copy, checked 16 bytes at a time. */
static void bulk_lane(Worker *W, Warp *w, int l, const Instr *in) {
    uint64_t dst = w->r[(size_t)in->a[0] * 32 + l], src = w->r[(size_t)in->b * 32 + l];
    uint32_t size = (uint32_t)w->r[(size_t)in->c * 32 + l];
    uint32_t extra = in->f >= 0 ? (uint32_t)w->r[(size_t)in->f * 32 + l] : 0;
    bool checks = W->L->checks;
    if (size % 16) {
        unsigned c[6];
        emu_thread_args(W, w, l, c);
        emu_report(W, w, l, "misaligned", DIAG_ERROR, in->line,
                   N_(THR " started a bulk copy (cp.async.bulk) of %u bytes: the size must be a multiple of 16."),
                   c[0], c[1], c[2], c[3], c[4], c[5], size);
        return;
    }
    /* multicast: the CTAs of the cluster named in ctaMask; a cluster holds one CTA (rank 0) here */
    bool copy = !(in->sub2 & BULKF_MULTICAST) || (extra & 1);
    for (uint32_t i = 0; copy && i < size; i += 16) {
        unsigned char tmp[16];
        uint64_t soff = UINT64_MAX;
        if (in->sub == BULK_G2S) {
            const unsigned char *s = emu_mem_resolve(W, w, l, in, SP_GLOBAL, src + i, 16, ACC_READ, &soff);
            if (!s) return;
            if (checks) {
                const Alloc *ia = emu_init_alloc(W, src + i);
                if (ia) emu_init_read(W, w, l, in, ia, src + i, 16);
                emu_gshadow_access(W, w, l, in, src + i, 16, 0, false);
            }
            memcpy(tmp, s, 16);
        } else {
            const unsigned char *s = emu_mem_resolve(W, w, l, in, SP_SHARED, shared_off(src) + i, 16, ACC_READ, &soff);
            if (!s) return;
            if (checks) emu_shadow_access(W, w, l, in, soff, 16, ACC_READ);
            memcpy(tmp, s, 16);
        }
        if (in->sub == BULK_S2G) {
            unsigned char *d = emu_mem_resolve(W, w, l, in, SP_GLOBAL, dst + i, 16, ACC_WRITE, &soff);
            if (!d) return;
            Alloc *ia = emu_init_alloc(W, dst + i);
            if (ia) emu_init_write(ia, dst + i, 16);
            if (checks) emu_gshadow_access(W, w, l, in, dst + i, 16, 1, !memcmp(d, tmp, 16));
            for (int k = 0; k < 16; k++)
                if (!(in->sub2 & BULKF_BYTEMASK) || (extra >> k & 1)) d[k] = tmp[k];
        } else {
            uint64_t doff = UINT64_MAX;
            unsigned char *d = emu_mem_resolve(W, w, l, in, SP_SHARED, shared_off(dst) + i, 16, ACC_WRITE, &doff);
            if (!d) return;
            if (checks) {
                W->store_same = !memcmp(d, tmp, 16);
                emu_shadow_access(W, w, l, in, doff, 16, ACC_WRITE);
            }
            memcpy(d, tmp, 16);
        }
    }
    if (in->sub != BULK_S2G) complete_tx(W, w, l, in, w->r[(size_t)in->e * 32 + l], size);
}

void emu_exec_bulk(Worker *W, Warp *w, const Instr *in, uint32_t m) {
    for (int l = 0; l < 32; l++)
        if (m >> l & 1) bulk_lane(W, w, l, in);
}
