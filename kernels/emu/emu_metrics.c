/* kernels/emu/emu_metrics.c: what one warp access costs the memory system
 * (metrics on).
 *
 * Global accesses count the distinct 32-byte sectors the active lanes touch
 * against the ideal (their bytes over 32) and against what the data's own
 * layout needs (layout_sectors below: 3-byte pixels read byte by byte need
 * every sector they span), and whether a load finds all its sectors in the
 * block's L1 (l1_read: the warp's wait for it is an L1 hit); shared
 * accesses count wavefronts as the H200 does (ncu, the EMU11 probes):
 * the most distinct words asked of one of the 32 banks (the same word being
 * a broadcast) per phase, where a 64/128-bit load's quarter-warps share a
 * phase when their data fits 128 bytes without a conflict
 * (metrics_shared_count). Both add to the launch totals and to the access's
 * source line. Shared accesses ptxas merges into one 64/128-bit access
 * (emu_vector.c) count once, at that width. */
#include "kernels/emu/emu_alu.h"
#include "kernels/emu/emu_mem.h"

static void sort_u64(uint64_t *v, int n) {
    for (int i = 1; i < n; i++) {
        uint64_t x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > x) { v[j + 1] = v[j]; j--; }
        v[j + 1] = x;
    }
}

/* Sectors covering bytes [lo, hi). */
static uint64_t span_sectors(uint64_t lo, uint64_t hi) { return hi > lo ? ((hi - 1) >> 5) - (lo >> 5) + 1 : 0; }

/* Whether lanes `stride` bytes apart, each reading `bytes`, read a layout no
 * better access can read: records of 3, 5, 6, 12... bytes (rgb pixels,
 * float3) have no vector load, so the warp needs every sector they span.
 * Records of 2, 4, 8 or 16 bytes read field by field could be one vector
 * load; a stride of 32 bytes or more is a layout the code chose (a column, a
 * big struct): both are judged against the contiguous ideal. */
static bool stride_forced(uint64_t stride, int bytes) {
    if (stride <= (uint64_t)bytes) return true;   /* contiguous or overlapping */
    if (stride >= 32) return false;
    return (stride & (stride - 1)) != 0 || stride > 16;
}

/* The sectors a warp access needs given its own layout: the active lanes
 * split into runs of one stride; a run whose stride is forced (see above)
 * needs every sector its bytes span (its alignment too: a row that starts
 * mid-sector is the data's); lanes in no run of three (a gather through an
 * index array: the data decides) need the sectors their own bytes touch;
 * the other lanes need their bytes over 32. */
static uint64_t layout_sectors(const uint64_t *addr, uint32_t ok, int bytes) {
    uint64_t need = 0, sparse = 0, lo = 0, hi = 0, prev = 0;
    int run_n = 0, first = 0;
    int64_t stride = 0;
    for (int l = 0; l <= 32; l++) {
        bool end = l == 32;
        if (!end && !(ok >> l & 1)) continue;
        int64_t d = end ? 0 : (int64_t)(addr[l] - prev);
        if (!end && run_n == 1) stride = d;
        if (run_n > 0 && (end || (run_n >= 2 && d != stride))) {   /* close the run */
            uint64_t st = (uint64_t)(stride < 0 ? -stride : stride);
            if (run_n >= 3 && stride_forced(st, bytes)) need += span_sectors(lo, hi);
            else if (run_n >= 3) sparse += (uint64_t)run_n;
            else
                for (int k = first; k < l; k++)
                    if (ok >> k & 1) need += span_sectors(addr[k], addr[k] + (uint64_t)bytes);
            run_n = 0;
        }
        if (end) break;
        if (run_n == 0) { lo = addr[l]; hi = addr[l] + (uint64_t)bytes; first = l; }
        if (addr[l] < lo) lo = addr[l];
        if (addr[l] + (uint64_t)bytes > hi) hi = addr[l] + (uint64_t)bytes;
        prev = addr[l];
        run_n++;
    }
    return need + (sparse * (uint64_t)bytes + 31) / 32;
}

/* The allocation holding global address addr (the last one accessed, as a
 * rule), or NULL. */
static const Alloc *l1_alloc(Worker *W, uint64_t addr) {
    AllocTable *t = W->L->allocs;
    if (W->hint >= 0 && W->hint < t->n && addr - t->v[W->hint].base < t->v[W->hint].size) return &t->v[W->hint];
    int i = emu_alloc_find(t, addr);
    return i >= 0 && addr - t->v[i].base < t->v[i].size ? &t->v[i] : NULL;
}

/* The block's L1 line `tag` in the set l1_salt + line hashes to, made the
 * set's most recently used (way 0), brought in with no sectors when it was
 * not there (the least recently used line evicted). */
static EmuL1Set *l1_line(Worker *W, uint64_t tag, uint64_t salt, uint64_t line) {
    EmuL1Set *set = &W->l1[((salt + line) * 0x9e3779b97f4a7c15ull) >> (64 - EMU_L1_SET_BITS)];
    if (set->gen != W->l1_gen) *set = (EmuL1Set){.gen = W->l1_gen};   /* another block's: empty */
    int w = 0;
    while (w < EMU_L1_WAYS - 1 && !(set->sectors[w] && set->tag[w] == tag)) w++;
    uint8_t sectors = set->sectors[w] && set->tag[w] == tag ? set->sectors[w] : 0;
    for (; w > 0; w--) {
        set->tag[w] = set->tag[w - 1];
        set->sectors[w] = set->sectors[w - 1];
    }
    set->tag[0] = tag;
    set->sectors[0] = sectors;
    return set;
}

/* Whether the block had read every sector of this load before (all in its
 * L1, EmuL1Set in emu_worker.h); they are in it afterwards. Lines are named
 * by allocation and offset, so the hits are the same wherever the host put
 * the arrays. */
static bool l1_read(Worker *W, const uint64_t *addr, uint32_t ok, int bytes) {
    bool hit = true;
    const Alloc *a = NULL;
    uint64_t last_tag = UINT64_MAX;
    EmuL1Set *set = NULL;
    for (int l = 0; l < 32; l++) {
        if (!(ok >> l & 1)) continue;
        if (!a || addr[l] - a->base >= a->size) a = l1_alloc(W, addr[l]);
        if (!a) { hit = false; continue; }
        uint64_t off = addr[l] - a->base + a->l1_off;
        for (uint64_t sec = off >> 5; sec <= (off + (uint64_t)bytes - 1) >> 5; sec++) {
            uint64_t line = sec >> 2, tag = (uint64_t)a->l1_id << 32 | (line & 0xffffffffu);
            if (tag != last_tag) {
                set = l1_line(W, tag, a->l1_salt, line);
                last_tag = tag;
            }
            uint8_t bit = (uint8_t)(1u << (sec & 3));
            if (!(set->sectors[0] & bit)) { hit = false; set->sectors[0] |= bit; }
        }
    }
    return hit;
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
    uint64_t layout = layout_sectors(addr, ok, bytes);
    if (layout < ideal) layout = ideal;
    if (layout > distinct) layout = distinct;
    W->t.global_requests++;
    Warp *w = W->cur;
    if (w) {
        w->seg_requests++;
        /* a load that misses the block's L1 (or a volatile or other strong
         * load, which reads L2) makes the warp's next wait a trip beyond L1
         * (Warp.pend_cold, emu_exec.c metrics_wait) */
        if (in->op == OP_LD) {
            bool strong = (in->flags & F_STRONG) != 0;
            bool hit = !strong && l1_read(W, addr, ok, bytes);
            if (!hit && w->n_pend > 0) w->pend_cold = true;
        }
    }
    W->t.global_sectors += distinct;
    W->t.global_ideal_sectors += ideal;
    W->t.global_layout_sectors += layout;
    if (in->op == OP_ST) W->t.global_store_sectors += distinct;
    if (in->line > 0 && in->line < W->n_lines) {
        LineStats *ls = &W->lines[in->line];
        ls->global_requests++;
        ls->global_sectors += distinct;
        ls->global_ideal += ideal;
        ls->global_layout += layout;
        if (distinct >= 2 * layout) ls->global_strided++;
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

/* Bytes a quarter-warp's active lanes ask for: its distinct addresses. */
static uint64_t quarter_bytes(const uint64_t *off, uint32_t ok, int lo, int bytes) {
    uint64_t n = 0;
    for (int l = lo; l < lo + 8; l++) {
        if (!(ok >> l & 1)) continue;
        bool seen = false;
        for (int k = lo; k < l && !seen; k++) seen = (ok >> k & 1) && off[k] == off[l];
        n += !seen;
    }
    return n * (uint64_t)bytes;
}

/* Wavefronts and the conflict-free ideal of the quarter-warps [q0, q0 + n)
 * of a 64- or 128-bit load (n = 4, 2 or 1), as the H200 counts them (ncu
 * on the EMU11 probes; kernels/emu/README.md, "Shared-memory wavefronts"):
 * the quarters are one wavefront when the bytes they ask for, each
 * quarter's distinct addresses counted again in every quarter that asks,
 * are at most 128 and no bank is asked for two different words; else each
 * half is tried alone, and a quarter alone takes the most distinct words it
 * asks of one bank. The ideal merges on the bytes alone. */
static void load_quarters(const uint64_t *off, uint32_t ok, int q0, int n, int bytes, uint64_t *wf, uint64_t *ideal) {
    uint32_t lanes = n == 4 ? 0xffffffffu : ((1u << (8 * n)) - 1) << (8 * q0);
    if (!(ok & lanes)) return;
    if (n == 1) {
        *wf += phase_wavefronts(off, ok, 8 * q0, 8 * q0 + 8, bytes);
        (*ideal)++;
        return;
    }
    uint64_t data = 0;
    for (int q = q0; q < q0 + n; q++) data += quarter_bytes(off, ok, 8 * q, bytes);
    bool fits = data <= 128;
    if (fits && phase_wavefronts(off, ok, 8 * q0, 8 * (q0 + n), bytes) == 1) {
        (*wf)++;
        (*ideal)++;
        return;
    }
    uint64_t ideal_parts = 0;
    load_quarters(off, ok, q0, n / 2, bytes, wf, &ideal_parts);
    load_quarters(off, ok, q0 + n / 2, n / 2, bytes, wf, &ideal_parts);
    *ideal += fits ? 1 : ideal_parts;
}

/* One warp access of shared memory: its wavefronts and ideal. 4-byte
 * accesses: one phase, the most distinct words in one bank. 64/128-bit
 * loads: quarter-warps merged (load_quarters): the whole warp at most for
 * LDS.64, a half-warp for LDS.128 (a broadcast LDS.128 is 2 wavefronts,
 * LDS.64 1). Stores: fixed phases, 2 of 16 lanes (STS.64) or 4 of 8
 * (STS.128), never merged (a broadcast STS.128 is 4). */
static void metrics_shared_count(Worker *W, const Instr *in, const uint64_t *off, uint32_t ok, int bytes) {
    uint64_t wavefronts = 0, ideal = 0;
    if (in->op == OP_LD && bytes == 8) load_quarters(off, ok, 0, 4, bytes, &wavefronts, &ideal);
    else if (in->op == OP_LD && bytes == 16) {
        load_quarters(off, ok, 0, 2, bytes, &wavefronts, &ideal);
        load_quarters(off, ok, 2, 2, bytes, &wavefronts, &ideal);
    } else {
        int phases = bytes <= 4 ? 1 : bytes == 8 ? 2 : 4;
        int per = 32 / phases;
        for (int ph = 0; ph < phases; ph++) {
            uint64_t wf = phase_wavefronts(off, ok, ph * per, (ph + 1) * per, bytes);
            if (wf) { ideal++; wavefronts += wf; }
        }
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

/* An access of a group ptxas merges into one LDS/STS.64 or .128
 * (emu_vector.c: target = the group's first pc, sub2 = its width). The
 * first access counts the group as one access of that width when every
 * active lane's merged address is aligned to it (what ptxas proved);
 * the others then count nothing. Returns false when the access counts as
 * written (not merged, or a lane unaligned). */
static bool metrics_shared_merged(Worker *W, const Instr *in, const uint64_t *off, uint32_t ok) {
    Warp *w = W->cur;
    const Instr *code = W->k->code;
    if (in->target < 0 || !in->sub2 || !w || in < code || in >= code + W->k->n_code) return false;
    uint64_t bit = 1ull << (in->sub & (EMU_VEC_SLOTS - 1));   /* the group's slot (emu_vector.c) */
    if (in->target != (int32_t)(in - code)) return (w->vmerged & bit) != 0;
    int64_t size = in->sub2;
    uint64_t rel = (uint64_t)(((in->imm % size) + size) % size);   /* the access's place in the merged one */
    uint64_t start[32];
    for (int l = 0; l < 32; l++) {
        start[l] = off[l] - rel;
        if ((ok >> l & 1) && (start[l] & (uint64_t)(size - 1))) {
            w->vmerged &= ~bit;
            return false;
        }
    }
    w->vmerged |= bit;
    metrics_shared_count(W, in, start, ok, (int)size);
    return true;
}

static void metrics_shared(Worker *W, const Instr *in, const uint64_t *off, uint32_t ok, int bytes) {
    if (!metrics_shared_merged(W, in, off, ok)) metrics_shared_count(W, in, off, ok, bytes);
}

/* Adds one warp access to the totals and its line (see emu_mem.h). */
void emu_metrics_access(Worker *W, const Instr *in, const uint64_t *addr, uint32_t ok, int first_space, int bytes) {
    if (!W->L->metrics || !ok) return;
    if (first_space == SP_GLOBAL) metrics_global(W, in, addr, ok, bytes);
    else if (first_space == SP_SHARED) {
        uint64_t off[32];
        for (int l = 0; l < 32; l++) off[l] = addr[l] & ~EMU_WIN_MASK;
        metrics_shared(W, in, off, ok, bytes);
    } else W->t.local_requests++;
}
