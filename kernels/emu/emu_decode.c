/* kernels/emu/emu_decode.c: one .entry of a parsed Program → a Kernel.
 *
 * Registers get dense indices (64-bit slots; predicates separately as
 * 32-lane masks), immediates and special registers become pre-filled
 * registers so handlers never branch on operand kinds, symbols and labels
 * are resolved, and every instruction carries the learner's source line
 * (following `inlined_at` back to file 1). Calls to .func bodies are inlined
 * here, once per call site, with fresh registers; call parameters live in
 * the thread's local frame. vprintf, malloc, free and __assertfail become
 * native instructions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emu/emu_alu.h"
#include "kernels/emu/emu_raw.h"

enum { N_REG, N_PRED, N_VAR_SHARED, N_VAR_LOCAL, N_KPARAM, N_DYNSHARED };

typedef struct Name {
    const char *name;
    int kind;
    int count;              /* -1: exact name; else a %r<N> range */
    int base;
    uint8_t bits;
    int64_t val;            /* offset for variables/params */
} Name;

typedef struct Label { const char *name; int frame; int pc; } Label;
typedef struct Fixup { int instr; const char *name; int frame; int ptx_line; } Fixup;

typedef struct Ctx {
    Program *p;
    Kernel *k;
    Instr *code;
    int n_code, cap_code;
    Name *names;
    int n_names, cap_names;
    int frame_base;         /* names visible: [frame_base, n_names) */
    int frame_id, next_frame;
    Label *labels;
    int n_labels, cap_labels;
    Fixup *fix;
    int n_fix, cap_fix;
    uint8_t *reg_bits;
    int cap_regs;
    ConstReg *consts;
    int n_consts, cap_consts;
    SpecialReg *specials;
    int n_specials, cap_specials;
    int line;               /* current learner line */
    int ptx_line;
    const char *op;         /* current opcode text, for messages */
    size_t local_size;
    size_t shared_size;
    SharedVar *svars;
    int n_svars, cap_svars;
    const char *stack[16];
    int depth;
    int sink;
    int cc;                 /* predicate index holding the carry flag (CC.CF); -1 until used */
    Diag *err;
} Ctx;

static void fail(Ctx *c, const char *fmt, const char *arg) {
    if (c->err) return;
    char buf[256];
    snprintf(buf, sizeof buf, fmt, arg ? arg : "");
    c->err = diag_error("ptx-decode", "PTX line %d: %s%s%s%s", c->ptx_line, buf,
                        c->op ? " (in '" : "", c->op ? c->op : "", c->op ? "')" : "");
}

#define GROW(arr, n, cap) do { if ((n) == (cap)) { (cap) = (cap) ? (cap) * 2 : 64; \
    (arr) = xrealloc((arr), sizeof *(arr) * (size_t)(cap)); } } while (0)

static int new_reg(Ctx *c, int bits) {
    int r = c->k->n_regs++;
    if (r >= c->cap_regs) {
        c->cap_regs = c->cap_regs ? c->cap_regs * 2 : 256;
        c->reg_bits = xrealloc(c->reg_bits, (size_t)c->cap_regs);
    }
    c->reg_bits[r] = (uint8_t)bits;
    return r;
}

static int const_reg(Ctx *c, uint64_t v) {
    for (int i = c->n_consts - 1; i >= 0 && i >= c->n_consts - 512; i--)
        if (c->consts[i].value == v) return c->consts[i].reg;
    GROW(c->consts, c->n_consts, c->cap_consts);
    int r = new_reg(c, 64);
    c->consts[c->n_consts].reg = r;
    c->consts[c->n_consts].value = v;
    c->n_consts++;
    return r;
}

static int special_reg(Ctx *c, int kind) {
    for (int i = 0; i < c->n_specials; i++)
        if (c->specials[i].kind == kind) return c->specials[i].reg;
    GROW(c->specials, c->n_specials, c->cap_specials);
    int r = new_reg(c, 32);
    c->specials[c->n_specials].reg = r;
    c->specials[c->n_specials].kind = kind;
    c->n_specials++;
    return r;
}

static Name *add_name(Ctx *c, const char *name, int kind) {
    GROW(c->names, c->n_names, c->cap_names);
    Name *n = &c->names[c->n_names++];
    memset(n, 0, sizeof *n);
    n->name = name;
    n->kind = kind;
    n->count = -1;
    return n;
}

/* Finds a name in the current frame: exact names, or prefix + index in a range. */
static Name *lookup(Ctx *c, const char *name, int *index) {
    size_t len = strlen(name);
    size_t pre = len;
    while (pre > 0 && name[pre - 1] >= '0' && name[pre - 1] <= '9') pre--;
    long idx = pre < len && len - pre < 9 ? strtol(name + pre, NULL, 10) : -1;
    for (int i = c->n_names - 1; i >= c->frame_base; i--) {
        Name *n = &c->names[i];
        if (n->count < 0) {
            if (!strcmp(n->name, name)) { *index = 0; return n; }
        } else if (idx >= 0 && idx < n->count && strlen(n->name) == pre && !memcmp(n->name, name, pre)) {
            *index = (int)idx;
            return n;
        }
    }
    return NULL;
}

static ModVar *find_modvar(Ctx *c, const char *name) {
    for (int i = 0; i < c->p->n_vars; i++)
        if (!strcmp(c->p->vars[i].name, name)) return &c->p->vars[i];
    return NULL;
}

static const struct { const char *name; int kind; } SPECIALS[] = {
    {"%tid.x", SR_TID_X}, {"%tid.y", SR_TID_Y}, {"%tid.z", SR_TID_Z},
    {"%ntid.x", SR_NTID_X}, {"%ntid.y", SR_NTID_Y}, {"%ntid.z", SR_NTID_Z},
    {"%ctaid.x", SR_CTAID_X}, {"%ctaid.y", SR_CTAID_Y}, {"%ctaid.z", SR_CTAID_Z},
    {"%nctaid.x", SR_NCTAID_X}, {"%nctaid.y", SR_NCTAID_Y}, {"%nctaid.z", SR_NCTAID_Z},
    {"%laneid", SR_LANEID}, {"%warpid", SR_WARPID}, {"%nwarpid", SR_NWARPID},
    {"%lanemask_eq", SR_LANEMASK_EQ}, {"%lanemask_lt", SR_LANEMASK_LT},
    {"%lanemask_le", SR_LANEMASK_LE}, {"%lanemask_gt", SR_LANEMASK_GT},
    {"%lanemask_ge", SR_LANEMASK_GE}, {"%smid", SR_SMID}, {"%nsmid", SR_NSMID},
    {"%gridid", SR_GRIDID}, {"%dynamic_smem_size", SR_DYN_SMEM},
    {"%total_smem_size", SR_TOTAL_SMEM},
};

static bool is_float(EmuType t) { return t == T_F32 || t == T_F64 || t == T_F16 || t == T_BF16; }

static uint64_t imm_for_type(const RawOpnd *o, EmuType t) {
    if (o->kind == RO_INT) {
        if (t == T_F32) { float f = (float)o->imm; uint32_t u; memcpy(&u, &f, 4); return u; }
        if (t == T_F64) { double d = (double)o->imm; uint64_t u; memcpy(&u, &d, 8); return u; }
        return (uint64_t)o->imm;
    }
    double d;
    if (o->kind == RO_F32) {
        uint32_t u = (uint32_t)o->bits;
        float f;
        memcpy(&f, &u, 4);
        d = f;
        if (t != T_F64) return u;
    } else if (o->kind == RO_F64) {
        memcpy(&d, &o->bits, 8);
        if (t == T_F64 || !is_float(t)) return o->bits;
    } else {
        d = o->fval;
    }
    if (t == T_F64) { uint64_t u; memcpy(&u, &d, 8); return u; }
    if (t == T_F16) return emu_float_to_half((float)d, RND_RN);
    float f = (float)d;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Address value of a symbol (shared offset, local offset, host address). */
static bool symbol_value(Ctx *c, const char *name, int64_t *val, int *reg, EmuSpace *space) {
    int idx;
    *reg = -1;
    Name *n = lookup(c, name, &idx);
    if (n) {
        switch (n->kind) {
        case N_VAR_SHARED: *val = n->val; *space = SP_SHARED; return true;
        case N_VAR_LOCAL: *val = n->val; *space = SP_LOCAL; return true;
        case N_KPARAM: *val = n->val; *space = SP_PARAM; return true;
        case N_DYNSHARED: *val = 0; *reg = special_reg(c, SR_DYNBASE); *space = SP_SHARED; return true;
        default: return false;
        }
    }
    ModVar *v = find_modvar(c, name);
    if (!v) return false;
    if (v->space == SP_SHARED) {
        if (v->is_extern) { *val = 0; *reg = special_reg(c, SR_DYNBASE); }
        else *val = (int64_t)v->shared_off;
        *space = SP_SHARED;
        return true;
    }
    *val = (int64_t)(uintptr_t)v->data;
    *space = v->space;
    return true;
}

/* A source operand as a register index (immediates and symbols become constant registers). */
static int src(Ctx *c, const RawOpnd *o, EmuType t) {
    switch (o->kind) {
    case RO_REG: {
        for (size_t i = 0; i < sizeof SPECIALS / sizeof SPECIALS[0]; i++)
            if (!strcmp(o->name, SPECIALS[i].name)) return special_reg(c, SPECIALS[i].kind);
        int idx;
        Name *n = lookup(c, o->name, &idx);
        if (!n) { fail(c, "unknown register %s", o->name); return 0; }
        if (n->kind != N_REG) { fail(c, "%s is not a value register here", o->name); return 0; }
        return n->base + idx;
    }
    case RO_INT: case RO_F32: case RO_F64: case RO_FLT:
        return const_reg(c, imm_for_type(o, t));
    case RO_SYM: {
        int64_t val;
        int reg;
        EmuSpace sp;
        if (!strcmp(o->name, "WARP_SZ")) return const_reg(c, 32);
        {
            int idx;
            Name *n = lookup(c, o->name, &idx);   /* inline asm registers need no '%' */
            if (n && n->kind == N_REG && !o->imm) return n->base + idx;
        }
        if (!symbol_value(c, o->name, &val, &reg, &sp)) { fail(c, "unknown symbol %s", o->name); return 0; }
        if (reg >= 0) {
            if (o->imm) fail(c, "offsets from extern shared symbols are not supported: %s", o->name);
            return reg;
        }
        if (sp == SP_PARAM) { fail(c, "taking the address of kernel parameter %s is not supported", o->name); return 0; }
        return const_reg(c, (uint64_t)val + (uint64_t)o->imm);
    }
    default:
        fail(c, "unexpected operand%s", "");
        return 0;
    }
}

static int pred(Ctx *c, const RawOpnd *o, bool *neg) {
    if (neg) *neg = false;
    if (o->kind != RO_REG && o->kind != RO_SYM) { fail(c, "expected a predicate%s", ""); return 0; }
    int idx;
    Name *n = lookup(c, o->name, &idx);
    if (!n || n->kind != N_PRED) { fail(c, "%s is not a predicate", o->name); return 0; }
    if (neg) *neg = o->neg;
    else if (o->neg) fail(c, "'!' is not allowed on %s here", o->name);
    return n->base + idx;
}

static int pred_name(Ctx *c, const char *name) {
    int idx;
    Name *n = lookup(c, name, &idx);
    if (!n || n->kind != N_PRED) { fail(c, "%s is not a predicate", name); return 0; }
    return n->base + idx;
}

static bool is_pred_opnd(Ctx *c, const RawOpnd *o) {
    if (o->kind != RO_REG && o->kind != RO_SYM) return false;
    int idx;
    Name *n = lookup(c, o->name, &idx);
    return n && n->kind == N_PRED;
}

static int dst(Ctx *c, const RawOpnd *o, int *bits) {
    if (o->kind == RO_SINK) {
        if (c->sink < 0) c->sink = new_reg(c, 64);
        if (bits) *bits = 64;
        return c->sink;
    }
    if (o->kind != RO_REG && o->kind != RO_SYM) { fail(c, "expected a destination register%s", ""); return 0; }
    int idx;
    Name *n = lookup(c, o->name, &idx);
    if (!n || n->kind != N_REG) { fail(c, "unknown destination register %s", o->name); return 0; }
    if (bits) *bits = c->reg_bits[n->base + idx];
    return n->base + idx;
}

static Instr *emit(Ctx *c, int op) {
    GROW(c->code, c->n_code, c->cap_code);
    Instr *in = &c->code[c->n_code++];
    memset(in, 0, sizeof *in);
    in->op = (uint16_t)op;
    in->guard = -1;
    in->b = in->c = in->e = in->f = -1;
    for (int i = 0; i < 4; i++) in->d[i] = in->a[i] = -1;
    in->line = c->line;
    in->ptx_line = c->ptx_line;
    in->target = -1;
    return in;
}

/* ---- modifiers ------------------------------------------------------------ */
typedef struct Mods {
    char base[32];
    EmuType t[3];
    int nt;
    int rnd, space, vec, cmp, bop, aop, mode;
    unsigned flags;
    bool has_cmp, has_bop, has_aop, has_space, lo, uni;
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
        else if (!strcmp(w, "wrap")) { }
        else if (!strcmp(w, "l") || !strcmp(w, "shiftamt")) m->flags |= F_SHFL_L;
        else if (!strcmp(w, "r")) { }
        else if (!strcmp(w, "global")) { m->space = SP_GLOBAL; m->has_space = true; }
        else if (!strcmp(w, "shared")) { m->space = SP_SHARED; m->has_space = true; }
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
        else {
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

/* Records a shared variable under its source name: NVRTC mangles function
 * statics as _ZZ<len><function>E<len><name>[_<n>]. */
static void add_svar(Ctx *c, const char *mangled, size_t off, size_t size, size_t align) {
    GROW(c->svars, c->n_svars, c->cap_svars);
    SharedVar *v = &c->svars[c->n_svars++];
    memset(v, 0, sizeof *v);
    const char *name = mangled;
    size_t len = strlen(mangled);
    const char *e = strncmp(mangled, "_ZZ", 3) == 0 ? strrchr(mangled, 'E') : NULL;
    if (e && e[1] >= '0' && e[1] <= '9') {
        char *end;
        long n = strtol(e + 1, &end, 10);
        if (n > 0 && (size_t)n <= strlen(end)) { name = end; len = (size_t)n; }
    }
    if (len >= sizeof v->name) len = sizeof v->name - 1;
    memcpy(v->name, name, len);
    v->name[len] = 0;
    v->off = off;
    v->size = size;
    v->elem = align >= 8 ? 8 : align >= 4 ? 4 : align >= 2 ? 2 : 1;
}

/* ---- instructions --------------------------------------------------------- */
static EmuType last_type(const Mods *m) { return m->nt ? m->t[m->nt - 1] : T_NONE; }

static bool need_ops(Ctx *c, int have, int want) {
    if (have < want) { fail(c, "too few operands%s", ""); return false; }
    return true;
}

static void set_guard(Ctx *c, Instr *in, const RawStmt *s) {
    if (s->guard) {
        in->guard = (int16_t)pred_name(c, s->guard);
        in->gneg = s->gneg;
    }
}

/* Memory operand → (base register, offset, space of a symbol if any). */
static bool mem_operand(Ctx *c, const RawOpnd *o, int *reg, int64_t *off, EmuSpace *sym_space) {
    *sym_space = SP_GENERIC;
    if (o->kind != RO_MEM) { fail(c, "expected a memory operand [..]%s", ""); return false; }
    *off = o->imm;
    if (!o->name) { *reg = const_reg(c, 0); return true; }
    int ridx;
    Name *rn = lookup(c, o->name, &ridx);
    if (o->name[0] == '%' || (rn && rn->kind == N_REG)) {
        int idx;
        Name *n = lookup(c, o->name, &idx);
        if (!n || n->kind != N_REG) { fail(c, "unknown address register %s", o->name); return false; }
        *reg = n->base + idx;
        return true;
    }
    int64_t val;
    int sreg;
    if (!symbol_value(c, o->name, &val, &sreg, sym_space)) { fail(c, "unknown symbol %s", o->name); return false; }
    if (sreg >= 0) { *reg = sreg; return true; }
    if (*sym_space == SP_PARAM) { *reg = -1; *off = (int64_t)((uint64_t)*off + (uint64_t)val); return true; }
    *reg = const_reg(c, 0);
    *off = (int64_t)((uint64_t)*off + (uint64_t)val);
    return true;
}

static void decode_mem(Ctx *c, const RawStmt *s, const Mods *m, bool is_store) {
    if (!need_ops(c, s->nops, 2)) return;
    const RawOpnd *mo = is_store ? &s->ops[0] : &s->ops[1];
    const RawOpnd *vo = is_store ? &s->ops[1] : &s->ops[0];
    int reg;
    int64_t off;
    EmuSpace symsp;
    if (!mem_operand(c, mo, &reg, &off, &symsp)) return;
    EmuType t = last_type(m);
    int size = emu_type_bytes(t);
    if (!size || t == T_PRED) { fail(c, "bad memory access type%s", ""); return; }
    EmuSpace sp = m->has_space ? (EmuSpace)m->space : SP_GENERIC;
    Instr *in;
    if (sp == SP_PARAM && symsp == SP_PARAM && !is_store) {
        in = emit(c, OP_LD_PARAM);
    } else if (sp == SP_PARAM) {
        /* call parameters live in the thread's local frame */
        if (symsp != SP_LOCAL) { fail(c, "unsupported .param access%s", ""); return; }
        in = emit(c, is_store ? OP_ST : OP_LD);
        sp = SP_LOCAL;
    } else {
        if (reg < 0) { fail(c, "kernel parameters can only be read with ld.param%s", ""); return; }
        in = emit(c, is_store ? OP_ST : OP_LD);
    }
    set_guard(c, in, s);
    in->type = (uint8_t)t;
    in->space = (uint8_t)sp;
    in->size = (uint8_t)size;
    in->vec = (uint8_t)m->vec;
    in->a[0] = reg;
    in->imm = off;
    int n = m->vec;
    if (vo->kind == RO_VEC) {
        if (vo->nvec != n) { fail(c, "vector operand size does not match .v%s", n == 2 ? "2" : "4"); return; }
        for (int i = 0; i < n; i++) {
            int bits = 64;
            in->d[i] = is_store ? src(c, &vo->vec[i], t) : dst(c, &vo->vec[i], &bits);
            if (!is_store) in->dbits = (uint8_t)bits;
        }
    } else {
        if (n != 1) { fail(c, "expected a vector operand%s", ""); return; }
        int bits = 64;
        if (!is_store && is_pred_opnd(c, vo)) { fail(c, "loading into a predicate is not supported%s", ""); return; }
        in->d[0] = is_store ? src(c, vo, t) : dst(c, vo, &bits);
        if (!is_store) in->dbits = (uint8_t)bits;
    }
    if (in->dbits == 0) in->dbits = 64;
}

static void decode_atom(Ctx *c, const RawStmt *s, const Mods *m, bool red) {
    int i = 0;
    Instr *in = emit(c, red ? OP_RED : OP_ATOM);
    set_guard(c, in, s);
    if (!red) {
        if (!need_ops(c, s->nops, 3)) return;
        int bits;
        in->d[0] = dst(c, &s->ops[i++], &bits);
        in->dbits = (uint8_t)bits;
    } else if (!need_ops(c, s->nops, 2)) return;
    EmuSpace symsp;
    if (!mem_operand(c, &s->ops[i++], &in->a[0], &in->imm, &symsp)) return;
    if (in->a[0] < 0) { fail(c, "atomics on parameters are not supported%s", ""); return; }
    EmuType t = last_type(m);
    if (!m->has_aop) { fail(c, "unknown atomic operation%s", ""); return; }
    if (m->vec != 1) { fail(c, "vector atomics are not supported%s", ""); return; }
    in->type = (uint8_t)t;
    in->size = (uint8_t)emu_type_bytes(t);
    if (in->size != 4 && in->size != 8) {
        fail(c, "unsupported atomic type%s", "");
        return;
    }
    in->space = (uint8_t)(m->has_space ? m->space : SP_GENERIC);
    in->sub = (uint8_t)m->aop;
    in->b = src(c, &s->ops[i++], t);
    if (m->aop == AOP_CAS) {
        if (i >= s->nops) { fail(c, "atom.cas needs a new value%s", ""); return; }
        in->c = src(c, &s->ops[i++], t);
    }
}

static const char *call_target(const RawStmt *s, int *ret_i, int *arg_i) {
    *ret_i = *arg_i = -1;
    int i = 0;
    if (i < s->nops && s->ops[i].kind == RO_LIST) *ret_i = i++;
    if (i >= s->nops || s->ops[i].kind != RO_SYM) return NULL;
    const char *name = s->ops[i++].name;
    if (i < s->nops && s->ops[i].kind == RO_LIST) *arg_i = i;
    return name;
}

static int64_t param_var_offset(Ctx *c, const RawOpnd *o) {
    if (o->kind != RO_SYM && o->kind != RO_REG) { fail(c, "expected a call parameter%s", ""); return 0; }
    int idx;
    Name *n = lookup(c, o->name, &idx);
    if (!n || n->kind != N_VAR_LOCAL) { fail(c, "unknown call parameter %s", o->name); return 0; }
    return n->val;
}

static void walk_func(Ctx *c, RawFunc *f, const int64_t *arg_offs, const int64_t *ret_offs);

static void decode_call(Ctx *c, const RawStmt *s) {
    int ri, ai;
    const char *name = call_target(s, &ri, &ai);
    if (!name) { fail(c, "cannot read the call target%s", ""); return; }
    int64_t args[32], rets[8];
    int nargs = ai >= 0 ? s->ops[ai].nvec : 0, nrets = ri >= 0 ? s->ops[ri].nvec : 0;
    if (nargs > 32 || nrets > 8) { fail(c, "too many call arguments%s", ""); return; }
    for (int i = 0; i < nargs; i++) args[i] = param_var_offset(c, &s->ops[ai].vec[i]);
    for (int i = 0; i < nrets; i++) rets[i] = param_var_offset(c, &s->ops[ri].vec[i]);
    if (c->err) return;
    int op = !strcmp(name, "vprintf") ? OP_CALL_PRINTF : !strcmp(name, "malloc") ? OP_CALL_MALLOC
           : !strcmp(name, "free") ? OP_CALL_FREE : !strcmp(name, "__assertfail") ? OP_CALL_ASSERT : -1;
    if (op >= 0) {
        int want = op == OP_CALL_PRINTF ? 2 : op == OP_CALL_ASSERT ? 4 : 1;
        if (nargs < want) { fail(c, "too few arguments to %s", name); return; }
        Instr *in = emit(c, op);
        set_guard(c, in, s);
        for (int i = 0; i < 4 && i < nargs; i++) in->a[i] = (int32_t)args[i];
        in->d[0] = nrets ? (int32_t)rets[0] : -1;
        return;
    }
    RawFunc *f = NULL;
    for (int i = 0; i < c->p->n_funcs; i++)
        if (!strcmp(c->p->funcs[i].name, name)) f = &c->p->funcs[i];
    if (!f || !f->has_body) { fail(c, "call to an unknown or external function %s", name); return; }
    if (f->n_params != nargs || f->n_rets != nrets) { fail(c, "call to %s has the wrong number of arguments", name); return; }
    for (int i = 0; i < c->depth; i++)
        if (!strcmp(c->stack[i], name)) { fail(c, "recursive call to %s is not supported by the emulator", name); return; }
    if (c->depth >= 16) { fail(c, "calls nested too deeply%s", ""); return; }
    int skip = -1;
    if (s->guard) {
        /* @p call f → branch around the inlined body when !p */
        Instr *br = emit(c, OP_BRA);
        br->guard = (int16_t)pred_name(c, s->guard);
        br->gneg = !s->gneg;
        skip = c->n_code - 1;
    }
    c->stack[c->depth++] = name;
    walk_func(c, f, args, rets);
    c->depth--;
    if (skip >= 0) c->code[skip].target = c->n_code;
}

static void decode_setp(Ctx *c, const RawStmt *s, const Mods *m) {
    if (!need_ops(c, s->nops, 3)) return;
    EmuType t = last_type(m);
    Instr *in = emit(c, OP_SETP);
    set_guard(c, in, s);
    if (m->cmp < 0) { fail(c, "setp needs a comparison%s", ""); return; }
    in->type = (uint8_t)t;
    in->sub = (uint8_t)m->cmp;
    in->sub2 = (uint8_t)m->bop;
    in->flags = (uint16_t)m->flags;
    in->d[0] = pred_name(c, s->ops[0].name ? s->ops[0].name : "?");
    if (s->ops[0].name2) in->d[1] = pred_name(c, s->ops[0].name2);
    in->a[0] = src(c, &s->ops[1], t);
    in->b = src(c, &s->ops[2], t);
    if (m->bop) {
        if (s->nops < 4) { fail(c, "setp with a combining op needs a predicate%s", ""); return; }
        bool neg;
        in->c = pred(c, &s->ops[3], &neg);
        if (neg) in->flags |= F_NEGC;
    }
}

static void decode_alu(Ctx *c, const RawStmt *s, const Mods *m, int op, int nsrc) {
    if (!need_ops(c, s->nops, 1 + nsrc)) return;
    EmuType t = last_type(m);
    if (t == T_NONE) { fail(c, "missing type%s", ""); return; }
    Instr *in = emit(c, op);
    set_guard(c, in, s);
    in->type = (uint8_t)t;
    in->rnd = (uint8_t)m->rnd;
    in->flags = (uint16_t)m->flags;
    int bits;
    in->d[0] = dst(c, &s->ops[0], &bits);
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
        if (op == OP_MAD && (m->flags & F_WIDE) && i == 2) ot = T_S64;
        *slots[i] = src(c, &s->ops[1 + i], ot);
    }
}

static void decode_cvt(Ctx *c, const RawStmt *s, const Mods *m) {
    if (!need_ops(c, s->nops, 2)) return;
    if (m->nt < 2) { fail(c, "cvt needs two types%s", ""); return; }
    Instr *in = emit(c, OP_CVT);
    set_guard(c, in, s);
    in->type = (uint8_t)m->t[0];
    in->type2 = (uint8_t)m->t[1];
    in->rnd = (uint8_t)m->rnd;
    in->flags = (uint16_t)m->flags;
    int bits;
    in->d[0] = dst(c, &s->ops[0], &bits);
    in->dbits = (uint8_t)bits;
    in->a[0] = src(c, &s->ops[1], m->t[1]);
}

static void decode_mov(Ctx *c, const RawStmt *s, const Mods *m) {
    if (!need_ops(c, s->nops, 2)) return;
    EmuType t = last_type(m);
    const RawOpnd *d = &s->ops[0], *a = &s->ops[1];
    if (t == T_PRED) {
        Instr *in = emit(c, OP_PMOV);
        set_guard(c, in, s);
        in->d[0] = pred(c, d, NULL);
        bool neg = false;
        if (a->kind == RO_INT) { in->a[0] = -1; in->imm = a->imm ? 1 : 0; }
        else { in->a[0] = pred(c, a, &neg); if (neg) in->flags |= F_NEGA; }
        return;
    }
    if (a->kind == RO_REG && (!strcmp(a->name, "%clock") || !strcmp(a->name, "%clock64") ||
                              !strcmp(a->name, "%globaltimer"))) {
        Instr *in = emit(c, OP_CLOCK);
        set_guard(c, in, s);
        in->d[0] = dst(c, d, NULL);
        in->type = (uint8_t)t;
        return;
    }
    if (a->kind == RO_VEC || d->kind == RO_VEC) {
        const RawOpnd *v = a->kind == RO_VEC ? a : d;
        Instr *in = emit(c, a->kind == RO_VEC ? OP_MOV_PACK : OP_MOV_UNPACK);
        set_guard(c, in, s);
        int n = v->nvec;
        int tb = emu_type_bytes(t) * 8;
        if ((n != 2 && n != 4) || !tb || tb % n) { fail(c, "bad vector mov%s", ""); return; }
        in->size = (uint8_t)(tb / n);
        in->vec = (uint8_t)n;
        in->type = (uint8_t)t;
        if (a->kind == RO_VEC) {
            in->d[0] = dst(c, d, NULL);
            for (int i = 0; i < n; i++) in->a[i] = src(c, &v->vec[i], T_B64);
        } else {
            for (int i = 0; i < n; i++) in->d[i] = dst(c, &v->vec[i], NULL);
            in->a[0] = src(c, a, t);
        }
        return;
    }
    Instr *in = emit(c, OP_MOV);
    set_guard(c, in, s);
    in->type = (uint8_t)t;
    int bits;
    in->d[0] = dst(c, d, &bits);
    in->dbits = (uint8_t)bits;
    in->a[0] = src(c, a, t);
}

static void decode_warp_op(Ctx *c, const RawStmt *s, const Mods *m, int op) {
    Instr *in = emit(c, op);
    set_guard(c, in, s);
    in->type = (uint8_t)last_type(m);
    in->sub = (uint8_t)(m->mode < 0 ? 0 : m->mode);
    int n = s->nops;
    switch (op) {
    case OP_SHFL:
        if (!need_ops(c, n, 5) || m->mode < 0) { fail(c, "shfl needs a mode and 5 operands%s", ""); return; }
        in->d[0] = dst(c, &s->ops[0], NULL);
        if (s->ops[0].name2) in->d[1] = pred_name(c, s->ops[0].name2);
        in->a[0] = src(c, &s->ops[1], T_B32);
        in->b = src(c, &s->ops[2], T_B32);
        in->c = src(c, &s->ops[3], T_B32);
        in->e = src(c, &s->ops[4], T_B32);
        break;
    case OP_VOTE: {
        if (!need_ops(c, n, 3)) return;
        if (m->uni) in->sub = VOTE_UNI;
        if (m->mode < 0 && !m->uni) { fail(c, "vote needs .all/.any/.uni/.ballot%s", ""); return; }
        if (in->sub == VOTE_BALLOT) in->d[0] = dst(c, &s->ops[0], NULL);
        else in->d[0] = pred(c, &s->ops[0], NULL);
        bool neg;
        in->a[0] = pred(c, &s->ops[1], &neg);
        if (neg) in->flags |= F_NEGA;
        in->e = src(c, &s->ops[2], T_B32);
        break;
    }
    case OP_ACTIVEMASK:
        if (!need_ops(c, n, 1)) return;
        in->d[0] = dst(c, &s->ops[0], NULL);
        break;
    case OP_MATCH:
        if (!need_ops(c, n, 3)) return;
        in->d[0] = dst(c, &s->ops[0], NULL);
        if (s->ops[0].name2) in->d[1] = pred_name(c, s->ops[0].name2);
        in->a[0] = src(c, &s->ops[1], (EmuType)in->type);
        in->e = src(c, &s->ops[2], T_B32);
        break;
    case OP_REDUX:
        if (!need_ops(c, n, 3) || !m->has_aop) { fail(c, "redux needs an operation%s", ""); return; }
        in->sub = (uint8_t)m->aop;
        in->d[0] = dst(c, &s->ops[0], NULL);
        in->a[0] = src(c, &s->ops[1], (EmuType)in->type);
        in->e = src(c, &s->ops[2], T_B32);
        break;
    default: break;
    }
}

static void decode_bar(Ctx *c, const RawStmt *s, const Mods *m) {
    if (m->flags & F_PRED2) {    /* bar.warp.sync mask */
        Instr *in = emit(c, OP_BAR_WARP);
        set_guard(c, in, s);
        in->e = s->nops ? src(c, &s->ops[0], T_B32) : const_reg(c, EMU_FULL);
        return;
    }
    Instr *in = emit(c, OP_BAR);
    set_guard(c, in, s);
    in->sub = BAR_SYNC;
    if (m->flags & F_USECC) in->sub = BAR_ARRIVE;
    int i = 0;
    if (m->flags & F_ATOMIC) {   /* bar.red.popc.u32 d, a{, b}, {!}p  |  bar.red.and.pred p, a, {!}q */
        in->sub = m->mode == BAR_RED_POPC ? BAR_RED_POPC : m->aop == AOP_AND ? BAR_RED_AND : BAR_RED_OR;
        if (m->mode != BAR_RED_POPC && m->aop != AOP_AND && m->aop != AOP_OR) { fail(c, "unknown bar.red operation%s", ""); return; }
        if (!need_ops(c, s->nops, 3)) return;
        if (in->sub == BAR_RED_POPC) in->d[0] = dst(c, &s->ops[i++], NULL);
        else in->d[0] = pred(c, &s->ops[i++], NULL);
        in->a[0] = src(c, &s->ops[i++], T_U32);
        if (s->nops - i == 2) in->b = src(c, &s->ops[i++], T_U32);
        bool neg;
        in->c = pred(c, &s->ops[i], &neg);
        if (neg) in->flags |= F_NEGC;
        return;
    }
    in->a[0] = s->nops > 0 ? src(c, &s->ops[0], T_U32) : const_reg(c, 0);
    if (s->nops > 1) in->b = src(c, &s->ops[1], T_U32);
}

static void decode_instr(Ctx *c, const RawStmt *s) {
    Mods m;
    parse_mods(s->op, &m);
    c->op = s->op;
    const char *b = m.base;
    EmuType t = last_type(&m);
    bool lenient = !strcmp(b, "call") || !strcmp(b, "membar") || !strcmp(b, "fence") ||
                   !strncmp(b, "prefetch", 8) || !strcmp(b, "discard") || !strcmp(b, "applypriority");
    if (m.unknown[0] && !lenient) { fail(c, "unsupported modifier .%s", m.unknown); return; }
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
        {"slct", OP_SLCT, 3}, {"dp4a", OP_DP4A, 3}, {"dp2a", OP_DP2A, 3},
    };
    if ((!strcmp(b, "and") || !strcmp(b, "or") || !strcmp(b, "xor") || !strcmp(b, "not")) && t == T_PRED) {
        int op = b[0] == 'a' ? OP_PAND : b[0] == 'o' ? OP_POR : b[0] == 'x' ? OP_PXOR : OP_PNOT;
        Instr *in = emit(c, op);
        set_guard(c, in, s);
        if (!need_ops(c, s->nops, op == OP_PNOT ? 2 : 3)) return;
        in->d[0] = pred(c, &s->ops[0], NULL);
        bool na = false, nb = false;
        in->a[0] = pred(c, &s->ops[1], &na);
        if (op != OP_PNOT) in->b = pred(c, &s->ops[2], &nb);
        if (na) in->flags |= F_NEGA;
        if (nb) in->flags |= F_NEGB;
        return;
    }
    if (!strcmp(b, "selp")) {
        if (!need_ops(c, s->nops, 4)) return;
        Instr *in = emit(c, OP_SELP);
        set_guard(c, in, s);
        in->type = (uint8_t)t;
        int bits;
        in->d[0] = dst(c, &s->ops[0], &bits);
        in->dbits = (uint8_t)bits;
        in->a[0] = src(c, &s->ops[1], t);
        in->b = src(c, &s->ops[2], t);
        bool neg;
        in->c = pred(c, &s->ops[3], &neg);
        if (neg) in->flags |= F_NEGC;
        return;
    }
    if (!strcmp(b, "slct")) {
        if (m.nt < 2) { fail(c, "slct needs two types%s", ""); return; }
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
        Instr *in = emit(c, OP_TESTP);
        set_guard(c, in, s);
        in->type = (uint8_t)t;
        const char *p = strchr(s->op, '.');
        in->sub = p && !strncmp(p, ".finite", 7) ? 0 : p && !strncmp(p, ".infinite", 9) ? 1
                : p && !strncmp(p, ".number", 7) ? 2 : p && !strncmp(p, ".notanumber", 11) ? 3
                : p && !strncmp(p, ".normal", 7) ? 4 : 5;
        in->d[0] = pred(c, &s->ops[0], NULL);
        in->a[0] = src(c, &s->ops[1], t);
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
        if (t != T_U32 && t != T_S32 && t != T_U64 && t != T_S64) { fail(c, "carry arithmetic needs a 32- or 64-bit integer type%s", ""); return; }
        m.flags &= ~(unsigned)F_USECC;
        if (b[3] == 'c') m.flags |= F_USECC;
        decode_alu(c, s, &m, b[0] == 'a' ? OP_ADD : b[0] == 's' ? OP_SUB : OP_MAD, b[0] == 'm' ? 3 : 2);
        if (c->err) return;
        if (c->cc < 0) c->cc = c->k->n_preds++;
        c->code[c->n_code - 1].f = c->cc;
        return;
    }
    for (size_t i = 0; i < sizeof alu / sizeof alu[0]; i++)
        if (!strcmp(b, alu[i].name)) {
            if (alu[i].op == OP_MUL && m.lo) m.flags &= ~(unsigned)F_HI;
            decode_alu(c, s, &m, alu[i].op, alu[i].nsrc);
            return;
        }
    if (!strcmp(b, "mov")) { decode_mov(c, s, &m); return; }
    if (!strcmp(b, "setp")) { decode_setp(c, s, &m); return; }
    if (!strcmp(b, "set")) {
        /* set.cmp[.bop].dtype.stype d, a, b[, {!}c]: 1.0 / all ones when true */
        if (!need_ops(c, s->nops, 3) || m.nt < 2 || m.cmp < 0) { fail(c, "set needs a comparison and two types%s", ""); return; }
        Instr *in = emit(c, OP_SET);
        set_guard(c, in, s);
        in->type = (uint8_t)m.t[0];
        in->type2 = (uint8_t)m.t[1];
        in->sub = (uint8_t)m.cmp;
        in->sub2 = (uint8_t)m.bop;
        in->flags = (uint16_t)m.flags;
        in->d[0] = dst(c, &s->ops[0], NULL);
        in->a[0] = src(c, &s->ops[1], m.t[1]);
        in->b = src(c, &s->ops[2], m.t[1]);
        if (m.bop) {
            if (s->nops < 4) { fail(c, "set with a combining op needs a predicate%s", ""); return; }
            bool neg;
            in->c = pred(c, &s->ops[3], &neg);
            if (neg) in->flags |= F_NEGC;
        }
        return;
    }
    if (!strcmp(b, "cvt")) {
        if (m.t[0] == T_F16X2 || m.t[0] == T_BF16X2) {
            /* cvt.rn.f16x2.f32 d, a, b: pack two floats */
            if (!need_ops(c, s->nops, 3)) return;
            Instr *in = emit(c, OP_CVT_PACK);
            set_guard(c, in, s);
            in->type = (uint8_t)m.t[0];
            in->d[0] = dst(c, &s->ops[0], NULL);
            in->a[0] = src(c, &s->ops[1], T_F32);
            in->b = src(c, &s->ops[2], T_F32);
            return;
        }
        decode_cvt(c, s, &m);
        return;
    }
    if (!strcmp(b, "cvta")) {
        if (!need_ops(c, s->nops, 2)) return;
        const char *p = strstr(s->op, ".to.");
        Instr *in = emit(c, p ? OP_CVTA_TO : OP_CVTA);
        set_guard(c, in, s);
        in->space = (uint8_t)m.space;
        in->type = (uint8_t)t;
        in->d[0] = dst(c, &s->ops[0], NULL);
        in->a[0] = src(c, &s->ops[1], T_U64);
        return;
    }
    if (!strcmp(b, "ld") || !strcmp(b, "ldu")) { decode_mem(c, s, &m, false); return; }
    if (!strcmp(b, "st")) { decode_mem(c, s, &m, true); return; }
    if (!strcmp(b, "atom")) { decode_atom(c, s, &m, false); return; }
    if (!strcmp(b, "red")) { decode_atom(c, s, &m, true); return; }
    if (!strcmp(b, "prefetch") || !strcmp(b, "prefetchu") || !strcmp(b, "membar") ||
        !strcmp(b, "fence") || !strcmp(b, "discard") || !strcmp(b, "applypriority") ||
        !strcmp(b, "pmevent") || !strcmp(b, "nanosleep")) {
        Instr *in = emit(c, OP_MEMBAR);
        set_guard(c, in, s);
        return;
    }
    if (!strcmp(b, "bra")) {
        if (!need_ops(c, s->nops, 1) || s->ops[0].kind != RO_SYM) { fail(c, "bra needs a label%s", ""); return; }
        Instr *in = emit(c, OP_BRA);
        set_guard(c, in, s);
        GROW(c->fix, c->n_fix, c->cap_fix);
        c->fix[c->n_fix++] = (Fixup){c->n_code - 1, s->ops[0].name, c->frame_id, s->ptx_line};
        return;
    }
    if (!strcmp(b, "ret")) {
        Instr *in;
        if (c->depth > 0) {
            in = emit(c, OP_BRA);
            GROW(c->fix, c->n_fix, c->cap_fix);
            c->fix[c->n_fix++] = (Fixup){c->n_code - 1, NULL, c->frame_id, s->ptx_line};
        } else {
            in = emit(c, OP_EXIT);
        }
        set_guard(c, in, s);
        return;
    }
    if (!strcmp(b, "exit")) { set_guard(c, emit(c, OP_EXIT), s); return; }
    if (!strcmp(b, "trap")) { set_guard(c, emit(c, OP_TRAP), s); return; }
    if (!strcmp(b, "brkpt")) { set_guard(c, emit(c, OP_BRKPT), s); return; }
    if (!strcmp(b, "bar") || !strcmp(b, "barrier")) { decode_bar(c, s, &m); return; }
    if (!strcmp(b, "shfl")) { decode_warp_op(c, s, &m, OP_SHFL); return; }
    if (!strcmp(b, "vote")) { decode_warp_op(c, s, &m, OP_VOTE); return; }
    if (!strcmp(b, "activemask")) { decode_warp_op(c, s, &m, OP_ACTIVEMASK); return; }
    if (!strcmp(b, "match")) { decode_warp_op(c, s, &m, OP_MATCH); return; }
    if (!strcmp(b, "redux")) { decode_warp_op(c, s, &m, OP_REDUX); return; }
    if (!strcmp(b, "call")) { decode_call(c, s); return; }
    fail(c, "unsupported instruction '%s'", s->op);
}

/* Walks a function body; arg_offs/ret_offs bind a .func's parameters to the
 * caller's call-parameter slots (NULL for the entry). */
static void walk_func(Ctx *c, RawFunc *f, const int64_t *arg_offs, const int64_t *ret_offs) {
    int saved_base = c->frame_base, saved_frame = c->frame_id;
    int saved_names = c->n_names;
    int fix_start = c->n_fix, label_start = c->n_labels;
    c->frame_base = c->n_names;
    c->frame_id = ++c->next_frame;
    for (int i = 0; i < f->n_params; i++) {
        Name *n = add_name(c, f->params[i].name, arg_offs ? N_VAR_LOCAL : N_KPARAM);
        n->val = arg_offs ? arg_offs[i] : 0;
    }
    if (!arg_offs) {
        size_t off = 0;
        c->k->n_params = f->n_params;
        c->k->param_offsets = xcalloc((size_t)f->n_params + 1, sizeof(size_t));
        c->k->param_sizes = xcalloc((size_t)f->n_params + 1, sizeof(size_t));
        for (int i = 0; i < f->n_params; i++) {
            size_t al = f->params[i].align ? f->params[i].align : 1;
            off = (off + al - 1) / al * al;
            c->names[c->frame_base + i].val = (int64_t)off;
            c->k->param_offsets[i] = off;
            c->k->param_sizes[i] = f->params[i].size;
            off += f->params[i].size;
        }
        c->k->param_size = off;
        c->k->maxntid = f->maxntid;
    }
    for (int i = 0; i < f->n_rets; i++) {
        Name *n = add_name(c, f->rets[i].name, N_VAR_LOCAL);
        n->val = ret_offs ? ret_offs[i] : 0;
    }
    int scope_stack[64];
    int sp = 0;
    for (int i = 0; i < f->n_body && !c->err; i++) {
        const RawStmt *s = &f->body[i];
        c->ptx_line = s->ptx_line;
        c->op = NULL;
        switch (s->kind) {
        case RS_OPEN:
            if (sp == 64) { fail(c, "blocks nested too deeply%s", ""); break; }
            scope_stack[sp++] = c->n_names;
            break;
        case RS_CLOSE:
            if (sp > 0) c->n_names = scope_stack[--sp];
            break;
        case RS_LOC:
            if (s->file == 1 && s->line > 0) c->line = s->line;
            else if (s->inl_file == 1 && s->inl_line > 0) c->line = s->inl_line;
            if (c->line > c->k->max_line) c->k->max_line = c->line;
            break;
        case RS_REG: {
            int cnt = s->count < 0 ? 1 : s->count;
            Name *n = add_name(c, s->op, s->type == T_PRED ? N_PRED : N_REG);
            n->count = s->count;
            if (s->type == T_PRED) {
                n->base = c->k->n_preds;
                c->k->n_preds += cnt;
            } else {
                int bits = emu_type_bytes(s->type) * 8;
                if (bits > 64) { fail(c, "128-bit registers are not supported%s", ""); break; }
                n->base = c->k->n_regs;
                for (int r = 0; r < cnt; r++) new_reg(c, bits);
            }
            if (c->k->n_regs > 1 << 20 || c->k->n_preds > 1 << 16) fail(c, "too many registers%s", "");
            break;
        }
        case RS_VAR: {
            size_t al = s->align ? s->align : 1;
            if (s->space == SP_SHARED) {
                if (s->is_extern) {
                    add_name(c, s->op, N_DYNSHARED);
                    add_svar(c, s->op, (size_t)-1, 0, al);
                    break;
                }
                c->shared_size = (c->shared_size + al - 1) / al * al;
                Name *n = add_name(c, s->op, N_VAR_SHARED);
                n->val = (int64_t)c->shared_size;
                add_svar(c, s->op, c->shared_size, s->size, al);
                c->shared_size += s->size;
            } else {
                c->local_size = (c->local_size + al - 1) / al * al;
                Name *n = add_name(c, s->op, N_VAR_LOCAL);
                n->val = (int64_t)c->local_size;
                c->local_size += s->size ? s->size : 8;
            }
            if (c->shared_size > (1u << 30) || c->local_size > (1u << 24)) fail(c, "variable too large%s", "");
            break;
        }
        case RS_LABEL:
            GROW(c->labels, c->n_labels, c->cap_labels);
            c->labels[c->n_labels++] = (Label){s->op, c->frame_id, c->n_code};
            break;
        case RS_INSTR:
            decode_instr(c, s);
            break;
        }
    }
    /* resolve this frame's branches; NULL name = return to the caller */
    for (int i = fix_start; i < c->n_fix && !c->err; i++) {
        Fixup *fx = &c->fix[i];
        if (fx->frame != c->frame_id) continue;
        if (!fx->name) { c->code[fx->instr].target = c->n_code; continue; }
        int pc = -1;
        for (int j = label_start; j < c->n_labels; j++)
            if (c->labels[j].frame == c->frame_id && !strcmp(c->labels[j].name, fx->name)) pc = c->labels[j].pc;
        if (pc < 0) {
            c->ptx_line = fx->ptx_line;
            c->op = NULL;
            fail(c, "branch to an unknown label %s", fx->name);
        }
        c->code[fx->instr].target = pc;
    }
    c->n_fix = fix_start;
    c->n_labels = label_start;
    c->n_names = saved_names;
    c->frame_base = saved_base;
    c->frame_id = saved_frame;
}

Diag *emu_kernel_decode(Program *p, const char *name, Kernel **out) {
    *out = NULL;
    RawFunc *f = NULL;
    for (int i = 0; i < p->n_funcs; i++)
        if (p->funcs[i].is_entry && p->funcs[i].has_body && !strcmp(p->funcs[i].name, name)) f = &p->funcs[i];
    if (!f) return diag_error("ptx-decode", "the PTX has no kernel named %s", name);
    Ctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.sink = -1;
    c.cc = -1;
    c.k = xcalloc(1, sizeof *c.k);
    c.k->name = xstrdup(name);
    /* module-scope static shared variables come first in every kernel */
    for (int i = 0; i < p->n_vars; i++) {
        ModVar *v = &p->vars[i];
        if (v->space != SP_SHARED || v->is_extern) continue;
        size_t al = v->align ? v->align : 1;
        c.shared_size = (c.shared_size + al - 1) / al * al;
        v->shared_off = c.shared_size;
        add_svar(&c, v->name, c.shared_size, v->size, al);
        c.shared_size += v->size;
    }
    for (int i = 0; i < p->n_vars; i++)
        if (p->vars[i].space == SP_SHARED && p->vars[i].is_extern)
            add_svar(&c, p->vars[i].name, (size_t)-1, 0, p->vars[i].align ? p->vars[i].align : 1);
    walk_func(&c, f, NULL, NULL);
    /* an unguarded exit at the end: falling off the code, or a branch to a
     * label after the last instruction, ends the thread */
    if (!c.err) emit(&c, OP_EXIT);
    for (int i = 0; i < c.n_code && !c.err; i++) {
        const Instr *in = &c.code[i];
        if (in->op == OP_BRA && (in->target < 0 || in->target >= c.n_code)) {
            c.ptx_line = in->ptx_line;
            fail(&c, "unresolved branch%s", "");
        }
    }
    for (int i = 0; i < c.n_code; i++) {
        Instr *in = &c.code[i];
        emu_specialise(in);
        /* shifts by an immediate: the amount is one number for the whole warp */
        if ((in->op == OPF_SHL32 || in->op == OPF_SHRU32 || in->op == OPF_SHRS32) && in->b >= 0) {
            for (int j = 0; j < c.n_consts; j++) {
                if (c.consts[j].reg != in->b) continue;
                uint32_t n = (uint32_t)c.consts[j].value;
                if (n < 32) {
                    in->imm = n;
                    in->op = in->op == OPF_SHL32 ? OPF_SHL32I : in->op == OPF_SHRU32 ? OPF_SHRU32I : OPF_SHRS32I;
                }
                break;
            }
        }
    }
    Kernel *k = c.k;
    k->code = c.code;
    k->n_code = c.n_code;
    k->consts = c.consts;
    k->n_consts = c.n_consts;
    k->specials = c.specials;
    k->n_specials = c.n_specials;
    k->shared_static = c.shared_size;
    k->shared_dyn_off = (c.shared_size + 15) / 16 * 16;
    for (int i = 0; i < c.n_svars; i++)
        if (c.svars[i].off == (size_t)-1) c.svars[i].off = k->shared_dyn_off;
    k->svars = c.svars;
    k->n_svars = c.n_svars;
    k->local_size = (c.local_size + 15) / 16 * 16;
    if (k->n_regs == 0) k->n_regs = 1;
    if (k->n_preds == 0) k->n_preds = 1;
    free(c.names);
    free(c.labels);
    free(c.fix);
    free(c.reg_bits);
    if (c.err) {
        emu_kernel_free(&k);
        return c.err;
    }
    *out = k;
    return NULL;
}

void emu_kernel_free(Kernel **kp) {
    Kernel *k = *kp;
    if (!k) return;
    free(k->name);
    free(k->svars);
    free(k->code);
    free(k->consts);
    free(k->specials);
    free(k->param_offsets);
    free(k->param_sizes);
    free(k);
    *kp = NULL;
}
