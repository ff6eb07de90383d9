/* kernels/emu/emu_vector.c: the shared-memory accesses ptxas merges into
 * one 64- or 128-bit access (LDS.64/.128, STS.64/.128), found at decode
 * time so the metrics count what the GPU executes.
 *
 * NVVM writes a thread's four adjacent floats as four scalar
 * `ld.shared.f32 [%r], [%r+4], [%r+8], [%r+12]`; ptxas, which knows the
 * shared layout and the low bits of %r, issues one LDS.128. Counted per PTX
 * instruction, a register-tiled SGEMM whose threads own 4 adjacent columns
 * showed four requests with a 2-way bank conflict each where the H200 ran
 * one conflict-free LDS.128 (ncu: 32 LDS.128 per tile, no conflicts). What
 * ptxas 13.0 did for sm_90 (cuobjdump -sass of small kernels; the rule and
 * its limits are in kernels/emu/README.md, "Merged shared accesses"):
 *   - candidates: unguarded, non-volatile ld/st.shared of 4 bytes (f32,
 *     b32, u32, s32), or of 8 (a .v2 of 4-byte elements, a 64-bit scalar),
 *     through the same base register with immediate offsets, in one basic
 *     block;
 *   - loads: the candidates in one 16-byte chunk (offset / 16, the base
 *     being 16-byte aligned) that cover 3 or 4 of its words are one LDS.128
 *     (ptxas widens three loads to four); otherwise two loads covering an
 *     8-byte aligned half are one LDS.64; {0,2}, {1,2}, {0,3} stay scalar;
 *   - stores: a chunk written whole is one STS.128, an 8-byte half written
 *     whole one STS.64, nothing is widened;
 *   - loads are kept apart by a shared store, an atomic, a barrier, a fence
 *     or a call between them, and by a redefinition of the base register;
 *     loads of other addresses and global accesses between do not matter;
 *     stores are kept apart by any other shared access between them too.
 * Marking: each access of a merged group gets target = the pc of the
 * group's first access (in program order), sub2 = the merged width in
 * bytes (8 or 16) and sub = the group's slot (0..63). At run time
 * (emu_metrics.c) the first access counts the group as one access of that
 * width when every active lane's merged address is aligned to it (ptxas
 * merges only what it can prove aligned), and keeps the verdict in bit
 * `slot` of Warp.vmerged; the others read it there and count nothing, or,
 * unaligned, each as written. Slots: a group is open from its first access
 * to its last, all in one basic block, so a warp runs them in that order
 * with only the groups whose spans overlap it in between; groups whose
 * spans overlap get distinct slots (assign_slots), and a group finding all
 * EMU_VEC_SLOTS taken stays unmerged (counted as written: conservative). */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emu/emu_alu.h"

/* A candidate: pc, base register, offset, bytes. */
typedef struct Cand { int pc; int32_t base; int64_t off; int bytes; } Cand;

static bool is_candidate(const Instr *in) {
    if ((in->op != OP_LD && in->op != OP_ST) || in->space != SP_SHARED || in->guard >= 0) return false;
    if (in->flags & F_STRONG) return false;
    int bytes = in->size * in->vec;
    if (in->vec == 1 && in->size != 4 && in->size != 8) return false;
    if (in->vec == 2 && in->size != 4) return false;
    if (in->vec > 2) return false;
    return in->a[0] >= 0 && (in->imm % bytes) == 0;
}

/* Ops whose destinations are predicates (not registers); vote is left
 * out: ballot writes a register (a predicate index read as a register only
 * ends a window early). */
static bool dests_are_predicates(int op) {
    return op == OP_SETP || op == OP_TESTP || op == OP_PAND || op == OP_POR || op == OP_PXOR ||
           op == OP_PNOT || op == OP_PMOV;
}

static bool writes_reg(const Instr *in, int32_t r) {
    if (dests_are_predicates(in->op) || in->op == OP_ST || in->op == OP_RED) return false;
    for (int k = 0; k < 4; k++)
        if (in->d[k] == r) return true;
    return false;
}

/* Keeps shared loads apart (ptxas does not move a load across it). */
static bool splits_loads(const Instr *in) {
    int op = in->op;
    bool shared_or_generic = in->space == SP_SHARED || in->space == SP_GENERIC;
    return ((op == OP_ST || op == OP_WMMA_ST || op == OP_CPASYNC) && in->space == SP_SHARED) ||
           ((op == OP_ATOM || op == OP_RED) && shared_or_generic) || op == OP_BAR || op == OP_BAR_WARP ||
           op == OP_MEMBAR || op == OP_CALL_PRINTF || op == OP_CALL_ASSERT || op == OP_CALL_MALLOC ||
           op == OP_CALL_FREE || op == OP_BRKPT;
}

/* Keeps shared stores apart: the same, and any shared access. */
static bool touches_shared(const Instr *in) {
    int op = in->op;
    return (op == OP_LD || op == OP_ST || op == OP_WMMA_LD || op == OP_WMMA_ST || op == OP_CPASYNC) &&
           (in->space == SP_SHARED || in->space == SP_GENERIC);
}

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static void mark(Instr *code, const Cand *c, const int *idx, int n, int width) {
    int first = c[idx[0]].pc;
    for (int i = 1; i < n; i++)
        if (c[idx[i]].pc < first) first = c[idx[i]].pc;
    for (int i = 0; i < n; i++) {
        code[c[idx[i]].pc].target = first;
        code[c[idx[i]].pc].sub2 = (uint8_t)width;
    }
}

/* Merges the candidates c[0..n) (one kind: loads or stores; one window
 * between splitters) as ptxas does. */
static void merge_window(Instr *code, Cand *c, int n, bool stores) {
    bool *done = xcalloc((size_t)n + 1, sizeof *done);
    int *idx = xmalloc(sizeof *idx * ((size_t)n + 1));
    for (int i = 0; i < n; i++) {
        if (done[i]) continue;
        int64_t chunk = floor_div(c[i].off, 16);
        int m = 0;
        unsigned words = 0, overlap = 0;
        for (int j = i; j < n; j++) {
            if (done[j] || c[j].base != c[i].base || floor_div(c[j].off, 16) != chunk) continue;
            idx[m++] = j;
            done[j] = true;
            unsigned w = ((1u << (c[j].bytes / 4)) - 1) << (unsigned)((c[j].off - chunk * 16) / 4);
            overlap |= words & w;
            words |= w;
        }
        if (m < 2) continue;
        if (stores && overlap) continue;   /* two stores to one word: leave them as written */
        int nw = __builtin_popcount(words);
        if (words == 0xf || (!stores && nw >= 3)) { mark(code, c, idx, m, 16); continue; }
        for (int h = 0; h < 2; h++) {   /* an 8-byte half covered by two 4-byte accesses */
            if (((words >> (2 * h)) & 3) != 3) continue;
            int sub[4], k = 0;
            for (int q = 0; q < m && k < 4; q++) {
                int64_t rel = c[idx[q]].off - chunk * 16;
                if (c[idx[q]].bytes == 4 && rel / 8 == h) sub[k++] = idx[q];
            }
            if (k >= 2) mark(code, c, sub, k, 8);
        }
    }
    free(done);
    free(idx);
}

/* Removes the candidates with base register r (merging them first). */
static void close_base(Instr *code, Cand *c, int *n, int32_t r, bool stores) {
    int any = 0;
    for (int i = 0; i < *n && !any; i++) any = c[i].base == r;
    if (!any) return;
    Cand *out = xmalloc(sizeof *out * ((size_t)*n + 1));
    int m = 0, k = 0;
    for (int i = 0; i < *n; i++)
        if (c[i].base == r) out[m++] = c[i];
    merge_window(code, out, m, stores);
    for (int i = 0; i < *n; i++)
        if (c[i].base != r) c[k++] = c[i];
    *n = k;
    free(out);
}

/* Whether `in` is an access of a merged group (target and sub2 mean other
 * things on other instructions: branches, setp's boolean op, fragments). */
static bool is_marked(const Instr *in, int n_code) {
    return (in->op == OP_LD || in->op == OP_ST) && in->space == SP_SHARED && in->sub2 && in->target >= 0 &&
           in->target < n_code;
}

/* Gives each merged group a slot no group open at the same time has: by
 * first pc, the lowest slot whose last group ended before this one starts
 * (optimal for spans); unmerges a group when every slot is held. */
static void assign_slots(Instr *code, int n_code) {
    int *last = xmalloc(sizeof *last * ((size_t)n_code + 1));
    for (int pc = 0; pc < n_code; pc++) last[pc] = -1;
    for (int pc = 0; pc < n_code; pc++)
        if (is_marked(&code[pc], n_code)) last[code[pc].target] = pc;
    int held_until[EMU_VEC_SLOTS];
    for (int i = 0; i < EMU_VEC_SLOTS; i++) held_until[i] = -1;
    for (int first = 0; first < n_code; first++) {
        if (last[first] < 0) continue;
        int slot = 0;
        while (slot < EMU_VEC_SLOTS && held_until[slot] >= first) slot++;
        for (int pc = first; pc <= last[first]; pc++) {
            if (!is_marked(&code[pc], n_code) || code[pc].target != first) continue;
            if (slot < EMU_VEC_SLOTS) code[pc].sub = (uint8_t)slot;
            else { code[pc].target = -1; code[pc].sub2 = 0; }
        }
        if (slot < EMU_VEC_SLOTS) held_until[slot] = last[first];
    }
    free(last);
}

void emu_group_shared_vectors(Instr *code, int n_code) {
    bool *leader = xcalloc((size_t)n_code + 1, sizeof *leader);
    Cand *ld = xmalloc(sizeof *ld * ((size_t)n_code + 1)), *st = xmalloc(sizeof *st * ((size_t)n_code + 1));
    int n_ld = 0, n_st = 0;
    leader[0] = true;
    for (int pc = 0; pc < n_code; pc++) {
        int op = code[pc].op;
        if ((op == OP_BRA || op == OP_BRX) && code[pc].target >= 0 && code[pc].target < n_code) leader[code[pc].target] = true;
        if (op == OP_BRA || op == OP_BRX || op == OP_RET || op == OP_EXIT || op == OP_TRAP) leader[pc + 1] = true;
    }
    for (int pc = 0; pc <= n_code; pc++) {
        if (pc == n_code || leader[pc]) {
            merge_window(code, ld, n_ld, false);
            merge_window(code, st, n_st, true);
            n_ld = n_st = 0;
            if (pc == n_code) break;
        }
        Instr *in = &code[pc];
        bool cand = is_candidate(in);
        if (splits_loads(in)) { merge_window(code, ld, n_ld, false); n_ld = 0; }
        bool cand_st = cand && in->op == OP_ST;
        if (!cand_st && (splits_loads(in) || touches_shared(in))) {
            merge_window(code, st, n_st, true);
            n_st = 0;
        } else if (cand_st) {
            /* a store to another base register keeps the stores before it apart */
            for (int i = 0; i < n_st; i++)
                if (st[i].base != in->a[0]) { merge_window(code, st, n_st, true); n_st = 0; break; }
        }
        if (cand) {
            Cand x = {pc, in->a[0], in->imm, in->size * in->vec};
            if (in->op == OP_LD) ld[n_ld++] = x;
            else st[n_st++] = x;
        }
        /* a register written here ends the windows of accesses based on it */
        for (int k = 0; k < 4; k++) {
            int32_t d = in->d[k];
            if (d < 0 || !writes_reg(in, d)) continue;
            close_base(code, ld, &n_ld, d, false);
            close_base(code, st, &n_st, d, true);
        }
    }
    free(leader);
    free(ld);
    free(st);
    assign_slots(code, n_code);
}
