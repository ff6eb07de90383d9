/* tools/mma_fit.c: fits a model of the tensor cores' rounding to a capture
 * of tests/conformance/mma_probe.cu (GPU results, bit by bit). Standalone:
 *   cc -O2 -Wall -Wextra -o build-tensor2/mma_fit tools/mma_fit.c -lm
 *   mma_fit DIR [--op SUBSTR] [--top N] [--model SPEC] [--show N] [key=v1,v2,..]...
 *   mma_fit DIR --synth SPEC   (writes the model's results as D: tests the fitter)
 * Without --model it evaluates every candidate of the grid (each key's list
 * of values; key=v1,v2 narrows it) on every op and prints, per op, the
 * candidates with the most bit-identical elements; --model SPEC (e.g.
 * "blk=8,ext=3") evaluates one candidate, prints the mismatches per tile
 * kind and the first N (--show) mismatching elements with their terms.
 *
 * The model family (all keys, see KEYS): the K products a*b are exact;
 * k runs in blocks of `blk` (in order, or reversed with rev=1); each block
 * of products and the accumulator are added in one sum aligned to the
 * largest term's exponent (aexp=0: the exact value's; 1: ea+eb, the
 * unnormalised product's; 2: ea+eb+1) keeping `ext` bits below a 24-bit significand,
 * each term rounded to that grid by `trnd` (0 toward zero, 1 floor, 2
 * nearest even); the sum rounded to f32 by `frnd` (0 toward zero, 1 nearest
 * even, 2 floor) and (wide=1) kept unrounded between blocks. `cpos`: where
 * C enters (0 as the first block's accumulator; 1 the block sums are
 * rounded and added to C by an IEEE add; 2 added at the end by an IEEE
 * add; 3 joins the last block's sum). tf32 inputs: `tin` 0 top 19 bits, 1
 * rounded to nearest away, 2 nearest even; `ftz` 1 flushes subnormal
 * inputs; f16 results: `o16` 0 from the f32 result rounded to nearest, 1
 * the wide sum rounded to nearest directly, 2 toward zero directly, 3 the
 * accumulator rounded to f16 (nearest) after every block, 4 (toward zero); `zs`:
 * the sign of a zero result (0 +0; 1 IEEE sum's sign when that is zero;
 * 2 the sign of the exact sum); `umin` N > 0: the sum's grid is no finer
 * than 2^-N; `ovf` 1: a result of 2^128 or more is infinite (else the
 * rounding mode's). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TY_F16, TY_BF16, TY_TF32, TY_F32 };

typedef struct Term { double v; int ex, ev; } Term;   /* value, alignment exponent, exponent of v */

typedef struct Op {
    char name[64];
    int M, N, K, at, ct, dt, tiles;
    unsigned char *a, *b, *c, *d;
    char (*kind)[32];
    Term *cterms;          /* op_terms' cache */
    double *cvals;
    int cache_key;
} Op;

enum { K_BLK, K_EXT, K_TRND, K_FRND, K_WIDE, K_CPOS, K_REV, K_AEXP, K_TIN, K_FTZ, K_O16, K_ZS, K_UMIN, K_OVF, K_COUNT };
static const char *KEYS[K_COUNT] = {"blk", "ext", "trnd", "frnd", "wide", "cpos", "rev", "aexp", "tin", "ftz", "o16", "zs", "umin", "ovf"};

typedef struct Model { int v[K_COUNT]; } Model;

/* The emulator's model before this fit (the default of --model). */
static const Model MODEL_EMU = {{8, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};

/* Each key's candidate values (a list ending with -1). */
static int g_grid[K_COUNT][32] = {
    {1, 2, 4, 8, 16, -1},
    {0, 1, 2, 3, 4, 5, 6, 8, 10, 12, -1},
    {0, 1, 2, -1},
    {0, 1, 2, -1},
    {0, 1, -1},
    {0, 1, 2, 3, -1},
    {0, 1, -1},
    {0, 1, -1},
    {0, -1},
    {0, -1},
    {0, -1},
    {0, -1},
    {0, -1},
    {0, -1},
};

/* ---- reading ------------------------------------------------------------------------- */

static int ty_parse(const char *s) {
    if (!strcmp(s, "f16")) return TY_F16;
    if (!strcmp(s, "bf16")) return TY_BF16;
    if (!strcmp(s, "tf32")) return TY_TF32;
    if (!strcmp(s, "f32")) return TY_F32;
    return -1;
}

static int ty_bytes(int t) { return t == TY_F16 || t == TY_BF16 ? 2 : 4; }

/* The whole file DIR/NAME.EXT, which must be n bytes; NULL (and a message) if not. Caller frees. */
static unsigned char *read_exact(const char *dir, const char *name, const char *ext, size_t n) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "mma_fit: cannot open %s\n", path); return NULL; }
    unsigned char *p = malloc(n + 1);
    size_t got = p ? fread(p, 1, n + 1, f) : 0;
    fclose(f);
    if (!p || got != n) {
        fprintf(stderr, "mma_fit: %s: %zu bytes, expected %zu\n", path, got, n);
        free(p);
        return NULL;
    }
    return p;
}

static bool op_load(const char *dir, Op *op) {
    size_t t = (size_t)op->tiles;
    op->a = read_exact(dir, op->name, "a", t * op->M * op->K * ty_bytes(op->at));
    op->b = read_exact(dir, op->name, "b", t * op->K * op->N * ty_bytes(op->at));
    op->c = read_exact(dir, op->name, "c", t * op->M * op->N * ty_bytes(op->ct));
    op->d = read_exact(dir, op->name, "d", t * op->M * op->N * ty_bytes(op->dt));
    op->kind = calloc(t, sizeof *op->kind);
    if (!op->a || !op->b || !op->c || !op->d || !op->kind) return false;
    char path[4096], line[128];
    snprintf(path, sizeof path, "%s/%s.kinds", dir, op->name);
    FILE *f = fopen(path, "r");
    if (!f) { fprintf(stderr, "mma_fit: cannot open %s\n", path); return false; }
    while (fgets(line, sizeof line, f)) {
        int i;
        char k[32];
        if (sscanf(line, "%d %31s", &i, k) == 2 && i >= 0 && i < op->tiles) snprintf(op->kind[i], 32, "%s", k);
    }
    fclose(f);
    return true;
}

/* ---- numbers ------------------------------------------------------------------------- */

static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static double f16_val(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* Round an exact double to f16 bits: nearest even (rz=0) or toward zero (rz=1). */
static uint16_t f16_round(double x, int rz) {
    if (isnan(x)) return 0x7fff;
    uint16_t s = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    if (isinf(a)) return s | 0x7c00;
    if (a == 0) return s;
    int e = ilogb(a);
    if (e < -14) e = -14;
    double q = ldexp(a, 10 - e);       /* significand scaled to an integer grid */
    double r = rz ? floor(q) : nearbyint(q);
    double v = ldexp(r, e - 10);
    if (v >= 65520.0 || (rz && v > 65504.0)) return rz ? (s | 0x7bff) : (s | 0x7c00);
    if (v > 65504.0) return s | 0x7c00;
    /* v is representable: encode */
    if (v < ldexp(1.0, -14)) return s | (uint16_t)ldexp(v, 24);
    int ve = ilogb(v);
    return s | (uint16_t)((ve + 15) << 10) | (uint16_t)(ldexp(v, 10 - ve) - 1024);
}

/* An exact double rounded to f32: 0 toward zero, 1 nearest even, 2 floor. */
static float f32_round(double x, int mode) {
    float f = (float)x;   /* nearest even (the FPU's mode) */
    if (mode == 0 && fabs((double)f) > fabs(x)) f = nextafterf(f, 0.0f);
    if (mode == 2 && (double)f > x) f = nextafterf(f, -INFINITY);
    return f;
}

/* Input element i of matrix bits p (type t) as a value, and its exponent
 * field (unbiased; subnormals and zero: emin). */
static double in_val(const unsigned char *p, size_t i, int t, const Model *m, int *ex) {
    uint32_t u;
    double v;
    if (t == TY_F16) {
        uint16_t h;
        memcpy(&h, p + 2 * i, 2);
        v = f16_val(h);
        int e = (h >> 10) & 31;
        *ex = e ? e - 15 : -14;
        if (m->v[K_FTZ] && e == 0) v = 0;
        return v;
    }
    if (t == TY_BF16) {
        uint16_t h;
        memcpy(&h, p + 2 * i, 2);
        u = (uint32_t)h << 16;
    } else {
        memcpy(&u, p + 4 * i, 4);
        if (t == TY_TF32 && (u & 0x7f800000u) != 0x7f800000u) {   /* inf and NaN stay as they are */
            if (m->v[K_TIN] == 1) u += 0x1000u;
            else if (m->v[K_TIN] == 2) u += 0xfffu + ((u >> 13) & 1);
            u &= 0xffffe000u;
        }
    }
    int e = (u >> 23) & 255;
    *ex = e ? e - 127 : -126;
    v = u2f(u);
    if (m->v[K_FTZ] && e == 0) v = 0;
    return v;
}

static double out_c(const Op *op, size_t i) {
    if (op->ct == TY_F16) {
        uint16_t h;
        memcpy(&h, op->c + 2 * i, 2);
        return f16_val(h);
    }
    uint32_t u;
    memcpy(&u, op->c + 4 * i, 4);
    return u2f(u);
}

static uint32_t out_d(const Op *op, size_t i) {
    if (op->dt == TY_F16) {
        uint16_t h;
        memcpy(&h, op->d + 2 * i, 2);
        return h;
    }
    uint32_t u;
    memcpy(&u, op->d + 4 * i, 4);
    return u;
}

/* ---- the model ----------------------------------------------------------------------- */

static int exp_of(double v) { return ilogb(v); }

/* acc + terms in one aligned sum: returns the exact (grid) result as a double;
 * *exact gets the exact sum for the sign of zero. */
static double fused(const Model *m, double acc, const Term *t, int n) {
    if (!isfinite(acc)) {   /* an earlier block overflowed: IEEE from here on */
        for (int i = 0; i < n; i++) acc += t[i].v;
        return acc;
    }
    int emax = INT32_MIN;
    if (acc != 0) emax = exp_of(acc);
    if (acc != 0 && m->v[K_AEXP] && emax < -126) emax = -126;   /* the exponent field of a subnormal */
    for (int i = 0; i < n; i++) {
        if (t[i].v == 0) continue;
        int e = m->v[K_AEXP] ? t[i].ex + (m->v[K_AEXP] == 2) : t[i].ev;
        if (e > emax) emax = e;
    }
    if (emax == INT32_MIN) return 0.0;
    int ue = emax - 23 - m->v[K_EXT];
    if (m->v[K_UMIN] && ue < -m->v[K_UMIN]) ue = -m->v[K_UMIN];
    double unit = ldexp(1.0, ue);
    int64_t sum = 0;
    int tr = m->v[K_TRND];
    double q = acc / unit;
    sum += (int64_t)(tr == 0 ? trunc(q) : tr == 1 ? floor(q) : nearbyint(q));
    for (int i = 0; i < n; i++) {
        q = t[i].v / unit;
        sum += (int64_t)(tr == 0 ? trunc(q) : tr == 1 ? floor(q) : nearbyint(q));
    }
    return (double)sum * unit;
}

/* The accumulator rounded to f32 under m. */
static double acc_round(const Model *m, double x) {
    if (m->v[K_OVF] && fabs(x) >= 0x1p128) return x > 0 ? INFINITY : -INFINITY;
    return f32_round(x, m->v[K_FRND]);
}

/* One output element: C and the K products. Returns the result's bits (f32 or f16). */
static uint32_t model_elem(const Model *m, const Op *op, double c, const Term *p) {
    int K = op->K;
    /* specials: IEEE */
    double plain = c;
    bool finite = isfinite(c);
    for (int k = 0; k < K; k++) {
        plain += p[k].v;
        finite = finite && isfinite(p[k].v);
    }
    if (!finite || isnan(plain)) {
        if (isnan(plain)) return op->dt == TY_F16 ? 0x7fffu : 0x7fffffffu;
        return op->dt == TY_F16 ? f16_round(plain, 0) : f2u((float)plain);
    }
    int blk = m->v[K_BLK], nb = (K + blk - 1) / blk, cpos = m->v[K_CPOS], fr = m->v[K_FRND];
    bool wide = m->v[K_WIDE] != 0;
    double acc = cpos == 0 || cpos == 1 ? c : 0.0;
    for (int bi = 0; bi < nb; bi++) {
        int b = m->v[K_REV] ? nb - 1 - bi : bi;
        int k0 = b * blk, n = K - k0 < blk ? K - k0 : blk;
        if (cpos == 1) {
            double s = fused(m, 0.0, p + k0, n);
            if (!wide) s = acc_round(m, s);
            acc = wide ? acc + s : (double)(float)(acc + s);
            continue;
        }
        double a = acc;
        if (cpos == 3 && bi == nb - 1) {
            /* C joins the last block: as one more term */
            Term t[17];
            memcpy(t, p + k0, (size_t)n * sizeof *t);
            t[n].v = c;
            t[n].ex = t[n].ev = c != 0 ? exp_of(c) : 0;
            acc = fused(m, a, t, n + 1);
        } else {
            acc = fused(m, a, p + k0, n);
        }
        if (!wide) acc = acc_round(m, acc);
        if (op->dt == TY_F16 && m->v[K_O16] >= 3) acc = f16_val(f16_round(acc, m->v[K_O16] == 4));
    }
    if (cpos == 2) acc = wide ? acc + c : (double)(float)(acc + c);
    if (op->dt == TY_F16) {
        int o = m->v[K_O16];
        uint16_t h = o == 0 ? f16_round(f32_round(acc, fr), 0) : f16_round(acc, o == 2);
        if ((h & 0x7fff) == 0) {
            int zs = m->v[K_ZS];
            h = (zs == 1 && plain == 0 && signbit(plain)) || (zs == 2 && signbit(plain)) ? 0x8000 : 0;
            if (acc != 0 && zs != 2) h = signbit(acc) ? 0x8000 : 0;
        }
        return h;
    }
    float f = (float)acc_round(m, acc);
    if (f == 0) {
        int zs = m->v[K_ZS];
        bool neg = (zs == 1 && plain == 0 && signbit(plain)) || (zs == 2 && signbit(plain));
        if (acc != 0 && zs != 2) neg = signbit(acc);   /* a nonzero sum rounded to zero keeps its sign */
        f = neg ? -0.0f : 0.0f;
    }
    return f2u(f);
}

/* Element (tile, i, j)'s C and products under m. */
static double elem_terms(const Model *m, const Op *op, int tile, int i, int j, Term *p) {
    int M = op->M, N = op->N, K = op->K;
    for (int k = 0; k < K; k++) {
        int ea, eb;
        double a = in_val(op->a, (size_t)tile * M * K + (size_t)i * K + k, op->at, m, &ea);
        double b = in_val(op->b, (size_t)tile * K * N + (size_t)k * N + j, op->at, m, &eb);
        p[k].v = a * b;
        p[k].ex = ea + eb;
        p[k].ev = p[k].v != 0 && isfinite(p[k].v) ? exp_of(p[k].v) : 0;
    }
    return out_c(op, (size_t)tile * M * N + (size_t)i * N + j);
}

/* Every element's C and products for the input options (tin, ftz) of m,
 * computed once: op->cache holds the last ones. */
static const Term *op_terms(const Model *m, Op *op, const double **cs) {
    int key = m->v[K_TIN] * 2 + m->v[K_FTZ];
    size_t n = (size_t)op->tiles * op->M * op->N;
    if (!op->cterms || op->cache_key != key) {
        if (!op->cterms) {
            op->cterms = calloc(n * 16, sizeof *op->cterms);
            op->cvals = calloc(n, sizeof *op->cvals);
        }
        size_t e = 0;
        for (int t = 0; t < op->tiles; t++)
            for (int i = 0; i < op->M; i++)
                for (int j = 0; j < op->N; j++, e++) op->cvals[e] = elem_terms(m, op, t, i, j, op->cterms + e * 16);
        op->cache_key = key;
    }
    *cs = op->cvals;
    return op->cterms;
}

static long model_score(const Model *m, Op *op) {
    long ok = 0;
    const double *cs;
    const Term *ps = op_terms(m, op, &cs);
    size_t n = (size_t)op->tiles * op->M * op->N;
    for (size_t e = 0; e < n; e++) ok += model_elem(m, op, cs[e], ps + e * 16) == out_d(op, e);
    return ok;
}

/* ---- reporting ----------------------------------------------------------------------- */

static void model_str(const Model *m, char *buf, size_t n) {
    size_t o = 0;
    for (int k = 0; k < K_COUNT && o < n; k++)
        o += (size_t)snprintf(buf + o, n - o, "%s%s=%d", k ? "," : "", KEYS[k], m->v[k]);
}

static bool model_parse(const char *s, Model *m) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *eq = strchr(tok, '=');
        if (!eq) return false;
        *eq = 0;
        int k;
        for (k = 0; k < K_COUNT && strcmp(KEYS[k], tok); k++) { }
        if (k == K_COUNT) { fprintf(stderr, "mma_fit: unknown key %s\n", tok); return false; }
        m->v[k] = atoi(eq + 1);
    }
    return true;
}

static void hexval(char *buf, size_t n, const Op *op, uint32_t bits) {
    if (op->dt == TY_F16) snprintf(buf, n, "%04x (%.9g)", bits, f16_val((uint16_t)bits));
    else snprintf(buf, n, "%08x (%.9g)", bits, (double)u2f(bits));
}

static void model_explain(const Model *m, const Op *op, int show) {
    long ok = 0, total = 0;
    /* per kind */
    char kinds[64][32];
    long kok[64] = {0}, ktot[64] = {0};
    int nk = 0, shown = 0;
    Term p[16];
    for (int t = 0; t < op->tiles; t++) {
        int ki;
        for (ki = 0; ki < nk && strcmp(kinds[ki], op->kind[t]); ki++) { }
        if (ki == nk && nk < 64) snprintf(kinds[nk++], 32, "%s", op->kind[t]);
        for (int i = 0; i < op->M; i++)
            for (int j = 0; j < op->N; j++) {
                double c = elem_terms(m, op, t, i, j, p);
                uint32_t want = out_d(op, ((size_t)t * op->M + i) * op->N + j);
                uint32_t got = model_elem(m, op, c, p);
                total++;
                ktot[ki]++;
                if (got == want) { ok++; kok[ki]++; continue; }
                if (shown++ >= show) continue;
                char g[64], w[64];
                hexval(g, sizeof g, op, got);
                hexval(w, sizeof w, op, want);
                double exact = c;
                for (int k = 0; k < op->K; k++) exact += p[k].v;   /* approximate when not exact */
                printf("  tile %d (%s) [%d][%d]: gpu %s model %s exact~%.17g\n    c=%a", t, op->kind[t], i, j, w, g,
                       exact, c);
                for (int k = 0; k < op->K; k++) printf(" p%d=%a", k, p[k].v);
                printf("\n");
            }
    }
    char ms[256];
    model_str(m, ms, sizeof ms);
    printf("%s: %s: %ld of %ld bit-identical\n", op->name, ms, ok, total);
    for (int k = 0; k < nk; k++) printf("  %-14s %6ld of %6ld\n", kinds[k], kok[k], ktot[k]);
}

/* --synth: overwrite DIR/OP.d with the model's results (to test the fitter). */
static void model_synth(const Model *m, const Op *op, const char *dir) {
    Term p[16];
    int sz = op->dt == TY_F16 ? 2 : 4;
    for (int t = 0; t < op->tiles; t++)
        for (int i = 0; i < op->M; i++)
            for (int j = 0; j < op->N; j++) {
                double c = elem_terms(m, op, t, i, j, p);
                uint32_t v = model_elem(m, op, c, p);
                size_t e = ((size_t)t * op->M + i) * op->N + j;
                if (sz == 2) { uint16_t h = (uint16_t)v; memcpy(op->d + 2 * e, &h, 2); }
                else memcpy(op->d + 4 * e, &v, 4);
            }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.d", dir, op->name);
    FILE *f = fopen(path, "wb");
    size_t n = (size_t)op->tiles * op->M * op->N * sz;
    if (!f || fwrite(op->d, 1, n, f) != n || fclose(f) != 0) fprintf(stderr, "mma_fit: cannot write %s\n", path);
    else printf("%s: wrote %s\n", op->name, path);
}

typedef struct Scored { Model m; long ok; } Scored;

static int cmp_scored(const void *a, const void *b) {
    long x = ((const Scored *)a)->ok, y = ((const Scored *)b)->ok;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Every combination of the grid's values, scored on op; prints the best `top`. */
static void grid_search(Op *op, int top) {
    size_t n = 1;
    int cnt[K_COUNT];
    for (int k = 0; k < K_COUNT; k++) {
        for (cnt[k] = 0; g_grid[k][cnt[k]] >= 0; cnt[k]++) { }
        n *= (size_t)cnt[k];
    }
    Scored *s = calloc(n, sizeof *s);
    size_t ns = 0;
    for (size_t idx = 0; idx < n; idx++) {
        size_t r = idx;
        Model m;
        for (int k = 0; k < K_COUNT; k++) {
            m.v[k] = g_grid[k][r % (size_t)cnt[k]];
            r /= (size_t)cnt[k];
        }
        if (m.v[K_BLK] > op->K) continue;
        if (op->dt != TY_F16 && m.v[K_O16] != g_grid[K_O16][0]) continue;
        if (op->at != TY_TF32 && m.v[K_TIN] != g_grid[K_TIN][0]) continue;
        if (m.v[K_BLK] == op->K && (m.v[K_REV] || m.v[K_CPOS] == 3)) continue;
        s[ns].m = m;
        s[ns].ok = model_score(&m, op);
        ns++;
    }
    qsort(s, ns, sizeof *s, cmp_scored);
    long total = (long)op->tiles * op->M * op->N;
    printf("%s (%d tiles, %ld elements, %zu candidates):\n", op->name, op->tiles, total, ns);
    for (size_t i = 0; i < ns && i < (size_t)top; i++) {
        char ms[256];
        model_str(&s[i].m, ms, sizeof ms);
        printf("  %6ld %s\n", s[i].ok, ms);
    }
    free(s);
}

int main(int argc, char **argv) {
    const char *dir = NULL, *opf = NULL, *spec = NULL;
    int top = 10, show = 10;
    bool synth = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--op") && i + 1 < argc) opf = argv[++i];
        else if (!strcmp(argv[i], "--top") && i + 1 < argc) top = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--show") && i + 1 < argc) show = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--model") && i + 1 < argc) spec = argv[++i];
        else if (!strcmp(argv[i], "--synth") && i + 1 < argc) { spec = argv[++i]; synth = true; }
        else if (strchr(argv[i], '=')) {
            char *eq = strchr(argv[i], '=');
            int k;
            for (k = 0; k < K_COUNT && strncmp(KEYS[k], argv[i], (size_t)(eq - argv[i])); k++) { }
            if (k == K_COUNT) { fprintf(stderr, "mma_fit: unknown key in %s\n", argv[i]); return 2; }
            int n = 0;
            for (char *p = eq + 1; *p && n < 31;) {
                g_grid[k][n++] = (int)strtol(p, &p, 10);
                if (*p == ',') p++;
                else break;
            }
            g_grid[k][n] = -1;
        } else if (!dir) dir = argv[i];
        else { fprintf(stderr, "mma_fit: unexpected argument %s\n", argv[i]); return 2; }
    }
    if (!dir) {
        fprintf(stderr, "usage: mma_fit DIR [--op SUBSTR] [--top N] [--model SPEC] [--show N] [key=v1,v2..]\n");
        return 2;
    }
    char path[4096], line[256];
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    FILE *mf = fopen(path, "r");
    if (!mf) { fprintf(stderr, "mma_fit: cannot open %s\n", path); return 1; }
    int lineno = 0;
    while (fgets(line, sizeof line, mf)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n') continue;
        Op op;
        memset(&op, 0, sizeof op);
        char at[16], ct[16], dt[16];
        if (sscanf(line, "op %63s %d %d %d %15s %15s %15s %d", op.name, &op.M, &op.N, &op.K, at, ct, dt, &op.tiles) != 8 ||
            (op.at = ty_parse(at)) < 0 || (op.ct = ty_parse(ct)) < 0 || (op.dt = ty_parse(dt)) < 0 || op.K > 16 ||
            op.M > 16 || op.N > 16 || op.tiles <= 0) {
            fprintf(stderr, "mma_fit: %s:%d: not an op line\n", path, lineno);
            fclose(mf);
            return 1;
        }
        if (opf && !strstr(op.name, opf)) continue;
        if (!op_load(dir, &op)) { fclose(mf); return 1; }
        if (spec) {
            Model m = MODEL_EMU;
            if (!model_parse(spec, &m)) { fclose(mf); return 2; }
            if (synth) model_synth(&m, &op, dir);
            else model_explain(&m, &op, show);
        } else {
            grid_search(&op, top);
        }
        fflush(stdout);
        free(op.a); free(op.b); free(op.c); free(op.d); free(op.kind); free(op.cterms); free(op.cvals);
    }
    fclose(mf);
    return 0;
}
