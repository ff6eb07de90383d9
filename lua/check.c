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
    bool exact_ints = w && !o->close && !dtype_is_float(g->dtype) && !dtype_is_float(w->dtype);
    long long wrong = 0;
    size_t first[CHECK_MAX_MISMATCHES];
    int n_first = 0;
    if (exact_ints) {
        for (size_t i = 0; i < n; i++) {
            IntVal a = int_val(g, i), b = int_val(w, i);
            if (a.mag == b.mag && (a.neg == b.neg || a.mag == 0)) continue;
            if (n_first < CHECK_MAX_MISMATCHES) first[n_first++] = i;
            wrong++;
        }
    } else {
        /* In chunks of doubles: a million-element check stays a few ms. */
        double gb[ARRAY_CHUNK], wb[ARRAY_CHUNK];
        for (size_t i0 = 0; i0 < n; i0 += ARRAY_CHUNK) {
            size_t m = n - i0 < ARRAY_CHUNK ? n - i0 : ARRAY_CHUNK;
            array_load_f64(g, i0, m, gb);
            if (w) array_load_f64(w, i0, m, wb);
            for (size_t k = 0; k < m; k++) {
                if (close_enough(gb[k], w ? wb[k] : wv, o)) continue;
                if (n_first < CHECK_MAX_MISMATCHES) first[n_first++] = i0 + k;
                wrong++;
            }
        }
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
