/* lua/ref.c: the `ref` module: CPU references in C, fast enough for the
 * sizes exercises use on a GPU (2^28 elements, 4096² matrices), so checking
 * never takes longer than the kernel's own run: typed loops over chunks of
 * elements, on every core for large arrays (par.h). Partial results (sums,
 * a scan's block totals) are kept per fixed block of REF_BLOCK elements,
 * so a result never depends on the number of threads.
 *
 * Every function returns a new host array (or a number) and leaves its
 * inputs alone. Floating-point results are accumulated in double and
 * rounded once to the result's dtype; integers wrap like the GPU's. Any
 * temporary buffer is malloc'ed only after every argument was checked and
 * freed before the next call that could raise a Lua error.
 *
 * The super-linear ones (matmul, window, sort) look their answer up in
 * ref_cache.h's cache first, keyed by everything they were given, and store
 * it when computing took well over a lookup. Linear ones never do: hashing
 * their input is already a pass over it, and reading a cached answer back
 * costs about what computing it does on every core. */
#include <assert.h>
#include <stdint.h>
#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "lua/api.h"
#include "lua/par.h"
#include "lua/ref_cache.h"

#define REF_BLOCK ((size_t)1 << 16)

static const void *rd(lua_State *L, GpuArray *a) { return array_host_read(L, a); }

/* The cached references' versions (ref_cache.h): bump one whenever its
 * answer for the same inputs changes. (The build id in every key already
 * keeps another build's answers apart; the version says it in the code.) */
#define REF_MATMUL_VERSION 1
#define REF_WINDOW_VERSION 1
#define REF_SORT_VERSION 1

/* Adds array a (host data `host`, from rd) to c's key: dtype, shape, bytes. */
static void cache_add_array(RefCacheCall *c, const char *tag, const GpuArray *a, const void *host) {
    ref_cache_add_u64(c, "dtype", (uint64_t)a->dtype);
    ref_cache_add(c, "shape", a->shape, (size_t)a->ndim * sizeof a->shape[0]);
    ref_cache_add(c, tag, host, a->n * dtype_size(a->dtype));
}

/* Fills r with c's cached answer when there is one (and ends c). */
static bool cache_lookup(RefCacheCall *c, GpuArray *r) {
    bool hit = ref_cache_lookup(c, r->host, array_bytes(r));
    if (hit) ref_cache_end(c);
    return hit;
}

/* Stores r as c's answer when worth it; counts what the cache did for the
 * run's metrics.phases (hit: read back; miss: computed and stored). */
static void cache_finish(lua_State *L, RefCacheCall *c, const GpuArray *r) {
    if (!c->hit) ref_cache_store(c, r->host, array_bytes(r));
    ApiCtx *ctx = api_ctx(L);
    if (ctx) {
        ctx->ref_cache_hits += c->hit;
        ctx->ref_cache_misses += c->stored;
    }
}

static void check_same_len(lua_State *L, const char *fn, GpuArray *a, GpuArray *b) {
    if (a->n != b->n)
        luaL_error(L, "ref.%s: the arrays differ in length (%I and %I elements)", fn, (lua_Integer)a->n,
                   (lua_Integer)b->n);
}

/* A new array shaped like `a`, of dtype dt. */
static GpuArray *new_like(lua_State *L, const GpuArray *a, DType dt) {
    return array_push_new(L, dt, a->ndim, a->shape);
}

/* Chunked loops: convert ARRAY_CHUNK elements at a time into stack
 * buffers, so the per-element work is a tight loop over doubles. */
#define FOR_CHUNKS(n, i0, m) \
    for (size_t i0 = 0, m = 0; m = ((n) - i0 < ARRAY_CHUNK ? (n) - i0 : ARRAY_CHUNK), i0 < (n); i0 += m)

/* Stores v computed in double (floats) or exactly (integers). */
static void put(GpuArray *r, size_t i, double v, int64_t iv) {
    if (dtype_is_float(r->dtype)) array_set(r, i, v);
    else array_set_i64(r, i, iv);
}

/* Stores doubles; integer dtypes get the nearest integer. */
static void store_rounded(GpuArray *r, size_t i0, size_t m, double *v) {
    if (!dtype_is_float(r->dtype))
        for (size_t k = 0; k < m; k++) v[k] = nearbyint(v[k]);
    array_store_f64(r, i0, m, v);
}

/* Element-wise r = op(a, b) (add, axpy, scale), over ranges on every core. */
typedef enum { EW_ADD, EW_AXPY, EW_SCALE } EwOp;
typedef struct EwCtx {
    EwOp op;
    const GpuArray *a, *b;       /* axpy: a = x, b = y; scale: b unused */
    GpuArray *r;
    double s;                    /* axpy's alpha, scale's factor */
} EwCtx;

static void ew_range(void *p, int k, size_t i0, size_t i1) {
    (void)k;
    const EwCtx *c = p;
    if (c->op == EW_ADD && !dtype_is_float(c->a->dtype)) {
        int64_t x[ARRAY_CHUNK], y[ARRAY_CHUNK];
        for (size_t j = i0; j < i1; j += ARRAY_CHUNK) {
            size_t m = i1 - j < ARRAY_CHUNK ? i1 - j : ARRAY_CHUNK;
            array_load_i64(c->a, j, m, x);
            array_load_i64(c->b, j, m, y);
            for (size_t q = 0; q < m; q++) x[q] = (int64_t)((uint64_t)x[q] + (uint64_t)y[q]);
            array_store_i64(c->r, j, m, x);
        }
        return;
    }
    double x[ARRAY_CHUNK], y[ARRAY_CHUNK];
    for (size_t j = i0; j < i1; j += ARRAY_CHUNK) {
        size_t m = i1 - j < ARRAY_CHUNK ? i1 - j : ARRAY_CHUNK;
        array_load_f64(c->a, j, m, x);
        switch (c->op) {
        case EW_ADD:
            array_load_f64(c->b, j, m, y);
            for (size_t q = 0; q < m; q++) x[q] += y[q];
            array_store_f64(c->r, j, m, x);
            break;
        case EW_AXPY:
            array_load_f64(c->b, j, m, y);
            for (size_t q = 0; q < m; q++) y[q] += c->s * x[q];
            store_rounded(c->r, j, m, y);
            break;
        case EW_SCALE:
            for (size_t q = 0; q < m; q++) x[q] *= c->s;
            store_rounded(c->r, j, m, x);
            break;
        }
    }
}

static int ref_add(lua_State *L) {
    GpuArray *a = array_check(L, 1), *b = array_check(L, 2);
    check_same_len(L, "add", a, b);
    rd(L, a);
    rd(L, b);
    EwCtx c = {EW_ADD, a, b, new_like(L, a, a->dtype), 0};
    par_for(a->n, ARRAY_CHUNK, PAR_MIN_ELEMS, ew_range, &c);
    return 1;
}

static int ref_axpy(lua_State *L) {
    double alpha = luaL_checknumber(L, 1);
    GpuArray *x = array_check(L, 2), *y = array_check(L, 3);
    check_same_len(L, "axpy", x, y);
    rd(L, x);
    rd(L, y);
    EwCtx c = {EW_AXPY, x, y, new_like(L, y, y->dtype), alpha};
    par_for(x->n, ARRAY_CHUNK, PAR_MIN_ELEMS, ew_range, &c);
    return 1;
}

static int ref_scale(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    double s = luaL_checknumber(L, 2);
    rd(L, a);
    EwCtx c = {EW_SCALE, a, NULL, new_like(L, a, a->dtype), s};
    par_for(a->n, ARRAY_CHUNK, PAR_MIN_ELEMS, ew_range, &c);
    return 1;
}

/* Kahan–Babuška: s + c is the sum, exact enough to judge any float kernel. */
static inline void kb_add(double *s, double *c, double v) {
    double t = *s + v;
    *c += fabs(*s) >= fabs(v) ? (*s - t) + v : (v - t) + *s;
    *s = t;
}

/* Sums (of a, or of a·b) per REF_BLOCK block: floats as Kahan–Babuška
 * pairs, integers wrapping in 64 bits. */
typedef struct SumCtx {
    const GpuArray *a, *b;       /* b: dot's second array, else NULL */
    double *s, *c;               /* per block (floats) */
    uint64_t *is;                /* per block (integers) */
} SumCtx;

static void sum_range(void *p, int k, size_t i0, size_t i1) {
    (void)k;
    const SumCtx *c = p;
    for (size_t b0 = i0; b0 < i1; b0 += REF_BLOCK) {
        size_t b1 = b0 + REF_BLOCK < i1 ? b0 + REF_BLOCK : i1, blk = b0 / REF_BLOCK;
        if (c->is) {
            uint64_t s = 0;
            int64_t x[ARRAY_CHUNK];
            for (size_t j = b0; j < b1; j += ARRAY_CHUNK) {
                size_t m = b1 - j < ARRAY_CHUNK ? b1 - j : ARRAY_CHUNK;
                array_load_i64(c->a, j, m, x);
                for (size_t q = 0; q < m; q++) s += (uint64_t)x[q];
            }
            c->is[blk] = s;
            continue;
        }
        double s = 0, e = 0, x[ARRAY_CHUNK], y[ARRAY_CHUNK];
        if (!c->b && c->a->dtype == DT_F32 && !c->a->st) {
            /* the common case read in place: the same additions in the same order */
            const float *f = (const float *)c->a->host;
            for (size_t j = b0; j < b1; j++) kb_add(&s, &e, f[j]);
            c->s[blk] = s;
            c->c[blk] = e;
            continue;
        }
        for (size_t j = b0; j < b1; j += ARRAY_CHUNK) {
            size_t m = b1 - j < ARRAY_CHUNK ? b1 - j : ARRAY_CHUNK;
            array_load_f64(c->a, j, m, x);
            if (c->b) {
                array_load_f64(c->b, j, m, y);
                for (size_t q = 0; q < m; q++) kb_add(&s, &e, x[q] * y[q]);
            } else {
                for (size_t q = 0; q < m; q++) kb_add(&s, &e, x[q]);
            }
        }
        c->s[blk] = s;
        c->c[blk] = e;
    }
}

/* Pushes the sum of a (or the dot product with b). */
static void push_sum(lua_State *L, const GpuArray *a, const GpuArray *b) {
    size_t nb = (a->n + REF_BLOCK - 1) / REF_BLOCK;
    bool ints = !b && !dtype_is_float(a->dtype);
    SumCtx c = {a, b, NULL, NULL, NULL};
    if (ints) c.is = calloc(nb ? nb : 1, sizeof *c.is);
    else {
        c.s = calloc(nb ? nb : 1, sizeof *c.s);
        c.c = calloc(nb ? nb : 1, sizeof *c.c);
    }
    if (ints ? !c.is : !c.s || !c.c) {
        free(c.is);
        free(c.s);
        free(c.c);
        luaL_error(L, "ref: out of memory");
    }
    par_for(a->n, REF_BLOCK, PAR_MIN_ELEMS, sum_range, &c);
    if (ints) {
        uint64_t s = 0;
        for (size_t i = 0; i < nb; i++) s += c.is[i];
        free(c.is);
        lua_pushinteger(L, (lua_Integer)s);
        return;
    }
    double s = 0, e = 0;
    for (size_t i = 0; i < nb; i++) {
        kb_add(&s, &e, c.s[i]);
        e += c.c[i];
    }
    free(c.s);
    free(c.c);
    lua_pushnumber(L, s + e);
}

static int ref_sum(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    rd(L, a);
    push_sum(L, a, NULL);
    return 1;
}

static int ref_dot(lua_State *L) {
    GpuArray *a = array_check(L, 1), *b = array_check(L, 2);
    check_same_len(L, "dot", a, b);
    rd(L, a);
    rd(L, b);
    push_sum(L, a, b);
    return 1;
}

static size_t opt_dim(lua_State *L, int idx, size_t def, const char *what) {
    if (lua_isnoneornil(L, idx)) return def;
    lua_Integer v = luaL_checkinteger(L, idx);
    if (v < 0) luaL_error(L, "%s must not be negative", what);
    return (size_t)v;
}

/* C = A·B, row-major, A M×K, B K×N; i-k-j order keeps B's rows streaming;
 * rows on every core when the product is large. */
typedef struct MatmulCtx {
    const GpuArray *A;
    GpuArray *C;
    const double *bd;
    size_t N, K;
    double *acc;                 /* N per range */
} MatmulCtx;

static void matmul_rows(void *p, int k, size_t r0, size_t r1) {
    const MatmulCtx *c = p;
    size_t N = c->N, K = c->K;
    double *acc = c->acc + (size_t)k * (N ? N : 1);
    double arow[ARRAY_CHUNK];
    for (size_t i = r0; i < r1; i++) {
        memset(acc, 0, N * sizeof *acc);
        for (size_t k0 = 0; k0 < K; k0 += ARRAY_CHUNK) {
            size_t m = K - k0 < ARRAY_CHUNK ? K - k0 : ARRAY_CHUNK;
            array_load_f64(c->A, i * K + k0, m, arow);
            for (size_t q = 0; q < m; q++) {
                double a = arow[q];
                const double *brow = c->bd + (k0 + q) * N;
                for (size_t j = 0; j < N; j++) acc[j] += a * brow[j];
            }
        }
        store_rounded(c->C, i * N, N, acc);
    }
}

static int ref_matmul(lua_State *L) {
    GpuArray *A = array_check(L, 1), *B = array_check(L, 2);
    size_t M = opt_dim(L, 3, A->ndim == 2 ? A->shape[0] : 0, "M");
    size_t N = opt_dim(L, 4, B->ndim == 2 ? B->shape[1] : 0, "N");
    size_t K = opt_dim(L, 5, A->ndim == 2 ? A->shape[1] : 0, "K");
    if (M * K != A->n || K * N != B->n)
        return luaL_error(L, "ref.matmul: A has %I elements and B %I, but M=%I N=%I K=%I needs M*K and K*N",
                          (lua_Integer)A->n, (lua_Integer)B->n, (lua_Integer)M, (lua_Integer)N, (lua_Integer)K);
    const void *ha = rd(L, A), *hb = rd(L, B);
    size_t shape[2] = {M, N};
    GpuArray *C = array_push_new(L, A->dtype, 2, shape);
    RefCacheCall cc;
    ref_cache_begin(&cc, "matmul", REF_MATMUL_VERSION, (double)M * (double)N * (double)K);
    ref_cache_add_u64(&cc, "M", M);
    ref_cache_add_u64(&cc, "N", N);
    ref_cache_add_u64(&cc, "K", K);
    cache_add_array(&cc, "A", A, ha);
    cache_add_array(&cc, "B", B, hb);
    if (cache_lookup(&cc, C)) {
        cache_finish(L, &cc, C);
        return 1;
    }
    /* Rows in parallel once the product is worth it (2^22 multiply-adds). */
    size_t min_rows = M * N * K >= ((size_t)1 << 22) ? 2 : M + 1;
    int ranges = par_ranges(M, 1, min_rows);
    size_t kn = K * N > 0 ? K * N : 1;
    double *bd = malloc(kn * sizeof *bd);
    double *acc = malloc((size_t)ranges * (N ? N : 1) * sizeof *acc);
    if (!bd || !acc) {
        free(bd);
        free(acc);
        ref_cache_end(&cc);
        return luaL_error(L, "ref.matmul: out of memory");
    }
    array_load_f64(B, 0, K * N, bd);
    MatmulCtx c = {A, C, bd, N, K, acc};
    par_for(M, 1, min_rows, matmul_rows, &c);
    free(bd);
    free(acc);
    cache_finish(L, &cc, C);
    return 1;
}

/* Transpose in 32×32 tiles (rows of tiles on every core). */
typedef struct TransposeCtx {
    const char *src;
    char *dst;
    size_t rows, cols, es;
} TransposeCtx;

#define TR_TILE 32
static void transpose_rows(void *p, int k, size_t r0, size_t r1) {
    (void)k;
    const TransposeCtx *c = p;
    size_t rows = c->rows, cols = c->cols;
    for (size_t i0 = r0; i0 < r1; i0 += TR_TILE)
        for (size_t j0 = 0; j0 < cols; j0 += TR_TILE) {
            size_t i1 = i0 + TR_TILE < r1 ? i0 + TR_TILE : r1, j1 = j0 + TR_TILE < cols ? j0 + TR_TILE : cols;
#define TR_LOOP(T)                                                                              \
    for (size_t i = i0; i < i1; i++)                                                            \
        for (size_t j = j0; j < j1; j++) ((T *)c->dst)[j * rows + i] = ((const T *)c->src)[i * cols + j];
            switch (c->es) {
            case 1: TR_LOOP(uint8_t); break;
            case 2: TR_LOOP(uint16_t); break;
            case 4: TR_LOOP(uint32_t); break;
            default: TR_LOOP(uint64_t); break;
            }
#undef TR_LOOP
        }
}

static int ref_transpose(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    size_t rows = opt_dim(L, 2, a->ndim == 2 ? a->shape[0] : 0, "rows");
    size_t cols = opt_dim(L, 3, a->ndim == 2 ? a->shape[1] : 0, "cols");
    if (rows * cols != a->n)
        return luaL_error(L, "ref.transpose: %I elements are not %I rows × %I cols", (lua_Integer)a->n,
                          (lua_Integer)rows, (lua_Integer)cols);
    const char *src = rd(L, a);
    size_t shape[2] = {cols, rows};
    GpuArray *r = array_push_new(L, a->dtype, 2, shape);
    TransposeCtx c = {src, r->host, rows, cols, dtype_size(a->dtype)};
    assert(c.es == 1 || c.es == 2 || c.es == 4 || c.es == 8);
    par_for(rows, TR_TILE, cols ? PAR_MIN_ELEMS / cols + 1 : rows + 1, transpose_rows, &c);
    return 1;
}

/* Histograms per range (every core), summed in order afterwards. */
typedef struct HistCtx {
    const GpuArray *a;
    size_t bins;
    double lo, hi;
    uint32_t *h;                 /* bins per range */
} HistCtx;

static void hist_range(void *p, int k, size_t i0, size_t i1) {
    const HistCtx *c = p;
    uint32_t *h = c->h + (size_t)k * c->bins;
    double x[ARRAY_CHUNK], nb = (double)c->bins;
    bool bytes = (c->a->dtype == DT_U8) && c->lo == 0 && c->hi == nb && c->bins == 256;
    for (size_t j = i0; j < i1; j += ARRAY_CHUNK) {
        size_t m = i1 - j < ARRAY_CHUNK ? i1 - j : ARRAY_CHUNK;
        if (bytes) {   /* byte values with 256 bins: each its own bin */
            const uint8_t *b = (const uint8_t *)c->a->host + j;
            for (size_t q = 0; q < m; q++) h[b[q]]++;
            continue;
        }
        array_load_f64(c->a, j, m, x);
        for (size_t q = 0; q < m; q++) {
            if (!(x[q] >= c->lo && x[q] < c->hi)) continue;
            /* (x-lo)*bins/(hi-lo), not (x-lo)/(hi-lo)*bins: exact for integer data. */
            double b = floor((x[q] - c->lo) * nb / (c->hi - c->lo));
            if (b >= 0 && b < nb) h[(size_t)b]++;
        }
    }
}

static int ref_histogram(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    lua_Integer bins = luaL_checkinteger(L, 2);
    if (bins <= 0) return luaL_error(L, "ref.histogram: bins must be positive");
    double lo = luaL_optnumber(L, 3, 0), hi = luaL_optnumber(L, 4, (double)bins);
    if (!(hi > lo)) return luaL_error(L, "ref.histogram: hi must be above lo");
    rd(L, a);
    size_t shape[1] = {(size_t)bins};
    GpuArray *r = array_push_new(L, DT_U32, 1, shape);
    /* Per-range copies of the bins only while they stay small beside the data. */
    size_t min_n = (size_t)bins <= a->n / 64 ? PAR_MIN_ELEMS : a->n + 1;
    int ranges = par_ranges(a->n, ARRAY_CHUNK, min_n);
    uint32_t *h = ranges == 1 ? r->host : calloc((size_t)ranges * (size_t)bins, sizeof *h);
    if (!h) return luaL_error(L, "ref.histogram: out of memory");
    HistCtx c = {a, (size_t)bins, lo, hi, h};
    par_for(a->n, ARRAY_CHUNK, min_n, hist_range, &c);
    if (ranges > 1) {
        uint32_t *out = r->host;
        for (int k = 0; k < ranges; k++)
            for (size_t b = 0; b < (size_t)bins; b++) out[b] += h[(size_t)k * (size_t)bins + b];
        free(h);
    }
    return 1;
}

/* A scan in two passes over REF_BLOCK blocks (every core): each block's
 * total, then each block from the total of the blocks before it. Floats
 * accumulate in double, integers wrap in 64 bits (then like the dtype).
 * With segments of `seg` elements (0: one segment) the sum restarts at
 * every multiple of seg: a block's total is then its elements from the
 * last segment start in it, and a block holding a start (cut) passes on
 * only that. */
typedef struct ScanCtx {
    const GpuArray *a;
    GpuArray *r;
    bool inclusive;
    size_t seg;
    double *tot;                 /* per block: its total, then the total before it */
    uint64_t *itot;
    unsigned char *cut;          /* per block: a segment starts in it */
} ScanCtx;

static void scan_totals(void *p, int k, size_t i0, size_t i1) {
    (void)k;
    const ScanCtx *c = p;
    bool fl = dtype_is_float(c->a->dtype);
    for (size_t b0 = i0; b0 < i1; b0 += REF_BLOCK) {
        size_t b1 = b0 + REF_BLOCK < i1 ? b0 + REF_BLOCK : i1, blk = b0 / REF_BLOCK;
        double s = 0, x[ARRAY_CHUNK];
        uint64_t is = 0;
        int64_t ix[ARRAY_CHUNK];
        size_t from = b0;
        if (c->seg) {
            size_t last = (b1 - 1) / c->seg * c->seg;   /* the last segment start before b1 */
            c->cut[blk] = last >= b0;
            if (last > b0) from = last;
        }
        for (size_t j = from; j < b1; j += ARRAY_CHUNK) {
            size_t m = b1 - j < ARRAY_CHUNK ? b1 - j : ARRAY_CHUNK;
            if (fl) {
                array_load_f64(c->a, j, m, x);
                for (size_t q = 0; q < m; q++) s += x[q];
            } else {
                array_load_i64(c->a, j, m, ix);
                for (size_t q = 0; q < m; q++) is += (uint64_t)ix[q];
            }
        }
        c->tot[blk] = s;
        c->itot[blk] = is;
    }
}

static void scan_blocks(void *p, int k, size_t i0, size_t i1) {
    (void)k;
    const ScanCtx *c = p;
    bool fl = dtype_is_float(c->a->dtype);
    for (size_t b0 = i0; b0 < i1; b0 += REF_BLOCK) {
        size_t b1 = b0 + REF_BLOCK < i1 ? b0 + REF_BLOCK : i1, blk = b0 / REF_BLOCK;
        double s = c->tot[blk], x[ARRAY_CHUNK];
        uint64_t is = c->itot[blk];
        int64_t ix[ARRAY_CHUNK];
        size_t seg = c->seg ? c->seg : SIZE_MAX;
        for (size_t j = b0; j < b1; j += ARRAY_CHUNK) {
            size_t m = b1 - j < ARRAY_CHUNK ? b1 - j : ARRAY_CHUNK;
            if (fl) {
                array_load_f64(c->a, j, m, x);
                for (size_t q = 0; q < m; q++) {
                    double v = x[q];
                    if ((j + q) % seg == 0) s = 0;
                    if (c->inclusive) s += v;
                    x[q] = s;
                    if (!c->inclusive) s += v;
                }
                array_store_f64(c->r, j, m, x);
            } else {
                array_load_i64(c->a, j, m, ix);
                for (size_t q = 0; q < m; q++) {
                    uint64_t v = (uint64_t)ix[q];
                    if ((j + q) % seg == 0) is = 0;
                    if (c->inclusive) is += v;
                    ix[q] = (int64_t)is;
                    if (!c->inclusive) is += v;
                }
                array_store_i64(c->r, j, m, ix);
            }
        }
    }
}

/* Reversed within segments of `seg` elements (the last one may be
 * shorter), element bytes copied as they are: any numeric dtype. */
typedef struct RevCtx {
    const char *src;
    char *dst;
    size_t n, seg, es;
} RevCtx;

static void reverse_range(void *p, int k, size_t i0, size_t i1) {
    (void)k;
    const RevCtx *c = p;
    for (size_t i = i0; i < i1; i++) {
        size_t base = i / c->seg * c->seg, count = c->n - base < c->seg ? c->n - base : c->seg;
        memcpy(c->dst + i * c->es, c->src + (base + count - 1 - (i - base)) * c->es, c->es);
    }
}

static int ref_reverse(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    lua_Integer seg = 0;
    if (lua_istable(L, 2)) {
        lua_getfield(L, 2, "segment");
        if (!lua_isnil(L, -1)) {
            int ok = 0;
            seg = lua_tointegerx(L, -1, &ok);
            if (!ok || seg < 1) return luaL_error(L, "ref.reverse: segment must be a whole number of elements >= 1");
        }
        lua_pop(L, 1);
    } else if (!lua_isnoneornil(L, 2)) {
        return luaL_error(L, "ref.reverse: the second argument is an options table ({ segment = S })");
    }
    const char *src = rd(L, a);
    GpuArray *r = new_like(L, a, a->dtype);
    RevCtx c = {src, r->host, a->n, seg > 0 && (size_t)seg < a->n ? (size_t)seg : (a->n ? a->n : 1),
                dtype_size(a->dtype)};
    par_for(a->n, ARRAY_CHUNK, PAR_MIN_ELEMS, reverse_range, &c);
    return 1;
}

static int ref_scan(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    bool inclusive = true;
    lua_Integer seg = 0;
    if (lua_istable(L, 2)) {
        lua_getfield(L, 2, "inclusive");
        if (!lua_isnil(L, -1)) inclusive = lua_toboolean(L, -1);
        lua_pop(L, 1);
        lua_getfield(L, 2, "exclusive");
        if (lua_toboolean(L, -1)) inclusive = false;
        lua_pop(L, 1);
        lua_getfield(L, 2, "segment");
        if (!lua_isnil(L, -1)) {
            int ok = 0;
            seg = lua_tointegerx(L, -1, &ok);
            if (!ok || seg < 1) return luaL_error(L, "ref.scan: segment must be a whole number of elements >= 1");
        }
        lua_pop(L, 1);
    }
    rd(L, a);
    GpuArray *r = new_like(L, a, a->dtype);
    size_t nb = (a->n + REF_BLOCK - 1) / REF_BLOCK;
    ScanCtx c = {a, r, inclusive, (size_t)seg, calloc(nb ? nb : 1, sizeof(double)),
                 calloc(nb ? nb : 1, sizeof(uint64_t)), calloc(nb ? nb : 1, 1)};
    if (!c.tot || !c.itot || !c.cut) {
        free(c.tot);
        free(c.itot);
        free(c.cut);
        return luaL_error(L, "ref.scan: out of memory");
    }
    if (nb > 1) par_for(a->n, REF_BLOCK, PAR_MIN_ELEMS, scan_totals, &c);
    double s = 0;
    uint64_t is = 0;
    for (size_t b = 0; b < nb; b++) {   /* each block's total becomes the total before it */
        double t = c.tot[b];
        uint64_t it = c.itot[b];
        c.tot[b] = s;
        c.itot[b] = is;
        s = c.cut[b] ? t : s + t;
        is = c.cut[b] ? it : is + it;
    }
    par_for(a->n, REF_BLOCK, PAR_MIN_ELEMS, scan_blocks, &c);
    free(c.tot);
    free(c.itot);
    free(c.cut);
    return 1;
}

/* qsort comparators per dtype; NaNs sort last. */
#define CMP_FN(name, T)                                                   \
    static int name(const void *pa, const void *pb) {                    \
        T x = *(const T *)pa, y = *(const T *)pb;                        \
        if (x != x) return y != y ? 0 : 1;                               \
        if (y != y) return -1;                                           \
        return (x > y) - (x < y);                                        \
    }
CMP_FN(cmp_f32, float)
CMP_FN(cmp_f64, double)
CMP_FN(cmp_i32, int32_t)
CMP_FN(cmp_u32, uint32_t)
CMP_FN(cmp_i64, int64_t)
CMP_FN(cmp_u64, uint64_t)
CMP_FN(cmp_i8, int8_t)
CMP_FN(cmp_u8, uint8_t)
CMP_FN(cmp_i16, int16_t)
CMP_FN(cmp_u16, uint16_t)

/* f16 and bf16 (stored as bits) by value. */
#define CMP_HALF(name, decode)                                            \
    static int name(const void *pa, const void *pb) {                    \
        double x = decode(*(const uint16_t *)pa), y = decode(*(const uint16_t *)pb); \
        if (x != x) return y != y ? 0 : 1;                               \
        if (y != y) return -1;                                           \
        return (x > y) - (x < y);                                        \
    }
CMP_HALF(cmp_f16, f16_to_double)
CMP_HALF(cmp_bf16, bf16_to_double)

static int ref_sort(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    const void *src = rd(L, a);
    GpuArray *r = new_like(L, a, a->dtype);
    /* qsort's comparisons through a pointer cost a few multiply-adds each */
    RefCacheCall cc;
    ref_cache_begin(&cc, "sort", REF_SORT_VERSION, 4.0 * (double)a->n * log2((double)a->n + 1));
    cache_add_array(&cc, "a", a, src);
    if (cache_lookup(&cc, r)) {
        cache_finish(L, &cc, r);
        return 1;
    }
    memcpy(r->host, src, a->n * dtype_size(a->dtype));
    static int (*const cmps[DT_COUNT])(const void *, const void *) = {
        [DT_F32] = cmp_f32, [DT_F64] = cmp_f64, [DT_I32] = cmp_i32, [DT_U32] = cmp_u32, [DT_I64] = cmp_i64,
        [DT_U64] = cmp_u64, [DT_I8] = cmp_i8,   [DT_U8] = cmp_u8,   [DT_I16] = cmp_i16, [DT_U16] = cmp_u16,
        [DT_F16] = cmp_f16, [DT_BF16] = cmp_bf16,
    };
    assert(cmps[r->dtype]);
    qsort(r->host, r->n, dtype_size(r->dtype), cmps[r->dtype]);
    cache_finish(L, &cc, r);
    return 1;
}

/* ref.map(a, function(x, i) ... end [, dtype]): plain Lua for anything else. */
static int ref_map(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    DType dt = a->dtype;
    if (!lua_isnoneornil(L, 3) && !dtype_parse(luaL_checkstring(L, 3), &dt))
        return luaL_argerror(L, 3, "unknown dtype");
    rd(L, a);
    GpuArray *r = new_like(L, a, dt);
    int ri = lua_gettop(L);
    for (size_t i = 0; i < a->n; i++) {
        lua_pushvalue(L, 2);
        if (dtype_is_float(a->dtype)) lua_pushnumber(L, array_get(a, i));
        else lua_pushinteger(L, array_get_i64(a, i));
        lua_pushinteger(L, (lua_Integer)i);
        lua_call(L, 2, 1);
        int ok = 0;
        if (dtype_is_float(dt)) {
            double v = lua_tonumberx(L, -1, &ok);
            if (!ok) return luaL_error(L, "ref.map: the function returned %s for element %I, not a number",
                                       luaL_typename(L, -1), (lua_Integer)i);
            array_set(r, i, v);
        } else {
            lua_Integer v = lua_tointegerx(L, -1, &ok);
            if (!ok) return luaL_error(L, "ref.map: the function returned %s for element %I, but the result is %s (integers)",
                                       luaL_tolstring(L, -1, NULL), (lua_Integer)i, dtype_name(dt));
            array_set_i64(r, i, v);
        }
        lua_settop(L, ri);
    }
    return 1;
}

/* One sum per block of `block` consecutive elements (the last may be short). */
typedef struct BlockSumsCtx {
    const GpuArray *a;
    GpuArray *r;
    size_t block;
} BlockSumsCtx;

static void block_sums_range(void *p, int k, size_t o0, size_t o1) {
    (void)k;
    const BlockSumsCtx *c = p;
    bool fl = dtype_is_float(c->a->dtype);
    double x[ARRAY_CHUNK];
    int64_t ix[ARRAY_CHUNK];
    for (size_t b = o0; b < o1; b++) {
        size_t e0 = b * c->block, e1 = e0 + c->block < c->a->n ? e0 + c->block : c->a->n;
        double s = 0;
        uint64_t is = 0;
        for (size_t j = e0; j < e1; j += ARRAY_CHUNK) {
            size_t m = e1 - j < ARRAY_CHUNK ? e1 - j : ARRAY_CHUNK;
            if (fl) {
                array_load_f64(c->a, j, m, x);
                for (size_t q = 0; q < m; q++) s += x[q];
            } else {
                array_load_i64(c->a, j, m, ix);
                for (size_t q = 0; q < m; q++) is += (uint64_t)ix[q];
            }
        }
        put(c->r, b, s, (int64_t)is);
    }
}

/* ref.block_sums(a, block, {groups = G, abs =, dtype =}): element i goes
 * to sum (i // block) % G, the block a grid-stride loop of G blocks gives it. */
static int block_sums_grouped(lua_State *L, GpuArray *a, size_t block) {
    lua_getfield(L, 3, "groups");
    lua_Integer groups = luaL_checkinteger(L, -1);
    if (groups <= 0) return luaL_error(L, "ref.block_sums: groups must be positive");
    lua_getfield(L, 3, "abs");
    bool absv = lua_toboolean(L, -1);
    lua_getfield(L, 3, "dtype");
    DType dt = a->dtype;
    if (!lua_isnil(L, -1) && !dtype_parse(luaL_checkstring(L, -1), &dt))
        return luaL_error(L, "ref.block_sums: unknown dtype '%s'", lua_tostring(L, -1));
    lua_pop(L, 3);
    rd(L, a);
    size_t ng = (size_t)groups;
    GpuArray *r = array_push_new(L, dt, 1, &ng);
    double *s = calloc(ng, sizeof *s), x[ARRAY_CHUNK];
    if (!s) return luaL_error(L, "ref.block_sums: out of memory");
    for (size_t j = 0; j < a->n; j += ARRAY_CHUNK) {
        size_t m = a->n - j < ARRAY_CHUNK ? a->n - j : ARRAY_CHUNK;
        array_load_f64(a, j, m, x);
        for (size_t q = 0; q < m; q++) s[((j + q) / block) % ng] += absv ? fabs(x[q]) : x[q];
    }
    store_rounded(r, 0, ng, s);
    free(s);
    return 1;
}

static int ref_block_sums(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    lua_Integer block = luaL_checkinteger(L, 2);
    if (block <= 0) return luaL_error(L, "ref.block_sums: block must be positive");
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        static const char *const keys[] = {"groups", "abs", "dtype", NULL};
        sandbox_check_keys(L, 3, "ref.block_sums has no option", keys);
        return block_sums_grouped(L, a, (size_t)block);
    }
    rd(L, a);
    size_t nb = (a->n + (size_t)block - 1) / (size_t)block;
    GpuArray *r = array_push_new(L, a->dtype, 1, &nb);
    BlockSumsCtx c = {a, r, (size_t)block};
    par_for(nb, 1, a->n >= PAR_MIN_ELEMS ? 2 : nb + 1, block_sums_range, &c);
    return 1;
}

/* ref.window(a, radius, op [, {boundary =, scale =, dtype =}]): each
 * element's neighbourhood (1-D: i-r .. i+r; 2-D: radius {ry, rx} around
 * [y][x]) reduced by op: "sum", "mean", "min", "max", "median" (the middle
 * of the sorted window; of an even count the lower one) or a table of
 * weights (row-major over the window: a weighted sum). boundary "skip"
 * (default) leaves neighbours outside the array out (so a weighted sum pads
 * with zeros and a mean divides by the neighbours there are), "clamp" takes
 * the nearest edge element instead. Accumulates in double, in window
 * order, then times scale, rounded once to dtype (default a's). */
enum { WIN_SUM, WIN_MEAN, WIN_MIN, WIN_MAX, WIN_MEDIAN, WIN_WEIGHTS };
#define WIN_MAX_ELEMS 4096
typedef struct WinCtx {
    const double *x;             /* a as doubles */
    GpuArray *r;
    size_t rows, cols;           /* 1-D: rows = 1 */
    long ry, rx;
    int op;
    bool clamp;
    double scale;
    const double *w;             /* WIN_WEIGHTS: (2ry+1)(2rx+1) */
} WinCtx;

static int cmp_dbl(const void *pa, const void *pb) {
    double x = *(const double *)pa, y = *(const double *)pb;
    return (x > y) - (x < y);
}

static void window_range(void *p, int k, size_t i0, size_t i1) {
    (void)k;
    const WinCtx *c = p;
    double vals[WIN_MAX_ELEMS], out[ARRAY_CHUNK];
    size_t m = 0, o0 = i0;
    for (size_t i = i0; i < i1; i++) {
        long y = (long)(i / c->cols), x = (long)(i % c->cols);
        int cnt = 0;
        double acc = 0;
        for (long dy = -c->ry; dy <= c->ry; dy++)
            for (long dx = -c->rx; dx <= c->rx; dx++) {
                long yy = y + dy, xx = x + dx;
                if (c->clamp) {
                    yy = yy < 0 ? 0 : yy >= (long)c->rows ? (long)c->rows - 1 : yy;
                    xx = xx < 0 ? 0 : xx >= (long)c->cols ? (long)c->cols - 1 : xx;
                } else if (yy < 0 || yy >= (long)c->rows || xx < 0 || xx >= (long)c->cols) {
                    continue;
                }
                double v = c->x[(size_t)yy * c->cols + (size_t)xx];
                if (c->op == WIN_WEIGHTS) acc += c->w[(dy + c->ry) * (2 * c->rx + 1) + dx + c->rx] * v;
                else if (c->op == WIN_SUM || c->op == WIN_MEAN) acc += v;
                vals[cnt++] = v;
            }
        double v = acc;
        if (c->op == WIN_MEAN) v = cnt ? acc / cnt : 0;
        else if (c->op == WIN_MIN || c->op == WIN_MAX) {
            v = cnt ? vals[0] : 0;
            for (int q = 1; q < cnt; q++) v = c->op == WIN_MIN ? (vals[q] < v ? vals[q] : v) : (vals[q] > v ? vals[q] : v);
        } else if (c->op == WIN_MEDIAN) {
            qsort(vals, (size_t)cnt, sizeof vals[0], cmp_dbl);
            v = cnt ? vals[(cnt - 1) / 2] : 0;
        }
        out[m++] = v * c->scale;
        if (m == ARRAY_CHUNK || i + 1 == i1) {
            store_rounded(c->r, o0, m, out);
            o0 += m;
            m = 0;
        }
    }
}

static int ref_window(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    WinCtx c = {.r = NULL, .rows = 1, .cols = a->n, .scale = 1};
    if (a->ndim == 2) {
        c.rows = a->shape[0];
        c.cols = a->shape[1];
    }
    if (lua_istable(L, 2)) {
        if (a->ndim != 2) return luaL_error(L, "ref.window: a radius {ry, rx} is for a 2-D array");
        lua_rawgeti(L, 2, 1);
        lua_rawgeti(L, 2, 2);
        c.ry = (long)luaL_checkinteger(L, -2);
        c.rx = (long)luaL_checkinteger(L, -1);
        lua_pop(L, 2);
    } else {
        c.rx = (long)luaL_checkinteger(L, 2);
        if (a->ndim == 2) c.ry = c.rx;
    }
    if (c.ry < 0 || c.rx < 0 || (2 * c.ry + 1) * (2 * c.rx + 1) > WIN_MAX_ELEMS)
        return luaL_error(L, "ref.window: the window must have 1 to %d elements", WIN_MAX_ELEMS);
    size_t nw = (size_t)((2 * c.ry + 1) * (2 * c.rx + 1));
    static const char *const ops[] = {"sum", "mean", "min", "max", "median", NULL};
    if (lua_istable(L, 3)) {
        c.op = WIN_WEIGHTS;
        if ((size_t)lua_rawlen(L, 3) != nw)
            return luaL_error(L, "ref.window: %I weights for a window of %I elements", (lua_Integer)lua_rawlen(L, 3),
                              (lua_Integer)nw);
    } else {
        c.op = luaL_checkoption(L, 3, NULL, ops);
    }
    DType dt = a->dtype;
    if (!lua_isnoneornil(L, 4)) {
        luaL_checktype(L, 4, LUA_TTABLE);
        static const char *const keys[] = {"boundary", "scale", "dtype", NULL};
        sandbox_check_keys(L, 4, "ref.window has no option", keys);
        lua_getfield(L, 4, "boundary");
        static const char *const bounds[] = {"skip", "clamp", NULL};
        c.clamp = luaL_checkoption(L, -1, "skip", bounds) == 1;
        lua_getfield(L, 4, "scale");
        c.scale = luaL_optnumber(L, -1, 1);
        lua_getfield(L, 4, "dtype");
        if (!lua_isnil(L, -1) && !dtype_parse(luaL_checkstring(L, -1), &dt))
            return luaL_error(L, "ref.window: unknown dtype '%s'", lua_tostring(L, -1));
        lua_pop(L, 3);
    }
    double w[WIN_MAX_ELEMS];
    if (c.op == WIN_WEIGHTS)
        for (size_t q = 0; q < nw; q++) {
            lua_rawgeti(L, 3, (lua_Integer)q + 1);
            w[q] = luaL_checknumber(L, -1);
            lua_pop(L, 1);
        }
    c.w = w;
    const void *ha = rd(L, a);
    c.r = new_like(L, a, dt);
    /* a median sorts each window: about 8 steps per element of it */
    RefCacheCall cc;
    ref_cache_begin(&cc, "window", REF_WINDOW_VERSION, (double)a->n * (double)nw * (c.op == WIN_MEDIAN ? 8 : 1));
    cache_add_array(&cc, "a", a, ha);
    ref_cache_add_u64(&cc, "rows", c.rows);
    ref_cache_add_u64(&cc, "cols", c.cols);
    ref_cache_add_u64(&cc, "ry", (uint64_t)c.ry);
    ref_cache_add_u64(&cc, "rx", (uint64_t)c.rx);
    ref_cache_add_u64(&cc, "op", (uint64_t)c.op);
    ref_cache_add_u64(&cc, "clamp", c.clamp);
    ref_cache_add_f64(&cc, "scale", c.scale);
    ref_cache_add_u64(&cc, "dtype", (uint64_t)dt);
    if (c.op == WIN_WEIGHTS) ref_cache_add(&cc, "weights", w, nw * sizeof w[0]);
    if (cache_lookup(&cc, c.r)) {
        cache_finish(L, &cc, c.r);
        return 1;
    }
    double *x = malloc((a->n ? a->n : 1) * sizeof *x);
    if (!x) {
        ref_cache_end(&cc);
        return luaL_error(L, "ref.window: out of memory");
    }
    array_load_f64(a, 0, a->n, x);
    c.x = x;
    par_for(a->n, ARRAY_CHUNK, PAR_MIN_ELEMS / (nw < 64 ? nw : 64), window_range, &c);
    free(x);
    cache_finish(L, &cc, c.r);
    return 1;
}

/* ref.cast(a, dtype): a's values as dtype (rounded once; integers from
 * integers exactly, wrapping like a C cast). */
typedef struct CastCtx {
    const GpuArray *a;
    GpuArray *r;
} CastCtx;

static void cast_range(void *p, int k, size_t i0, size_t i1) {
    (void)k;
    const CastCtx *c = p;
    bool ints = !dtype_is_float(c->a->dtype) && !dtype_is_float(c->r->dtype);
    double x[ARRAY_CHUNK];
    int64_t ix[ARRAY_CHUNK];
    for (size_t j = i0; j < i1; j += ARRAY_CHUNK) {
        size_t m = i1 - j < ARRAY_CHUNK ? i1 - j : ARRAY_CHUNK;
        if (ints) {
            array_load_i64(c->a, j, m, ix);
            array_store_i64(c->r, j, m, ix);
        } else {
            array_load_f64(c->a, j, m, x);
            store_rounded(c->r, j, m, x);
        }
    }
}

static int ref_cast(lua_State *L) {
    GpuArray *a = array_check(L, 1);
    DType dt;
    if (!dtype_parse(luaL_checkstring(L, 2), &dt)) return luaL_argerror(L, 2, "unknown dtype");
    rd(L, a);
    CastCtx c = {a, new_like(L, a, dt)};
    par_for(a->n, ARRAY_CHUNK, PAR_MIN_ELEMS, cast_range, &c);
    return 1;
}

/* The first largest (smallest) element per range, NaNs skipped. */
typedef struct MinMaxCtx {
    const GpuArray *a;
    bool want_max;
    size_t *best;                /* per range; SIZE_MAX = only NaNs */
} MinMaxCtx;

static void minmax_range(void *p, int k, size_t i0, size_t i1) {
    const MinMaxCtx *c = p;
    size_t best = SIZE_MAX;
    double bv = 0, x[ARRAY_CHUNK];
    for (size_t j = i0; j < i1; j += ARRAY_CHUNK) {
        size_t m = i1 - j < ARRAY_CHUNK ? i1 - j : ARRAY_CHUNK;
        array_load_f64(c->a, j, m, x);
        for (size_t q = 0; q < m; q++) {
            double v = x[q];
            if (v != v) continue;
            if (best == SIZE_MAX || (c->want_max ? v > bv : v < bv)) {
                best = j + q;
                bv = v;
            }
        }
    }
    c->best[k] = best;
}

static int ref_minmax(lua_State *L, bool want_max) {
    GpuArray *a = array_check(L, 1);
    if (a->n == 0) return luaL_error(L, "ref.%s of an empty array", want_max ? "max" : "min");
    rd(L, a);
    /* As a plain scan from element 0 would: a NaN first stays the answer,
     * later NaNs never win, ties keep the first. */
    size_t best = 0;
    double first = array_get(a, 0);
    if (first == first) {
        size_t per[PAR_MAX_RANGES];
        int ranges = par_ranges(a->n, ARRAY_CHUNK, PAR_MIN_ELEMS);
        assert(ranges <= PAR_MAX_RANGES);
        for (int k = 0; k < ranges; k++) per[k] = SIZE_MAX;
        MinMaxCtx c = {a, want_max, per};
        par_for(a->n, ARRAY_CHUNK, PAR_MIN_ELEMS, minmax_range, &c);
        double bv = first;
        for (int k = 0; k < ranges; k++) {
            if (per[k] == SIZE_MAX) continue;
            double v = array_get(a, per[k]);
            if (want_max ? v > bv : v < bv) {
                best = per[k];
                bv = v;
            }
        }
    }
    if (dtype_is_float(a->dtype)) lua_pushnumber(L, array_get(a, best));
    else lua_pushinteger(L, array_get_i64(a, best));
    return 1;
}

static int ref_max(lua_State *L) { return ref_minmax(L, true); }
static int ref_min(lua_State *L) { return ref_minmax(L, false); }

void ref_push_module(lua_State *L) {
    static const luaL_Reg fns[] = {
        {"add", ref_add},         {"axpy", ref_axpy},   {"scale", ref_scale},
        {"sum", ref_sum},         {"dot", ref_dot},     {"matmul", ref_matmul},
        {"transpose", ref_transpose}, {"histogram", ref_histogram}, {"scan", ref_scan},
        {"sort", ref_sort},       {"map", ref_map},     {"reverse", ref_reverse},     {"block_sums", ref_block_sums},
        {"max", ref_max},         {"min", ref_min},     {"window", ref_window},
        {"cast", ref_cast},       {NULL, NULL},
    };
    luaL_newlib(L, fns);
}
