/* kernels/emu/emu_trace.c: the warp debugger's recorder (see emu_trace.h).
 *
 * The executor (emu_exec.c) runs the traced warp one instruction at a time
 * and calls emu_trace_before() before each: a new source line (or the same
 * line entered again by a loop's back edge or another group of lanes)
 * makes a step with a snapshot of the variables and, when it changed, of
 * shared memory; a memory instruction leaves its 32 lane addresses; an
 * instruction that writes a register on a line that assigns a name binds
 * the name to that register. Untraced warps and launches never come here,
 * so the emulator's speed is unchanged when nobody debugs. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emu/emu_trace.h"
#include "kernels/emu/emu_trace_rec.h"

/* Shared memory up to this size is snapshotted whenever it changed between
 * two steps; larger blocks only after barriers and at the end. */
#define SHARED_EVERY_STEP ((size_t)16 << 10)

enum { REC_ARMED, REC_RECORDING, REC_DONE };

/* Where a variable lives, per lane: lanes that took different paths hold
 * it in different registers (a branch's two sides). */
typedef struct VarBind {
    int32_t reg[32];
    uint32_t set;            /* lanes with a register */
    uint8_t kind;
} VarBind;

struct EmuTraceRec {
    int state;
    EmuTraceRequest rq;
    char *kernel;            /* rq.kernel, owned */
    EmuTrace *t;
    size_t bytes, cap;
    int cap_steps, cap_mem, cap_shared;
    VarBind bind[EMU_TRACE_MAX_VARS];
    int cur_line, last_pc;
    uint32_t cur_mask;
    bool after_barrier;
    uint64_t instructions;
    uint8_t *fixed;          /* per register: an immediate or special register (%tid...) */
    uint8_t vclass[EMU_TRACE_MAX_VARS];   /* TC_* per variable */
};

/* ---- variable names from the source ------------------------------------------------ */
static bool is_ident_char(int c) { return isalnum(c) || c == '_'; }

static bool is_keyword(const char *s) {
    static const char *const kw[] = {"return", "if", "else", "for", "while", "do", "const", "unsigned", "int",
                                     "float", "double", "char", "long", "short", "bool", "auto", "void",
                                     "__shared__", "volatile", "static", "signed", "size_t", NULL};
    for (int i = 0; kw[i]; i++)
        if (!strcmp(s, kw[i])) return true;
    return false;
}

/* What a declaration's type says about the register that can hold it. */
enum { TC_ANY = 0, TC_I32, TC_U32, TC_I64, TC_F32, TC_F64, TC_F16 };

/* The type class of the declaration ending just before line[s] (the name), TC_ANY when none. */
static int decl_class(const char *line, size_t s) {
    size_t e = s;
    bool ptr = false;
    while (e > 0 && (line[e - 1] == ' ' || line[e - 1] == '*' || line[e - 1] == '&')) ptr |= line[--e] == '*';
    size_t b = e;
    while (b > 0 && is_ident_char((unsigned char)line[b - 1])) b--;
    if (b == e) return TC_ANY;
    char w[32];
    snprintf(w, sizeof w, "%.*s", (int)(e - b), line + b);
    if (ptr) return TC_I64;
    static const struct { const char *w; int c; } T[] = {
        {"int", TC_I32}, {"short", TC_I32}, {"char", TC_I32}, {"bool", TC_U32}, {"int32_t", TC_I32},
        {"unsigned", TC_U32}, {"uint32_t", TC_U32}, {"uint", TC_U32}, {"long", TC_I64}, {"size_t", TC_I64},
        {"int64_t", TC_I64}, {"uint64_t", TC_I64}, {"ptrdiff_t", TC_I64}, {"float", TC_F32}, {"double", TC_F64},
        {"half", TC_F16}, {"__half", TC_F16},
    };
    for (size_t i = 0; i < sizeof T / sizeof *T; i++)
        if (!strcmp(w, T[i].w)) {
            /* unsigned int, unsigned long */
            if (T[i].c == TC_I32 && b >= 9 && !strncmp(line + b - 9, "unsigned ", 9)) return TC_U32;
            return T[i].c;
        }
    return TC_ANY;
}

static bool assigned_decl(const char *line, size_t len, char *name, size_t n, int *tclass);

bool emu_trace_assigned_name(const char *line, size_t len, char *name, size_t n) {
    int tc;
    return assigned_decl(line, len, name, n, &tc);
}

static bool assigned_decl(const char *line, size_t len, char *name, size_t n, int *tclass) {
    *tclass = TC_ANY;
    /* the code part: up to a // comment */
    size_t end = len;
    for (size_t i = 0; i + 1 < len; i++)
        if (line[i] == '/' && line[i + 1] == '/') { end = i; break; }
    for (size_t i = 0; i < end; i++) {
        size_t ident_end = 0;
        if (line[i] == '=') {
            if (i + 1 < end && line[i + 1] == '=') { i++; continue; }
            if (i > 0 && strchr("=!<>", line[i - 1]) && !(i > 1 && line[i - 2] == line[i - 1] &&
                                                           (line[i - 1] == '<' || line[i - 1] == '>')))
                continue;
            size_t j = i;
            while (j > 0 && strchr("+-*/%&|^<>", line[j - 1])) j--;    /* compound: += <<= */
            while (j > 0 && line[j - 1] == ' ') j--;
            ident_end = j;
        } else if (i + 1 < end && ((line[i] == '+' && line[i + 1] == '+') || (line[i] == '-' && line[i + 1] == '-'))) {
            size_t j = i;
            while (j > 0 && line[j - 1] == ' ') j--;
            if (j > 0 && is_ident_char((unsigned char)line[j - 1])) ident_end = j;   /* x++ */
            else {                                                                 /* ++x */
                size_t k = i + 2;
                while (k < end && line[k] == ' ') k++;
                size_t s = k;
                while (k < end && is_ident_char((unsigned char)line[k])) k++;
                if (k > s && !isdigit((unsigned char)line[s]) && (k >= end || (line[k] != '[' && line[k] != '.'))) {
                    size_t l = k - s < n - 1 ? k - s : n - 1;
                    memcpy(name, line + s, l);
                    name[l] = 0;
                    if (!is_keyword(name)) return true;
                }
            }
            i++;
        }
        if (!ident_end) continue;
        size_t s = ident_end;
        while (s > 0 && is_ident_char((unsigned char)line[s - 1])) s--;
        if (s == ident_end || isdigit((unsigned char)line[s])) continue;
        /* an element or member (a[i] = , p->x = , v.x =) is not a variable */
        if (s > 0 && (line[s - 1] == '.' || (s > 1 && line[s - 2] == '-' && line[s - 1] == '>'))) continue;
        size_t l = ident_end - s < n - 1 ? ident_end - s : n - 1;
        memcpy(name, line + s, l);
        name[l] = 0;
        if (is_keyword(name)) continue;
        *tclass = decl_class(line, s);
        return true;
    }
    return false;
}

/* Line `line` (1-based) of src: its start and length; false past the end. */
static bool source_line(const char *src, int line, const char **p, size_t *len) {
    if (!src || line < 1) return false;
    const char *s = src;
    for (int i = 1; i < line; i++) {
        s = strchr(s, '\n');
        if (!s) return false;
        s++;
    }
    const char *e = strchr(s, '\n');
    *p = s;
    *len = e ? (size_t)(e - s) : strlen(s);
    return true;
}

/* Names the variables of kernel k from the lines its code comes from;
 * classes[v] is what variable v's declaration says (TC_*). */
static void name_vars(EmuTrace *t, const Kernel *k, const char *source, uint8_t *classes) {
    t->max_line = k->max_line;
    t->line_var = xcalloc((size_t)k->max_line + 1, sizeof *t->line_var);
    bool *has = xcalloc((size_t)k->max_line + 1, sizeof *has);
    for (int i = 0; i <= k->max_line; i++) t->line_var[i] = -1;
    for (int i = 0; i < k->n_code; i++)
        if (k->code[i].line > 0 && k->code[i].line <= k->max_line) has[k->code[i].line] = true;
    t->var_names = xcalloc(EMU_TRACE_MAX_VARS, sizeof *t->var_names);
    for (int line = 1; line <= k->max_line; line++) {
        const char *p;
        size_t len;
        char name[32];
        int tc;
        if (!has[line] || !source_line(source, line, &p, &len) || !assigned_decl(p, len, name, sizeof name, &tc))
            continue;
        int v = 0;
        while (v < t->n_vars && strcmp(t->var_names[v], name)) v++;
        if (v == t->n_vars) {
            if (t->n_vars == EMU_TRACE_MAX_VARS) continue;
            snprintf(t->var_names[t->n_vars++], sizeof *t->var_names, "%s", name);
        }
        if (!classes[v]) classes[v] = (uint8_t)tc;
        t->line_var[line] = v;
    }
    free(has);
}

/* Which lines have code, and which a global/shared memory access (the access
 * map tells "no memory access on this line" from "never ran"). */
static void flag_lines(EmuTrace *t, const Kernel *k) {
    t->line_flags = xcalloc((size_t)k->max_line + 1, 1);
    for (int i = 0; i < k->n_code; i++) {
        const Instr *in = &k->code[i];
        if (in->line <= 0 || in->line > k->max_line) continue;
        t->line_flags[in->line] |= EMU_LINE_CODE;
        bool mem = in->op == OP_LD || in->op == OP_ST || in->op == OP_ATOM || in->op == OP_RED ||
                   in->op == OP_CPASYNC;
        if (mem && (in->space == SP_GENERIC || in->space == SP_GLOBAL || in->space == SP_SHARED || in->op == OP_CPASYNC))
            t->line_flags[in->line] |= EMU_LINE_MEM;
    }
}

/* The allocations and shared variables in force at the launch, by name. */
static void snapshot_regions(EmuTrace *t, const EmuLaunch *L) {
    AllocTable *at = L->allocs;
    const Kernel *k = L->k;
    if (at) pthread_rwlock_rdlock(&at->lock);
    int n = (at ? at->n : 0) + k->n_svars;
    t->regions = xcalloc((size_t)(n ? n : 1), sizeof *t->regions);
    for (int i = 0; at && i < at->n; i++) {
        EmuTraceRegion *g = &t->regions[t->n_regions++];
        snprintf(g->name, sizeof g->name, "%s", at->v[i].label ? at->v[i].label : "array");
        g->space = EMU_MEM_GLOBAL;
        g->base = at->v[i].base;
        g->size = at->v[i].size;
        g->elem = (uint32_t)(at->v[i].elem ? at->v[i].elem : 1);
    }
    if (at) pthread_rwlock_unlock(&at->lock);
    for (int i = 0; i < k->n_svars; i++) {
        const SharedVar *v = &k->svars[i];
        EmuTraceRegion *g = &t->regions[t->n_regions++];
        snprintf(g->name, sizeof g->name, "%s", v->name);
        g->space = EMU_MEM_SHARED;
        g->base = v->off;
        g->size = v->size ? v->size : L->dyn_shared;
        g->elem = (uint32_t)(v->elem ? v->elem : 1);
    }
}

/* ---- arming (the backend holds the recorder: emu_backend.c's emu_trace_arm/take) ---- */
EmuTraceRec *emu_trace_rec_new(const EmuTraceRequest *rq) {
    EmuTraceRec *r = xcalloc(1, sizeof *r);
    r->rq = *rq;
    r->kernel = rq->kernel ? xstrdup(rq->kernel) : NULL;
    r->rq.kernel = r->kernel;
    r->cap = rq->cap_bytes ? rq->cap_bytes : EMU_TRACE_DEFAULT_CAP;
    r->state = REC_ARMED;
    return r;
}

EmuTrace *emu_trace_rec_take(EmuTraceRec *r) {
    EmuTrace *t = r->t;
    r->t = NULL;
    return t;
}

void emu_trace_rec_free(EmuTraceRec **rp) {
    EmuTraceRec *r = *rp;
    if (!r) return;
    emu_trace_free(&r->t);
    free(r->kernel);
    free(r->fixed);
    free(r);
    *rp = NULL;
}

void emu_trace_free(EmuTrace **tp) {
    EmuTrace *t = *tp;
    if (!t) return;
    free(t->kernel);
    free(t->var_names);
    free(t->steps);
    free(t->vals);
    free(t->shared);
    free(t->mem);
    for (int i = 0; i < t->n_findings; i++) {
        free(t->findings[i].code);
        free(t->findings[i].message);
    }
    free(t->findings);
    free(t->line_var);
    free(t->line_flags);
    free(t->regions);
    free(t->note);
    free(t);
    *tp = NULL;
}

bool emu_trace_wants(const EmuTraceRec *r, const char *exercise_name, const char *ptx_name) {
    if (!r || r->state != REC_ARMED) return false;
    return !r->kernel || (exercise_name && !strcmp(r->kernel, exercise_name)) || !strcmp(r->kernel, ptx_name);
}

bool emu_trace_stops_launches(const EmuTraceRec *r) { return r && r->state == REC_DONE && r->rq.stop_after; }

void emu_trace_launch_begin(EmuTraceRec *r, EmuLaunch *L, const char *source) {
    r->state = REC_RECORDING;
    EmuTrace *t = r->t = xcalloc(1, sizeof *t);
    t->kernel = xstrdup(L->k->name);
    t->grid = L->grid;
    t->block = L->block;
    memcpy(t->block_idx, r->rq.block, sizeof t->block_idx);
    t->warp = r->rq.warp;
    unsigned threads = L->block.x * L->block.y * L->block.z;
    t->n_warps = (int)((threads + 31) / 32);
    t->shared_size = L->shared_total;
    memset(r->vclass, 0, sizeof r->vclass);
    name_vars(t, L->k, source, r->vclass);
    flag_lines(t, L->k);
    snapshot_regions(t, L);
    memset(r->bind, 0, sizeof r->bind);
    const Kernel *k = L->k;
    r->fixed = xcalloc((size_t)k->n_regs + 1, 1);
    for (int i = 0; i < k->n_consts; i++) r->fixed[k->consts[i].reg] = 1;
    for (int i = 0; i < k->n_specials; i++) r->fixed[k->specials[i].reg] = 1;
    r->cur_line = -1;
    r->bytes = 0;
    const unsigned *bi = r->rq.block;
    if (bi[0] >= L->grid.x || bi[1] >= L->grid.y || bi[2] >= L->grid.z) {
        t->note = xasprintf("block (%u,%u,%u) is outside the grid (%u,%u,%u) of this launch of %s", bi[0], bi[1],
                            bi[2], L->grid.x, L->grid.y, L->grid.z, L->k->name);
        return;
    }
    if (r->rq.warp < 0 || r->rq.warp >= t->n_warps) {
        t->note = xasprintf("warp %d does not exist: blocks of this launch have %d warp%s (0-%d)", r->rq.warp,
                            t->n_warps, t->n_warps == 1 ? "" : "s", t->n_warps - 1);
        return;
    }
    L->trace = r;
    L->trace_block = bi[0] + (uint64_t)bi[1] * L->grid.x + (uint64_t)bi[2] * L->grid.x * L->grid.y;
    L->trace_warp = r->rq.warp;
}

void emu_trace_launch_end(EmuTraceRec *r, const LaunchReport *report) {
    r->state = REC_DONE;
    EmuTrace *t = r->t;
    if (!t) return;
    int n = diag_count(report->findings);
    t->findings = xcalloc((size_t)(n ? n : 1), sizeof *t->findings);
    for (const Diag *d = report->findings; d; d = d->next) {
        EmuTraceFinding *f = &t->findings[t->n_findings++];
        f->line = d->line;
        f->error = d->severity == DIAG_ERROR;
        f->has_thread = d->has_thread;
        memcpy(f->block, d->block, sizeof f->block);
        memcpy(f->thread, d->thread, sizeof f->thread);
        f->code = xstrdup(d->code ? d->code : "");
        f->message = xstrdup(d->message ? d->message : "");
    }
}

/* ---- recording ---------------------------------------------------------------------- */
static bool over_cap(EmuTraceRec *r, size_t more) {
    if (r->t->truncated) return true;
    if (r->bytes + more <= r->cap) {
        r->bytes += more;
        return false;
    }
    r->t->truncated = true;
    free(r->t->note);
    r->t->note = xasprintf("the trace stopped after %d steps: it reached its cap of %zu MiB (the kernel ran on "
                           "to the end untraced)", r->t->n_steps, r->cap >> 20);
    return true;
}

/* Whether what instruction in writes can be a variable of type class tc. */
static bool class_fits(const Instr *in, int tc) {
    if (tc == TC_ANY) return true;
    int bits = in->dbits ? in->dbits : 0;
    switch (in->type) {
    case T_F32: return tc == TC_F32;
    case T_F64: return tc == TC_F64;
    case T_F16: case T_BF16: return tc == TC_F16;
    case T_F16X2: case T_BF16X2: return false;
    default: break;
    }
    if (!bits) {
        static const uint8_t W[] = {[T_B8] = 8, [T_B16] = 16, [T_B32] = 32, [T_B64] = 64, [T_U8] = 8, [T_U16] = 16,
                                    [T_U32] = 32, [T_U64] = 64, [T_S8] = 8, [T_S16] = 16, [T_S32] = 32, [T_S64] = 64};
        bits = in->type < sizeof W ? W[in->type] : 0;
    }
    if (tc == TC_I64) return bits == 64;
    if (tc == TC_I32 || tc == TC_U32) return bits && bits <= 32;
    /* a float variable may live in a .b32 register moved around untyped */
    return (tc == TC_F32 && bits == 32 && in->type == T_B32) || (tc == TC_F64 && bits == 64 && in->type == T_B64);
}

/* Whether an instruction's first destination is a register (not a predicate). */
static bool writes_reg(const Instr *in) {
    switch (in->op) {
    case OP_SETP: case OPF_SETPS32: case OPF_SETPU32: case OPF_SETPF32: case OP_PAND: case OP_POR: case OP_PXOR:
    case OP_PNOT: case OP_PMOV: case OP_TESTP: case OP_MOV_PRED_PACK: case OP_BAR: case OP_MATCH:
        return false;
    case OP_VOTE:
        return in->sub == VOTE_BALLOT;
    default:
        return in->d[0] >= 0 && in->type != T_PRED &&
               (in->op < OP_LD || (in->op >= OPF_FIRST && in->op <= OPF_LAST) || in->op == OP_LD ||
                in->op == OP_ATOM || in->op == OP_SHFL || in->op == OP_REDUX || in->op == OP_ACTIVEMASK);
    }
}

static uint8_t val_kind(int type) {
    switch (type) {
    case T_F32: return EMU_VAL_F32;
    case T_F64: return EMU_VAL_F64;
    case T_F16: case T_BF16: return EMU_VAL_F16;
    case T_S8: case T_S16: case T_S32: case T_S64: return EMU_VAL_INT;
    case T_B64: case T_F16X2: case T_BF16X2: return EMU_VAL_HEX;
    default: return EMU_VAL_UINT;
    }
}

static void snapshot_shared(EmuTraceRec *r, Worker *W, bool force) {
    EmuTrace *t = r->t;
    size_t n = t->shared_size;
    if (!n || !(force || n <= SHARED_EVERY_STEP)) return;
    if (t->n_shared && !memcmp(t->shared + (size_t)(t->n_shared - 1) * n, W->shared, n)) return;
    if (over_cap(r, n)) return;
    if (t->n_shared == r->cap_shared) {
        r->cap_shared = r->cap_shared ? r->cap_shared * 2 : 16;
        t->shared = xrealloc(t->shared, (size_t)r->cap_shared * n);
    }
    memcpy(t->shared + (size_t)t->n_shared * n, W->shared, n);
    t->n_shared++;
}

static uint64_t findings_so_far(const Worker *W) {
    uint64_t n = 0;
    for (int i = 0; i < W->nf; i++) n += W->f[i].count;
    return n;
}

static void add_step(EmuTraceRec *r, Worker *W, Warp *w, int line, int kind, uint32_t active) {
    EmuTrace *t = r->t;
    if (over_cap(r, sizeof(EmuTraceStep) + (size_t)t->n_vars * sizeof(EmuTraceVal))) return;
    snapshot_shared(r, W, r->after_barrier || kind == EMU_STEP_END);
    if (t->truncated) return;
    r->after_barrier = false;
    if (t->n_steps == r->cap_steps) {
        r->cap_steps = r->cap_steps ? r->cap_steps * 2 : 256;
        t->steps = xrealloc(t->steps, sizeof *t->steps * (size_t)r->cap_steps);
        t->vals = xrealloc(t->vals, sizeof *t->vals * (size_t)r->cap_steps * (size_t)(t->n_vars ? t->n_vars : 1));
    }
    EmuTraceStep *s = &t->steps[t->n_steps];
    s->line = line;
    s->kind = (uint8_t)kind;
    s->active = active;
    s->live = w->live;
    s->instructions = r->instructions;
    s->findings = findings_so_far(W);
    s->shared = t->n_shared - 1;
    s->mem_first = (uint32_t)t->n_mem;
    EmuTraceVal *v = t->vals + (size_t)t->n_steps * (size_t)t->n_vars;
    for (int i = 0; i < t->n_vars; i++) {
        const VarBind *b = &r->bind[i];
        memset(&v[i], 0, sizeof v[i]);
        for (int l = 0; l < 32; l++)
            if (b->set >> l & 1) v[i].lane[l] = w->r[(size_t)b->reg[l] * 32 + l];
        v[i].set = b->set;
        v[i].kind = b->kind;
    }
    t->n_steps++;
}

static void add_mem(EmuTraceRec *r, const Instr *in, int space, int op, const uint64_t *base, int64_t off,
                    uint32_t m, int width) {
    EmuTrace *t = r->t;
    if (over_cap(r, sizeof(EmuTraceMem))) return;
    if (t->n_mem == r->cap_mem) {
        r->cap_mem = r->cap_mem ? r->cap_mem * 2 : 64;
        t->mem = xrealloc(t->mem, sizeof *t->mem * (size_t)r->cap_mem);
    }
    EmuTraceMem *rec = &t->mem[t->n_mem++];
    memset(rec, 0, sizeof *rec);
    rec->step = t->n_steps - 1;
    rec->line = in->line;
    rec->op = (uint8_t)op;
    rec->width = (uint8_t)(width > 255 ? 255 : width);
    rec->mask = m;
    uint64_t a0 = base[__builtin_ctz(m)] + (uint64_t)off;
    if (space == SP_GENERIC)
        space = (a0 & EMU_WIN_MASK) == EMU_SHARED_WIN ? SP_SHARED : (a0 & EMU_WIN_MASK) == EMU_LOCAL_WIN ? SP_LOCAL
                                                                                                         : SP_GLOBAL;
    rec->space = space == SP_SHARED ? EMU_MEM_SHARED : space == SP_LOCAL ? EMU_MEM_LOCAL : EMU_MEM_GLOBAL;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint64_t a = base[l] + (uint64_t)off;
        if (space == SP_SHARED || space == SP_LOCAL) a &= ~EMU_WIN_MASK;
        rec->addr[l] = a;
    }
}

void emu_trace_before(Worker *W, Warp *w, int gi) {
    EmuTraceRec *r = W->trace;
    EmuTrace *t = r->t;
    const Group *g = &w->g[gi];
    const Instr *in = &W->k->code[g->pc];
    if (t->truncated) return;
    uint32_t m = g->mask;
    if (in->guard >= 0) m &= in->gneg ? ~w->p[in->guard] : w->p[in->guard];
    int line = in->line;
    if (in->op == OP_BAR && in->sub != BAR_ARRIVE && m) {
        add_step(r, W, w, line > 0 ? line : r->cur_line, EMU_STEP_BARRIER, m);
        r->after_barrier = true;
        r->cur_line = -1;   /* the line after the barrier is a new step */
    } else if (line > 0 && (line != r->cur_line || g->mask != r->cur_mask || g->pc < r->last_pc)) {
        add_step(r, W, w, line, EMU_STEP_LINE, 0);
        r->cur_line = line;
        r->cur_mask = g->mask;
    }
    r->last_pc = g->pc;
    r->instructions++;
    if (!m) return;
    if (t->n_steps && t->steps[t->n_steps - 1].kind == EMU_STEP_LINE) t->steps[t->n_steps - 1].active |= m;
    if (line > 0 && line <= t->max_line && t->line_var[line] >= 0 && writes_reg(in) &&
        class_fits(in, r->vclass[t->line_var[line]])) {
        int vc = r->vclass[t->line_var[line]];
        VarBind *b = &r->bind[t->line_var[line]];
        /* a copy of a constant or of %tid the compiler re-made on this line
         * (for a later use) names the variable only where it has no register yet */
        bool remat = (in->op == OP_MOV || in->op == OPF_MOV32 || in->op == OPF_MOV64) && in->a[0] >= 0 &&
                     r->fixed[in->a[0]];
        uint32_t to = remat ? m & ~b->set : m;
        for (int l = 0; l < 32; l++)
            if (to >> l & 1) b->reg[l] = in->d[0];
        b->set |= m;
        b->kind = vc == TC_I32 ? EMU_VAL_INT : vc == TC_U32 ? EMU_VAL_UINT : vc == TC_F32 ? EMU_VAL_F32
                : vc == TC_F64 ? EMU_VAL_F64 : vc == TC_F16 ? EMU_VAL_F16 : val_kind(in->type);
    }
    const uint64_t *A = in->a[0] >= 0 ? w->r + (size_t)in->a[0] * 32 : NULL;
    int width = in->size * (in->vec ? in->vec : 1);
    switch (in->op) {
    case OP_LD: if (A) add_mem(r, in, in->space, EMU_MEM_LOAD, A, in->imm, m, width); break;
    case OP_ST: if (A) add_mem(r, in, in->space, EMU_MEM_STORE, A, in->imm, m, width); break;
    case OP_ATOM: case OP_RED: if (A) add_mem(r, in, in->space, EMU_MEM_ATOMIC, A, in->imm, m, width); break;
    case OP_CPASYNC:
        if (in->b >= 0) add_mem(r, in, SP_GLOBAL, EMU_MEM_LOAD, w->r + (size_t)in->b * 32, in->f, m, in->size);
        if (A) add_mem(r, in, SP_SHARED, EMU_MEM_STORE, A, in->imm, m, in->size);
        break;
    default: break;
    }
}

void emu_trace_block_end(Worker *W, Warp *w) {
    EmuTraceRec *r = W->trace;
    if (!r->t->truncated) add_step(r, W, w, r->cur_line > 0 ? r->cur_line : 0, EMU_STEP_END, 0);
}

/* ---- reading ------------------------------------------------------------------------ */
const unsigned char *emu_trace_shared_at(const EmuTrace *t, int s) {
    if (s < 0 || s >= t->n_steps || t->steps[s].shared < 0) return NULL;
    return t->shared + (size_t)t->steps[s].shared * t->shared_size;
}

void emu_trace_mem_of(const EmuTrace *t, int s, int *first, int *end) {
    *first = *end = 0;
    if (s < 0 || s >= t->n_steps) return;
    *first = (int)t->steps[s].mem_first;
    *end = s + 1 < t->n_steps ? (int)t->steps[s + 1].mem_first : t->n_mem;
}

int emu_trace_find_line(const EmuTrace *t, int line, int from) {
    for (int s = from < 0 ? 0 : from; s < t->n_steps; s++)
        if (t->steps[s].line == line && t->steps[s].kind != EMU_STEP_END) return s;
    return -1;
}

int emu_trace_find_finding(const EmuTrace *t) {
    for (int s = 1; s < t->n_steps; s++)
        if (t->steps[s].findings > t->steps[0].findings) return s - 1;
    return -1;
}

int emu_trace_next_barrier(const EmuTrace *t, int s) {
    for (int i = s + 1; i < t->n_steps; i++)
        if (t->steps[i].kind == EMU_STEP_BARRIER) return i;
    return t->n_steps ? t->n_steps - 1 : 0;
}

void emu_trace_format(const EmuTraceVal *v, int lane, char *buf, size_t n) {
    if (!(v->set >> lane & 1)) { snprintf(buf, n, "-"); return; }
    uint64_t x = v->lane[lane];
    switch (v->kind) {
    case EMU_VAL_INT: snprintf(buf, n, "%" PRId64, (int64_t)x >> 32 ? (int64_t)x : (int64_t)(int32_t)x); break;
    case EMU_VAL_F32: {
        float f;
        uint32_t u = (uint32_t)x;
        memcpy(&f, &u, 4);
        snprintf(buf, n, "%.6g", f);
        break;
    }
    case EMU_VAL_F64: {
        double d;
        memcpy(&d, &x, 8);
        snprintf(buf, n, "%.6g", d);
        break;
    }
    case EMU_VAL_F16: snprintf(buf, n, "%.4g", (double)emu_half_to_float((uint16_t)x)); break;
    case EMU_VAL_HEX: snprintf(buf, n, "0x%" PRIx64, x); break;
    default: snprintf(buf, n, "%" PRIu64, x); break;
    }
}

size_t emu_trace_bytes(const EmuTrace *t) {
    return (size_t)t->n_steps * (sizeof(EmuTraceStep) + (size_t)t->n_vars * sizeof(EmuTraceVal)) +
           (size_t)t->n_shared * t->shared_size + (size_t)t->n_mem * sizeof(EmuTraceMem);
}
