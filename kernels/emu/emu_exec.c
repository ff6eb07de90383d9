/* kernels/emu/emu_exec.c: runs the warps of one block.
 *
 * Each warp keeps a small list of (pc, mask) groups sorted by pc; the
 * lowest unparked group runs, and groups that reach the same pc merge
 * (thread-frontier reconvergence: no post-dominator analysis, handles any
 * control flow). Warp-synchronous ops (.sync with a member mask) park a
 * group until the named lanes arrive, as on Volta and later. Warps run
 * until they park at a barrier, finish, or use up a slice (so spin-waits on
 * other warps progress); when every warp waits the barrier is released, or
 * the block is reported as deadlocked. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/i18n.h"
#include "base/xalloc.h"
#include "kernels/emu/emu_alu.h"
#include "kernels/emu/emu_mma.h"
#include "kernels/emu/emu_pool.h"
#include "kernels/emu/emu_fast.h"
#include "kernels/emu/emu_trace_rec.h"
#include "kernels/emu/emu_worker.h"

#define SLICE 2048

static inline int popcount32(uint32_t x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (int)((((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}

Worker *emu_worker_new(EmuLaunch *L, int index) {
    Worker *W = xcalloc(1, sizeof *W);
    W->L = L;
    W->k = L->k;
    W->index = index;
    W->nthreads = L->block.x * L->block.y * L->block.z;
    W->nwarps = (int)((W->nthreads + 31) / 32);
    const Kernel *k = L->k;
    W->warps = xcalloc((size_t)W->nwarps, sizeof *W->warps);
    W->regs = xcalloc((size_t)W->nwarps * (size_t)k->n_regs * 32, sizeof(uint64_t));
    W->preds = xcalloc((size_t)W->nwarps * (size_t)k->n_preds, sizeof(uint32_t));
    for (int i = 0; i < W->nwarps; i++) {
        Warp *w = &W->warps[i];
        w->r = W->regs + (size_t)i * (size_t)k->n_regs * 32;
        w->p = W->preds + (size_t)i * (size_t)k->n_preds;
        w->index = i;
        for (int c = 0; c < k->n_consts; c++) {
            uint64_t *R = w->r + (size_t)k->consts[c].reg * 32;
            for (int l = 0; l < 32; l++) R[l] = k->consts[c].value;
        }
    }
    W->shared_size = L->shared_total;
    W->shared = xcalloc(W->shared_size + 16, 1);
    if (L->checks) W->shadow = xcalloc(W->shared_size / 4 + 4, sizeof(Shadow));
    W->local = xcalloc((size_t)W->nthreads * k->local_size + 16, 1);
    W->n_lines = k->max_line + 1;
    W->lines = xcalloc((size_t)W->n_lines, sizeof(LineStats));
    if (L->metrics) {
        W->pcc = xcalloc((size_t)k->n_code + 1, sizeof *W->pcc);
        W->l1 = xcalloc(EMU_L1_SETS, sizeof *W->l1);
    }
    W->order = xcalloc((size_t)W->nwarps, sizeof(int));
    W->hint = -1;
    W->rng = L->seed * 0x9e3779b97f4a7c15ull + (uint64_t)index + 1;
    return W;
}

void emu_worker_free(Worker **wp) {
    Worker *W = *wp;
    if (!W) return;
    free(W->warps);
    free(W->regs);
    free(W->preds);
    free(W->shared);
    free(W->shadow);
    free(W->local);
    free(W->lines);
    free(W->pcc);
    free(W->l1);
    free(W->order);
    emu_gshadow_free(W);
    for (int i = 0; i < W->nf; i++) free(W->f[i].message);
    free(W->f);
    for (int i = 0; i < W->npr; i++) free(W->pr[i].text);
    free(W->pr);
    free(W);
    *wp = NULL;
}

/* ---- groups ----------------------------------------------------------------------- */
static void groups_normalize(Warp *w) {
    int n = w->ng;
    for (int i = 1; i < n; i++) {
        Group g = w->g[i];
        int j = i - 1;
        while (j >= 0 && w->g[j].pc > g.pc) { w->g[j + 1] = w->g[j]; j--; }
        w->g[j + 1] = g;
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (!w->g[i].mask) continue;
        if (k > 0 && w->g[k - 1].pc == w->g[i].pc) {
            w->g[k - 1].mask |= w->g[i].mask;
            if (w->g[k - 1].parked != w->g[i].parked) w->g[k - 1].parked = PARK_NONE;
            continue;
        }
        w->g[k++] = w->g[i];
    }
    w->ng = k;
}

/* Appends a group (groups_normalize then sorts and merges): 32 lanes make at
 * most 32 disjoint groups, and one more before the merge. */
static inline void group_push(Warp *w, Group g) {
    EMU_ASSERT(g.mask && w->ng < (int)(sizeof w->g / sizeof w->g[0]));
    w->g[w->ng++] = g;
}

/* The warp's groups are disjoint sets of live lanes at pcs inside the code
 * (the executor's invariant; checked in debug builds). */
static bool groups_ok(const Worker *W, const Warp *w) {
    uint32_t seen = 0;
    if (w->ng < 0 || w->ng > (int)(sizeof w->g / sizeof w->g[0])) return false;
    for (int i = 0; i < w->ng; i++) {
        const Group *g = &w->g[i];
        if (g->pc < 0 || g->pc >= W->k->n_code || (g->mask & seen) || (g->mask & ~w->live)) return false;
        seen |= g->mask;
    }
    return true;
}

/* Every register operand of an ALU, load, store or atomic instruction inside
 * the register file, every predicate inside the predicates (which fields
 * name predicates depends on the op: both are checked against the larger). */
static bool instr_indices_ok(const Kernel *k, const Instr *in) {
    if (in->guard >= k->n_preds) return false;
    bool regs = in->op < OP_LD || (in->op >= OPF_FIRST && in->op <= OPF_LAST) || in->op == OP_LD ||
                in->op == OP_ST || in->op == OP_LD_PARAM || in->op == OP_ATOM || in->op == OP_RED;
    if (!regs) return true;
    int lim = k->n_regs > k->n_preds ? k->n_regs : k->n_preds;
    for (int i = 0; i < 4; i++)
        if (in->d[i] >= lim || in->a[i] >= lim) return false;
    return in->b < lim && in->c < lim && in->e < lim;
}

static int first_runnable(const Warp *w) {
    for (int i = 0; i < w->ng; i++)
        if (w->g[i].parked == PARK_NONE || w->g[i].parked == PARK_FORCE) return i;
    return -1;
}

/* Fills the special registers; after the worker's first block only the
 * block-dependent ones (%ctaid) change. */
static void fill_specials(Worker *W, Warp *w, bool all) {
    const Kernel *k = W->k;
    EmuLaunch *L = W->L;
    for (int i = 0; i < k->n_specials; i++) {
        int kind = k->specials[i].kind;
        if (!all && kind != SR_CTAID_X && kind != SR_CTAID_Y && kind != SR_CTAID_Z) continue;
        uint64_t *R = w->r + (size_t)k->specials[i].reg * 32;
        uint64_t u = 0;   /* the value when it is the same for every lane */
        switch (kind) {
        case SR_NTID_X: u = L->block.x; break;
        case SR_NTID_Y: u = L->block.y; break;
        case SR_NTID_Z: u = L->block.z; break;
        case SR_CTAID_X: u = W->block[0]; break;
        case SR_CTAID_Y: u = W->block[1]; break;
        case SR_CTAID_Z: u = W->block[2]; break;
        case SR_NCTAID_X: u = L->grid.x; break;
        case SR_NCTAID_Y: u = L->grid.y; break;
        case SR_NCTAID_Z: u = L->grid.z; break;
        case SR_WARPID: u = (unsigned)w->index; break;
        case SR_NWARPID: u = (unsigned)W->nwarps; break;
        case SR_NSMID: u = 132; break;
        case SR_DYN_SMEM: u = L->dyn_shared; break;
        case SR_TOTAL_SMEM: u = L->shared_total; break;
        case SR_DYNBASE: u = k->shared_dyn_off; break;
        default: break;
        }
        for (int l = 0; l < 32; l++) {
            uint64_t v = u;
            if (kind <= SR_TID_Z) {
                unsigned c[3];
                emu_thread_coords(W, (unsigned)(w->index * 32 + l), c);
                v = c[kind - SR_TID_X];
            } else if (kind == SR_LANEID) v = (unsigned)l;
            else if (kind == SR_LANEMASK_EQ) v = 1u << l;
            else if (kind == SR_LANEMASK_LT) v = (1u << l) - 1;
            else if (kind == SR_LANEMASK_LE) v = (uint32_t)((2ull << l) - 1);
            else if (kind == SR_LANEMASK_GT) v = (uint32_t)~((2ull << l) - 1);
            else if (kind == SR_LANEMASK_GE) v = (uint32_t)~((1u << l) - 1);
            R[l] = v;
        }
    }
}

/* ---- warp-level ops ----------------------------------------------------------------- */
/* true when the lanes named by the member mask are all in this group; otherwise parks */
static bool warp_sync_ready(Worker *W, Warp *w, Group *g, uint32_t mm, const Instr *in) {
    uint32_t exited = mm & w->valid & ~w->live;
    if (exited) {
        int lane = __builtin_ctz(g->mask);
        emu_report(W, w, lane, "warp-sync-exited", DIAG_ERROR, in->line,
                   N_("A warp-synchronous operation (__shfl_sync, __ballot_sync, __syncwarp...) names lanes "
                      "0x%08x in its mask, but those threads have already exited; on a GPU the result is undefined."),
                   exited);
    }
    if (g->parked == PARK_FORCE) { g->parked = PARK_NONE; return true; }
    uint32_t need = mm & w->live;
    if (need & ~g->mask) { g->parked = PARK_WSYNC; return false; }
    return true;
}

static void exec_shfl(Warp *w, const Instr *in, uint32_t m) {
    uint64_t src[32];
    const uint64_t *A = w->r + (size_t)in->a[0] * 32, *B = w->r + (size_t)in->b * 32, *C = w->r + (size_t)in->c * 32;
    memcpy(src, A, sizeof src);
    uint64_t *D = w->r + (size_t)in->d[0] * 32;
    uint32_t pv = 0;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint32_t b = (uint32_t)B[l] & 31, c = (uint32_t)C[l];
        uint32_t seg = (c >> 8) & 31, clamp = c & 31;
        uint32_t maxl = ((uint32_t)l & seg) | (clamp & ~seg), minl = (uint32_t)l & seg;
        int j;
        bool ok;
        switch (in->sub) {
        case SHFL_UP: j = l - (int)b; ok = j >= (int)maxl; break;   /* the ISA: maxLane, not minLane */
        case SHFL_DOWN: j = l + (int)b; ok = j <= (int)maxl; break;
        case SHFL_BFLY: j = l ^ (int)b; ok = j <= (int)maxl; break;
        default: j = (int)(minl | (b & ~seg)); ok = j <= (int)maxl; break;
        }
        if (!ok) j = l;
        D[l] = src[j & 31] & 0xffffffffu;
        if (ok) pv |= 1u << l;
    }
    if (in->d[1] >= 0) w->p[in->d[1]] = (w->p[in->d[1]] & ~m) | (pv & m);
}

static void exec_vote(Warp *w, const Instr *in, uint32_t m) {
    uint32_t q = w->p[in->a[0]];
    if (in->flags & F_NEGA) q = ~q;
    q &= m;
    if (in->sub == VOTE_BALLOT) {
        uint64_t *D = w->r + (size_t)in->d[0] * 32;
        for (int l = 0; l < 32; l++) if (m >> l & 1) D[l] = q;
        return;
    }
    bool v = in->sub == VOTE_ALL ? q == m : in->sub == VOTE_ANY ? q != 0 : (q == 0 || q == m);
    uint32_t *P = &w->p[in->d[0]];
    *P = (*P & ~m) | (v ? m : 0);
}

static void exec_match(Warp *w, const Instr *in, uint32_t m) {
    const uint64_t *A = w->r + (size_t)in->a[0] * 32;
    uint64_t *D = w->r + (size_t)in->d[0] * 32;
    uint64_t vals[32];
    bool wide = in->type == T_B64 || in->type == T_U64 || in->type == T_S64;
    for (int l = 0; l < 32; l++) vals[l] = wide ? A[l] : (uint32_t)A[l];
    uint32_t res[32];
    bool all = true;
    int first = m ? __builtin_ctz(m) : 0;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint32_t mk = 0;
        for (int j = 0; j < 32; j++) if ((m >> j & 1) && vals[j] == vals[l]) mk |= 1u << j;
        res[l] = mk;
        if (vals[l] != vals[first]) all = false;
    }
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        D[l] = in->sub == VOTE_ALL ? (all ? m : 0) : res[l];
    }
    if (in->d[1] >= 0) w->p[in->d[1]] = (w->p[in->d[1]] & ~m) | (all ? m : 0);
}

/* elect.sync: the lowest lane of those that named one member mask leads. */
static void exec_elect(Warp *w, const Instr *in, uint32_t m) {
    uint64_t *D = w->r + (size_t)in->d[0] * 32;
    int leader = __builtin_ctz(m);
    for (int l = 0; l < 32; l++) if (m >> l & 1) D[l] = (uint64_t)leader;
    uint32_t *P = &w->p[in->d[1]];
    *P = (*P & ~m) | (1u << leader);
}

static void exec_redux(Warp *w, const Instr *in, uint32_t m) {
    const uint64_t *A = w->r + (size_t)in->a[0] * 32;
    uint64_t *D = w->r + (size_t)in->d[0] * 32;
    bool sgn = in->type == T_S32;
    uint32_t acc = in->sub == AOP_AND ? ~0u : 0;
    int64_t sacc = 0;
    bool first = true;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint32_t v = (uint32_t)A[l];
        switch (in->sub) {
        case AOP_ADD: acc += v; break;
        case AOP_AND: acc &= v; break;
        case AOP_OR: acc |= v; break;
        case AOP_XOR: acc ^= v; break;
        case AOP_MIN: case AOP_MAX:
            if (sgn) {
                int64_t s = (int32_t)v;
                if (first || (in->sub == AOP_MIN ? s < sacc : s > sacc)) sacc = s;
                acc = (uint32_t)sacc;
            } else if (first || (in->sub == AOP_MIN ? v < acc : v > acc)) acc = v;
            break;
        default: break;
        }
        first = false;
    }
    for (int l = 0; l < 32; l++) if (m >> l & 1) D[l] = acc;
}

/* ---- the interpreter loop ------------------------------------------------------------- */
static void trap_report(Worker *W, Warp *w, uint32_t m, const Instr *in) {
    int lane = __builtin_ctz(m);
    unsigned c[3];
    emu_thread_coords(W, (unsigned)(w->index * 32 + lane), c);
    emu_report(W, w, lane, "trap", DIAG_ERROR, in->line,
               N_("thread (%u,%u,%u) of block (%u,%u,%u) executed a trap (on a GPU: \"unspecified launch "
                  "failure\"); the kernel stops here."), c[0], c[1], c[2], W->block[0], W->block[1], W->block[2]);
    W->stop = true;
    __atomic_store_n(&W->L->abort_flag, 1, __ATOMIC_RELAXED);
}

/* metrics: a stretch of the block between two barriers (or to its end)
 * lasts as long as its slowest warp: the critical path adds the most any
 * one warp had in it of each count (kernels/PREDICT.md, the chain). */
static void metrics_segment_end(Worker *W) {
    uint64_t instr = 0;
    uint32_t waits = 0, hits = 0, req = 0;
    for (int i = 0; i < W->nwarps; i++) {
        Warp *w = &W->warps[i];
        if (w->seg_instructions > instr) instr = w->seg_instructions;
        if (w->seg_waits > waits) waits = w->seg_waits;
        if (w->seg_hit_waits > hits) hits = w->seg_hit_waits;
        if (w->seg_requests > req) req = w->seg_requests;
        w->seg_instructions = 0;
        w->seg_waits = w->seg_hit_waits = w->seg_requests = 0;
    }
    W->t.critical_instructions += instr;
    W->t.critical_waits += waits;
    W->t.critical_hit_waits += hits;
    W->t.critical_requests += req;
}

/* Releases named barrier `id`: every group parked there moves on. */
static void named_release(Worker *W, unsigned id) {
    for (int i = 0; i < W->nwarps; i++) {
        Warp *w = &W->warps[i];
        bool moved = false;
        for (int j = 0; j < w->ng; j++) {
            Group *g = &w->g[j];
            if (g->parked != PARK_NBAR) continue;
            const Instr *in = &W->k->code[g->pc];
            unsigned gid = (unsigned)w->r[(size_t)in->a[0] * 32 + __builtin_ctz(g->mask)] & 15;
            if (gid != id) continue;
            g->parked = PARK_NONE;
            g->pc++;
            moved = true;
        }
        w->nb_mask[id] = 0;
        if (moved && w->ng > 1) groups_normalize(w);
    }
    W->nb_arrived[id] = 0;
    W->epoch++;
    W->t.barriers++;
    if (W->L->metrics) metrics_segment_end(W);
}

/* bar.sync id, count / bar.arrive id, count (named barriers, producer and
 * consumer warps): released when `count` threads (all, if 0) have arrived.
 * Returns true when the group now waits. */
static bool named_barrier(Worker *W, Warp *w, Group *g, const Instr *in, uint32_t m, unsigned id, uint32_t count) {
    uint32_t fresh = m & ~w->nb_mask[id];
    W->nb_arrived[id] += (uint32_t)popcount32(fresh);
    uint32_t need = count;
    if (!need) {
        for (int i = 0; i < W->nwarps; i++) need += (uint32_t)popcount32(W->warps[i].live);
    }
    bool wait = in->sub != BAR_ARRIVE;
    if (wait) {
        w->nb_mask[id] |= m;
        g->parked = PARK_NBAR;
        if (m != g->mask) {
            uint32_t rest = g->mask & ~m;
            g->mask = m;
            group_push(w, (Group){g->pc + 1, rest, PARK_NONE});
            groups_normalize(w);
        }
    }
    if (W->nb_arrived[id] >= need) named_release(W, id);
    return wait;
}

/* Metrics for the time prediction (kernels/predict.h): which pipe runs the
 * instruction, and whether it reads a register a global load has not yet
 * delivered (the warp waits a round trip to memory: memory_waits; the loads
 * issued before that wait were in flight together).
 *
 * The pipe depends on the instruction alone, so warp_run counts executions
 * and active lanes per pc (Worker.pcc) and emu_worker_fold_counts turns them
 * into the pipes' totals, thread_instructions and each line's executions
 * once, after the launch. The waits depend on the order the warp ran its
 * instructions in: metrics_wait runs per instruction, only when it can
 * change something (wait_may_change). */
static bool is_f32ish(int type) { return type == T_F32 || type == T_F16 || type == T_F16X2 || type == T_BF16 || type == T_BF16X2; }

enum { PIPE_MEM, PIPE_CTRL, PIPE_FP32, PIPE_FP64, PIPE_SFU, PIPE_INT };

static int pipe_of(const Instr *in) {
    switch (in->op) {
    case OP_LD: case OP_WMMA_LD: case OP_ATOM:
    case OP_ST: case OP_RED: case OP_PREFETCH: case OP_SHFL: case OP_WMMA_ST:
    case OP_CPASYNC: case OP_MBAR: case OP_BULK:
        return PIPE_MEM;
    case OP_BRA: case OP_BRX: case OP_RET: case OP_EXIT: case OP_TRAP: case OP_BAR: case OP_BAR_WARP:
    case OP_MEMBAR: case OP_VOTE: case OP_ACTIVEMASK: case OP_MATCH: case OP_REDUX: case OP_CLOCK: case OP_ELECT:
    case OP_CALL_PRINTF: case OP_CALL_ASSERT: case OP_CALL_MALLOC: case OP_CALL_FREE: case OP_BRKPT:
        return PIPE_CTRL;
    case OP_SQRT: case OP_RSQRT: case OP_RCP: case OP_EX2: case OP_LG2: case OP_SIN: case OP_COS: case OP_TANH:
        return in->type == T_F64 ? PIPE_FP64 : PIPE_SFU;
    case OP_DIV:
        return in->type == T_F64 ? PIPE_FP64 : is_f32ish(in->type) ? PIPE_SFU : PIPE_INT;
    case OPF_FADD: case OPF_FSUB: case OPF_FMUL: case OPF_FFMA: case OPF_SETPF32: case OP_MMA:
        return PIPE_FP32;
    case OP_FMA: case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAD: case OP_MIN: case OP_MAX: case OP_NEG:
    case OP_ABS: case OP_SETP: case OP_COPYSIGN: case OP_TESTP:
        return in->type == T_F64 ? PIPE_FP64 : is_f32ish(in->type) ? PIPE_FP32 : PIPE_INT;
    default:
        return PIPE_INT;
    }
}

void emu_worker_fold_counts(Worker *W) {
    if (!W->pcc) return;
    const Kernel *k = W->k;
    Totals *t = &W->t;
    uint64_t *pipe[] = {[PIPE_MEM] = &t->mem_instructions, [PIPE_CTRL] = &t->ctrl_instructions,
                        [PIPE_FP32] = &t->fp32_instructions, [PIPE_FP64] = &t->fp64_instructions,
                        [PIPE_SFU] = &t->sfu_instructions, [PIPE_INT] = &t->int_instructions};
    for (int pc = 0; pc < k->n_code; pc++) {
        PcCount *c = &W->pcc[pc];
        if (!c->exec) continue;
        const Instr *in = &k->code[pc];
        t->thread_instructions += c->lanes;
        *pipe[pipe_of(in)] += c->exec;
        if (in->line > 0 && in->line < W->n_lines) {
            W->lines[in->line].executions += c->exec;
            W->lines[in->line].active_lanes += c->lanes;
        }
        c->exec = c->lanes = 0;
    }
}

/* Instructions that may start or end a wait with nothing of theirs pending
 * (a global load, atomic or fragment load issues one; a fence for the whole
 * grid waits), by op. */
static const bool WAIT_OPS[OP_COUNT_] = {[OP_LD] = true, [OP_ATOM] = true, [OP_WMMA_LD] = true, [OP_MEMBAR] = true};

static inline bool wait_may_change(const Warp *w, const Instr *in) {
    return (w->pend_bits & in->src_bits) || w->pend_frag || w->pend_shared_st || WAIT_OPS[in->op];
}

static void metrics_wait(Worker *W, Warp *w, const Instr *in, int32_t at) {
    Totals *t = &W->t;
    /* The registers' bits (r & 31) rule out most instructions before the
     * lists are compared. A store's value registers
     * are sources too. A store to shared memory of
     * a loaded value does not wait where the PTX has it: ptxas moves the
     * global loads before it (they cannot alias), so the warp waits once
     * for all of them, at the barrier, shared load or other use that
     * follows (a tile's loads are one round trip). An mma or fragment store
     * waits for the fragments loaded from global memory before it; a fence
     * for the whole grid waits for the warp's stores to be seen (a round
     * trip), and an atomic's old value comes back like a load's. */
    bool waits = (w->pend_frag && (in->op == OP_MMA || in->op == OP_WMMA_ST)) || (in->op == OP_MEMBAR && in->sub == 1);
    if (!waits && (w->pend_bits & in->src_bits)) {
        bool st = in->op == OP_ST;
        const int32_t src[12] = {in->a[0], in->a[1], in->a[2], in->a[3], in->b, in->c, in->e, in->f,
                                 st ? in->d[0] : -1, st ? in->d[1] : -1, st ? in->d[2] : -1, st ? in->d[3] : -1};
        for (int i = 0; i < 12 && !waits; i++)
            for (int j = 0; j < w->n_pend && src[i] >= 0; j++)
                if (w->pend[j] == src[i]) {
                    if (i >= 8 && in->space == SP_SHARED) w->pend_shared_st = true;
                    else waits = true;
                    break;
                }
    }
    /* ... and no further than a loop's branch back (taken or not): ptxas
     * does not move the loads of the next iteration, or of the code after
     * the loop, above the stores of this one (sgemm-tiled's tile loads in
     * two loops: two round trips per tile, not one) */
    if (!waits && w->pend_shared_st)
        waits = in->op == OP_BAR || in->op == OP_BAR_WARP || in->op == OP_MEMBAR || in->op == OP_EXIT ||
                in->op == OP_RET || ((in->op == OP_LD || in->op == OP_ATOM || in->op == OP_RED) && in->space == SP_SHARED) ||
                (in->op == OP_BRA && in->target >= 0 && in->target <= at);
    if (waits) {
        /* an L1 hit: every load waited for read sectors the block had read
         * (emu_metrics.c); atomics, fragments, fences and misses go further */
        bool hit = !w->pend_cold && !w->pend_frag && in->op != OP_MEMBAR;
        t->memory_waits++;
        t->memory_waits_hit += hit;
        w->seg_waits++;
        w->seg_hit_waits += hit;
        w->n_pend = 0;
        w->pend_bits = 0;
        w->pend_frag = w->pend_shared_st = w->pend_cold = false;
        w->group_waited = w->group >= 0;
    }
    switch (in->op) {
    case OP_LD:
        if (in->space != SP_GLOBAL && in->space != SP_GENERIC) break;
        /* a load of a group the warp already waited for was issued with the
         * group's first (emu_group_loads): its value is there */
        if (in->target != w->group || in->target == at) { w->group = in->target; w->group_waited = false; }
        else if (w->group_waited) break;
        for (int i = 0; i < in->vec && i < 4 && w->n_pend < 32; i++)
            if (in->d[i] >= 0) {
                w->pend[w->n_pend++] = in->d[i];
                w->pend_bits |= 1u << (in->d[i] & 31);
            }
        break;
    case OP_WMMA_LD:
        if (in->space == SP_GLOBAL || in->space == SP_GENERIC) w->pend_frag = true;
        break;
    case OP_ATOM:
        if ((in->space == SP_GLOBAL || in->space == SP_GENERIC) && in->d[0] >= 0 && w->n_pend < 32) {
            w->pend_cold = true;   /* atomics are done at L2 */
            w->pend[w->n_pend++] = in->d[0];
            w->pend_bits |= 1u << (in->d[0] & 31);
        }
        break;
    default:
        break;
    }
}

/* Runs warp w for up to `slice` instructions; returns the number executed. */
static int warp_run(Worker *W, Warp *w, int slice) {
    const Instr *code = W->k->code;
    const bool metrics = W->L->metrics;
    int done = 0;
    W->cur = w;
    while (done < slice && !W->stop) {
        int gi = w->ng == 1 ? (w->g[0].parked == PARK_NONE || w->g[0].parked == PARK_FORCE ? 0 : -1)
                            : first_runnable(w);
        if (gi < 0) break;
        EMU_ASSERT(groups_ok(W, w));
        Group *g = &w->g[gi];
        const Instr *in = &code[g->pc];
        EMU_ASSERT(instr_indices_ok(W->k, in));
        uint32_t m = g->mask;
        if (in->guard >= 0) {
            uint32_t pm = w->p[in->guard];
            m &= in->gneg ? ~pm : pm;
        }
        done++;
        if (metrics) {
            uint64_t pc = (uint64_t)popcount32(m);
            PcCount *c = &W->pcc[g->pc];
            c->exec++;
            c->lanes += pc;
            w->seg_instructions++;
            if (wait_may_change(w, in)) metrics_wait(W, w, in, (int32_t)g->pc);
            /* What divergence costs: the lanes that idle while the branch
             * that split the warp keeps it split (both sides of an if/else,
             * a body few lanes run), charged to that branch's line. */
            if (w->ng == 1) w->split_line = 0;
            else if (w->split_line) {
                uint64_t idle = (uint64_t)popcount32(w->live) - pc;
                W->t.divergent_idle_lanes += idle;
                W->lines[w->split_line].divergent_idle += idle;
            }
        }
        bool advance = true;
        switch (in->op) {
        case OPF_FIRST ... OPF_LAST:
            if (m) fast_exec(in, w->r, w->p, m);
            break;
        case OP_LD:
            if (m) emu_exec_ld(W, w, in, m);
            break;
        case OP_ST:
            if (m) emu_exec_st(W, w, in, m);
            break;
        case OP_LD_PARAM: {
            if (in->a[0] >= 0) { /* per lane: a register holds the parameter's offset */
                const uint64_t *A = w->r + (size_t)in->a[0] * 32;
                for (int i = 0; i < in->vec; i++) {
                    uint64_t *D = w->r + (size_t)in->d[i] * 32;
                    for (int l = 0; l < 32; l++) {
                        if (!(m >> l & 1)) continue;
                        uint64_t v = 0, off = A[l] + (uint64_t)in->imm + (uint64_t)i * in->size;
                        if (off < W->L->k->param_size && in->size <= W->L->k->param_size - off)
                            memcpy(&v, W->L->params + off, in->size);
                        if ((in->type == T_S8 || in->type == T_S16 || in->type == T_S32) && in->size < 8) {
                            int bits = in->size * 8;
                            int64_t sv = (int64_t)(v << (64 - bits)) >> (64 - bits);
                            v = in->dbits >= 64 ? (uint64_t)sv : (uint64_t)sv & ((1ull << in->dbits) - 1);
                        }
                        D[l] = v;
                    }
                }
                break;
            }
            for (int i = 0; i < in->vec; i++) {
                uint64_t v = 0;
                size_t off = (size_t)in->imm + (size_t)i * in->size;
                if (in->imm >= 0 && off + in->size <= W->L->k->param_size) memcpy(&v, W->L->params + off, in->size);
                if ((in->type == T_S8 || in->type == T_S16 || in->type == T_S32) && in->size < 8) {
                    int bits = in->size * 8;
                    int64_t sv = (int64_t)(v << (64 - bits)) >> (64 - bits);
                    v = in->dbits >= 64 ? (uint64_t)sv : (uint64_t)sv & ((1ull << in->dbits) - 1);
                }
                uint64_t *D = w->r + (size_t)in->d[i] * 32;
                if (m == EMU_FULL) for (int l = 0; l < 32; l++) D[l] = v;
                else for (int l = 0; l < 32; l++) D[l] = (m >> l & 1) ? v : D[l];
            }
            break;
        }
        case OP_ATOM: case OP_RED:
            if (m) emu_exec_atom(W, w, in, m);
            break;
        case OP_CPASYNC:
            if (m) emu_exec_cpasync(W, w, in, m);
            break;
        case OP_WMMA_LD: case OP_WMMA_ST:
            if (m) emu_exec_wmma_mem(W, w, in, m);
            break;
        case OP_MMA:   /* warp-synchronous: every live lane takes part */
            if (!m) break;
            if (!warp_sync_ready(W, w, g, EMU_FULL, in)) { advance = false; break; }
            emu_exec_mma(W, w, in, m);
            break;
        case OP_CVTA: case OP_CVTA_TO: {
            uint64_t base = in->space == SP_SHARED ? EMU_SHARED_WIN : in->space == SP_LOCAL ? EMU_LOCAL_WIN : 0;
            uint64_t *D = w->r + (size_t)in->d[0] * 32;
            const uint64_t *A = w->r + (size_t)in->a[0] * 32;
            bool to = in->op == OP_CVTA_TO;
            bool narrow = in->type == T_U32 || in->type == T_B32;
            for (int l = 0; l < 32; l++) {
                if (!(m >> l & 1)) continue;
                uint64_t v = A[l];
                if (to) v = base && (v & EMU_WIN_MASK) == base ? v - base : (base ? v & ~EMU_WIN_MASK : v);
                else v = v + base;
                D[l] = narrow ? (uint32_t)v : v;
            }
            break;
        }
        case OP_BRA: {
            uint32_t taken = m, stay = g->mask & ~m;
            W->t.branches++;
            if (metrics && in->line > 0 && in->line < W->n_lines) W->lines[in->line].branches++;
            if (!taken) break;
            if (!stay) { g->pc = in->target; advance = false; if (w->ng > 1) groups_normalize(w); break; }
            W->t.divergent_branches++;
            if (metrics && in->line > 0 && in->line < W->n_lines) {
                W->lines[in->line].divergent++;
                if (w->ng == 1) w->split_line = in->line;
            }
            g->mask = stay;
            g->pc++;
            group_push(w, (Group){in->target, taken, PARK_NONE});
            groups_normalize(w);
            advance = false;
            break;
        }
        case OP_EXIT:
            w->live &= ~m;
            g->mask &= ~m;
            if (!g->mask) {
                g->pc++;   /* removed by normalize (mask 0) */
                groups_normalize(w);
                advance = false;
            }
            break;
        case OP_TRAP: case OP_BRKPT:
            if (m) { trap_report(W, w, m, in); advance = false; }
            break;
        case OP_BAR: {
            if (!m) break;
            int lane0 = __builtin_ctz(m);
            unsigned id = (unsigned)w->r[(size_t)in->a[0] * 32 + lane0] & 15;
            uint32_t count = in->b >= 0 ? (uint32_t)w->r[(size_t)in->b * 32 + lane0] : 0;
            if (id != 0 || count != 0 || in->sub == BAR_ARRIVE) {
                if (named_barrier(W, w, g, in, m, id, count)) advance = false;
                break;
            }
            uint32_t fresh = m & ~w->bar_mask;
            if (W->bar_pc >= 0 && W->bar_pc != g->pc) {
                int lane = __builtin_ctz(m);
                emu_report(W, w, lane, "barrier-divergence", DIAG_ERROR, in->line,
                           N_("Threads of block (%u,%u,%u) wait at different __syncthreads() (line %d and line %d): "
                              "every thread of a block must reach the same barrier."), W->block[0], W->block[1],
                           W->block[2], W->k->code[W->bar_pc].line, in->line);
            }
            if (W->bar_pc < 0) W->bar_pc = g->pc;
            if (in->sub >= BAR_RED_POPC && fresh) {
                uint32_t q = w->p[in->c];
                if (in->flags & F_NEGC) q = ~q;
                q &= fresh;
                W->bar_popc += (uint32_t)popcount32(q);
                if (q != fresh) W->bar_and = false;
                if (q) W->bar_or = true;
            }
            w->bar_mask |= m;
            g->parked = PARK_BAR;
            if (m != g->mask) {
                /* guarded barrier: lanes without the guard go on */
                uint32_t rest = g->mask & ~m;
                g->mask = m;
                group_push(w, (Group){g->pc + 1, rest, PARK_NONE});
                groups_normalize(w);
            }
            advance = false;
            break;
        }
        case OP_BAR_WARP: {
            uint32_t mm = (uint32_t)w->r[(size_t)in->e * 32 + __builtin_ctz(g->mask)];
            if (!warp_sync_ready(W, w, g, mm, in)) { advance = false; break; }
            w->wsync++;
            break;
        }
        case OP_MEMBAR:
            if (m && in->sub == 1) emu_xblock_fence(W);
            break;
        case OP_NOP: case OP_PREFETCH:
            break;
        case OP_MBAR:
            /* a wait that finds its phase incomplete gives the other warps their turn */
            if (m && !emu_exec_mbarrier(W, w, in, m)) slice = done;
            break;
        case OP_BULK:
            if (m) emu_exec_bulk(W, w, in, m);
            break;
        case OP_SHFL: case OP_VOTE: case OP_MATCH: case OP_REDUX: case OP_ELECT: {
            if (!m) break;
            /* Lanes may name different member masks (the tiles of
             * cooperative groups: lanes 0-15 say 0xffff, 16-31 0xffff0000):
             * wait for all of them, and vote/match/redux over each mask's
             * lanes separately (a shuffle reads inside its segment anyway). */
            const uint64_t *MM = w->r + (size_t)in->e * 32;
            uint32_t mm0 = (uint32_t)MM[__builtin_ctz(m)], mm = 0;
            bool same = true;
            for (int l = 0; l < 32; l++) {
                if (!(m >> l & 1)) continue;
                mm |= (uint32_t)MM[l];
                same = same && (uint32_t)MM[l] == mm0;
            }
            if (!warp_sync_ready(W, w, g, mm, in)) { advance = false; break; }
            if (in->op == OP_SHFL) { exec_shfl(w, in, m); break; }
            for (uint32_t rest = m; rest;) {
                uint32_t part = rest;
                if (!same) {
                    uint32_t mk = (uint32_t)MM[__builtin_ctz(rest)];
                    part = 0;
                    for (int l = 0; l < 32; l++) if ((rest >> l & 1) && (uint32_t)MM[l] == mk) part |= 1u << l;
                }
                rest &= ~part;
                if (in->op == OP_VOTE) exec_vote(w, in, part);
                else if (in->op == OP_MATCH) exec_match(w, in, part);
                else if (in->op == OP_ELECT) exec_elect(w, in, part);
                else exec_redux(w, in, part);
            }
            break;
        }
        case OP_ACTIVEMASK: {
            uint64_t *D = w->r + (size_t)in->d[0] * 32;
            for (int l = 0; l < 32; l++) if (m >> l & 1) D[l] = g->mask;
            break;
        }
        case OP_CLOCK: {
            uint64_t *D = w->r + (size_t)in->d[0] * 32;
            uint64_t v = (w->clock + (uint64_t)done) * 4;
            for (int l = 0; l < 32; l++) if (m >> l & 1) D[l] = in->type == T_U64 || in->type == T_B64 ? v : (uint32_t)v;
            break;
        }
        case OP_CALL_PRINTF: case OP_CALL_MALLOC: case OP_CALL_FREE: case OP_CALL_ASSERT:
            if (m) emu_exec_native(W, w, in, m);
            if (W->stop) advance = false;
            break;
        default:
            if (m) emu_alu(in, w->r, w->p, m);
            break;
        }
        if (advance) {
            g->pc++;
            if (gi + 1 < w->ng && w->g[gi + 1].pc == g->pc) groups_normalize(w);
        }
        if (w->ng == 0) break;
    }
    w->clock += (uint64_t)done;
    return done;
}

/* Runs warp w for a slice. The traced warp (the debugger, emu_trace.c) goes
 * one instruction at a time with the recorder looking on. warp_run keeps a
 * single call site: with two, GCC stopped inlining the ALU dispatch
 * (emu_fast.h) and more into it, a call per instruction that cost the
 * untraced emulator 3-8 percent (bench_emu). */
static int warp_slice(Worker *W, Warp *w, bool traced) {
    int done = 0;
    for (;;) {
        if (traced) {
            int gi = w->ng > 0 && !W->stop ? first_runnable(w) : -1;
            if (gi < 0) break;
            emu_trace_before(W, w, gi);
        }
        int n = warp_run(W, w, traced ? 1 : SLICE);
        done += n;
        if (!traced || n == 0 || done >= SLICE) break;
    }
    return done;
}

/* ---- the block ------------------------------------------------------------------------- */
static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Every warp waits: release the barrier (reporting partial arrival) or force a
 * warp-synchronous op. Returns false when nothing can move (the block ends). */
static bool unblock(Worker *W) {
    uint32_t arrived = 0, live = 0;
    for (int i = 0; i < W->nwarps; i++) {
        arrived += (uint32_t)popcount32(W->warps[i].bar_mask);
        live += (uint32_t)popcount32(W->warps[i].live);
    }
    if (arrived) {
        const Instr *bar = &W->k->code[W->bar_pc];
        if (arrived < live) {
            /* someone waits elsewhere (a warp-synchronous op): a GPU hangs here */
            Warp *w = NULL;
            int lane = 0;
            for (int i = 0; i < W->nwarps && !w; i++)
                if (W->warps[i].bar_mask) { w = &W->warps[i]; lane = __builtin_ctz(w->bar_mask); }
            emu_report(W, w, lane, "deadlock", DIAG_ERROR, bar->line,
                       N_("Deadlock in block (%u,%u,%u): %u threads wait at __syncthreads() (line %d) while %u others "
                          "wait at a warp-synchronous operation; on a GPU this block hangs."), W->block[0],
                       W->block[1], W->block[2], arrived, bar->line, live - arrived);
        } else if (arrived < W->nthreads) {
            Warp *w = NULL;
            int lane = 0;
            for (int i = 0; i < W->nwarps && !w; i++)
                if (W->warps[i].bar_mask) { w = &W->warps[i]; lane = __builtin_ctz(w->bar_mask); }
            emu_report(W, w, lane, "barrier-divergence", DIAG_ERROR, bar->line,
                       N_("__syncthreads() was reached by only %u of the %u threads of block (%u,%u,%u); the others "
                          "had already returned. Every thread of a block must reach each __syncthreads() "
                          "(move the barrier out of the if, or don't return early)."), arrived, W->nthreads,
                       W->block[0], W->block[1], W->block[2]);
        }
        for (int i = 0; i < W->nwarps; i++) {
            Warp *w = &W->warps[i];
            for (int j = 0; j < w->ng; j++) {
                Group *g = &w->g[j];
                if (g->parked != PARK_BAR) continue;
                const Instr *in = &W->k->code[g->pc];
                if (in->op == OP_BAR && in->sub >= BAR_RED_POPC) {
                    if (in->sub == BAR_RED_POPC) {
                        uint64_t *D = w->r + (size_t)in->d[0] * 32;
                        for (int l = 0; l < 32; l++) if (g->mask >> l & 1) D[l] = W->bar_popc;
                    } else {
                        bool v = in->sub == BAR_RED_AND ? W->bar_and : W->bar_or;
                        w->p[in->d[0]] = (w->p[in->d[0]] & ~g->mask) | (v ? g->mask : 0);
                    }
                }
                g->parked = PARK_NONE;
                g->pc++;
            }
            w->bar_mask = 0;
            if (w->ng > 1) groups_normalize(w);
        }
        W->bar_pc = -1;
        W->bar_popc = 0;
        W->bar_and = true;
        W->bar_or = false;
        W->epoch++;
        W->t.barriers++;
        if (W->L->metrics) metrics_segment_end(W);
        return true;
    }
    /* named barriers that can never fill up */
    for (unsigned id = 0; id < 16; id++) {
        if (!W->nb_arrived[id]) continue;
        Warp *w = NULL;
        for (int i = 0; i < W->nwarps && !w; i++)
            if (W->warps[i].nb_mask[id]) w = &W->warps[i];
        if (!w) { W->nb_arrived[id] = 0; continue; }
        int lane = __builtin_ctz(w->nb_mask[id]);
        const Instr *in = NULL;
        for (int j = 0; j < w->ng; j++)
            if (w->g[j].parked == PARK_NBAR) in = &W->k->code[w->g[j].pc];
        emu_report(W, w, lane, "deadlock", DIAG_ERROR, in ? in->line : 0,
                   N_("Deadlock in block (%u,%u,%u): %u threads wait at named barrier %u, which never gets the "
                      "number of threads it waits for; on a GPU this block hangs."), W->block[0], W->block[1],
                   W->block[2], W->nb_arrived[id], id);
        named_release(W, id);
        return true;
    }
    /* only warp-synchronous waits: let the lowest one go, and say so */
    bool moved = false;
    for (int i = 0; i < W->nwarps; i++) {
        Warp *w = &W->warps[i];
        for (int j = 0; j < w->ng; j++) {
            Group *g = &w->g[j];
            if (g->parked != PARK_WSYNC) continue;
            const Instr *in = &W->k->code[g->pc];
            int lane = __builtin_ctz(g->mask);
            uint32_t mm = (uint32_t)w->r[(size_t)in->e * 32 + lane];
            emu_report(W, w, lane, "warp-sync-mask", DIAG_ERROR, in->line,
                       N_("A warp-synchronous operation (__shfl_sync, __ballot_sync, __syncwarp...) names lanes 0x%08x "
                          "in its mask, but only lanes 0x%08x of warp %d reach it; the other lanes took another path. "
                          "Use a mask of the lanes that actually execute it (__activemask()) or call it outside the if."),
                       mm, g->mask, w->index);
            g->parked = PARK_FORCE;
            moved = true;
            break;
        }
    }
    return moved;
}

static double mono_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The instruction budget ran out while `last` was running: remember where,
 * and if part of the block waits at a barrier for the others (which spin),
 * call it the deadlock it would be on a GPU. */
static void budget_stop(Worker *W, Warp *last) {
    EmuLaunch *L = W->L;
    int line = 0, lane = 0;
    if (last && last->ng > 0) {
        int gi = first_runnable(last);
        if (gi < 0) gi = 0;
        line = W->k->code[last->g[gi].pc].line;
        lane = __builtin_ctz(last->g[gi].mask);
    }
    pthread_mutex_lock(&L->lock);
    if (!L->budget_hit) {
        L->budget_hit = true;
        L->budget_line = line;
        memcpy(L->budget_block, W->block, sizeof W->block);
        if (last) emu_thread_coords(W, (unsigned)(last->index * 32 + lane), L->budget_thread);
    }
    pthread_mutex_unlock(&L->lock);
    __atomic_store_n(&L->abort_flag, 1, __ATOMIC_RELAXED);
    if (W->bar_pc >= 0) {
        uint32_t waiting = 0;
        Warp *ww = NULL;
        for (int i = 0; i < W->nwarps; i++) {
            waiting += (uint32_t)popcount32(W->warps[i].bar_mask);
            if (W->warps[i].bar_mask && !ww) ww = &W->warps[i];
        }
        const Instr *bar = &W->k->code[W->bar_pc];
        if (ww)
            emu_report(W, ww, __builtin_ctz(ww->bar_mask), "deadlock", DIAG_ERROR, bar->line,
                       N_("Deadlock in block (%u,%u,%u): %u threads wait at __syncthreads() (line %d) for threads "
                          "that never arrive (they keep looping at line %d); on a GPU this block hangs."),
                       W->block[0], W->block[1], W->block[2], waiting, bar->line, line);
    }
}

/* Compiled twice (AVX2 and the x86-64 baseline) and picked at load time:
 * the lane loops of the inlined interpreter vectorise four 64-bit lanes wide. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
void emu_block_run(Worker *W, uint64_t b) {
    EmuLaunch *L = W->L;
    uint64_t gx = L->grid.x, gy = L->grid.y;
    W->block_linear = b;
    W->block[0] = (unsigned)(b % gx);
    W->block[1] = (unsigned)((b / gx) % gy);
    W->block[2] = (unsigned)(b / (gx * gy));
    W->stop = false;
    W->bar_pc = -1;
    W->bar_popc = 0;
    W->bar_and = true;
    W->bar_or = false;
    memset(W->nb_arrived, 0, sizeof W->nb_arrived);
    W->pseq = 0;
    W->epoch += 2;
    W->epoch0 = W->epoch;
    memset(W->shared, L->adversarial ? 0xff : 0, W->shared_size);
    if (L->checks) emu_gshadow_begin_block(W);
    if (W->k->local_size) memset(W->local, 0, (size_t)W->nthreads * W->k->local_size);
    for (int i = 0; i < W->nwarps; i++) {
        Warp *w = &W->warps[i];
        unsigned first = (unsigned)i * 32;
        unsigned n = W->nthreads - first < 32 ? W->nthreads - first : 32;
        w->valid = n == 32 ? EMU_FULL : (1u << n) - 1;
        w->live = w->valid;
        w->ng = 1;
        w->g[0] = (Group){0, w->valid, PARK_NONE};
        w->split_line = 0;
        w->n_pend = 0;
        w->pend_bits = 0;
        w->pend_frag = w->pend_shared_st = w->group_waited = w->pend_cold = false;
        w->seg_instructions = 0;
        w->seg_waits = w->seg_hit_waits = w->seg_requests = 0;
        w->group = -1;
        w->vmerged = 0;
        w->bar_mask = 0;
        memset(w->nb_mask, 0, sizeof w->nb_mask);
        w->wsync = 0;
        w->clock = 0;
        memset(w->p, 0, sizeof(uint32_t) * (size_t)W->k->n_preds);
        fill_specials(W, w, W->blocks_run == 0);
        W->order[i] = i;
    }
    W->blocks_run++;
    W->l1_gen = (uint32_t)W->blocks_run;   /* the L1 sets of earlier blocks are empty to this one (emu_metrics.c) */
    if (W->l1 && !W->l1_gen) memset(W->l1, 0, EMU_L1_SETS * sizeof *W->l1);   /* wrapped: all empty at gen 0 */
    W->trace = L->trace && b == L->trace_block ? L->trace : NULL;
    /* the shuffle depends on the block, not on which host thread runs it */
    W->rng = (L->seed ^ (b + 1) * 0x9e3779b97f4a7c15ull) | 1;
    uint64_t budget = L->budget;
    Warp *last = NULL;
    for (;;) {
        bool ran = false, all_done = true;
        if (L->adversarial) {
            for (int i = W->nwarps - 1; i > 0; i--) {
                int j = (int)(rng_next(&W->rng) % (uint64_t)(i + 1));
                int t = W->order[i];
                W->order[i] = W->order[j];
                W->order[j] = t;
            }
        }
        for (int oi = 0; oi < W->nwarps && !W->stop; oi++) {
            Warp *w = &W->warps[W->order[oi]];
            if (w->ng == 0) continue;
            all_done = false;
            if (first_runnable(w) < 0) continue;
            int n = warp_slice(W, w, W->trace && w->index == L->trace_warp);
            if (n > 0) { ran = true; last = w; }
            W->pending += (uint64_t)n;
        }
        /* a long block (~100 us and more): bring in the pool's helpers (emu_run.c) */
        if (W->pending >= 8192 && L->pool) emu_pool_wake(L->pool);
        if (W->pending >= 65536 || all_done || W->stop) {
            uint64_t total = __atomic_add_fetch(&L->executed, W->pending, __ATOMIC_RELAXED);
            W->t.warp_instructions += W->pending;
            W->pending = 0;
            if (budget && total > budget) {
                budget_stop(W, last);
                W->stop = true;
            } else if (L->deadline > 0 && mono_now_s() > L->deadline) {
                __atomic_store_n(&L->deadline_hit, true, __ATOMIC_RELAXED);
                budget_stop(W, last);
                W->stop = true;
            }
        }
        if (W->stop || all_done) break;
        if (!ran && !unblock(W)) break;
    }
    W->t.warp_instructions += W->pending;
    __atomic_add_fetch(&L->executed, W->pending, __ATOMIC_RELAXED);
    W->pending = 0;
    if (L->metrics) metrics_segment_end(W);
    if (W->trace) emu_trace_block_end(W, &W->warps[L->trace_warp]);
    W->trace = NULL;
}
