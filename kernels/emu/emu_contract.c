/* kernels/emu/emu_contract.c: contracting mul + add into fma the way ptxas does.
 *
 * PTX `mul` and `add`/`sub` without a rounding modifier may be fused by the
 * code generator (PTX ISA, "mul"/"add": "may be optimized aggressively"), and
 * ptxas does fuse them: `__hadd(__hmul(a, x), y)` runs as one HFMA2 on an
 * H200, so it rounds once where the emulator, executing the PTX as written,
 * rounded twice (606 of 10,007 halves differed). What ptxas 13.0 did for
 * sm_90, read from cuobjdump -sass of test kernels (tests/conformance/
 * contract_*.cu):
 *   - a mul whose result has exactly one use, an add or sub of the same type
 *     (f16, f16x2, f32, f64) without a rounding modifier, in the same basic
 *     block, is fused (`y - m` becomes fma(-a, b, y), `m - y` fma(a, b, -y));
 *     `.sat` on the add stays on the fma;
 *   - across a branch ptxas fused in one kernel and not in another (the
 *     H200 run of contract_half's last case): the emulator fuses only inside
 *     a basic block, the case it was seen to do every time;
 *   - a mul whose result is used twice is not fused (the rounded product is
 *     needed anyway); nor are mul.ftz + add, or any `.rn` form;
 *   - when both operands of the add are such muls, the first is fused.
 * bf16 is left as written (not measured). The pass runs once at decode time:
 * the add becomes an fma over the mul's sources (the mul stays: its value is
 * dead but harmless). It fuses only when the mul is unguarded and the fma
 * reads the values the mul read: no source is written between the two, nor
 * after the add where a branch can come back between them. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emu/emu_alu.h"

/* Ops whose fields hold predicate indices (not registers) in some places:
 * only their data sources are counted as uses, their destinations never as
 * register definitions. */
static bool writes_predicates(int op) {
    return op == OP_SETP || op == OP_TESTP || op == OP_PAND || op == OP_POR || op == OP_PXOR ||
           op == OP_PNOT || op == OP_PMOV || op == OP_VOTE;
}

static void count_use(int *uses, int n_regs, int32_t r) {
    if (r >= 0 && r < n_regs) uses[r]++;
}

static void count_uses(const Instr *in, int *uses, int n_regs) {
    count_use(uses, n_regs, in->a[0]);
    count_use(uses, n_regs, in->b);
    if (in->op == OP_SETP || in->op == OP_SET || in->op == OP_SELP || writes_predicates(in->op)) return;
    for (int i = 1; i < 4; i++) count_use(uses, n_regs, in->a[i]);
    count_use(uses, n_regs, in->c);
    count_use(uses, n_regs, in->e);
    count_use(uses, n_regs, in->f);
}

static bool fusable_type(int t) {
    return t == T_F16 || t == T_F16X2 || t == T_F32 || t == T_F64;
}

static bool writes_reg(const Instr *in, int32_t r) {
    if (writes_predicates(in->op)) return false;
    for (int k = 0; k < 4; k++)
        if (in->d[k] == r) return true;
    return false;
}

/* Would an fma at `add` read a source s of the mul at `mul` with another
 * value than the mul read? Yes when s is written between them, or written
 * after the add where a branch from there can come back between them. */
static bool source_changes(const Instr *code, int n_code, int mul, int add, int32_t s) {
    for (int pc = mul + 1; pc < add; pc++)
        if (writes_reg(&code[pc], s)) return true;
    bool later = false;
    for (int pc = add + 1; pc < n_code && !later; pc++) later = writes_reg(&code[pc], s);
    if (!later) return false;
    for (int pc = add; pc < n_code; pc++)
        if ((code[pc].op == OP_BRA || code[pc].op == OP_BRX) && code[pc].target > mul && code[pc].target <= add)
            return true;
    return false;
}

/* No branch, and no branch target, from just after the mul up to the add:
 * they are in one basic block. */
static bool one_block(const Instr *code, const bool *target, int mul, int add) {
    for (int pc = mul + 1; pc <= add; pc++) {
        if (target[pc]) return false;
        int op = code[pc].op;
        if (pc < add && (op == OP_BRA || op == OP_BRX || op == OP_RET || op == OP_EXIT)) return false;
    }
    return true;
}

/* The mul that defines register r and may be fused into the add at pc, or -1. */
static int fusable_mul(const Instr *code, int n_code, const bool *target, int pc, int32_t r, const int *def_pc,
                       const int *defs, const int *uses, int n_regs) {
    if (r < 0 || r >= n_regs || defs[r] != 1 || uses[r] != 1) return -1;
    int i = def_pc[r];
    const Instr *mul = &code[i], *add = &code[pc];
    if (i >= pc || mul->op != OP_MUL || mul->type != add->type || mul->rnd != RND_DEF || mul->guard >= 0) return -1;
    if (!one_block(code, target, i, pc)) return -1;
    if ((mul->flags & ~F_FTZ) || (mul->flags & F_FTZ) != (add->flags & F_FTZ)) return -1;
    int32_t src[2] = {mul->a[0], mul->b};
    for (int k = 0; k < 2; k++)
        if (src[k] < 0 || src[k] >= n_regs || source_changes(code, n_code, i, pc, src[k])) return -1;
    return i;
}

void emu_contract_mul_add(Instr *code, int n_code, int n_regs) {
    if (n_regs <= 0) return;
    int *defs = xcalloc((size_t)n_regs, sizeof *defs), *uses = xcalloc((size_t)n_regs, sizeof *uses);
    int *def_pc = xcalloc((size_t)n_regs, sizeof *def_pc);
    bool *target = xcalloc((size_t)n_code + 1, sizeof *target);
    for (int pc = 0; pc < n_code; pc++)
        if (code[pc].op == OP_BRA && code[pc].target >= 0 && code[pc].target < n_code) target[code[pc].target] = true;
    for (int pc = 0; pc < n_code; pc++) {
        const Instr *in = &code[pc];
        count_uses(in, uses, n_regs);
        if (writes_predicates(in->op)) continue;
        for (int k = 0; k < 4; k++) {
            int32_t d = in->d[k];
            if (d < 0 || d >= n_regs) continue;
            defs[d]++;
            def_pc[d] = pc;
        }
    }
    for (int pc = 0; pc < n_code; pc++) {
        Instr *add = &code[pc];
        if ((add->op != OP_ADD && add->op != OP_SUB) || !fusable_type(add->type) || add->rnd != RND_DEF) continue;
        if (add->flags & ~(F_FTZ | F_SAT)) continue;
        int first = fusable_mul(code, n_code, target, pc, add->a[0], def_pc, defs, uses, n_regs);
        int second = first < 0 ? fusable_mul(code, n_code, target, pc, add->b, def_pc, defs, uses, n_regs) : -1;
        if (first < 0 && second < 0) continue;
        const Instr *mul = &code[first >= 0 ? first : second];
        int32_t addend = first >= 0 ? add->b : add->a[0];
        unsigned neg = 0;
        if (add->op == OP_SUB) neg = first >= 0 ? F_NEGC : F_NEGA;   /* m - y, y - m */
        add->op = OP_FMA;
        add->a[0] = mul->a[0];
        add->b = mul->b;
        add->c = addend;
        add->flags |= (uint16_t)neg;
    }
    free(defs);
    free(uses);
    free(def_pc);
    free(target);
}

/* Global loads ptxas issues together (metrics: memory_waits, emu_exec.c).
 * PTX interleaves loads with their uses (NVVM unrolls `acc += A[..] *
 * B[..]` by 4 as ld, ld, fma, ld, ld, fma, ...); ptxas schedules a basic
 * block's loads ahead of the arithmetic, so the warp waits once for the
 * four pairs, not four times. A load joins the group of the block's
 * previous load unless its address derives from a value loaded in the
 * block (a pointer chase), or a store or atomic to global memory, a
 * barrier, a fence or a call came between (a store may alias it). Its
 * `target` holds the pc of the group's first load (-1 other instructions). */
static bool ends_load_group(const Instr *in) {
    int op = in->op;
    bool global = in->space != SP_SHARED && in->space != SP_LOCAL && in->space != SP_PARAM;
    return ((op == OP_ST || op == OP_ATOM || op == OP_RED || op == OP_WMMA_ST) && global) || op == OP_BAR ||
           op == OP_BAR_WARP || op == OP_MEMBAR || op == OP_CALL_PRINTF || op == OP_CALL_ASSERT ||
           op == OP_CALL_MALLOC || op == OP_CALL_FREE;
}

static bool reads_tainted(const Instr *in, const bool *taint, int n_regs) {
    const int32_t src[8] = {in->a[0], in->a[1], in->a[2], in->a[3], in->b, in->c, in->e, in->f};
    for (int k = 0; k < 8; k++)
        if (src[k] >= 0 && src[k] < n_regs && taint[src[k]]) return true;
    return false;
}

void emu_group_loads(Instr *code, int n_code, int n_regs) {
    if (n_regs <= 0) return;
    bool *taint = xcalloc((size_t)n_regs, sizeof *taint);
    bool *leader = xcalloc((size_t)n_code + 1, sizeof *leader);
    leader[0] = true;
    for (int pc = 0; pc < n_code; pc++) {
        int op = code[pc].op;
        if ((op == OP_BRA || op == OP_BRX) && code[pc].target >= 0 && code[pc].target < n_code) leader[code[pc].target] = true;
        if (op == OP_BRA || op == OP_BRX || op == OP_RET || op == OP_EXIT) leader[pc + 1] = true;
    }
    int group = -1;
    for (int pc = 0; pc < n_code; pc++) {
        Instr *in = &code[pc];
        if (leader[pc]) {
            memset(taint, 0, (size_t)n_regs * sizeof *taint);
            group = -1;
        }
        bool tainted = reads_tainted(in, taint, n_regs);
        if (in->op == OP_LD && (in->space == SP_GLOBAL || in->space == SP_GENERIC)) {
            if (group < 0 || tainted) group = pc;
            in->target = group;
            tainted = true;
        } else if (ends_load_group(in)) group = -1;
        if (tainted && !writes_predicates(in->op))
            for (int k = 0; k < 4; k++)
                if (in->d[k] >= 0 && in->d[k] < n_regs) taint[in->d[k]] = true;
    }
    free(taint);
    free(leader);
}
