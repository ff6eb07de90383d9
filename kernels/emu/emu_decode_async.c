/* kernels/emu/emu_decode_async.c: decodes sm_90's asynchronous-copy
 * family: mbarrier.* (the transaction barrier in shared memory),
 * cp.async.bulk.* (the bulk copy engine, TMA without tensor maps),
 * elect.sync, griddepcontrol, and cp.async.mbarrier.arrive (sm_80's
 * cp.async tracked by an mbarrier: cuda::memcpy_async with a
 * cuda::barrier). CCCL 3's CUB uses them on sm_90 (the
 * bulk-copy transform of thrust::transform, decoupled look-back with
 * programmatic dependent launch), so a Thrust program's PTX has them in
 * kernels it may never launch; every entry must decode.
 *
 * Operands with an offset ([%r+8]) become a register holding the sum (an
 * add into a fresh register), so the executor (emu_async.c) reads plain
 * addresses. What the emulator lacks (cp.async.bulk.tensor, cp.reduce.*,
 * multicast to other CTAs) fails here, naming the instruction. */
#include <string.h>

#include "kernels/emu/emu_decode.h"

/* Whether `op` has the modifier `.mod` (a whole dot-separated word). */
static bool has_mod(const char *op, const char *mod) {
    size_t n = strlen(mod);
    for (const char *p = strchr(op, '.'); p; p = strchr(p + 1, '.'))
        if (!strncmp(p + 1, mod, n) && (p[1 + n] == '.' || p[1 + n] == 0)) return true;
    return false;
}

/* The address of a memory operand in one register: the base, or base +
 * offset in a fresh 64-bit register. */
static int addr_reg(Ctx *c, const RawOpnd *o) {
    int reg;
    int64_t off;
    EmuSpace sp;
    if (!emu_decode_mem(c, o, &reg, &off, &sp)) return -1;
    if (reg < 0) { emu_decode_fail(c, "kernel parameters have no address here%s", ""); return -1; }
    if (off == 0) return reg;
    int sum = emu_decode_new_reg(c, 64);
    Instr *in = emu_decode_emit(c, OP_ADD);
    in->type = T_U64;
    in->dbits = 64;
    in->d[0] = sum;
    in->a[0] = reg;
    in->b = emu_decode_const(c, (uint64_t)off);
    return sum;
}

/* The space an mbarrier or bulk-copy operand lives in: .shared{::cta,
 * ::cluster} (a cluster of one CTA here) or generic. */
static EmuSpace shared_or_generic(const char *op) {
    return strstr(op, ".shared") ? SP_SHARED : SP_GENERIC;
}

/* mbarrier.{init, inval, expect_tx, complete_tx, arrive[_drop][.expect_tx |
 * .noComplete], test_wait[.parity], try_wait[.parity], pending_count}. */
static void decode_mbarrier(Ctx *c, const RawStmt *s) {
    static const struct { const char *name; int sub; int nops; } forms[] = {
        {"init", MB_INIT, 2}, {"inval", MB_INVAL, 1}, {"expect_tx", MB_EXPECT_TX, 2},
        {"complete_tx", MB_COMPLETE_TX, 2}, {"arrive", MB_ARRIVE, 2}, {"arrive_drop", MB_ARRIVE, 2},
        {"test_wait", MB_TEST_WAIT, 3}, {"try_wait", MB_TRY_WAIT, 3}, {"pending_count", MB_PENDING, 2},
    };
    const char *word = s->op + strlen("mbarrier.");
    size_t wl = strcspn(word, ".");
    int f = -1;
    for (int i = 0; i < (int)(sizeof forms / sizeof forms[0]); i++)
        if (strlen(forms[i].name) == wl && !strncmp(word, forms[i].name, wl)) f = i;
    if (f < 0) { emu_decode_fail(c, "unsupported instruction '%s'", s->op); return; }
    if (!has_mod(s->op, "b64")) { emu_decode_fail(c, "mbarrier needs .b64%s", ""); return; }
    if (s->nops < forms[f].nops) { emu_decode_fail(c, "too few operands%s", ""); return; }
    int sub = forms[f].sub;
    unsigned mods = 0;
    if (!strncmp(word, "arrive_drop", 11)) mods |= MBF_DROP;
    if (sub == MB_ARRIVE && has_mod(s->op, "expect_tx")) mods |= MBF_EXPECT_TX;
    if (sub == MB_ARRIVE && has_mod(s->op, "noComplete")) mods |= MBF_NOCOMPLETE;
    if ((sub == MB_TEST_WAIT || sub == MB_TRY_WAIT) && has_mod(s->op, "parity")) mods |= MBF_PARITY;
    if ((mods & MBF_EXPECT_TX) && (mods & MBF_NOCOMPLETE)) { emu_decode_fail(c, "bad mbarrier.arrive form%s", ""); return; }
    Instr *in;
    if (sub == MB_PENDING) {    /* pending_count d, state: no memory */
        int state = emu_decode_src(c, &s->ops[1], T_B64);
        in = emu_decode_emit(c, OP_MBAR);
        in->d[0] = emu_decode_dst(c, &s->ops[0], NULL);
        in->b = state;
    } else {
        int ai = (sub == MB_ARRIVE || sub == MB_TEST_WAIT || sub == MB_TRY_WAIT) ? 1 : 0;
        int addr = addr_reg(c, &s->ops[ai]);
        if (c->err) return;
        int val = -1;
        if (ai + 1 < s->nops) val = emu_decode_src(c, &s->ops[ai + 1], T_B64);
        else if (sub == MB_ARRIVE && (mods & (MBF_EXPECT_TX | MBF_NOCOMPLETE))) {
            emu_decode_fail(c, "mbarrier.arrive needs a count here%s", "");
            return;
        } else if (sub == MB_ARRIVE) val = emu_decode_const(c, 1);
        in = emu_decode_emit(c, OP_MBAR);
        in->a[0] = addr;
        in->b = val;
        if (sub == MB_TEST_WAIT || sub == MB_TRY_WAIT) in->d[0] = emu_decode_pred(c, &s->ops[0], NULL);
        else if (ai) in->d[0] = emu_decode_dst(c, &s->ops[0], NULL);
    }
    emu_decode_guard(c, in, s);
    in->sub = (uint8_t)sub;
    in->sub2 = (uint8_t)mods;
    in->space = (uint8_t)shared_or_generic(s->op);
    in->type = T_B64;
    in->size = 8;
}

/* cp.async.bulk [dst], [src], size, [mbar] {, ctaMask}: global or shared::cta
 * to shared::cluster, completing bytes on an mbarrier; cp.async.bulk
 * [dst], [src], size {, byteMask}: shared::cta to global in a bulk group;
 * .prefetch.L2, .commit_group, .wait_group{.read}: nothing to do. */
static void decode_bulk(Ctx *c, const RawStmt *s) {
    const char *op = s->op;
    if (has_mod(op, "tensor")) {
        emu_decode_fail(c, "'%s': tensor-map copies (TMA with a CUtensorMap) are not emulated", op);
        return;
    }
    if (has_mod(op, "commit_group") || has_mod(op, "wait_group") || has_mod(op, "prefetch")) {
        emu_decode_guard(c, emu_decode_emit(c, OP_MEMBAR), s);
        return;
    }
    bool to_global = strstr(op, ".bulk.global.") != NULL;
    bool from_global = strstr(op, ".global.mbarrier") != NULL || strstr(op, ".global.") != NULL;
    int dir;
    if (to_global) {
        if (!has_mod(op, "bulk_group")) { emu_decode_fail(c, "a bulk copy to global memory completes in a .bulk_group%s", ""); return; }
        dir = BULK_S2G;
    } else {
        if (!strstr(op, "mbarrier::complete_tx::bytes")) {
            emu_decode_fail(c, "a bulk copy to shared memory completes on an .mbarrier::complete_tx::bytes%s", "");
            return;
        }
        dir = from_global ? BULK_G2S : BULK_S2S;
    }
    int need = dir == BULK_S2G ? 3 : 4;
    if (s->nops < need) { emu_decode_fail(c, "too few operands%s", ""); return; }
    bool cache_hint = strstr(op, "L2::cache_hint") != NULL;
    unsigned fl = 0;
    if (has_mod(op, "multicast::cluster")) fl |= BULKF_MULTICAST;
    if (has_mod(op, "cp_mask")) fl |= BULKF_BYTEMASK;
    if ((fl & BULKF_MULTICAST) && dir != BULK_G2S) { emu_decode_fail(c, "bad cp.async.bulk form%s", ""); return; }
    if ((fl & BULKF_BYTEMASK) && dir != BULK_S2G) { emu_decode_fail(c, "bad cp.async.bulk form%s", ""); return; }
    int dst = addr_reg(c, &s->ops[0]);
    int src = addr_reg(c, &s->ops[1]);
    int mbar = dir == BULK_S2G ? -1 : addr_reg(c, &s->ops[3]);
    if (c->err) return;
    int size = emu_decode_src(c, &s->ops[2], T_U32);
    int extra = -1, at = need;
    if (fl & BULKF_MULTICAST) {
        if (at >= s->nops) { emu_decode_fail(c, "multicast needs a ctaMask%s", ""); return; }
        extra = emu_decode_src(c, &s->ops[at++], T_B16);
    }
    if (cache_hint) at++;   /* the cache policy: a hint, nothing to emulate */
    if (fl & BULKF_BYTEMASK) {
        if (at >= s->nops) { emu_decode_fail(c, ".cp_mask needs a byteMask%s", ""); return; }
        extra = emu_decode_src(c, &s->ops[at++], T_B16);
    }
    if (at != s->nops) { emu_decode_fail(c, "unexpected operands%s", ""); return; }
    Instr *in = emu_decode_emit(c, OP_BULK);
    emu_decode_guard(c, in, s);
    in->sub = (uint8_t)dir;
    in->sub2 = (uint8_t)fl;
    in->a[0] = dst;
    in->b = src;
    in->c = size;
    in->e = mbar;
    in->f = extra;
}

/* cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]: an arrive once
 * the thread's cp.async copies are done, which they are at once here; without
 * .noinc the pending count is raised by one first, a net change of nothing. */
static void decode_cpasync_arrive(Ctx *c, const RawStmt *s) {
    if (s->nops < 1) { emu_decode_fail(c, "too few operands%s", ""); return; }
    int addr = addr_reg(c, &s->ops[0]);
    if (c->err) return;
    if (!has_mod(s->op, "noinc")) {
        emu_decode_guard(c, emu_decode_emit(c, OP_MEMBAR), s);
        return;
    }
    Instr *in = emu_decode_emit(c, OP_MBAR);
    emu_decode_guard(c, in, s);
    in->sub = MB_ARRIVE;
    in->a[0] = addr;
    in->b = emu_decode_const(c, 1);
    in->space = (uint8_t)shared_or_generic(s->op);
    in->type = T_B64;
    in->size = 8;
}

/* elect.sync d|p, membermask (d may be the sink `_`). */
static void decode_elect(Ctx *c, const RawStmt *s) {
    if (strcmp(s->op, "elect.sync")) { emu_decode_fail(c, "unsupported instruction '%s'", s->op); return; }
    if (s->nops < 2 || !s->ops[0].name2) { emu_decode_fail(c, "elect.sync needs d|p and a member mask%s", ""); return; }
    Instr *in = emu_decode_emit(c, OP_ELECT);
    emu_decode_guard(c, in, s);
    in->type = T_B32;
    in->d[0] = emu_decode_dst(c, &s->ops[0], NULL);
    in->d[1] = emu_decode_pred_name(c, s->ops[0].name2);
    in->e = emu_decode_src(c, &s->ops[1], T_B32);
}

bool emu_decode_async(Ctx *c, const RawStmt *s) {
    const char *op = s->op;
    if (!strncmp(op, "mbarrier.", 9)) decode_mbarrier(c, s);
    else if (!strncmp(op, "cp.async.bulk.", 14)) decode_bulk(c, s);
    else if (!strncmp(op, "cp.async.mbarrier.arrive.", 25)) decode_cpasync_arrive(c, s);
    else if (!strncmp(op, "elect.", 6)) decode_elect(c, s);
    else if (!strcmp(op, "griddepcontrol.wait") || !strcmp(op, "griddepcontrol.launch_dependents")) {
        /* programmatic dependent launch: launches run one after another here,
         * so the grid this one depends on is complete before it starts */
        emu_decode_guard(c, emu_decode_emit(c, OP_MEMBAR), s);
    } else return false;
    return true;
}
