/* kernels/emu/emu_mem.c: loads, stores, cp.async and atomics: the fast path.
 *
 * Global addresses are host addresses, shared and local ones offsets in
 * their windows. The common case is checked for the whole warp at once
 * (every active lane in one space, aligned, inside shared memory or inside
 * the allocation the last access hit) and then runs as a plain loop; any
 * other access goes lane by lane through the checked path (emu_check.c),
 * which turns a wild pointer into a finding that names the array and the
 * index, never a host crash. With checks on, shared accesses update the
 * shadow (emu_shadow.c; hazard-free ones inline) and global ones the race
 * and initialisation shadows (emu_gshadow.c, emu_init.c); with metrics on,
 * each warp access adds sectors or wavefronts to its line (emu_metrics.c). */
#include <string.h>

#include "kernels/emu/emu_lane.h"
#include "kernels/emu/emu_mem.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define EMU_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define EMU_CLONES
#endif

/* The space an access lands in (generic addresses by their window; const is global). */
static int space_of(const Instr *in, uint64_t addr) {
    if (in->space != SP_GENERIC) return in->space == SP_CONST ? SP_GLOBAL : in->space;
    uint64_t win = addr & EMU_WIN_MASK;
    return win == EMU_SHARED_WIN ? SP_SHARED : win == EMU_LOCAL_WIN ? SP_LOCAL : SP_GLOBAL;
}

static inline uint64_t load_n(const unsigned char *p, int n) {
    switch (n) {
    case 1: return *p;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static inline void store_n(unsigned char *p, uint64_t v, int n) {
    switch (n) {
    case 1: *p = (unsigned char)v; break;
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

static inline uint64_t extend(uint64_t v, const Instr *in) {
    int t = in->type, bits = in->size * 8;
    if ((t == T_S8 || t == T_S16 || t == T_S32) && bits < 64) {
        int64_t s = (int64_t)(v << (64 - bits)) >> (64 - bits);
        return in->dbits >= 64 ? (uint64_t)s : (uint64_t)s & ((1ull << in->dbits) - 1);
    }
    return v;
}

/* Shadow updates with no hazard possible, inline; anything else takes the
 * full check in shadow_access. Only for accesses inside one 4-byte word. */
static inline void shadow_read_fast(Worker *W, Warp *w, int lane, const Instr *in, uint64_t off, int bytes) {
    uint16_t tid = (uint16_t)(w->index * 32 + lane);
    Shadow *s = emu_shadow_word(W, off);
    uint8_t mask = bytes == 4 ? 0xf : bytes < 4 ? emu_word_mask(off >> 2, off, bytes) : 0;
    if (bytes <= 4 && s->w_epoch >= W->epoch0 &&
        (s->w_epoch != W->epoch || s->w_tid == tid || s->w_atomic == 2 || !(s->w_mask & mask))) {
        emu_shadow_note_read(s, W->epoch, tid, mask, w, in->line);
        return;
    }
    emu_shadow_access(W, w, lane, in, off, bytes, ACC_READ);
}

static inline void shadow_write_fast(Worker *W, Warp *w, int lane, const Instr *in, uint64_t off, int bytes) {
    uint16_t tid = (uint16_t)(w->index * 32 + lane);
    Shadow *s = emu_shadow_word(W, off);
    uint8_t mask = bytes == 4 ? 0xf : bytes < 4 ? emu_word_mask(off >> 2, off, bytes) : 0;
    if (bytes <= 4 && (s->w_epoch != W->epoch || s->w_tid == tid || !(s->w_mask & mask)) &&
        (s->r_epoch != W->epoch || emu_shadow_other_reader(s, tid, mask) == tid)) {
        emu_shadow_note_write(s, W->epoch, tid, mask, false, w, in->line);
        return;
    }
    emu_shadow_access(W, w, lane, in, off, bytes, ACC_WRITE);
}

/* The full-warp check, compiled twice: for AVX2 (64-bit compares in vector
 * registers) and for the x86-64 baseline, picked at run time. */
__attribute__((target("avx2"))) static bool lanes_inside_avx2(const uint64_t *addr, uint64_t lo, uint64_t span,
                                                              uint64_t align) {
    uint64_t bad = 0;
    for (int l = 0; l < 32; l++) bad |= (addr[l] & align) | (uint64_t)(addr[l] - lo > span);
    return !bad;
}

static bool lanes_inside_base(const uint64_t *addr, uint64_t lo, uint64_t span, uint64_t align) {
    uint64_t bad = 0;
    for (int l = 0; l < 32; l++) bad |= (addr[l] & align) | (uint64_t)(addr[l] - lo > span);
    return !bad;
}

/* true when every lane in m has lo <= addr <= lo + span and is aligned */
static inline bool lanes_inside(const uint64_t *addr, uint32_t m, uint64_t lo, uint64_t span, uint64_t align) {
    uint64_t bad = 0;
    if (m == EMU_FULL) {
        static int avx2 = -1;
        if (avx2 < 0) avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
        return avx2 ? lanes_inside_avx2(addr, lo, span, align) : lanes_inside_base(addr, lo, span, align);
    }
    for (int l = 0; l < 32; l++)
        if (m >> l & 1) bad |= (addr[l] & align) | (uint64_t)(addr[l] - lo > span);
    return !bad;
}

/* The common case, checked for the whole warp at once: every active lane
 * in one space, aligned and inside shared memory or inside the allocation
 * that the last access hit. Sets *space and returns what to add to an
 * address to get the host pointer; *space stays -1 for the careful path. */
static uintptr_t fast_base(Worker *W, const Instr *in, const uint64_t *addr, uint32_t m, int total, int *space) {
    int first = __builtin_ctz(m);
    int sp = in->space == SP_CONST ? SP_GLOBAL : in->space;
    uint64_t bias = 0;
    if (sp == SP_GENERIC) {
        uint64_t win = addr[first] & EMU_WIN_MASK;
        if (win == EMU_SHARED_WIN) { sp = SP_SHARED; bias = EMU_SHARED_WIN; }
        else if (win == 0) sp = SP_GLOBAL;
        else return 0;
    }
    uint64_t align = (uint64_t)total - 1;
    if (sp == SP_SHARED) {
        if (W->shared_size < (uint64_t)total) return 0;
        if (!lanes_inside(addr, m, bias, W->shared_size - (uint64_t)total, align)) return 0;
        if (W->k->shared_static < W->k->shared_dyn_off && W->L->dyn_shared) {
            /* the padding between static and dynamic shared memory is out of bounds */
            for (int l = first; l < 32; l++)
                if ((m >> l & 1) && addr[l] - bias + (uint64_t)total > W->k->shared_static &&
                    addr[l] - bias < W->k->shared_dyn_off) return 0;
        }
        *space = SP_SHARED;
        return (uintptr_t)W->shared - (uintptr_t)bias;   /* host pointer = address + this */
    }
    if (sp != SP_GLOBAL) return 0;
    AllocTable *t = W->L->allocs;
    if (W->hint < 0 || W->hint >= t->n || addr[first] < t->v[W->hint].base ||
        addr[first] >= t->v[W->hint].base + t->v[W->hint].size) {
        int i = emu_alloc_find(t, addr[first]);
        if (i < 0) return 0;
        W->hint = i;
    }
    const Alloc *a = &t->v[W->hint];
    if (a->size < (uint64_t)total) return 0;
    if (!lanes_inside(addr, m, a->base, a->size - (uint64_t)total, align)) return 0;
    *space = SP_GLOBAL;
    return 0;
}

EMU_CLONES void emu_exec_ld(Worker *W, Warp *w, const Instr *in, uint32_t m) {
    const uint64_t *A = w->r + (size_t)in->a[0] * 32;
    int size = in->size, vec = in->vec, total = size * vec;
    uint64_t addr[32];
    bool checks = W->L->checks;
    for (int l = 0; l < 32; l++) addr[l] = A[l] + (uint64_t)in->imm;
    int sp0 = -1;
    uintptr_t base = fast_base(W, in, addr, m, total, &sp0);
    if (sp0 >= 0 && vec == 1 && !(in->type == T_S8 || in->type == T_S16 || in->type == T_S32)) {
        uint64_t *D = w->r + (size_t)in->d[0] * 32;
        bool shadow = checks && sp0 == SP_SHARED, gshadow = checks && sp0 == SP_GLOBAL;
        const Alloc *ia = gshadow ? emu_init_alloc(W, addr[__builtin_ctz(m)]) : NULL;
        w->stamp++;
        if (!shadow && !gshadow && m == EMU_FULL && size == 4) {
            for (int l = 0; l < 32; l++) {
                uint32_t v;
                memcpy(&v, (const unsigned char *)(uintptr_t)(addr[l] + base), 4);
                D[l] = v;
            }
            emu_access_metrics(W, in, addr, m, sp0, total);
            return;
        }
        for (int l = 0; l < 32; l++) {
            if (!(m >> l & 1)) continue;
            const unsigned char *p = (const unsigned char *)(uintptr_t)(addr[l] + base);
            if (shadow) shadow_read_fast(W, w, l, in, (uint64_t)(p - W->shared), total);
            else if (gshadow) {
                if (ia) emu_init_read(W, w, l, in, ia, addr[l], total);
                emu_gshadow_access(W, w, l, in, addr[l], total, 0, false);
            }
            D[l] = load_n(p, size);
        }
        emu_access_metrics(W, in, addr, m, sp0, total);
        return;
    }
    uint32_t ok = 0;
    sp0 = -1;
    w->stamp++;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint64_t soff = UINT64_MAX;
        unsigned char *p = emu_mem_resolve(W, w, l, in, in->space, addr[l], total, ACC_READ, &soff);
        if (!p) {
            for (int i = 0; i < vec; i++) w->r[(size_t)in->d[i] * 32 + l] = 0;
            continue;
        }
        if (sp0 < 0) sp0 = space_of(in, addr[l]);
        ok |= 1u << l;
        if (checks && soff != UINT64_MAX) emu_shadow_access(W, w, l, in, soff, total, ACC_READ);
        else if (checks && space_of(in, addr[l]) == SP_GLOBAL) {
            const Alloc *ia = emu_init_alloc(W, addr[l]);
            if (ia) emu_init_read(W, w, l, in, ia, addr[l], total);
            emu_gshadow_access(W, w, l, in, addr[l], total, 0, false);
        }
        for (int i = 0; i < vec; i++) w->r[(size_t)in->d[i] * 32 + l] = extend(load_n(p + i * size, size), in);
    }
    if (sp0 >= 0) emu_access_metrics(W, in, addr, ok, sp0, total);
}

EMU_CLONES void emu_exec_st(Worker *W, Warp *w, const Instr *in, uint32_t m) {
    const uint64_t *A = w->r + (size_t)in->a[0] * 32;
    int size = in->size, vec = in->vec, total = size * vec;
    uint64_t addr[32];
    bool checks = W->L->checks;
    for (int l = 0; l < 32; l++) addr[l] = A[l] + (uint64_t)in->imm;
    int sp0 = -1;
    uintptr_t base = fast_base(W, in, addr, m, total, &sp0);
    if (sp0 >= 0 && vec == 1) {
        const uint64_t *V = w->r + (size_t)in->d[0] * 32;
        bool shadow = checks && sp0 == SP_SHARED, gshadow = checks && sp0 == SP_GLOBAL;
        uint64_t vmask = size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
        Alloc *ia = sp0 == SP_GLOBAL ? emu_init_alloc(W, addr[__builtin_ctz(m)]) : NULL;
        w->stamp++;
        for (int l = 0; l < 32; l++) {
            if (!(m >> l & 1)) continue;
            unsigned char *p = (unsigned char *)(uintptr_t)(addr[l] + base);
            if (ia) emu_init_write(ia, addr[l], total);
            if (shadow) {
                W->store_same = load_n(p, size) == (V[l] & vmask);
                shadow_write_fast(W, w, l, in, (uint64_t)(p - W->shared), total);
            }
            else if (gshadow) emu_gshadow_access(W, w, l, in, addr[l], total, 1, load_n(p, size) == (V[l] & vmask));
            store_n(p, V[l], size);
        }
        emu_access_metrics(W, in, addr, m, sp0, total);
        return;
    }
    uint32_t ok = 0;
    sp0 = -1;
    w->stamp++;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint64_t soff = UINT64_MAX;
        unsigned char *p = emu_mem_resolve(W, w, l, in, in->space, addr[l], total, ACC_WRITE, &soff);
        if (!p) continue;
        if (sp0 < 0) sp0 = space_of(in, addr[l]);
        ok |= 1u << l;
        bool shared = soff != UINT64_MAX, global = !shared && space_of(in, addr[l]) == SP_GLOBAL;
        if (global) {
            Alloc *ia = emu_init_alloc(W, addr[l]);
            if (ia) emu_init_write(ia, addr[l], total);
        }
        if (checks && (shared || global)) {
            /* Writing the value already there is no race: compare before storing. */
            bool same = true;
            uint64_t vmask = size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
            for (int i = 0; i < vec; i++)
                if (load_n(p + i * size, size) != (w->r[(size_t)in->d[i] * 32 + l] & vmask)) same = false;
            if (shared) {
                W->store_same = same;
                emu_shadow_access(W, w, l, in, soff, total, ACC_WRITE);
            } else {
                emu_gshadow_access(W, w, l, in, addr[l], total, 1, same);
            }
        }
        for (int i = 0; i < vec; i++) store_n(p + i * size, w->r[(size_t)in->d[i] * 32 + l], size);
    }
    if (sp0 >= 0) emu_access_metrics(W, in, addr, ok, sp0, total);
}

/* cp.async: copied at once (the wait that follows has nothing to wait for),
 * each side checked like a load from global and a store to shared. */
void emu_exec_cpasync(Worker *W, Warp *w, const Instr *in, uint32_t m) {
    const uint64_t *D = w->r + (size_t)in->a[0] * 32, *S = w->r + (size_t)in->b * 32;
    const uint64_t *N = w->r + (size_t)in->c * 32;
    int size = in->size;
    bool checks = W->L->checks;
    w->stamp++;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint64_t dst = D[l] + (uint64_t)in->imm, src = S[l] + (uint64_t)(int64_t)in->f;
        uint64_t soff = UINT64_MAX, dummy = UINT64_MAX;
        unsigned char tmp[16] = {0};
        uint64_t n = N[l] < (uint64_t)size ? N[l] : (uint64_t)size;
        if (n) {
            const unsigned char *p = emu_mem_resolve(W, w, l, in, SP_GLOBAL, src, size, ACC_READ, &dummy);
            if (!p) continue;
            if (checks) {
                const Alloc *ia = emu_init_alloc(W, src);
                if (ia) emu_init_read(W, w, l, in, ia, src, (int)n);
                emu_gshadow_access(W, w, l, in, src, size, 0, false);
            }
            memcpy(tmp, p, (size_t)n);
        }
        unsigned char *q = emu_mem_resolve(W, w, l, in, SP_SHARED, dst, size, ACC_WRITE, &soff);
        if (!q) continue;
        if (checks && soff != UINT64_MAX) {
            W->store_same = !memcmp(q, tmp, (size_t)size);
            emu_shadow_access(W, w, l, in, soff, size, ACC_WRITE);
        }
        memcpy(q, tmp, (size_t)size);
    }
}

/* ---- atomics -------------------------------------------------------------------- */
/* The new value of an atomic word. ftz: atom.add.f32 on global memory, which
 * flushes subnormal inputs and results to sign-preserving zero (the ISA; not
 * with .noftz, nor on shared memory). */
static uint64_t atom_new(int aop, int t, int size, uint64_t old, uint64_t b, uint64_t c, bool ftz) {
    int bits = size * 8;
    uint64_t msk = bits == 64 ? ~0ull : (1ull << bits) - 1;
    old &= msk;
    b &= msk;
    if (aop == AOP_ADD && (t == T_F16 || t == T_BF16 || t == T_F16X2 || t == T_BF16X2)) {
        /* atom.add.noftz.f16/bf16 (and x2, per half): round to nearest, no flush */
        bool bf = t == T_BF16 || t == T_BF16X2;
        uint64_t r = 0;
        for (int h = 0; h < (t == T_F16 || t == T_BF16 ? 1 : 2); h++) {
            uint16_t x = (uint16_t)(old >> (16 * h)), y = (uint16_t)(b >> (16 * h));
            float s = bf ? bf16_to_float(x) + bf16_to_float(y) : emu_half_to_float(x) + emu_half_to_float(y);
            r |= (uint64_t)(bf ? float_to_bf16(s) : emu_float_to_half(s, RND_RN)) << (16 * h);
        }
        return r;
    }
    if (t == T_F32 || t == T_F64) {
        double x, y;
        if (t == T_F32) {
            uint32_t u = (uint32_t)old, v = (uint32_t)b;
            float fx, fy;
            memcpy(&fx, &u, 4);
            memcpy(&fy, &v, 4);
            if (aop == AOP_ADD) {
                float r = ftz ? ftz32(ftz32(fx) + ftz32(fy)) : fx + fy;
                uint32_t o;
                memcpy(&o, &r, 4);
                return o;
            }
            x = fx; y = fy;
        } else {
            memcpy(&x, &old, 8);
            memcpy(&y, &b, 8);
            if (aop == AOP_ADD) { double r = x + y; uint64_t o; memcpy(&o, &r, 8); return o; }
        }
        if (aop == AOP_EXCH) return b;
        if (aop == AOP_CAS) return old == b ? c & msk : old;
        bool take = aop == AOP_MIN ? y < x : aop == AOP_MAX ? y > x : false;
        return take ? b : old;
    }
    bool sgn = t == T_S32 || t == T_S64;
    int64_t so = sgn ? (bits == 64 ? (int64_t)old : (int64_t)(int32_t)old) : 0;
    int64_t sb = sgn ? (bits == 64 ? (int64_t)b : (int64_t)(int32_t)b) : 0;
    switch (aop) {
    case AOP_ADD: return (old + b) & msk;
    case AOP_MIN: return sgn ? (sb < so ? b : old) : (b < old ? b : old);
    case AOP_MAX: return sgn ? (sb > so ? b : old) : (b > old ? b : old);
    case AOP_INC: return old >= b ? 0 : (old + 1) & msk;
    case AOP_DEC: return (old == 0 || old > b) ? b : old - 1;
    case AOP_EXCH: return b;
    case AOP_CAS: return old == b ? c & msk : old;
    case AOP_AND: return old & b;
    case AOP_OR: return old | b;
    case AOP_XOR: return old ^ b;
    default: return old;
    }
}

/* Shared-memory atomics of a whole warp that is in bounds: the block runs on
 * one host thread, so plain read-modify-write in lane order is atomic. */
static bool atom_shared_fast(Worker *W, Warp *w, const Instr *in, uint32_t m, const uint64_t *addr) {
    int sp = -1;
    uintptr_t base = fast_base(W, in, addr, m, in->size, &sp);
    if (sp != SP_SHARED) return false;
    const uint64_t *B = w->r + (size_t)in->b * 32;
    const uint64_t *C = in->c >= 0 ? w->r + (size_t)in->c * 32 : NULL;
    uint64_t *D = in->op == OP_ATOM ? w->r + (size_t)in->d[0] * 32 : NULL;
    bool checks = W->L->checks;
    int size = in->size;
    bool add32 = in->sub == AOP_ADD && size == 4 && in->type != T_F32 && in->type != T_F16X2 && in->type != T_BF16X2;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        unsigned char *p = (unsigned char *)(uintptr_t)(addr[l] + base);
        if (checks) {
            uint64_t off = (uint64_t)(p - W->shared);
            Shadow *sh = emu_shadow_word(W, off);
            if (sh->w_epoch >= W->epoch0 && (sh->w_epoch != W->epoch || sh->w_atomic) && sh->r_epoch != W->epoch)
                emu_shadow_note_write(sh, W->epoch, (uint16_t)(w->index * 32 + l), emu_word_mask(off >> 2, off, size),
                           in->sub == AOP_CAS ? 2 : 1, w, in->line);
            else emu_shadow_access(W, w, l, in, off, size, ACC_ATOMIC);
        }
        uint64_t old = load_n(p, size);
        if (add32) store_n(p, (uint32_t)(old + B[l]), 4);
        else store_n(p, atom_new(in->sub, in->type, size, old, B[l], C ? C[l] : 0, false), size);
        if (D) D[l] = old;
    }
    emu_access_metrics(W, in, addr, m, SP_SHARED, size);
    return true;
}

void emu_exec_atom(Worker *W, Warp *w, const Instr *in, uint32_t m) {
    const uint64_t *A = w->r + (size_t)in->a[0] * 32;
    const uint64_t *B = w->r + (size_t)in->b * 32;
    const uint64_t *C = in->c >= 0 ? w->r + (size_t)in->c * 32 : NULL;
    int size = in->size;
    uint64_t addr[32];
    uint32_t ok = 0;
    int sp0 = -1;
    W->t.atomics++;
    for (int l = 0; l < 32; l++) addr[l] = A[l] + (uint64_t)in->imm;
    if (in->space != SP_GLOBAL && atom_shared_fast(W, w, in, m, addr)) return;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint64_t soff = UINT64_MAX;
        int sp = space_of(in, addr[l]);
        unsigned char *p = emu_mem_resolve(W, w, l, in, in->space, addr[l], size, ACC_ATOMIC, &soff);
        if (!p) { if (in->d[0] >= 0) w->r[(size_t)in->d[0] * 32 + l] = 0; continue; }
        if (sp0 < 0) sp0 = sp;
        ok |= 1u << l;
        if (W->L->checks && soff != UINT64_MAX) emu_shadow_access(W, w, l, in, soff, size, ACC_ATOMIC);
        else if (W->L->checks && sp == SP_GLOBAL) emu_gshadow_access(W, w, l, in, addr[l], size, 2, false);
        if (sp == SP_GLOBAL) {
            Alloc *ia = emu_init_alloc(W, addr[l]);
            if (ia) {
                if (W->L->checks) emu_init_read(W, w, l, in, ia, addr[l], size);
                emu_init_write(ia, addr[l], size);
            }
        }
        uint64_t old;
        uint64_t cv = C ? C[l] : 0;
        if (sp == SP_GLOBAL) {
            if (size == 2) {
                /* a 16-bit atomic: compare-and-swap the aligned word that holds it */
                uint32_t *q = (uint32_t *)(void *)((uintptr_t)p & ~(uintptr_t)3);
                int sh = (int)((uintptr_t)p & 2) * 8;
                uint32_t o = __atomic_load_n(q, __ATOMIC_RELAXED), n;
                do {
                    uint32_t h = (uint32_t)atom_new(in->sub, in->type, 2, o >> sh & 0xffff, B[l], cv, false);
                    n = (o & ~(0xffffu << sh)) | h << sh;
                } while (!__atomic_compare_exchange_n(q, &o, n, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
                old = o >> sh & 0xffff;
            } else if (size == 4) {
                uint32_t *q = (uint32_t *)(void *)p;
                uint32_t o = __atomic_load_n(q, __ATOMIC_RELAXED), n;
                do { n = (uint32_t)atom_new(in->sub, in->type, 4, o, B[l], cv, in->flags & F_FTZ); }
                while (!__atomic_compare_exchange_n(q, &o, n, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
                old = o;
            } else {
                uint64_t *q = (uint64_t *)(void *)p;
                uint64_t o = __atomic_load_n(q, __ATOMIC_RELAXED), n;
                do { n = atom_new(in->sub, in->type, 8, o, B[l], cv, false); }
                while (!__atomic_compare_exchange_n(q, &o, n, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
                old = o;
            }
        } else {
            old = load_n(p, size);
            store_n(p, atom_new(in->sub, in->type, size, old, B[l], cv, false), size);
        }
        if (in->op == OP_ATOM) w->r[(size_t)in->d[0] * 32 + l] = old;
    }
    if (sp0 >= 0) emu_access_metrics(W, in, addr, ok, sp0, size);
}
