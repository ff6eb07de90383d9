/* kernels/emu/emu_mma.c: tensor cores — what NVRTC emits for nvcuda::wmma
 * (wmma.load.{a,b,c}, wmma.mma, wmma.store.d; m16n16k16 f16/bf16 and
 * m16n16k8 tf32, f32 or f16 accumulators, row/col layouts), mma.sync for
 * m16n8k16 f16/bf16, m16n8k8 f16/tf32 (f32 or f16 accumulators), and
 * cvt.rna.tf32.f32 (wmma::__float_to_tf32).
 *
 * Fragment layouts. mma's are documented by the PTX ISA ("Matrix Fragments
 * for mma.m16n8k16 / m16n8k8"): lane = 4*group + tig, e.g. A of m16n8k16
 * holds a_i at row group + 8*((i>>1)&1), column 2*tig + (i&1) + 8*(i>>2).
 * wmma's are unspecified ("implementation-defined"); the emulator uses the
 * layout of the equivalent mma shape, which is what sm_80+ tensor cores run:
 *   - A 16x16 (bf16: 4 registers, 8 elements) = mma.m16n8k16's A;
 *   - B 16x16 = two mma.m16n8k16 B fragments, columns 0-7 then 8-15;
 *   - C/D 16x16 = two mma m16n8 accumulators, columns 0-7 (x[0..3]) then
 *     8-15 (x[4..7]);
 *   - f16 A and B have 8 registers (16 elements, the Volta-era interface) for
 *     8 distinct values: x[8..15] repeat x[0..7] (loads fill both, mma reads
 *     x[0..7]);
 *   - tf32 A 16x8 = mma.m16n8k8's tf32 A; B 8x16 = two tf32 B fragments.
 * Element-wise code on frag.x[i] therefore sees the same values in the same
 * order as the GPU if the GPU uses these layouts; conformance case
 * wmma_frag_map (tests/conformance/tensor.cu) prints what an H200 holds.
 *
 * Loads and stores are one checked access per element and lane through the
 * ordinary load/store paths (bounds, races, uninitialised reads, metrics).
 *
 * Numerics, fitted bit for bit to an H200 (sm_90) by tools/mma_fit.c on a
 * capture of tests/conformance/mma_probe.cu (every element of 9 shapes and
 * types, designed and random inputs, matched; kernels/emu/README.md):
 *   - products a*b are exact; tf32 operands use their top 19 bits;
 *     subnormal inputs are kept;
 *   - one instruction adds C and all its K products in one fused sum (f16
 *     and bf16: K = 16 or 8; mma m16n8k8 tf32: 8). wmma m16n16k8 tf32 runs
 *     as two steps of k = 4, the first step's result rounded to f32 as below
 *     and used as the second's C;
 *   - the sum is aligned to the largest exponent among the products'
 *     ea + eb (the operands' exponent fields, subnormals at the minimum:
 *     the unnormalised product's, which can be up to 4x larger) and C's
 *     exponent field (a subnormal C counts as 2^-126): every term is
 *     truncated toward zero to multiples of 2^(that exponent - 25), then
 *     added exactly;
 *   - an f32 result is that sum truncated toward zero to f32, infinite when
 *     it reaches 2^128; an f16 result is the sum rounded to nearest even;
 *     a sum of zero is +0; inf and NaN operands give the IEEE sum (NaN:
 *     the canonical 0x7fffffff / 0x7fff). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emu/emu_alu.h"
#include "kernels/emu/emu_lane.h"
#include "kernels/emu/emu_mma.h"

/* Bits kept below a 24-bit significand aligned to the largest ea + eb. */
enum { MMA_EXTRA_BITS = 2 };

/* Fragment kinds: which matrix, which shape. */
enum {
    FK_WA16,     /* wmma m16n16k16 A, f16: 16 elements (x[8..15] repeat x[0..7]) */
    FK_WB16,     /* wmma m16n16k16 B, f16: 16 elements */
    FK_WA16B,    /* wmma m16n16k16 A, bf16 (= mma m16n8k16 A): 8 elements */
    FK_WB16B,    /* wmma m16n16k16 B, bf16: 8 elements */
    FK_WC,       /* wmma 16x16 accumulator: 8 elements */
    FK_WA8T,     /* wmma m16n16k8 A, tf32 (= mma m16n8k8 tf32 A): 4 elements */
    FK_WB8T,     /* wmma m16n16k8 B, tf32: 4 elements */
    FK_MB16,     /* mma m16n8k16 B: 4 elements */
    FK_MC,       /* mma m16n8 accumulator: 4 elements */
    FK_MA8H,     /* mma m16n8k8 A, f16/bf16: 4 elements */
    FK_MB8H,     /* mma m16n8k8 B, f16/bf16: 2 elements */
    FK_MB8T,     /* mma m16n8k8 B, tf32: 2 elements */
};

/* Shapes of OP_MMA (Instr.sub). */
enum { SH_W161616, SH_W16168, SH_M16816, SH_M1688, SH_COUNT };

static const struct { int m, n, k; } SHAPE[SH_COUNT] = {{16, 16, 16}, {16, 16, 8}, {16, 8, 16}, {16, 8, 8}};

static int frag_elems(int kind) {
    switch (kind) {
    case FK_WA16: case FK_WB16: return 16;
    case FK_WA16B: case FK_WB16B: case FK_WC: return 8;
    case FK_WA8T: case FK_WB8T: case FK_MB16: case FK_MC: case FK_MA8H: return 4;
    default: return 2;
    }
}

/* Elements that hold distinct values (the rest repeat them). */
static int frag_distinct(int kind) {
    return kind == FK_WA16 || kind == FK_WB16 ? 8 : frag_elems(kind);
}

/* Row and column (of A: m,k; of B: k,n; of C/D: m,n) of element e of lane's fragment. */
static void frag_rc(int kind, int lane, int e, int *r, int *c) {
    int g = lane >> 2, t = lane & 3;
    switch (kind) {
    case FK_WA16: e &= 7; /* fall through */
    case FK_WA16B: *r = g + 8 * ((e >> 1) & 1); *c = 2 * t + (e & 1) + 8 * (e >> 2); break;
    case FK_WB16: e &= 7; /* fall through */
    case FK_WB16B: *r = 2 * t + (e & 1) + 8 * ((e >> 1) & 1); *c = g + 8 * (e >> 2); break;
    case FK_MB16: *r = 2 * t + (e & 1) + 8 * (e >> 1); *c = g; break;
    case FK_WC: *r = g + 8 * ((e >> 1) & 1); *c = 2 * t + (e & 1) + 8 * (e >> 2); break;
    case FK_MC: case FK_MA8H: *r = g + 8 * (e >> 1); *c = 2 * t + (e & 1); break;
    case FK_MB8H: *r = 2 * t + e; *c = g; break;
    case FK_WA8T: *r = g + 8 * (e & 1); *c = t + 4 * (e >> 1); break;
    case FK_WB8T: *r = t + 4 * (e & 1); *c = g + 8 * (e >> 1); break;
    default: *r = t + 4 * e; *c = g; break;   /* FK_MB8T */
    }
}

/* ---- decoding ----------------------------------------------------------------------- */

bool emu_mma_is_mma(const char *op) {
    if (!strncmp(op, "wmma.", 5) || !strncmp(op, "mma.", 4)) return true;
    return !strncmp(op, "cvt.", 4) && strstr(op, ".tf32") != NULL;
}

typedef struct MmaMods {
    char mat;                 /* 'a', 'b', 'c', 'd' (wmma.load/store) */
    int shape;                /* -1 unknown */
    int col[2];               /* .row / .col in order of appearance */
    int nlayout;
    EmuType t[4];             /* types in order */
    int nt;
    bool tf32[4];             /* t[i] was .tf32 */
    EmuSpace space;
    char bad[32];             /* first modifier not understood */
} MmaMods;

static void mma_mods(const char *op, MmaMods *m) {
    memset(m, 0, sizeof *m);
    m->shape = -1;
    m->space = SP_GENERIC;
    const char *p = strchr(op, '.');
    bool is_wmma = !strncmp(op, "wmma", 4);
    int word = 0;
    while (p) {
        p++;
        const char *e = strchr(p, '.');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char w[32];
        if (n >= sizeof w) n = sizeof w - 1;
        memcpy(w, p, n);
        w[n] = 0;
        word++;
        EmuType t = emu_type_parse(w, n);
        if (word == 2 && is_wmma && n == 1) m->mat = w[0];
        else if (!strcmp(w, "load") || !strcmp(w, "store") || !strcmp(w, "mma") || !strcmp(w, "sync") ||
                 !strcmp(w, "aligned") || !strcmp(w, "rna") || !strcmp(w, "rn")) { }
        else if (!strcmp(w, "row") || !strcmp(w, "col")) { if (m->nlayout < 2) m->col[m->nlayout++] = w[0] == 'c'; }
        else if (!strcmp(w, "m16n16k16")) m->shape = is_wmma ? SH_W161616 : -1;
        else if (!strcmp(w, "m16n16k8")) m->shape = is_wmma ? SH_W16168 : -1;
        else if (!strcmp(w, "m16n8k16")) m->shape = is_wmma ? -1 : SH_M16816;
        else if (!strcmp(w, "m16n8k8")) m->shape = is_wmma ? -1 : SH_M1688;
        else if (!strcmp(w, "global")) m->space = SP_GLOBAL;
        else if (!strcmp(w, "shared") || !strcmp(w, "shared::cta")) m->space = SP_SHARED;
        else if (!strcmp(w, "tf32") && m->nt < 4) { m->tf32[m->nt] = true; m->t[m->nt++] = T_F32; }
        else if ((t == T_F16 || t == T_BF16 || t == T_F32) && m->nt < 4) m->t[m->nt++] = t;
        else if (!m->bad[0]) snprintf(m->bad, sizeof m->bad, "%s", w);
        p = e;
    }
}

static int push_xop(Ctx *c, int32_t r) {
    GROW(c->xops, c->n_xops, c->cap_xops);
    c->xops[c->n_xops] = r;
    return c->n_xops++;
}

/* A register list {r0, r1, ..} of exactly n registers appended to xops;
 * returns the index of the first. Destinations when dst. */
static int reg_list(Ctx *c, const RawOpnd *o, int n, bool dst, EmuType t) {
    if (o->kind != RO_VEC || o->nvec != n) {
        char buf[16];
        snprintf(buf, sizeof buf, "%d", n);
        emu_decode_fail(c, "expected a list of %s registers", buf);
        return 0;
    }
    int first = c->n_xops;
    for (int i = 0; i < n; i++) {
        int bits = 64;
        int r = dst ? emu_decode_dst(c, &o->vec[i], &bits) : emu_decode_src(c, &o->vec[i], t);
        push_xop(c, r);
    }
    return first;
}

static void set_guard(Ctx *c, Instr *in, const RawStmt *s) {
    if (s->guard) {
        in->guard = (int16_t)emu_decode_pred_name(c, s->guard);
        in->gneg = s->gneg;
    }
}

/* The fragment kind of wmma matrix `mat` (a, b, c/d) with element type t. */
static int wmma_kind(int shape, char mat, EmuType t, bool tf32) {
    if (mat == 'c' || mat == 'd') return t == T_F32 || t == T_F16 ? FK_WC : -1;
    if (shape == SH_W16168) return tf32 ? (mat == 'a' ? FK_WA8T : FK_WB8T) : -1;
    if (t == T_F16) return mat == 'a' ? FK_WA16 : FK_WB16;
    if (t == T_BF16) return mat == 'a' ? FK_WA16B : FK_WB16B;
    return -1;
}

static int regs_of(int kind, EmuType t) {
    int per = (t == T_F16 || t == T_BF16) ? 2 : 1;
    return frag_elems(kind) / per;
}

static void decode_wmma_mem(Ctx *c, const RawStmt *s, const MmaMods *m, bool store) {
    EmuType t = m->nt ? m->t[m->nt - 1] : T_NONE;
    bool tf32 = m->nt ? m->tf32[m->nt - 1] : false;
    int kind = m->shape < 0 ? -1 : wmma_kind(m->shape, m->mat, t, tf32);
    if (kind < 0 || m->nlayout != 1 || (store ? m->mat != 'd' : m->mat == 'd')) {
        emu_decode_fail(c, "unsupported wmma %s (the emulator runs m16n16k16 f16/bf16 and m16n16k8 tf32 with f32 "
                           "or f16 accumulators)", store ? "store" : "load");
        return;
    }
    if (!(store ? s->nops >= 2 : s->nops >= 2)) { emu_decode_fail(c, "too few operands%s", ""); return; }
    const RawOpnd *mo = store ? &s->ops[0] : &s->ops[1], *fo = store ? &s->ops[1] : &s->ops[0];
    if (mo->kind != RO_MEM || !mo->name) { emu_decode_fail(c, "expected an address [reg]%s", ""); return; }
    int ridx;
    Name *rn = emu_decode_lookup(c, mo->name, &ridx);
    int64_t off = mo->imm;
    int areg;
    if (rn && rn->kind == N_REG) {
        areg = rn->base + ridx;
    } else {
        int64_t val;
        int sreg;
        EmuSpace sp;
        if (!emu_decode_symbol(c, mo->name, &val, &sreg, &sp) || sp == SP_PARAM) {
            emu_decode_fail(c, "unknown address %s", mo->name);
            return;
        }
        areg = sreg >= 0 ? sreg : emu_decode_const(c, 0);
        if (sreg < 0) off += val;
    }
    int nregs = regs_of(kind, t);
    Instr *in = emu_decode_emit(c, store ? OP_WMMA_ST : OP_WMMA_LD);
    set_guard(c, in, s);
    in->sub = (uint8_t)kind;
    in->sub2 = (uint8_t)m->col[0];
    in->type = (uint8_t)t;
    in->size = (uint8_t)emu_type_bytes(t);
    in->space = (uint8_t)m->space;
    in->vec = (uint8_t)nregs;
    in->a[0] = areg;
    in->imm = off;
    in->b = s->nops > 2 ? emu_decode_src(c, &s->ops[2], T_U32) : emu_decode_const(c, 16);
    in->c = emu_decode_new_reg(c, 64);
    in->e = emu_decode_new_reg(c, 64);
    int pc = c->n_code - 1;
    int first = reg_list(c, fo, nregs, !store, T_B32);
    c->code[pc].target = first;
}

static void decode_mma(Ctx *c, const RawStmt *s, const MmaMods *m, bool wmma) {
    /* wmma.mma: .alayout.blayout.shape.dtype.ctype (f16) or .dtype.atype.btype.ctype;
     * mma: .shape.row.col.dtype.atype.btype.ctype */
    EmuType dt = T_NONE, at = T_NONE, bt = T_NONE, ct = T_NONE;
    bool tf32 = false;
    if (m->nt == 2) { dt = m->t[0]; ct = m->t[1]; at = bt = T_F16; }
    else if (m->nt == 4) {
        dt = m->t[0]; at = m->t[1]; bt = m->t[2]; ct = m->t[3];
        tf32 = m->tf32[1] && m->tf32[2];
    }
    int sh = m->shape;
    bool ok = sh >= 0 && at == bt && (dt == T_F32 || dt == T_F16) && (ct == T_F32 || ct == T_F16) &&
              m->nlayout == 2 && !m->bad[0];
    if (ok && !wmma && (m->col[0] != 0 || m->col[1] != 1)) ok = false;   /* mma is .row.col only */
    if (ok) {
        if (sh == SH_W16168 || (sh == SH_M1688 && tf32)) ok = tf32 && dt == T_F32 && ct == T_F32;
        else if (sh == SH_M1688) ok = at == T_F16 || at == T_BF16;
        else ok = !tf32 && (at == T_F16 || (at == T_BF16 && dt == T_F32 && ct == T_F32));
    }
    if (!ok) {
        emu_decode_fail(c, "unsupported %s shape or types (the emulator runs wmma m16n16k16 f16/bf16, m16n16k8 tf32; "
                           "mma.sync m16n8k16 f16/bf16, m16n8k8 f16/bf16/tf32; .row.col)", wmma ? "wmma.mma" : "mma");
        return;
    }
    if (s->nops != 4) { emu_decode_fail(c, "mma needs 4 operands%s", ""); return; }
    int ka, kb, kc;
    if (sh == SH_W161616) { ka = at == T_F16 ? FK_WA16 : FK_WA16B; kb = at == T_F16 ? FK_WB16 : FK_WB16B; kc = FK_WC; }
    else if (sh == SH_W16168) { ka = FK_WA8T; kb = FK_WB8T; kc = FK_WC; }
    else if (sh == SH_M16816) { ka = FK_WA16B; kb = FK_MB16; kc = FK_MC; }
    else if (tf32) { ka = FK_WA8T; kb = FK_MB8T; kc = FK_MC; }
    else { ka = FK_MA8H; kb = FK_MB8H; kc = FK_MC; }
    /* mma's A of m16n8k16 f16 has 4 registers (8 elements), not wmma's 8 */
    EmuType reg_t = tf32 ? T_F32 : at;
    Instr *in = emu_decode_emit(c, OP_MMA);
    set_guard(c, in, s);
    int pc = c->n_code - 1;
    in->sub = (uint8_t)sh;
    in->type = (uint8_t)(tf32 ? T_B32 : at);
    in->type2 = (uint8_t)ct;
    in->sub2 = (uint8_t)dt;
    in->space = (uint8_t)ka;
    in->vec = (uint8_t)kb;
    in->size = (uint8_t)kc;
    int first = reg_list(c, &s->ops[0], regs_of(kc, dt), true, dt);
    reg_list(c, &s->ops[1], regs_of(ka, reg_t), false, T_B32);
    reg_list(c, &s->ops[2], regs_of(kb, reg_t), false, T_B32);
    reg_list(c, &s->ops[3], regs_of(kc, ct), false, ct == T_F32 ? T_F32 : T_B32);
    c->code[pc].target = first;
}

void emu_mma_decode(Ctx *c, const RawStmt *s) {
    c->op = s->op;
    if (!strncmp(s->op, "cvt.", 4)) {
        /* cvt.rna.tf32.f32 d, a (wmma::__float_to_tf32) */
        if (strcmp(s->op, "cvt.rna.tf32.f32") != 0) { emu_decode_fail(c, "unsupported conversion to tf32%s", ""); return; }
        if (s->nops < 2) { emu_decode_fail(c, "too few operands%s", ""); return; }
        Instr *in = emu_decode_emit(c, OP_CVT_TF32);
        set_guard(c, in, s);
        in->type = T_B32;
        int bits;
        in->d[0] = emu_decode_dst(c, &s->ops[0], &bits);
        in->dbits = (uint8_t)bits;
        in->a[0] = emu_decode_src(c, &s->ops[1], T_F32);
        return;
    }
    MmaMods m;
    mma_mods(s->op, &m);
    bool wmma = !strncmp(s->op, "wmma.", 5);
    if (wmma && !strncmp(s->op + 5, "load.", 5)) decode_wmma_mem(c, s, &m, false);
    else if (wmma && !strncmp(s->op + 5, "store.", 6)) decode_wmma_mem(c, s, &m, true);
    else if ((wmma && !strncmp(s->op + 5, "mma.", 4)) || (!wmma && !strncmp(s->op, "mma.sync", 8))) decode_mma(c, s, &m, wmma);
    else emu_decode_fail(c, "unsupported tensor-core instruction '%s'", s->op);
}

/* ---- execution ---------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The metrics of a whole fragment access (the per-element accesses' were
 * undone): one request; global memory: the distinct 32-byte sectors against
 * the bytes' ideal; shared memory: counted conflict-free (the hardware reads
 * fragments in wide rows; not modelled further). */
static void wmma_metrics(Worker *W, const Instr *in, uint64_t *addr, int n, int esize) {
    if (n == 0) return;
    bool shared = in->space == SP_SHARED || (in->space == SP_GENERIC && (addr[0] & EMU_WIN_MASK) == EMU_SHARED_WIN);
    bool local = in->space == SP_LOCAL || (in->space == SP_GENERIC && (addr[0] & EMU_WIN_MASK) == EMU_LOCAL_WIN);
    if (local) { W->t.local_requests++; return; }
    qsort(addr, (size_t)n, sizeof *addr, cmp_u64);
    uint64_t elems = 0, sectors = 0, last_e = UINT64_MAX, last_s = UINT64_MAX;
    for (int i = 0; i < n; i++) {
        if (addr[i] != last_e) { elems++; last_e = addr[i]; }
        if (addr[i] >> 5 != last_s) { sectors++; last_s = addr[i] >> 5; }
    }
    uint64_t bytes = elems * (uint64_t)esize;
    LineStats *ls = in->line > 0 && in->line < W->n_lines ? &W->lines[in->line] : NULL;
    if (shared) {
        uint64_t wf = (bytes + 127) / 128;
        W->t.shared_requests++;
        W->t.bank_conflict_wavefronts += wf;
        W->t.shared_ideal_wavefronts += wf;
        if (ls) { ls->shared_requests++; ls->shared_wavefronts += wf; ls->shared_ideal += wf; }
        return;
    }
    /* a fragment is whole rows (or columns) of a tile: its layout needs what
     * its bytes need (emu_metrics.c's layout ideal; the uncoalesced warning
     * compares with it) */
    uint64_t ideal = (bytes + 31) / 32;
    W->t.global_requests++;
    if (W->cur) W->cur->seg_requests++;
    W->t.global_sectors += sectors;
    W->t.global_ideal_sectors += ideal;
    W->t.global_layout_sectors += ideal;
    if (in->op == OP_WMMA_ST) W->t.global_store_sectors += sectors;
    if (ls) {
        ls->global_requests++;
        ls->global_sectors += sectors;
        ls->global_ideal += ideal;
        ls->global_layout += ideal;
        if (sectors >= 2 * ideal) ls->global_strided++;
    }
}

/* wmma.load / store: for each element, every lane's address (in register
 * in->c), then one ordinary load or store of that element (value in in->e),
 * checked like any access; the metrics count the fragment as one access. */
void emu_exec_wmma_mem(Worker *W, Warp *w, const Instr *in, uint32_t m) {
    bool metrics = W->L->metrics, has_line = in->line > 0 && in->line < W->n_lines;
    Totals t0;
    LineStats l0;
    uint32_t seg0 = w->seg_requests;   /* the warp's requests since its last barrier (emu_exec.c) */
    bool cold0 = w->pend_cold;
    memset(&l0, 0, sizeof l0);
    uint64_t seen[16 * 32];
    int nseen = 0;
    if (metrics) {
        t0 = W->t;
        if (has_line) l0 = W->lines[in->line];
    }
    const int32_t *x = W->k->xops + in->target;
    int kind = in->sub, esize = in->size, per = esize == 2 ? 2 : 1;
    int n = frag_distinct(kind);
    bool store = in->op == OP_WMMA_ST, col = in->sub2 != 0;
    const uint64_t *A = w->r + (size_t)in->a[0] * 32, *S = w->r + (size_t)in->b * 32;
    uint64_t *T = w->r + (size_t)in->c * 32, *V = w->r + (size_t)in->e * 32;
    Instr acc = *in;
    acc.op = (uint16_t)(store ? OP_ST : OP_LD);
    acc.type = (uint8_t)(esize == 2 ? T_B16 : T_B32);
    acc.vec = 1;
    acc.a[0] = in->c;
    acc.d[0] = in->e;
    acc.imm = 0;
    acc.dbits = 64;
    acc.target = -1;
    for (int e = 0; e < n; e++) {
        uint64_t *R = w->r + (size_t)x[e / per] * 32;
        int sh = (e % per) * 16;
        for (int l = 0; l < 32; l++) {
            int r, c;
            frag_rc(kind, l, e, &r, &c);
            uint64_t ld = (uint32_t)S[l];
            uint64_t off = col ? (uint64_t)c * ld + (uint64_t)r : (uint64_t)r * ld + (uint64_t)c;
            T[l] = A[l] + (uint64_t)in->imm + off * (uint64_t)esize;
            if (metrics && (m >> l & 1) && nseen < 16 * 32) seen[nseen++] = T[l];
            if (store) V[l] = per == 2 ? (R[l] >> sh) & 0xffff : R[l] & 0xffffffffu;
        }
        if (store) {
            emu_exec_st(W, w, &acc, m);
            continue;
        }
        emu_exec_ld(W, w, &acc, m);
        for (int l = 0; l < 32; l++) {
            if (!(m >> l & 1)) continue;
            if (per == 2) R[l] = (R[l] & ~(0xffffull << sh) & 0xffffffffu) | (V[l] & 0xffff) << sh;
            else R[l] = V[l] & 0xffffffffu;
        }
    }
    if (metrics) {
        W->t = t0;
        w->seg_requests = seg0;
        w->pend_cold = cold0;
        if (has_line) W->lines[in->line] = l0;
        wmma_metrics(W, in, seen, nseen, esize);
    }
    if (!store && n < frag_elems(kind)) {   /* f16 A/B: x[8..15] repeat x[0..7] */
        int half = n / per;
        for (int i = 0; i < half; i++) {
            uint64_t *D = w->r + (size_t)x[half + i] * 32;
            const uint64_t *Sr = w->r + (size_t)x[i] * 32;
            for (int l = 0; l < 32; l++)
                if (m >> l & 1) D[l] = Sr[l];
        }
    }
}

/* The value of element e of a fragment register (exact as a double). */
static double elem_value(uint64_t reg, int e, int t) {
    if (t == T_F16) return emu_half_to_float((uint16_t)(reg >> ((e & 1) * 16)));
    if (t == T_BF16) return bf16_to_float((uint16_t)(reg >> ((e & 1) * 16)));
    if (t == T_B32) return f32((uint32_t)reg & 0xffffe000u);   /* tf32: the top 19 bits */
    return f32(reg);
}

/* The exponent field of an input value of type t (unbiased; subnormals at
 * the minimum normal exponent). v is finite and nonzero. */
static int elem_exp(double v, int t) {
    int e = ilogb(v), emin = t == T_F16 ? -14 : -126;
    return e < emin ? emin : e;
}

/* Round toward zero of an exact double to float; 2^128 and beyond: infinite. */
static float to_f32_rz(double x) {
    if (fabs(x) >= 0x1p128) return x > 0 ? INFINITY : -INFINITY;
    float f = (float)x;
    if (fabs((double)f) > fabs(x)) f = nextafterf(f, 0.0f);
    return f;
}

/* An exact double as the float nearest toward zero with the last bit set
 * when inexact (round to odd): rounding that to f16 rounds x correctly. */
static float to_f32_odd(double x) {
    float f = to_f32_rz(x);
    if (isfinite(f) && (double)f != x) f = f32(b32(f) | 1u);
    return f;
}

/* acc + p[0] + ... + p[n-1] in one fused sum as the tensor core adds them:
 * aligned to the largest of the products' exponents pe[] (ea + eb) and
 * acc's exponent field, each term truncated toward zero to 2^-(23 +
 * MMA_EXTRA_BITS) of it; returns the exact sum of the truncated terms
 * (the caller rounds it). */
static double fused_sum(double acc, const double *p, const int *pe, int n) {
    bool finite = isfinite(acc);
    for (int i = 0; i < n; i++) finite = finite && isfinite(p[i]);
    if (!finite) {
        double plain = acc;
        for (int i = 0; i < n; i++) plain += p[i];
        return isnan(plain) ? (double)f32(0x7fffffffu) : plain;
    }
    int emax = INT32_MIN;
    if (acc != 0) emax = elem_exp(acc, T_F32);
    for (int i = 0; i < n; i++)
        if (p[i] != 0 && pe[i] > emax) emax = pe[i];
    if (emax == INT32_MIN) return 0.0;                  /* all zero: +0 */
    double unit = ldexp(1.0, emax - 23 - MMA_EXTRA_BITS);
    int64_t sum = (int64_t)trunc(acc / unit);
    for (int i = 0; i < n; i++) sum += (int64_t)trunc(p[i] / unit);
    return (double)sum * unit;                          /* exact: |sum| < 2^32 */
}

void emu_exec_mma(Worker *W, Warp *w, const Instr *in, uint32_t m) {
    const int32_t *x = W->k->xops + in->target;
    int sh = in->sub, M = SHAPE[sh].m, N = SHAPE[sh].n, K = SHAPE[sh].k;
    int ka = in->space, kb = in->vec, kc = in->size;
    int at = in->type, ct = in->type2, dt = in->sub2;
    int aper = at == T_B32 ? 1 : 2, cper = ct == T_F16 ? 2 : 1, dper = dt == T_F16 ? 2 : 1;
    int nd = frag_elems(kc) / dper, na = frag_elems(ka) / aper, nb = frag_elems(kb) / aper;
    const int32_t *xd = x, *xa = x + nd, *xb = xa + na, *xc = xb + nb;
    double a[16][16], b[16][16], cm[16][16];
    for (int l = 0; l < 32; l++) {
        int r, c;
        for (int e = 0; e < frag_distinct(ka); e++) {
            frag_rc(ka, l, e, &r, &c);
            a[r][c] = elem_value(w->r[(size_t)xa[e / aper] * 32 + l], e, at);
        }
        for (int e = 0; e < frag_distinct(kb); e++) {
            frag_rc(kb, l, e, &r, &c);
            b[r][c] = elem_value(w->r[(size_t)xb[e / aper] * 32 + l], e, at);
        }
        for (int e = 0; e < frag_elems(kc); e++) {
            frag_rc(kc, l, e, &r, &c);
            cm[r][c] = elem_value(w->r[(size_t)xc[e / cper] * 32 + l], e, ct);
        }
    }
    int blk = sh == SH_W16168 ? 4 : K;   /* wmma m16n16k8 tf32: two steps of k = 4 */
    float d[16][16];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double p[16];
            int pe[16];
            for (int k = 0; k < K; k++) {
                p[k] = a[i][k] * b[k][j];
                pe[k] = p[k] != 0 && isfinite(p[k]) ? elem_exp(a[i][k], at) + elem_exp(b[k][j], at) : 0;
            }
            double acc = cm[i][j];
            for (int k0 = 0; k0 < K; k0 += blk) {
                double s = fused_sum(acc, p + k0, pe + k0, blk);
                acc = k0 + blk < K || dt != T_F16 ? (double)to_f32_rz(s) : (double)to_f32_odd(s);
            }
            d[i][j] = (float)acc;
        }
    /* read everything before writing: D may name C's registers */
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        for (int e = 0; e < frag_elems(kc); e++) {
            int r, c;
            frag_rc(kc, l, e, &r, &c);
            uint64_t *R = w->r + (size_t)xd[e / dper] * 32 + l;
            if (dper == 2) {
                int s = (e & 1) * 16;
                uint64_t h = emu_float_to_half(d[r][c], RND_RN);
                *R = (*R & ~(0xffffull << s) & 0xffffffffu) | h << s;
            } else {
                *R = b32(d[r][c]);
            }
        }
    }
}

void emu_alu_cvt_tf32(uint64_t *D, const uint64_t *A, uint32_t m) {
    /* as the sm_80 code for cvt.rna.tf32.f32 does it: add half an ulp of
     * tf32 to the bits unless |x| is inf or NaN, then keep the top 19 bits */
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint32_t u = (uint32_t)A[l];
        if ((u & 0x7fffffffu) < 0x7f800000u) u += 0x1000u;
        D[l] = u & 0xffffe000u;
    }
}
