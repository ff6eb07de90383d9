/* kernels/emu/emu_decode_instr.c: one PTX instruction → Instr records.
 *
 * The opcode's modifiers are parsed once (type, rounding, ftz/sat, state
 * space, vector width, comparison, atomic operation...) and each family is
 * decoded generically from them (`call` is emu_decode.c's: it walks the
 * callee). Anything unknown is a Diag naming the instruction. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emu/emu_decode.h"
#include "kernels/emu/emu_mma.h"

/* testp's property words (finite, ... subnormal). */
static bool testp_mode(const char *w) {
    static const char *const modes[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal"};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (!strcmp(w, modes[i])) return true;
    return false;
}

/* ---- modifiers ------------------------------------------------------------ */
typedef struct Mods {
    char base[32];
    EmuType t[3];
    int nt;
    int rnd, space, vec, cmp, bop, aop, mode;
    unsigned flags;
    bool has_cmp, has_bop, has_aop, has_space, lo, uni;
    bool strong;            /* .volatile / .acquire / .relaxed / .release: morally strong (other blocks' loads and stores) */
    bool release;           /* .release (st.release: a fence before the store) */
    bool device_scope;      /* .gl / .gpu / .sys (a fence that orders the whole grid) */
    char unknown[48];
} Mods;

static void parse_mods(const char *op, Mods *m) {
    memset(m, 0, sizeof *m);
    m->cmp = -1;
    m->aop = -1;
    m->mode = -1;
    m->vec = 1;
    const char *p = op;
    const char *dot = strchr(p, '.');
    size_t bl = dot ? (size_t)(dot - p) : strlen(p);
    if (bl >= sizeof m->base) bl = sizeof m->base - 1;
    memcpy(m->base, p, bl);
    m->base[bl] = 0;
    while (dot) {
        p = dot + 1;
        dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        char w[48];
        if (n >= sizeof w) n = sizeof w - 1;
        memcpy(w, p, n);
        w[n] = 0;
        EmuType t = emu_type_parse(w, n);
        static const char *const cmps[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
                                           "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
        static const char *const rnds[] = {"", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna"};
        static const char *const aops[] = {"add", "min", "max", "inc", "dec", "exch", "cas", "and", "or", "xor"};
        static const char *const ignore[] = {
            "uni", "sync", "aligned", "volatile", "relaxed", "acquire", "release", "acq_rel", "weak",
            "sys", "gpu", "cta", "cluster", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "noftz", "sc",
            "async", "commit_group", "wait_group", "wait_all",
            "nc", "mmio", "x4", "b1", "to", "shiftamt_", "ptr",
        };
        bool done = false;
        bool is_cmp_op = !strcmp(m->base, "setp") || !strcmp(m->base, "set");
        if (!is_cmp_op && (!strcmp(w, "hi") || !strcmp(w, "lo"))) {
            if (w[0] == 'h') m->flags |= F_HI;
            else m->lo = true;
            continue;
        }
        if (t != T_NONE) {
            if (m->nt < 3) m->t[m->nt++] = t;
            continue;
        }
        for (int i = 0; i < 18 && !done; i++)
            if (!strcmp(w, cmps[i])) { m->cmp = i; m->has_cmp = true; done = true; }
        for (int i = 1; i < 10 && !done; i++)
            if (!strcmp(w, rnds[i])) { m->rnd = i; done = true; }
        for (int i = 0; i < 10 && !done; i++)
            if (!strcmp(w, aops[i])) { m->aop = i; m->has_aop = true; done = true; }
        if (done) continue;
        if (!strcmp(w, "ftz")) m->flags |= F_FTZ;
        else if (!strcmp(w, "sat") || !strcmp(w, "satfinite")) m->flags |= F_SAT;
        else if (!strcmp(w, "approx")) m->flags |= F_APPROX;
        else if (!strcmp(w, "full")) m->flags |= F_FULL;
        else if (!strcmp(w, "hi")) m->flags |= F_HI;
        else if (!strcmp(w, "lo")) m->lo = true;
        else if (!strcmp(w, "wide")) m->flags |= F_WIDE;
        else if (!strcmp(w, "cc")) m->flags |= F_CC;
        else if (!strcmp(w, "clamp")) m->flags |= F_CLAMP;
        else if (!strcmp(w, "NaN")) m->flags |= F_NAN;
        else if (!strcmp(w, "wrap")) { }
        else if (!strcmp(w, "l") || !strcmp(w, "shiftamt")) m->flags |= F_SHFL_L;
        else if (!strcmp(w, "r")) { }
        else if (!strcmp(w, "global")) { m->space = SP_GLOBAL; m->has_space = true; }
        /* a CTA is a cluster of one here: its shared::cluster window is its own */
        else if (!strcmp(w, "shared") || !strcmp(w, "shared::cta") || !strcmp(w, "shared::cluster")) {
            m->space = SP_SHARED;
            m->has_space = true;
        }
        else if (!strcmp(w, "local")) { m->space = SP_LOCAL; m->has_space = true; }
        else if (!strcmp(w, "param")) { m->space = SP_PARAM; m->has_space = true; }
        else if (!strcmp(w, "const")) { m->space = SP_CONST; m->has_space = true; }
        else if (!strcmp(w, "v2")) m->vec = 2;
        else if (!strcmp(w, "v4")) m->vec = 4;
        else if (!strcmp(w, "up")) m->mode = SHFL_UP;
        else if (!strcmp(w, "down")) m->mode = SHFL_DOWN;
        else if (!strcmp(w, "bfly")) m->mode = SHFL_BFLY;
        else if (!strcmp(w, "idx")) m->mode = SHFL_IDX;
        else if (!strcmp(w, "all")) m->mode = VOTE_ALL;
        else if (!strcmp(w, "any")) m->mode = VOTE_ANY;
        else if (!strcmp(w, "ballot")) m->mode = VOTE_BALLOT;
        else if (!strcmp(w, "popc")) m->mode = BAR_RED_POPC;
        else if (!strcmp(w, "red")) m->flags |= F_ATOMIC;
        else if (!strcmp(w, "arrive")) m->flags |= F_USECC;
        else if (!strcmp(w, "warp")) m->flags |= F_PRED2;
        else if (!strncmp(w, "L1::", 4) || !strncmp(w, "L2::", 4)) { }
        else if (!strcmp(m->base, "testp") && testp_mode(w)) { }   /* the decoder reads it from the op */
        else {
            if (!strcmp(w, "volatile") || !strcmp(w, "acquire") || !strcmp(w, "relaxed") || !strcmp(w, "release"))
                m->strong = true;
            if (!strcmp(w, "release")) m->release = true;
            if (!strcmp(w, "gl") || !strcmp(w, "gpu") || !strcmp(w, "sys")) m->device_scope = true;
            bool ign = false;
            for (size_t i = 0; i < sizeof ignore / sizeof ignore[0]; i++)
                if (!strcmp(w, ignore[i])) ign = true;
            if (!strcmp(w, "uni")) m->uni = true;
            if (!ign && !m->unknown[0]) snprintf(m->unknown, sizeof m->unknown, "%s", w);
        }
    }
    /* "and"/"or"/"xor" after a comparison are the combining op (setp.lt.and.s32) */
    if (m->has_aop && m->has_cmp && (m->aop == AOP_AND || m->aop == AOP_OR || m->aop == AOP_XOR)) {
        m->bop = m->aop == AOP_AND ? BOP_AND : m->aop == AOP_OR ? BOP_OR : BOP_XOR;
        m->has_aop = false;
        m->aop = -1;
    }
}

/* ---- instructions --------------------------------------------------------- */
static EmuType last_type(const Mods *m) { return m->nt ? m->t[m->nt - 1] : T_NONE; }

static bool need_ops(Ctx *c, int have, int want) {
    if (have < want) { emu_decode_fail(c, "too few operands%s", ""); return false; }
    return true;
}

static void decode_mem(Ctx *c, const RawStmt *s, const Mods *m, bool is_store) {
    if (!need_ops(c, s->nops, 2)) return;
    const RawOpnd *mo = is_store ? &s->ops[0] : &s->ops[1];
    const RawOpnd *vo = is_store ? &s->ops[1] : &s->ops[0];
    int reg;
    int64_t off;
    EmuSpace symsp;
    if (!emu_decode_mem(c, mo, &reg, &off, &symsp)) return;
    EmuType t = last_type(m);
    int size = emu_type_bytes(t);
    if (!size || t == T_PRED) { emu_decode_fail(c, "bad memory access type%s", ""); return; }
    EmuSpace sp = m->has_space ? (EmuSpace)m->space : SP_GENERIC;
    Instr *in;
    if (sp == SP_PARAM && symsp == SP_PARAM && !is_store) {
        in = emu_decode_emit(c, OP_LD_PARAM);
    } else if (sp == SP_PARAM && reg >= 0 && symsp != SP_LOCAL && !is_store) {
        /* ld.param [%rd+N]: %rd holds a kernel parameter's offset (emu_decode.c) */
        in = emu_decode_emit(c, OP_LD_PARAM);
    } else if (sp == SP_PARAM) {
        /* call parameters live in the thread's local frame */
        if (symsp != SP_LOCAL) { emu_decode_fail(c, "unsupported .param access%s", ""); return; }
        in = emu_decode_emit(c, is_store ? OP_ST : OP_LD);
        sp = SP_LOCAL;
    } else {
        if (reg < 0) { emu_decode_fail(c, "kernel parameters can only be read with ld.param%s", ""); return; }
        in = emu_decode_emit(c, is_store ? OP_ST : OP_LD);
    }
    emu_decode_guard(c, in, s);
    in->type = (uint8_t)t;
    in->space = (uint8_t)sp;
    in->size = (uint8_t)size;
    in->vec = (uint8_t)m->vec;
    if (m->strong) in->flags |= is_store ? F_STRONG_ST : F_STRONG;
    if (m->release && is_store) in->flags |= F_RELEASE_ST;
    in->a[0] = reg;
    in->imm = off;
    int n = m->vec;
    if (vo->kind == RO_VEC) {
        if (vo->nvec != n) { emu_decode_fail(c, "vector operand size does not match .v%s", n == 2 ? "2" : "4"); return; }
        for (int i = 0; i < n; i++) {
            int bits = 64;
            in->d[i] = is_store ? emu_decode_src(c, &vo->vec[i], t) : emu_decode_dst(c, &vo->vec[i], &bits);
            if (!is_store) in->dbits = (uint8_t)bits;
        }
    } else {
        if (n != 1) { emu_decode_fail(c, "expected a vector operand%s", ""); return; }
        int bits = 64;
        if (!is_store && emu_decode_is_pred(c, vo)) { emu_decode_fail(c, "loading into a predicate is not supported%s", ""); return; }
        in->d[0] = is_store ? emu_decode_src(c, vo, t) : emu_decode_dst(c, vo, &bits);
        if (!is_store) in->dbits = (uint8_t)bits;
    }
    if (in->dbits == 0) in->dbits = 64;
}

static void decode_atom(Ctx *c, const RawStmt *s, const Mods *m, bool red) {
    int i = 0;
    Instr *in = emu_decode_emit(c, red ? OP_RED : OP_ATOM);
    emu_decode_guard(c, in, s);
    if (!red) {
        if (!need_ops(c, s->nops, 3)) return;
        int bits;
        in->d[0] = emu_decode_dst(c, &s->ops[i++], &bits);
        in->dbits = (uint8_t)bits;
    } else if (!need_ops(c, s->nops, 2)) return;
    EmuSpace symsp;
    if (!emu_decode_mem(c, &s->ops[i++], &in->a[0], &in->imm, &symsp)) return;
    if (in->a[0] < 0) { emu_decode_fail(c, "atomics on parameters are not supported%s", ""); return; }
    EmuType t = last_type(m);
    if (!m->has_aop) { emu_decode_fail(c, "unknown atomic operation%s", ""); return; }
    if (m->vec != 1) { emu_decode_fail(c, "vector atomics are not supported%s", ""); return; }
    in->type = (uint8_t)t;
    in->size = (uint8_t)emu_type_bytes(t);
    /* 16 bits: atom.cas.b16 (sm_70) and atom.add.noftz.f16/bf16 */
    bool half = t == T_F16 || t == T_BF16 || t == T_F16X2 || t == T_BF16X2;
    if ((in->size != 2 && in->size != 4 && in->size != 8) || (in->size == 2 && m->aop != AOP_CAS && !half) ||
        (half && m->aop != AOP_ADD)) {
        emu_decode_fail(c, "unsupported atomic type%s", "");
        return;
    }
    in->space = (uint8_t)(m->has_space ? m->space : SP_GENERIC);
    in->sub = (uint8_t)m->aop;
    /* atom.add.f32 without .noftz flushes subnormals on global memory */
    if (t == T_F32 && m->aop == AOP_ADD && !strstr(s->op, ".noftz")) in->flags |= F_FTZ;
    in->b = emu_decode_src(c, &s->ops[i++], t);
    if (m->aop == AOP_CAS) {
        if (i >= s->nops) { emu_decode_fail(c, "atom.cas needs a new value%s", ""); return; }
        in->c = emu_decode_src(c, &s->ops[i++], t);
    }
}

static void decode_setp(Ctx *c, const RawStmt *s, const Mods *m) {
    if (!need_ops(c, s->nops, 3)) return;
    EmuType t = last_type(m);
    Instr *in = emu_decode_emit(c, OP_SETP);
    emu_decode_guard(c, in, s);
    if (m->cmp < 0) { emu_decode_fail(c, "setp needs a comparison%s", ""); return; }
    in->type = (uint8_t)t;
    in->sub = (uint8_t)m->cmp;
    in->sub2 = (uint8_t)m->bop;
    in->flags = (uint16_t)m->flags;
    in->d[0] = emu_decode_pred_name(c, s->ops[0].name ? s->ops[0].name : "?");
    if (s->ops[0].name2) in->d[1] = emu_decode_pred_name(c, s->ops[0].name2);
    in->a[0] = emu_decode_src(c, &s->ops[1], t);
    in->b = emu_decode_src(c, &s->ops[2], t);
    if (m->bop) {
        if (s->nops < 4) { emu_decode_fail(c, "setp with a combining op needs a predicate%s", ""); return; }
        bool neg;
        in->c = emu_decode_pred(c, &s->ops[3], &neg);
        if (neg) in->flags |= F_NEGC;
    }
}

static void decode_alu(Ctx *c, const RawStmt *s, const Mods *m, int op, int nsrc) {
    if (!need_ops(c, s->nops, 1 + nsrc)) return;
    EmuType t = last_type(m);
    if (t == T_NONE) { emu_decode_fail(c, "missing type%s", ""); return; }
    Instr *in = emu_decode_emit(c, op);
    emu_decode_guard(c, in, s);
    in->type = (uint8_t)t;
    in->rnd = (uint8_t)m->rnd;
    in->flags = (uint16_t)m->flags;
    int bits;
    in->d[0] = emu_decode_dst(c, &s->ops[0], &bits);
    in->dbits = (uint8_t)bits;
    EmuType st = t;
    if ((m->flags & F_WIDE) && (op == OP_MUL || op == OP_MAD)) {
        in->type2 = (uint8_t)t;   /* sources are t, destination twice as wide */
    }
    int *slots[4] = {&in->a[0], &in->b, &in->c, &in->e};
    for (int i = 0; i < nsrc; i++) {
        EmuType ot = st;
        /* shift amounts, bfe/bfi positions, prmt selectors are .u32 */
        if ((op == OP_SHL || op == OP_SHR) && i == 1) ot = T_U32;
        if (op == OP_BFE && i >= 1) ot = T_U32;
        if (op == OP_BFI && i >= 2) ot = T_U32;
        if (op == OP_LOP3 && i == 3) ot = T_U32;      /* immLut */
        if (op == OP_MAD && (m->flags & F_WIDE) && i == 2) ot = T_S64;
        *slots[i] = emu_decode_src(c, &s->ops[1 + i], ot);
    }
}

static void decode_cvt(Ctx *c, const RawStmt *s, const Mods *m) {
    if (!need_ops(c, s->nops, 2)) return;
    if (m->nt < 2) { emu_decode_fail(c, "cvt needs two types%s", ""); return; }
    Instr *in = emu_decode_emit(c, OP_CVT);
    emu_decode_guard(c, in, s);
    in->type = (uint8_t)m->t[0];
    in->type2 = (uint8_t)m->t[1];
    in->rnd = (uint8_t)m->rnd;
    in->flags = (uint16_t)m->flags;
    int bits;
    in->d[0] = emu_decode_dst(c, &s->ops[0], &bits);
    in->dbits = (uint8_t)bits;
    in->a[0] = emu_decode_src(c, &s->ops[1], m->t[1]);
}

static void decode_mov(Ctx *c, const RawStmt *s, const Mods *m) {
    if (!need_ops(c, s->nops, 2)) return;
    EmuType t = last_type(m);
    const RawOpnd *d = &s->ops[0], *a = &s->ops[1];
    if (t == T_PRED) {
        Instr *in = emu_decode_emit(c, OP_PMOV);
        emu_decode_guard(c, in, s);
        in->d[0] = emu_decode_pred(c, d, NULL);
        bool neg = false;
        if (a->kind == RO_INT) { in->a[0] = -1; in->imm = a->imm ? 1 : 0; }
        else { in->a[0] = emu_decode_pred(c, a, &neg); if (neg) in->flags |= F_NEGA; }
        return;
    }
    if (a->kind == RO_REG && (!strcmp(a->name, "%clock") || !strcmp(a->name, "%clock64") ||
                              !strcmp(a->name, "%globaltimer"))) {
        Instr *in = emu_decode_emit(c, OP_CLOCK);
        emu_decode_guard(c, in, s);
        in->d[0] = emu_decode_dst(c, d, NULL);
        in->type = (uint8_t)t;
        return;
    }
    if (a->kind == RO_VEC || d->kind == RO_VEC) {
        const RawOpnd *v = a->kind == RO_VEC ? a : d;
        Instr *in = emu_decode_emit(c, a->kind == RO_VEC ? OP_MOV_PACK : OP_MOV_UNPACK);
        emu_decode_guard(c, in, s);
        int n = v->nvec;
        int tb = emu_type_bytes(t) * 8;
        if ((n != 2 && n != 4) || !tb || tb % n) { emu_decode_fail(c, "bad vector mov%s", ""); return; }
        in->size = (uint8_t)(tb / n);
        in->vec = (uint8_t)n;
        in->type = (uint8_t)t;
        if (a->kind == RO_VEC) {
            in->d[0] = emu_decode_dst(c, d, NULL);
            for (int i = 0; i < n; i++) in->a[i] = emu_decode_src(c, &v->vec[i], T_B64);
        } else {
            for (int i = 0; i < n; i++) in->d[i] = emu_decode_dst(c, &v->vec[i], NULL);
            in->a[0] = emu_decode_src(c, a, t);
        }
        return;
    }
    Instr *in = emu_decode_emit(c, OP_MOV);
    emu_decode_guard(c, in, s);
    in->type = (uint8_t)t;
    int bits;
    in->d[0] = emu_decode_dst(c, d, &bits);
    in->dbits = (uint8_t)bits;
    in->a[0] = emu_decode_src(c, a, t);
}

static void decode_warp_op(Ctx *c, const RawStmt *s, const Mods *m, int op) {
    Instr *in = emu_decode_emit(c, op);
    emu_decode_guard(c, in, s);
    in->type = (uint8_t)last_type(m);
    in->sub = (uint8_t)(m->mode < 0 ? 0 : m->mode);
    int n = s->nops;
    switch (op) {
    case OP_SHFL:
        if (!need_ops(c, n, 5) || m->mode < 0) { emu_decode_fail(c, "shfl needs a mode and 5 operands%s", ""); return; }
        in->d[0] = emu_decode_dst(c, &s->ops[0], NULL);
        if (s->ops[0].name2) in->d[1] = emu_decode_pred_name(c, s->ops[0].name2);
        in->a[0] = emu_decode_src(c, &s->ops[1], T_B32);
        in->b = emu_decode_src(c, &s->ops[2], T_B32);
        in->c = emu_decode_src(c, &s->ops[3], T_B32);
        in->e = emu_decode_src(c, &s->ops[4], T_B32);
        break;
    case OP_VOTE: {
        if (!need_ops(c, n, 3)) return;
        if (m->uni) in->sub = VOTE_UNI;
        if (m->mode < 0 && !m->uni) { emu_decode_fail(c, "vote needs .all/.any/.uni/.ballot%s", ""); return; }
        if (in->sub == VOTE_BALLOT) in->d[0] = emu_decode_dst(c, &s->ops[0], NULL);
        else in->d[0] = emu_decode_pred(c, &s->ops[0], NULL);
        bool neg;
        in->a[0] = emu_decode_pred(c, &s->ops[1], &neg);
        if (neg) in->flags |= F_NEGA;
        in->e = emu_decode_src(c, &s->ops[2], T_B32);
        break;
    }
    case OP_ACTIVEMASK:
        if (!need_ops(c, n, 1)) return;
        in->d[0] = emu_decode_dst(c, &s->ops[0], NULL);
        break;
    case OP_MATCH:
        if (!need_ops(c, n, 3)) return;
        in->d[0] = emu_decode_dst(c, &s->ops[0], NULL);
        if (s->ops[0].name2) in->d[1] = emu_decode_pred_name(c, s->ops[0].name2);
        in->a[0] = emu_decode_src(c, &s->ops[1], (EmuType)in->type);
        in->e = emu_decode_src(c, &s->ops[2], T_B32);
        break;
    case OP_REDUX:
        if (!need_ops(c, n, 3) || !m->has_aop) { emu_decode_fail(c, "redux needs an operation%s", ""); return; }
        in->sub = (uint8_t)m->aop;
        in->d[0] = emu_decode_dst(c, &s->ops[0], NULL);
        in->a[0] = emu_decode_src(c, &s->ops[1], (EmuType)in->type);
        in->e = emu_decode_src(c, &s->ops[2], T_B32);
        break;
    default: break;
    }
}

static void decode_bar(Ctx *c, const RawStmt *s, const Mods *m) {
    if (m->flags & F_PRED2) {    /* bar.warp.sync mask */
        Instr *in = emu_decode_emit(c, OP_BAR_WARP);
        emu_decode_guard(c, in, s);
        in->e = s->nops ? emu_decode_src(c, &s->ops[0], T_B32) : emu_decode_const(c, EMU_FULL);
        return;
    }
    Instr *in = emu_decode_emit(c, OP_BAR);
    emu_decode_guard(c, in, s);
    in->sub = BAR_SYNC;
    if (m->flags & F_USECC) in->sub = BAR_ARRIVE;
    int i = 0;
    if (m->flags & F_ATOMIC) {   /* bar.red.popc.u32 d, a{, b}, {!}p  |  bar.red.and.pred p, a, {!}q */
        in->sub = m->mode == BAR_RED_POPC ? BAR_RED_POPC : m->aop == AOP_AND ? BAR_RED_AND : BAR_RED_OR;
        if (m->mode != BAR_RED_POPC && m->aop != AOP_AND && m->aop != AOP_OR) { emu_decode_fail(c, "unknown bar.red operation%s", ""); return; }
        if (!need_ops(c, s->nops, 3)) return;
        if (in->sub == BAR_RED_POPC) in->d[0] = emu_decode_dst(c, &s->ops[i++], NULL);
        else in->d[0] = emu_decode_pred(c, &s->ops[i++], NULL);
        in->a[0] = emu_decode_src(c, &s->ops[i++], T_U32);
        if (s->nops - i == 2) in->b = emu_decode_src(c, &s->ops[i++], T_U32);
        bool neg;
        in->c = emu_decode_pred(c, &s->ops[i], &neg);
        if (neg) in->flags |= F_NEGC;
        return;
    }
    in->a[0] = s->nops > 0 ? emu_decode_src(c, &s->ops[0], T_U32) : emu_decode_const(c, 0);
    if (s->nops > 1) in->b = emu_decode_src(c, &s->ops[1], T_U32);
}

void emu_decode_instr(Ctx *c, const RawStmt *s) {
    if (emu_mma_is_mma(s->op)) { emu_mma_decode(c, s); return; }
    if (emu_decode_async(c, s)) return;
    Mods m;
    parse_mods(s->op, &m);
    c->op = s->op;
    const char *b = m.base;
    EmuType t = last_type(&m);
    bool lenient = !strcmp(b, "call") || !strcmp(b, "membar") || !strcmp(b, "fence") ||
                   !strncmp(b, "prefetch", 8) || !strcmp(b, "discard") || !strcmp(b, "applypriority");
    if (m.unknown[0] && !lenient) { emu_decode_fail(c, "unsupported modifier .%s", m.unknown); return; }
    struct { const char *name; int op; int nsrc; } alu[] = {
        {"add", OP_ADD, 2}, {"sub", OP_SUB, 2}, {"mul", OP_MUL, 2}, {"mad", OP_MAD, 3},
        {"div", OP_DIV, 2}, {"rem", OP_REM, 2}, {"min", OP_MIN, 2}, {"max", OP_MAX, 2},
        {"neg", OP_NEG, 1}, {"abs", OP_ABS, 1}, {"and", OP_AND, 2}, {"or", OP_OR, 2},
        {"xor", OP_XOR, 2}, {"not", OP_NOT, 1}, {"cnot", OP_CNOT, 1}, {"shl", OP_SHL, 2},
        {"shr", OP_SHR, 2}, {"popc", OP_POPC, 1}, {"clz", OP_CLZ, 1}, {"brev", OP_BREV, 1},
        {"bfind", OP_BFIND, 1}, {"bfe", OP_BFE, 3}, {"bfi", OP_BFI, 4}, {"prmt", OP_PRMT, 3},
        {"shf", OP_SHF, 3}, {"sad", OP_SAD, 3}, {"mul24", OP_MUL24, 2}, {"mad24", OP_MAD24, 3},
        {"fma", OP_FMA, 3}, {"sqrt", OP_SQRT, 1}, {"rsqrt", OP_RSQRT, 1}, {"rcp", OP_RCP, 1},
        {"ex2", OP_EX2, 1}, {"lg2", OP_LG2, 1}, {"sin", OP_SIN, 1}, {"cos", OP_COS, 1},
        {"tanh", OP_TANH, 1}, {"copysign", OP_COPYSIGN, 2}, {"selp", OP_SELP, 3},
        {"slct", OP_SLCT, 3}, {"dp4a", OP_DP4A, 3}, {"dp2a", OP_DP2A, 3}, {"bmsk", OP_BMSK, 2},
        {"lop3", OP_LOP3, 4},
    };
    if ((!strcmp(b, "and") || !strcmp(b, "or") || !strcmp(b, "xor") || !strcmp(b, "not")) && t == T_PRED) {
        int op = b[0] == 'a' ? OP_PAND : b[0] == 'o' ? OP_POR : b[0] == 'x' ? OP_PXOR : OP_PNOT;
        Instr *in = emu_decode_emit(c, op);
        emu_decode_guard(c, in, s);
        if (!need_ops(c, s->nops, op == OP_PNOT ? 2 : 3)) return;
        in->d[0] = emu_decode_pred(c, &s->ops[0], NULL);
        bool na = false, nb = false;
        in->a[0] = emu_decode_pred(c, &s->ops[1], &na);
        if (op != OP_PNOT) in->b = emu_decode_pred(c, &s->ops[2], &nb);
        if (na) in->flags |= F_NEGA;
        if (nb) in->flags |= F_NEGB;
        return;
    }
    if (!strcmp(b, "selp")) {
        if (!need_ops(c, s->nops, 4)) return;
        Instr *in = emu_decode_emit(c, OP_SELP);
        emu_decode_guard(c, in, s);
        in->type = (uint8_t)t;
        int bits;
        in->d[0] = emu_decode_dst(c, &s->ops[0], &bits);
        in->dbits = (uint8_t)bits;
        in->a[0] = emu_decode_src(c, &s->ops[1], t);
        in->b = emu_decode_src(c, &s->ops[2], t);
        bool neg;
        in->c = emu_decode_pred(c, &s->ops[3], &neg);
        if (neg) in->flags |= F_NEGC;
        return;
    }
    if (!strcmp(b, "slct")) {
        if (m.nt < 2) { emu_decode_fail(c, "slct needs two types%s", ""); return; }
        decode_alu(c, s, &m, OP_SLCT, 3);
        if (!c->err) {
            Instr *in = &c->code[c->n_code - 1];
            in->type = (uint8_t)m.t[0];
            in->type2 = (uint8_t)m.t[1];
        }
        return;
    }
    if (!strcmp(b, "testp")) {
        if (!need_ops(c, s->nops, 2)) return;
        Instr *in = emu_decode_emit(c, OP_TESTP);
        emu_decode_guard(c, in, s);
        in->type = (uint8_t)t;
        const char *p = strchr(s->op, '.');
        in->sub = p && !strncmp(p, ".finite", 7) ? 0 : p && !strncmp(p, ".infinite", 9) ? 1
                : p && !strncmp(p, ".number", 7) ? 2 : p && !strncmp(p, ".notanumber", 11) ? 3
                : p && !strncmp(p, ".normal", 7) ? 4 : 5;
        in->d[0] = emu_decode_pred(c, &s->ops[0], NULL);
        in->a[0] = emu_decode_src(c, &s->ops[1], t);
        return;
    }
    if ((!strcmp(b, "dp4a") || !strcmp(b, "dp2a")) && m.nt == 2) {
        decode_alu(c, s, &m, b[2] == '4' ? OP_DP4A : OP_DP2A, 3);
        if (!c->err) {
            c->code[c->n_code - 1].type = (uint8_t)m.t[0];
            c->code[c->n_code - 1].type2 = (uint8_t)m.t[1];
        }
        return;
    }
    if (!strcmp(b, "addc") || !strcmp(b, "subc") || !strcmp(b, "madc") ||
        ((!strcmp(b, "add") || !strcmp(b, "sub") || !strcmp(b, "mad")) && (m.flags & F_CC))) {
        /* extended precision: the carry flag is a hidden predicate */
        if (t != T_U32 && t != T_S32 && t != T_U64 && t != T_S64) { emu_decode_fail(c, "carry arithmetic needs a 32- or 64-bit integer type%s", ""); return; }
        m.flags &= ~(unsigned)F_USECC;
        if (b[3] == 'c') m.flags |= F_USECC;
        decode_alu(c, s, &m, b[0] == 'a' ? OP_ADD : b[0] == 's' ? OP_SUB : OP_MAD, b[0] == 'm' ? 3 : 2);
        if (c->err) return;
        if (c->cc < 0) c->cc = c->k->n_preds++;
        c->code[c->n_code - 1].f = c->cc;
        return;
    }
    if (!strcmp(b, "bmsk")) {
        /* bmsk.mode.b32: .clamp or .wrap, one of them */
        bool clamp = (m.flags & F_CLAMP) != 0, wrap = strstr(s->op, ".wrap") != NULL;
        if (clamp == wrap || t != T_B32) { emu_decode_fail(c, "bmsk needs .clamp or .wrap and .b32%s", ""); return; }
    }
    for (size_t i = 0; i < sizeof alu / sizeof alu[0]; i++)
        if (!strcmp(b, alu[i].name)) {
            if (alu[i].op == OP_MUL && m.lo) m.flags &= ~(unsigned)F_HI;
            if (alu[i].op == OP_LOP3 && (m.has_aop || s->nops != 5)) {    /* lop3.BoolOp.b32 d|p, a, b, c, immLut, q */
                emu_decode_fail(c, "lop3 with a predicate result (lop3.and/.or ... d|p) is not emulated%s", "");
                return;
            }
            decode_alu(c, s, &m, alu[i].op, alu[i].nsrc);
            return;
        }
    if (!strcmp(b, "mov")) { decode_mov(c, s, &m); return; }
    if (!strcmp(b, "setp")) { decode_setp(c, s, &m); return; }
    if (!strcmp(b, "set")) {
        /* set.cmp[.bop].dtype.stype d, a, b[, {!}c]: 1.0 / all ones when true */
        if (!need_ops(c, s->nops, 3) || m.nt < 2 || m.cmp < 0) { emu_decode_fail(c, "set needs a comparison and two types%s", ""); return; }
        Instr *in = emu_decode_emit(c, OP_SET);
        emu_decode_guard(c, in, s);
        in->type = (uint8_t)m.t[0];
        in->type2 = (uint8_t)m.t[1];
        in->sub = (uint8_t)m.cmp;
        in->sub2 = (uint8_t)m.bop;
        in->flags = (uint16_t)m.flags;
        in->d[0] = emu_decode_dst(c, &s->ops[0], NULL);
        in->a[0] = emu_decode_src(c, &s->ops[1], m.t[1]);
        in->b = emu_decode_src(c, &s->ops[2], m.t[1]);
        if (m.bop) {
            if (s->nops < 4) { emu_decode_fail(c, "set with a combining op needs a predicate%s", ""); return; }
            bool neg;
            in->c = emu_decode_pred(c, &s->ops[3], &neg);
            if (neg) in->flags |= F_NEGC;
        }
        return;
    }
    if (!strcmp(b, "cvt")) {
        if (m.t[0] == T_F16X2 || m.t[0] == T_BF16X2) {
            /* cvt.rn.f16x2.f32 d, a, b: pack two floats */
            if (!need_ops(c, s->nops, 3)) return;
            Instr *in = emu_decode_emit(c, OP_CVT_PACK);
            emu_decode_guard(c, in, s);
            in->type = (uint8_t)m.t[0];
            in->d[0] = emu_decode_dst(c, &s->ops[0], NULL);
            in->a[0] = emu_decode_src(c, &s->ops[1], T_F32);
            in->b = emu_decode_src(c, &s->ops[2], T_F32);
            return;
        }
        decode_cvt(c, s, &m);
        return;
    }
    if (!strcmp(b, "cvta")) {
        if (!need_ops(c, s->nops, 2)) return;
        const char *p = strstr(s->op, ".to.");
        Instr *in = emu_decode_emit(c, p ? OP_CVTA_TO : OP_CVTA);
        emu_decode_guard(c, in, s);
        in->space = (uint8_t)m.space;
        in->type = (uint8_t)t;
        in->d[0] = emu_decode_dst(c, &s->ops[0], NULL);
        in->a[0] = emu_decode_src(c, &s->ops[1], T_U64);
        return;
    }
    if (!strcmp(b, "ld") || !strcmp(b, "ldu")) { decode_mem(c, s, &m, false); return; }
    if (!strcmp(b, "st")) { decode_mem(c, s, &m, true); return; }
    if (!strcmp(b, "atom")) { decode_atom(c, s, &m, false); return; }
    if (!strcmp(b, "red")) { decode_atom(c, s, &m, true); return; }
    if (!strcmp(b, "prefetch") || !strcmp(b, "prefetchu") || !strcmp(b, "membar") ||
        !strcmp(b, "fence") || !strcmp(b, "discard") || !strcmp(b, "applypriority") ||
        !strcmp(b, "pmevent") || !strcmp(b, "nanosleep")) {
        Instr *in = emu_decode_emit(c, OP_MEMBAR);
        emu_decode_guard(c, in, s);
        /* sub 1: a fence that orders this block's memory accesses for the whole grid */
        in->sub = (uint8_t)(m.device_scope && (!strcmp(b, "membar") || !strcmp(b, "fence")));
        return;
    }
    if (!strcmp(b, "bra")) {
        if (!need_ops(c, s->nops, 1) || s->ops[0].kind != RO_SYM) { emu_decode_fail(c, "bra needs a label%s", ""); return; }
        Instr *in = emu_decode_emit(c, OP_BRA);
        emu_decode_guard(c, in, s);
        GROW(c->fix, c->n_fix, c->cap_fix);
        c->fix[c->n_fix++] = (Fixup){c->n_code - 1, s->ops[0].name, c->frame_id, s->ptx_line};
        return;
    }
    if (!strcmp(b, "ret")) {
        Instr *in;
        if (c->depth > 0) {
            in = emu_decode_emit(c, OP_BRA);
            GROW(c->fix, c->n_fix, c->cap_fix);
            c->fix[c->n_fix++] = (Fixup){c->n_code - 1, NULL, c->frame_id, s->ptx_line};
        } else {
            in = emu_decode_emit(c, OP_EXIT);
        }
        emu_decode_guard(c, in, s);
        return;
    }
    if (!strcmp(b, "exit")) { emu_decode_guard(c, emu_decode_emit(c, OP_EXIT), s); return; }
    if (!strcmp(b, "trap")) { emu_decode_guard(c, emu_decode_emit(c, OP_TRAP), s); return; }
    if (!strcmp(b, "brkpt")) { emu_decode_guard(c, emu_decode_emit(c, OP_BRKPT), s); return; }
    if (!strcmp(b, "bar") || !strcmp(b, "barrier")) { decode_bar(c, s, &m); return; }
    if (!strcmp(b, "shfl")) { decode_warp_op(c, s, &m, OP_SHFL); return; }
    if (!strcmp(b, "vote")) { decode_warp_op(c, s, &m, OP_VOTE); return; }
    if (!strcmp(b, "activemask")) { decode_warp_op(c, s, &m, OP_ACTIVEMASK); return; }
    if (!strcmp(b, "match")) { decode_warp_op(c, s, &m, OP_MATCH); return; }
    if (!strcmp(b, "redux")) { decode_warp_op(c, s, &m, OP_REDUX); return; }
    if (!strcmp(b, "cp") && !strncmp(s->op, "cp.async", 8)) {
        /* cp.async.{ca,cg}.shared.global [dst], [src], size{, src-size}: done at once;
         * commit_group / wait_group / wait_all have nothing left to wait for */
        if (strstr(s->op, "commit_group") || strstr(s->op, "wait_group") || strstr(s->op, "wait_all")) {
            emu_decode_guard(c, emu_decode_emit(c, OP_MEMBAR), s);
            return;
        }
        if (!need_ops(c, s->nops, 3)) return;
        if (s->ops[2].kind != RO_INT || (s->ops[2].imm != 4 && s->ops[2].imm != 8 && s->ops[2].imm != 16)) {
            emu_decode_fail(c, "cp.async needs a copy size of 4, 8 or 16%s", "");
            return;
        }
        Instr *in = emu_decode_emit(c, OP_CPASYNC);
        emu_decode_guard(c, in, s);
        EmuSpace sp1, sp2;
        if (!emu_decode_mem(c, &s->ops[0], &in->a[0], &in->imm, &sp1)) return;
        int64_t off2;
        if (!emu_decode_mem(c, &s->ops[1], &in->b, &off2, &sp2)) return;
        if (in->a[0] < 0 || in->b < 0) { emu_decode_fail(c, "unsupported cp.async operand%s", ""); return; }
        in->f = (int32_t)off2;
        if ((int64_t)in->f != off2) { emu_decode_fail(c, "cp.async offset too large%s", ""); return; }
        in->size = (uint8_t)s->ops[2].imm;
        in->c = s->nops > 3 ? emu_decode_src(c, &s->ops[3], T_U32) : emu_decode_const(c, (uint64_t)s->ops[2].imm);
        return;
    }
    emu_decode_fail(c, "unsupported instruction '%s'", s->op);
}
