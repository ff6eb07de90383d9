/* kernels/emu/emu_decode.c: one .entry of a parsed Program → a Kernel.
 *
 * Registers get dense indices (64-bit slots; predicates separately as
 * 32-lane masks), immediates and special registers become pre-filled
 * registers so handlers never branch on operand kinds, symbols and labels
 * are resolved, and every instruction carries the learner's source line
 * (following `inlined_at` back to file 1). Calls to .func bodies are inlined
 * here, once per call site, with fresh registers; call parameters live in
 * the thread's local frame. vprintf, malloc, free and __assertfail become
 * native instructions. Single instructions are decoded in emu_decode_instr.c. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emu/emu_alu.h"
#include "kernels/emu/emu_decode.h"

void emu_decode_fail(Ctx *c, const char *fmt, const char *arg) {
    if (c->err) return;
    char buf[256];
    snprintf(buf, sizeof buf, fmt, arg ? arg : "");
    c->err = diag_error("ptx-decode", "PTX line %d: %s%s%s%s", c->ptx_line, buf,
                        c->op ? " (in '" : "", c->op ? c->op : "", c->op ? "')" : "");
}


static int new_reg(Ctx *c, int bits) {
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
    int r = new_reg(c, 64);
    c->consts[c->n_consts].reg = r;
    c->consts[c->n_consts].value = v;
    c->n_consts++;
    return r;
}

int emu_decode_special(Ctx *c, int kind) {
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
        if (c->sink < 0) c->sink = new_reg(c, 64);
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
    in->ptx_line = c->ptx_line;
    in->target = -1;
    return in;
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

/* Walks a function body; arg_offs/ret_offs bind a .func's parameters to the
 * caller's call-parameter slots (NULL for the entry). */
void emu_decode_walk(Ctx *c, RawFunc *f, const int64_t *arg_offs, const int64_t *ret_offs) {
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
            if (sp == 64) { emu_decode_fail(c, "blocks nested too deeply%s", ""); break; }
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
                if (bits > 64) { emu_decode_fail(c, "128-bit registers are not supported%s", ""); break; }
                n->base = c->k->n_regs;
                for (int r = 0; r < cnt; r++) new_reg(c, bits);
            }
            if (c->k->n_regs > 1 << 17 || c->k->n_preds > 1 << 16) emu_decode_fail(c, "too many registers%s", "");
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
            if (c->shared_size > (1u << 30) || c->local_size > (1u << 24)) emu_decode_fail(c, "variable too large%s", "");
            break;
        }
        case RS_LABEL:
            GROW(c->labels, c->n_labels, c->cap_labels);
            c->labels[c->n_labels++] = (Label){s->op, c->frame_id, c->n_code};
            break;
        case RS_INSTR:
            emu_decode_instr(c, s);
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
            emu_decode_fail(c, "branch to an unknown label %s", fx->name);
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
    emu_decode_walk(&c, f, NULL, NULL);
    /* an unguarded exit at the end: falling off the code, or a branch to a
     * label after the last instruction, ends the thread */
    if (!c.err) emu_decode_emit(&c, OP_EXIT);
    for (int i = 0; i < c.n_code && !c.err; i++) {
        const Instr *in = &c.code[i];
        if (in->op == OP_BRA && (in->target < 0 || in->target >= c.n_code)) {
            c.ptx_line = in->ptx_line;
            emu_decode_fail(&c, "unresolved branch%s", "");
        }
    }
    if (!c.err) emu_contract_mul_add(c.code, c.n_code, c.k->n_regs);
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
    for (int i = 0; i < k->n_code && !c.err; i++) assert(k->code[i].guard < k->n_preds);
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
