/* lua/check.c: the comparisons behind t:expect_equal and t:expect_close.
 *
 * A failed check must tell the learner what to look at: how many elements
 * are wrong out of how many, and the first few (index as [i] or [r][c],
 * got, want) formatted so that two different floats never print the same
 * (%.9g for f32, %.17g for f64). Values are compared in double, integers of
 * both sides exactly (a u64 above 2^53 must not pass by rounding). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "lua/api.h"
#include "lua/par.h"

/* An integer as sign and magnitude, so i64 and u64 compare exactly. */
typedef struct IntVal {
    bool neg;
    uint64_t mag;
} IntVal;

static IntVal int_val(const GpuArray *a, size_t i) {
    IntVal v;
    if (dtype_is_signed(a->dtype)) {
        int64_t x = array_get_i64(a, i);
        v.neg = x < 0;
        v.mag = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
    } else {
        v.neg = false;
        v.mag = array_get_u64(a, i);
    }
    return v;
}

static bool close_enough(double g, double w, const CheckOpts *o) {
    if (g != g || w != w) return !o->close && g != g && w != w; /* NaN: only equal() matches NaN with NaN */
    if (g == w) return true;
    if (!o->close) return false;
    return fabs(g - w) <= o->abs + o->rel * fabs(w);
}

static void fmt_number(DType dt, double v, char *buf, size_t n) {
    if (dt == DT_F32) snprintf(buf, n, "%.9g", v);
    else if (dtype_is_float(dt) || v != floor(v) || fabs(v) >= 9.007199254740992e15) snprintf(buf, n, "%.17g", v);
    else snprintf(buf, n, "%.0f", v);
}

static void tolerance_note(StrBuf *sb, const CheckOpts *o, double want) {
    if (o->close) strbuf_printf(sb, N_(" (allowed error %.3g)"), o->abs + o->rel * fabs(want));
}

/* What one range of a comparison found. */
typedef struct CmpRange {
    long long wrong;
    size_t first[CHECK_MAX_MISMATCHES];
    int n_first;
} CmpRange;

typedef struct CmpCtx {
    const GpuArray *g, *w;
    double wv;
    const CheckOpts *o;
    bool exact_ints;             /* both integers, expect_equal: exactly, beyond 2^53 too */
    bool same_bytes;             /* same dtype, expect_equal: equal bytes are equal values */
    CmpRange out[PAR_MAX_RANGES];
} CmpCtx;

static void note_wrong(CmpRange *out, size_t i) {
    if (out->n_first < CHECK_MAX_MISMATCHES) out->first[out->n_first++] = i;
    out->wrong++;
}

static void compare_range(void *p, int k, size_t i0, size_t i1) {
    CmpCtx *c = p;
    CmpRange *out = &c->out[k];
    const GpuArray *g = c->g, *w = c->w;
    size_t es = dtype_size(g->dtype);
    double gb[ARRAY_CHUNK], wb[ARRAY_CHUNK];
    for (size_t j = i0; j < i1; j += ARRAY_CHUNK) {
        size_t m = i1 - j < ARRAY_CHUNK ? i1 - j : ARRAY_CHUNK;
        /* The common case, a right answer: a chunk whose bytes are equal is equal
           (NaN is equal to NaN here; -0 and 0 differ in bytes and go on below). */
        if (c->same_bytes && !memcmp((const char *)g->host + j * es, (const char *)w->host + j * es, m * es)) continue;
        if (c->exact_ints) {
            for (size_t q = j; q < j + m; q++) {
                IntVal a = int_val(g, q), b = int_val(w, q);
                if (a.mag == b.mag && (a.neg == b.neg || a.mag == 0)) continue;
                note_wrong(out, q);
            }
            continue;
        }
        array_load_f64(g, j, m, gb);
        if (w) array_load_f64(w, j, m, wb);
        for (size_t q = 0; q < m; q++)
            if (!close_enough(gb[q], w ? wb[q] : c->wv, c->o)) note_wrong(out, j + q);
    }
}

/* Shared loop: want is an array (w) or one value (wv). */
static bool compare(RunResult *r, const GpuArray *g, const GpuArray *w, double wv, const CheckOpts *o) {
    const char *name = o->name ? o->name : "check";
    size_t n = g->n;
    if (w && w->n != g->n) {
        char *msg = xasprintf(N_("%s has %zu element%s but the expected values have %zu"), name, g->n, g->n == 1 ? "" : "s", w->n);
        CheckResult *c = run_result_add_check(r, name, false, msg);
        c->n_total = (long long)(g->n > w->n ? g->n : w->n);
        c->n_wrong = c->n_total;
        free(msg);
        return false;
    }
    CmpCtx cc = {g, w, wv, o, w && !o->close && !dtype_is_float(g->dtype) && !dtype_is_float(w->dtype),
                  w && !o->close && w->dtype == g->dtype, {{0}}};
    /* Ranges on every core for large arrays; their counts and first
     * mismatches are taken in order, so the message is the same either way. */
    par_for(n, ARRAY_CHUNK, PAR_MIN_ELEMS, compare_range, &cc);
    long long wrong = 0;
    size_t first[CHECK_MAX_MISMATCHES];
    int n_first = 0;
    for (int k = 0; k < PAR_MAX_RANGES; k++) {
        wrong += cc.out[k].wrong;
        for (int q = 0; q < cc.out[k].n_first && n_first < CHECK_MAX_MISMATCHES; q++) first[n_first++] = cc.out[k].first[q];
    }
    StrBuf sb;
    strbuf_init(&sb);
    if (wrong == 0) {
        if (n == 1) strbuf_printf(&sb, N_("the value %s"), o->close ? N_("is within tolerance") : N_("matches"));
        else strbuf_printf(&sb, N_("all %zu elements %s"), n, o->close ? N_("within tolerance") : N_("equal"));
    } else {
        char idx[64], got[64], want[64];
        size_t i0 = first[0];
        array_format_index(g, i0, idx, sizeof idx);
        array_format_elem(g, i0, got, sizeof got);
        if (w) array_format_elem(w, i0, want, sizeof want);
        else fmt_number(g->dtype, wv, want, sizeof want);
        strbuf_printf(&sb, N_("%lld element%s wrong of %zu; first at %s: got %s, want %s"), wrong, wrong == 1 ? "" : "s",
                      n, idx, got, want);
        tolerance_note(&sb, o, w ? array_get(w, i0) : wv);
    }
    CheckResult *c = run_result_add_check(r, name, wrong == 0, sb.data);
    strbuf_fini(&sb);
    c->n_wrong = wrong;
    c->n_total = (long long)n;
    for (int k = 0; k < n_first; k++) {
        char got[64], want[64];
        array_format_elem(g, first[k], got, sizeof got);
        if (w) array_format_elem(w, first[k], want, sizeof want);
        else fmt_number(g->dtype, wv, want, sizeof want);
        check_result_add_mismatch(c, (long long)first[k], got, want);
    }
    return wrong == 0;
}

bool check_arrays(RunResult *r, const GpuArray *got, const GpuArray *want, const CheckOpts *o) {
    return compare(r, got, want, 0, o);
}

bool check_array_scalar(RunResult *r, const GpuArray *got, double want, const CheckOpts *o) {
    return compare(r, got, NULL, want, o);
}

bool check_scalars(RunResult *r, double got, double want, const CheckOpts *o) {
    const char *name = o->name ? o->name : "value";
    bool ok = close_enough(got, want, o);
    char g[64], w[64];
    fmt_number(DT_F64, got, g, sizeof g);
    fmt_number(DT_F64, want, w, sizeof w);
    StrBuf sb;
    strbuf_init(&sb);
    if (ok) strbuf_printf(&sb, N_("got %s"), g);
    else {
        strbuf_printf(&sb, N_("got %s, want %s"), g, w);
        tolerance_note(&sb, o, want);
    }
    CheckResult *c = run_result_add_check(r, name, ok, sb.data);
    strbuf_fini(&sb);
    c->n_total = 1;
    c->n_wrong = ok ? 0 : 1;
    if (!ok) check_result_add_mismatch(c, 0, g, w);
    return ok;
}
