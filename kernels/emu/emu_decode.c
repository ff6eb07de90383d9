/* kernels/emu/emu_decode.c: one .entry of a parsed Program → a Kernel.
 *
 * Registers get dense indices (64-bit slots; predicates separately as
 * 32-lane masks), immediates and special registers become pre-filled
 * registers so handlers never branch on operand kinds, symbols and labels
 * are resolved, and every instruction carries the learner's source line
 * (following `inlined_at` back to file 1). Calls to .func bodies are inlined
 * here, once per call site, with fresh registers; call parameters live in
 * the thread's local frame. vprintf, malloc, free and __assertfail become
 * native instructions. Single instructions are decoded in emu_decode_instr.c,
 * operands and names in emu_decode_opnd.c (which calls neither file back). */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emu/emu.h"
#include "kernels/emu/emu_alu.h"
#include "kernels/emu/emu_decode.h"

static Name *add_name(Ctx *c, const char *name, int kind) {
    GROW(c->names, c->n_names, c->cap_names);
    Name *n = &c->names[c->n_names++];
    memset(n, 0, sizeof *n);
    n->name = name;
    n->kind = kind;
    n->count = -1;
    return n;
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
    if (o->kind != RO_SYM && o->kind != RO_REG) { emu_decode_fail(c, "expected a call parameter%s", ""); return 0; }
    int idx;
    Name *n = emu_decode_lookup(c, o->name, &idx);
    if (!n || n->kind != N_VAR_LOCAL) { emu_decode_fail(c, "unknown call parameter %s", o->name); return 0; }
    return n->val;
}


/* call: vprintf, malloc, free and __assertfail become native instructions;
 * a .func body is inlined here (walked with its parameters bound to the
 * caller's call slots), so only this file walks bodies. */
static void decode_call(Ctx *c, const RawStmt *s) {
    int ri, ai;
    const char *name = call_target(s, &ri, &ai);
    if (!name) { emu_decode_fail(c, "cannot read the call target%s", ""); return; }
    int64_t args[32], rets[8];
    int nargs = ai >= 0 ? s->ops[ai].nvec : 0, nrets = ri >= 0 ? s->ops[ri].nvec : 0;
    if (nargs > 32 || nrets > 8) { emu_decode_fail(c, "too many call arguments%s", ""); return; }
    for (int i = 0; i < nargs; i++) args[i] = param_var_offset(c, &s->ops[ai].vec[i]);
    for (int i = 0; i < nrets; i++) rets[i] = param_var_offset(c, &s->ops[ri].vec[i]);
    if (c->err) return;
    int op = !strcmp(name, "vprintf") ? OP_CALL_PRINTF : !strcmp(name, "malloc") ? OP_CALL_MALLOC
           : !strcmp(name, "free") ? OP_CALL_FREE : !strcmp(name, "__assertfail") ? OP_CALL_ASSERT : -1;
    if (op >= 0) {
        int want = op == OP_CALL_PRINTF ? 2 : op == OP_CALL_ASSERT ? 4 : 1;
        if (nargs < want) { emu_decode_fail(c, "too few arguments to %s", name); return; }
        Instr *in = emu_decode_emit(c, op);
        if (s->guard) {
            in->guard = (int16_t)emu_decode_pred_name(c, s->guard);
            in->gneg = s->gneg;
        }
        for (int i = 0; i < 4 && i < nargs; i++) in->a[i] = (int32_t)args[i];
        in->d[0] = nrets ? (int32_t)rets[0] : -1;
        return;
    }
    RawFunc *f = NULL;
    for (int i = 0; i < c->p->n_funcs; i++)
        if (!strcmp(c->p->funcs[i].name, name)) f = &c->p->funcs[i];
    if (name[0] == '%') {
        emu_decode_fail(c, "indirect call through %s (a function pointer or a virtual function) is not supported by "
                        "the emulator", name);
        return;
    }
    if (!f || !f->has_body) { emu_decode_fail(c, "call to an unknown or external function %s", name); return; }
    if (f->n_params != nargs || f->n_rets != nrets) { emu_decode_fail(c, "call to %s has the wrong number of arguments", name); return; }
    for (int i = 0; i < c->depth; i++)
        if (!strcmp(c->stack[i], name)) { emu_decode_fail(c, "recursive call to %s is not supported by the emulator", name); return; }
    if (c->depth >= 16) { emu_decode_fail(c, "calls nested too deeply%s", ""); return; }
    int skip = -1;
    if (s->guard) {
        /* @p call f → branch around the inlined body when !p */
        Instr *br = emu_decode_emit(c, OP_BRA);
        br->guard = (int16_t)emu_decode_pred_name(c, s->guard);
        br->gneg = !s->gneg;
        skip = c->n_code - 1;
    }
    c->stack[c->depth++] = name;
    emu_decode_walk(c, f, args, rets);
    c->depth--;
    if (skip >= 0) c->code[skip].target = c->n_code;
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
            c->toolkit = s->file > 0 && s->file < c->p->n_files && c->p->files[s->file] &&
                         emu_ptx_toolkit_file(c->p->files[s->file]);
            if (s->file == c->p->user_file && s->line > 0) c->line = s->line;
            else if (s->inl_file == c->p->user_file && s->inl_line > 0) c->line = s->inl_line;
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
                for (int r = 0; r < cnt; r++) emu_decode_new_reg(c, bits);
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
            if (!strncmp(s->op, "call", 4) && (s->op[4] == 0 || s->op[4] == '.')) {
                c->op = s->op;
                decode_call(c, s);
            } else {
                emu_decode_instr(c, s);
            }
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
    if (!c.err) emu_group_loads(c.code, c.n_code, c.k->n_regs);
    if (!c.err) emu_group_shared_vectors(c.code, c.n_code);
    for (int i = 0; i < c.n_code; i++) {
        Instr *in = &c.code[i];
        emu_specialise(in);
        const int32_t src[8] = {in->a[0], in->a[1], in->a[2], in->a[3], in->b, in->c, in->e, in->f};
        in->src_bits = 0;
        for (int j = 0; j < 8; j++)
            if (src[j] >= 0) in->src_bits |= 1u << (src[j] & 31);
        /* a store reads the value registers it lists in d[] (metrics' memory waits) */
        for (int j = 0; in->op == OP_ST && j < 4; j++)
            if (in->d[j] >= 0) in->src_bits |= 1u << (in->d[j] & 31);
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
    k->xops = c.xops;
    k->n_xops = c.n_xops;
    for (int i = 0; i < c.n_xops; i++) assert(c.xops[i] >= 0 && c.xops[i] < k->n_regs);
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
    free(k->xops);
    free(k);
    *kp = NULL;
}
