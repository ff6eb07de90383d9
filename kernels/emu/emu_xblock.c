/* kernels/emu/emu_xblock.c: races between blocks of one launch on global
 * memory (checks on, more than one block).
 *
 * Blocks of a grid run in any order and at the same time, and nothing but
 * atomics and fences orders them, so two blocks writing one element, or one
 * reading what another writes, in the same launch is a race: the answer
 * depends on which block the GPU happens to run first. The per-block shadow
 * (emu_gshadow.c) cannot see it. Here every 4-byte word of an allocation of
 * at most XB_MAX_BYTES has one 64-bit entry for the launch: the block that
 * last wrote it, the first block that read it and whether another block read
 * it too, and the launch's generation (entries of older launches count as
 * empty, so nothing is cleared between launches). Blocks run on several
 * host threads: an entry changes by compare-and-swap.
 *
 * Reported (race-global): a write of a different value to a word another
 * block wrote (the order of the two decides what stays), a read of a word
 * another block wrote, a write of a new value to a word another block read
 * (a write of the value already there is no write here, unless several
 * blocks read the word: a read-modify-write by more than one block). Both orders of
 * a read and a write are caught, so what is reported does not depend on how
 * the emulator scheduled the blocks. Not reported: two blocks writing the
 * same value (a flag every block sets), atomics (they order themselves),
 * two strong accesses (st.volatile/.relaxed/.release and ld.volatile/
 * .relaxed/.acquire: a flag one block publishes and another polls, as in
 * CUB's decoupled look-back; the scope is not checked), and
 * the published-result pattern — the writer block ran a device-scope fence
 * (__threadfence()) or a strong store and the reader block synchronised
 * through an atomic or a strong load before reading (threadFenceReduction's
 * last block); its mirror for a write after another block's read (that
 * block published, this one synchronised: decoupled look-back working in
 * place); reads
 * of an array no kernel has written yet (inputs: emu_gshadow.c skips them,
 * which keeps checked runs as fast as before; a block reading a neighbour's
 * part before that block's first write is then seen from the other side,
 * as the neighbour's read after a write, wherever a later block reads), and
 * accesses narrower than 4 bytes (the shadow is per word: blocks writing
 * neighbouring bytes of one word would look like a race). */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emu/emu_worker.h"

#define XB_MAX_BYTES ((uint64_t)256 << 20)
#define XB_BLOCK_BITS 22
#define XB_BLOCK_MASK ((1ull << XB_BLOCK_BITS) - 1)
#define XB_MULTI (1ull << 44)
#define XB_WSTRONG (1ull << 45)  /* the last write was a strong store (st.volatile/.relaxed/.release) */
#define XB_RWEAK (1ull << 46)    /* a plain (not strong) load read it */
#define XB_GEN_SHIFT 47
#define XB_GEN_MAX ((1u << 17) - 1)

void emu_xblock_forget(Alloc *a) {
    free(a->xb);
    a->xb = NULL;
}

void emu_xblock_begin(EmuLaunch *L) {
    L->xb = L->checks && L->n_blocks > 1 && L->n_blocks < XB_BLOCK_MASK;
    if (!L->xb) return;
    AllocTable *t = L->allocs;
    if (++t->xb_gen > XB_GEN_MAX) {   /* generations wrapped: old entries could look current */
        t->xb_gen = 1;
        for (int i = 0; i < t->n; i++)
            if (t->v[i].xb) memset(t->v[i].xb, 0, (size_t)((t->v[i].size + 3) / 4) * sizeof(uint64_t));
    }
    L->xb_gen = t->xb_gen;
    for (int i = 0; i < t->n; i++)
        if (!t->v[i].xb && t->v[i].size && t->v[i].size <= XB_MAX_BYTES)
            t->v[i].xb = xcalloc((size_t)((t->v[i].size + 3) / 4), sizeof(uint64_t));
    L->xb_fenced = xcalloc((size_t)L->n_blocks, 1);
    L->xb_synced = xcalloc((size_t)L->n_blocks, 1);
}

void emu_xblock_end(EmuLaunch *L) {
    free(L->xb_fenced);
    free(L->xb_synced);
    L->xb_fenced = L->xb_synced = NULL;
}

/* xb_fenced[block]: XB_FENCE once the block ran a device-scope fence or a
 * release store (its writes and reads before it are published), XB_PUBLISH
 * once it made a relaxed or volatile store (its reads only). */
enum { XB_FENCE = 1, XB_PUBLISH = 2 };

void emu_xblock_fence(Worker *W) {
    if (W->L->xb) __atomic_fetch_or(&W->L->xb_fenced[W->block_linear], XB_FENCE, __ATOMIC_RELAXED);
}

void emu_xblock_publish(Worker *W) {
    if (W->L->xb) __atomic_fetch_or(&W->L->xb_fenced[W->block_linear], XB_PUBLISH, __ATOMIC_RELAXED);
}

void emu_xblock_sync(Worker *W) {
    if (W->L->xb) __atomic_store_n(&W->L->xb_synced[W->block_linear], 1, __ATOMIC_RELAXED);
}

static void block_coords(const EmuLaunch *L, uint64_t id, unsigned c[3]) {
    c[0] = (unsigned)(id % L->grid.x);
    c[1] = (unsigned)(id / L->grid.x % L->grid.y);
    c[2] = (unsigned)(id / ((uint64_t)L->grid.x * L->grid.y));
}

enum { XB_RAW = 1, XB_WAR, XB_WAW };

static const char *const XB_WHAT[] = {"", "read after another block's write", "write after another block's read",
                                      "write after another block's write"};

/* other: the other block's linear id, or UINT64_MAX when only "some other
 * block" is known (several blocks read the word) */
static void report(Worker *W, Warp *w, int lane, const Instr *in, const Alloc *a, uint64_t addr, int kind,
                   uint64_t other) {
    unsigned t[3], o[3] = {0, 0, 0};
    emu_thread_coords(W, (unsigned)(w->index * 32 + lane), t);
    char ob[64] = "another block";
    if (other != UINT64_MAX) {
        block_coords(W->L, other, o);
        snprintf(ob, sizeof ob, "block (%u,%u,%u)", o[0], o[1], o[2]);
    }
    size_t elem = a->elem ? a->elem : 4;
    emu_report(W, w, lane, "race-global", DIAG_ERROR, in->line,
               "Race between blocks (%s): thread (%u,%u,%u) of block (%u,%u,%u) and %s both use %s[%llu] in this "
               "launch, and nothing orders blocks: the GPU runs them in any order and at the same time, so the "
               "result depends on which comes first. Give each block its own elements, use atomics, or split the "
               "work into two launches.",
               XB_WHAT[kind], t[0], t[1], t[2], W->block[0], W->block[1], W->block[2], ob, a->label,
               (unsigned long long)((addr - a->base) / elem));
}

void emu_xblock_access(Worker *W, Warp *w, int lane, const Instr *in, const Alloc *a, uint64_t addr, int bytes,
                       bool write, bool same_value) {
    /* The shadow is per 4-byte word: neighbouring blocks writing neighbouring
     * bytes or halves of one word (a uchar image, a half array) do not race,
     * and a word-sized entry cannot tell, so narrower accesses are left out. */
    if (bytes < 4 || !a->xb || addr < a->base || addr + (uint64_t)bytes > a->base + a->size) return;
    EmuLaunch *L = W->L;
    uint64_t me = W->block_linear + 1, gen = L->xb_gen;
    bool strong = in->flags & (write ? F_STRONG_ST : F_STRONG);
    for (uint64_t off = (addr - a->base) & ~3ull; off < addr - a->base + (uint64_t)bytes; off += 4) {
        uint64_t *e = &a->xb[off >> 2];
        uint64_t old = __atomic_load_n(e, __ATOMIC_RELAXED), nw;
        int kind;
        uint64_t other;   /* + 1; 0 = several, unknown */
        do {
            uint64_t wr = old & XB_BLOCK_MASK, rd = old >> XB_BLOCK_BITS & XB_BLOCK_MASK, multi = old & XB_MULTI;
            uint64_t wstrong = old & XB_WSTRONG, rweak = old & XB_RWEAK;
            if (old >> XB_GEN_SHIFT != gen) wr = rd = multi = wstrong = rweak = 0;
            kind = 0;
            other = 0;
            /* two strong accesses (a flag published with st.relaxed.gpu and
             * polled with ld.relaxed.gpu: CUB's decoupled look-back) never
             * race, as atomics do not; a strong one and a plain one do */
            if (!write) {
                if (wr && wr != me && !(strong && wstrong)) { kind = XB_RAW; other = wr; }
                if (!rd) rd = me;
                else if (rd != me) multi = XB_MULTI;
                if (!strong) rweak = XB_RWEAK;
            } else if (same_value) {
                /* A store of the value already there changes nothing another
                 * block could see (thrust::unique in place: a block whose tile
                 * is all unique writes each element back where it was while
                 * the next block reads the one before its tile): it is no
                 * write, unless several blocks read the word, a read-modify-
                 * write by more than one block (the same element updated by
                 * every block of a row) */
                if (rd && multi && !(strong && !rweak)) { kind = XB_WAR; other = rd != me ? rd : 0; }
            } else {
                if (wr && wr != me && !(strong && wstrong)) { kind = XB_WAW; other = wr; }
                else if (rd && (rd != me || multi) && !(strong && !rweak)) { kind = XB_WAR; other = rd != me ? rd : 0; }
                wr = me;
                wstrong = strong ? XB_WSTRONG : 0;
            }
            nw = gen << XB_GEN_SHIFT | rweak | wstrong | multi | rd << XB_BLOCK_BITS | wr;
        } while (nw != old && !__atomic_compare_exchange_n(e, &old, nw, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
        if (!kind) continue;
        if (kind != XB_WAW) {
            /* the published-result pattern: the writer fenced, the reader synchronised */
            uint64_t writer = kind == XB_RAW ? other : me, reader = kind == XB_RAW ? me : other;
            bool fenced = __atomic_load_n(&L->xb_fenced[writer - 1], __ATOMIC_RELAXED) & XB_FENCE;
            bool synced = reader && __atomic_load_n(&L->xb_synced[reader - 1], __ATOMIC_RELAXED);
            if (fenced && (synced || (kind == XB_RAW && (in->flags & F_STRONG)))) continue;
            /* a write after another block's read, where that block published
             * afterwards and this one read what it published: decoupled
             * look-back in place (thrust::unique), the tile read before its
             * status went out, the write after the status came in; with
             * several readers (the entry keeps no list) the writer's
             * synchronising is taken as enough */
            if (kind == XB_WAR && __atomic_load_n(&L->xb_synced[me - 1], __ATOMIC_RELAXED) &&
                (!other || __atomic_load_n(&L->xb_fenced[other - 1], __ATOMIC_RELAXED)))
                continue;
        }
        report(W, w, lane, in, a, a->base + off, kind, other ? other - 1 : UINT64_MAX);
        return;   /* one finding per access */
    }
}
