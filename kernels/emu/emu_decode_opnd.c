/* kernels/emu/emu_decode_opnd.c: the decoder's context services — errors,
 * fresh and pre-filled registers, names in the current frame, symbols and
 * operands (a source register, a predicate, a destination), appending an
 * instruction. Used by emu_decode.c (the walk over function bodies),
 * emu_decode_instr.c (one instruction) and emu_mma.c (tensor-core
 * instructions); it calls none of them, so the decoder has no call circle. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emu/emu_decode.h"

void emu_decode_fail(Ctx *c, const char *fmt, const char *arg) {
    if (c->err) return;
    char buf[256];
    snprintf(buf, sizeof buf, fmt, arg ? arg : "");
    /* the learner's line too, from the last .loc of their file before it */
    char src[48] = "";
    if (c->line > 0) snprintf(src, sizeof src, " (source line %d)", c->line);
    c->err = diag_error("ptx-decode", "PTX line %d%s: %s%s%s%s", c->ptx_line, src, buf,
                        c->op ? " (in '" : "", c->op ? c->op : "", c->op ? "')" : "");
}

int emu_decode_new_reg(Ctx *c, int bits) {
    int r = c->k->n_regs++;
    if (r >= c->cap_regs) {
        c->cap_regs = c->cap_regs ? c->cap_regs * 2 : 256;
        c->reg_bits = xrealloc(c->reg_bits, (size_t)c->cap_regs);
    }
    c->reg_bits[r] = (uint8_t)bits;
    return r;
}

int emu_decode_const(Ctx *c, uint64_t v) {
    for (int i = c->n_consts - 1; i >= 0 && i >= c->n_consts - 512; i--)
        if (c->consts[i].value == v) return c->consts[i].reg;
    GROW(c->consts, c->n_consts, c->cap_consts);
    int r = emu_decode_new_reg(c, 64);
    c->consts[c->n_consts].reg = r;
    c->consts[c->n_consts].value = v;
    c->n_consts++;
    return r;
}

int emu_decode_special(Ctx *c, int kind) {
    for (int i = 0; i < c->n_specials; i++)
        if (c->specials[i].kind == kind) return c->specials[i].reg;
    GROW(c->specials, c->n_specials, c->cap_specials);
    int r = emu_decode_new_reg(c, 32);
    c->specials[c->n_specials].reg = r;
    c->specials[c->n_specials].kind = kind;
    c->n_specials++;
    return r;
}

/* Finds a name in the current frame: exact names, or prefix + index in a range. */
Name *emu_decode_lookup(Ctx *c, const char *name, int *index) {
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
bool emu_decode_symbol(Ctx *c, const char *name, int64_t *val, int *reg, EmuSpace *space) {
    int idx;
    *reg = -1;
    Name *n = emu_decode_lookup(c, name, &idx);
    if (n) {
        switch (n->kind) {
        case N_VAR_SHARED: *val = n->val; *space = SP_SHARED; return true;
        case N_VAR_LOCAL: *val = n->val; *space = SP_LOCAL; return true;
        case N_KPARAM: *val = n->val; *space = SP_PARAM; return true;
        case N_DYNSHARED: *val = 0; *reg = emu_decode_special(c, SR_DYNBASE); *space = SP_SHARED; return true;
        default: return false;
        }
    }
    ModVar *v = find_modvar(c, name);
    if (!v) return false;
    if (v->space == SP_SHARED) {
        if (v->is_extern) { *val = 0; *reg = emu_decode_special(c, SR_DYNBASE); }
        else *val = (int64_t)v->shared_off;
        *space = SP_SHARED;
        return true;
    }
    *val = (int64_t)(uintptr_t)v->data;
    *space = v->space;
    return true;
}

/* A source operand as a register index (immediates and symbols become constant registers). */
int emu_decode_src(Ctx *c, const RawOpnd *o, EmuType t) {
    switch (o->kind) {
    case RO_REG: {
        for (size_t i = 0; i < sizeof SPECIALS / sizeof SPECIALS[0]; i++)
            if (!strcmp(o->name, SPECIALS[i].name)) return emu_decode_special(c, SPECIALS[i].kind);
        int idx;
        Name *n = emu_decode_lookup(c, o->name, &idx);
        if (!n && !strncmp(o->name, "%envreg", 7)) {
            /* %envreg1/2 hold cooperative groups' grid workspace */
            emu_decode_fail(c, "%s: the kernel synchronises the whole grid (cooperative_groups::this_grid()"
                               ".sync()), which the emulator does not run; run it on a GPU", o->name);
            return 0;
        }
        if (!n) { emu_decode_fail(c, "unknown register %s", o->name); return 0; }
        if (n->kind != N_REG) { emu_decode_fail(c, "%s is not a value register here", o->name); return 0; }
        assert(n->base + idx < c->k->n_regs);
        return n->base + idx;
    }
    case RO_INT: case RO_F32: case RO_F64: case RO_FLT:
        return emu_decode_const(c, imm_for_type(o, t));
    case RO_SYM: {
        int64_t val;
        int reg;
        EmuSpace sp;
        if (!strcmp(o->name, "WARP_SZ")) return emu_decode_const(c, 32);
        {
            int idx;
            Name *n = emu_decode_lookup(c, o->name, &idx);   /* inline asm registers need no '%' */
            if (n && n->kind == N_REG && !o->imm) {
                assert(n->base + idx < c->k->n_regs);
                return n->base + idx;
            }
        }
        if (!emu_decode_symbol(c, o->name, &val, &reg, &sp)) { emu_decode_fail(c, "unknown symbol %s", o->name); return 0; }
        if (reg >= 0) {
            if (o->imm) emu_decode_fail(c, "offsets from extern shared symbols are not supported: %s", o->name);
            return reg;
        }
        /* the address of a kernel parameter (a struct passed by value, read
         * with ld.param [%rd+N]) is its offset in the parameter buffer;
         * only ld.param may use it (a generic access reports a bad pointer) */
        if (sp == SP_PARAM) return emu_decode_const(c, (uint64_t)(val + o->imm));
        return emu_decode_const(c, (uint64_t)val + (uint64_t)o->imm);
    }
    default:
        emu_decode_fail(c, "unexpected operand%s", "");
        return 0;
    }
}

int emu_decode_pred(Ctx *c, const RawOpnd *o, bool *neg) {
    if (neg) *neg = false;
    if (o->kind != RO_REG && o->kind != RO_SYM) { emu_decode_fail(c, "expected a predicate%s", ""); return 0; }
    int idx;
    Name *n = emu_decode_lookup(c, o->name, &idx);
    if (!n || n->kind != N_PRED) { emu_decode_fail(c, "%s is not a predicate", o->name); return 0; }
    if (neg) *neg = o->neg;
    else if (o->neg) emu_decode_fail(c, "'!' is not allowed on %s here", o->name);
    assert(n->base + idx < c->k->n_preds);
    return n->base + idx;
}

int emu_decode_pred_name(Ctx *c, const char *name) {
    int idx;
    Name *n = emu_decode_lookup(c, name, &idx);
    if (!n || n->kind != N_PRED) { emu_decode_fail(c, "%s is not a predicate", name); return 0; }
    assert(n->base + idx < c->k->n_preds);
    return n->base + idx;
}

bool emu_decode_is_pred(Ctx *c, const RawOpnd *o) {
    if (o->kind != RO_REG && o->kind != RO_SYM) return false;
    int idx;
    Name *n = emu_decode_lookup(c, o->name, &idx);
    return n && n->kind == N_PRED;
}

int emu_decode_dst(Ctx *c, const RawOpnd *o, int *bits) {
    if (o->kind == RO_SINK) {
        if (c->sink < 0) c->sink = emu_decode_new_reg(c, 64);
        if (bits) *bits = 64;
        return c->sink;
    }
    if (o->kind != RO_REG && o->kind != RO_SYM) { emu_decode_fail(c, "expected a destination register%s", ""); return 0; }
    int idx;
    Name *n = emu_decode_lookup(c, o->name, &idx);
    if (!n || n->kind != N_REG) { emu_decode_fail(c, "unknown destination register %s", o->name); return 0; }
    assert(n->base + idx < c->k->n_regs && n->base + idx < c->cap_regs);
    if (bits) *bits = c->reg_bits[n->base + idx];
    return n->base + idx;
}

Instr *emu_decode_emit(Ctx *c, int op) {
    GROW(c->code, c->n_code, c->cap_code);
    Instr *in = &c->code[c->n_code++];
    memset(in, 0, sizeof *in);
    in->op = (uint16_t)op;
    in->guard = -1;
    in->b = in->c = in->e = in->f = -1;
    for (int i = 0; i < 4; i++) in->d[i] = in->a[i] = -1;
    in->line = c->line;
    in->toolkit = c->toolkit;
    in->ptx_line = c->ptx_line;
    in->target = -1;
    return in;
}

/* @p / @!p of the statement, when it has one. */
void emu_decode_guard(Ctx *c, Instr *in, const RawStmt *s) {
    if (s->guard) {
        in->guard = (int16_t)emu_decode_pred_name(c, s->guard);
        in->gneg = s->gneg;
    }
}

/* Memory operand → (base register, offset, space of a symbol if any). */
bool emu_decode_mem(Ctx *c, const RawOpnd *o, int *reg, int64_t *off, EmuSpace *sym_space) {
    *sym_space = SP_GENERIC;
    if (o->kind != RO_MEM) { emu_decode_fail(c, "expected a memory operand [..]%s", ""); return false; }
    if (o->nvec) { emu_decode_fail(c, "addresses with coordinates (tensor maps, textures, surfaces) are not emulated%s", ""); return false; }
    *off = o->imm;
    if (!o->name) { *reg = emu_decode_const(c, 0); return true; }
    int ridx;
    Name *rn = emu_decode_lookup(c, o->name, &ridx);
    if (o->name[0] == '%' || (rn && rn->kind == N_REG)) {
        int idx;
        Name *n = emu_decode_lookup(c, o->name, &idx);
        if (!n || n->kind != N_REG) { emu_decode_fail(c, "unknown address register %s", o->name); return false; }
        *reg = n->base + idx;
        return true;
    }
    int64_t val;
    int sreg;
    if (!emu_decode_symbol(c, o->name, &val, &sreg, sym_space)) { emu_decode_fail(c, "unknown symbol %s", o->name); return false; }
    if (sreg >= 0) { *reg = sreg; return true; }
    if (*sym_space == SP_PARAM) { *reg = -1; *off = (int64_t)((uint64_t)*off + (uint64_t)val); return true; }
    *reg = emu_decode_const(c, 0);
    *off = (int64_t)((uint64_t)*off + (uint64_t)val);
    return true;
}
