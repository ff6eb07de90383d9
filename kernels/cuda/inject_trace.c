/* kernels/cuda/inject_trace.c: the Injector of kernels/cuda/inject.h — its
 * tables, names and life cycle. Runtime API callbacks become "call" records
 * in inject_call.c; activity records become "kernel" records and one
 * "timeline" at exit in inject_activity.c (the state they share:
 * inject_trace.h).
 *
 * Streams and events get small numbers in creation order (legacy stream 0);
 * an activity record finds its stream by CUPTI's stream id (asked when the
 * stream was created), else by the call it came from (its correlation id),
 * which also names copies after their call. Timestamps are CUPTI's, in ns;
 * the timeline counts from the earliest entry. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/cuda/inject.h"
#include "kernels/cuda/inject_trace.h"

/* ---- names ------------------------------------------------------------------ */

static const struct {
    int code;
    const char *name;
} ERRORS[] = {
    {0, "cudaSuccess"},
#include "cuda_errors.h"
};

const char *inject_error_name(int rc) {
    for (size_t i = 0; i < sizeof ERRORS / sizeof ERRORS[0]; i++)
        if (ERRORS[i].code == rc) return ERRORS[i].name;
    return NULL;
}

typedef char *(*DemangleFn)(const char *, char *, size_t *, int *);

static DemangleFn g_demangle;
static void find_demangler(void) {
    /* A CUDA program is C++ and brings libstdc++; a C host may not. */
    g_demangle = (DemangleFn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!g_demangle) {
        void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        if (h) g_demangle = (DemangleFn)dlsym(h, "__cxa_demangle");
    }
}

/* The length-prefixed source names of a plain mangled name ("_Z4busyPKfPfii",
 * "_ZN2ns4busyEv") when no demangler is at hand; NULL for anything else. */
static char *simple_demangle(const char *m) {
    if (strncmp(m, "_Z", 2)) return NULL;
    const char *p = m + 2;
    bool nested = *p == 'N';
    if (nested) p++;
    StrBuf sb;
    strbuf_init(&sb);
    while (*p >= '1' && *p <= '9') {
        char *end;
        long n = strtol(p, &end, 10);
        if ((long)strlen(end) < n) break;
        if (sb.len) strbuf_append(&sb, "::");
        strbuf_append_n(&sb, end, (size_t)n);
        p = end + n;
        if (!nested) break;
    }
    if (!sb.len || *p == 'I' || (nested && *p != 'E')) {
        strbuf_fini(&sb);
        return NULL;
    }
    return strbuf_steal(&sb);
}

char *inject_kernel_name(const char *mangled) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (!mangled || !*mangled) return xstrdup("?");
    pthread_once(&once, find_demangler);
    char *d = NULL;
    int status = -1;
    if (g_demangle) d = g_demangle(mangled, NULL, NULL, &status);
    if (!d || status != 0) {
        free(d);
        d = simple_demangle(mangled);
        return d ? d : xstrdup(mangled);
    }
    /* "void scale<float>(float*, int)" → "scale<float>": the parameter list
     * is the first '(' outside <>, the return type ends at the last space
     * outside <> before it. */
    static const char ANON[] = "(anonymous namespace)";
    int angle = 0;
    size_t cut = strlen(d), name_from = 0;
    for (size_t i = 0; d[i]; i++) {
        if (!strncmp(d + i, ANON, sizeof ANON - 1)) {
            i += sizeof ANON - 2;
            continue;
        }
        char c = d[i];
        if (c == '<') angle++;
        else if (c == '>' && angle > 0) angle--;
        else if (c == ' ' && angle == 0) name_from = i + 1;
        else if (c == '(' && angle == 0) {
            cut = i;
            break;
        }
    }
    if (name_from >= cut) name_from = 0;
    char *s = xstrndup(d + name_from, cut - name_from);
    free(d);
    return s;
}

/* ---- CUPTI stream ids, correlation ids (under mu) -------------------------------- */

void injector_learn_sid(Injector *ij, uint64_t sid, int num) {
    for (int i = 0; i < ij->n_sids; i++)
        if (ij->sids[i].sid == sid) {
            ij->sids[i].num = num;
            return;
        }
    ij->sids = xrealloc(ij->sids, (size_t)(ij->n_sids + 1) * sizeof *ij->sids);
    ij->sids[ij->n_sids++] = (SidMap){sid, num};
}

const int *injector_find_sid(const Injector *ij, uint64_t sid) {
    for (int i = 0; i < ij->n_sids; i++)
        if (ij->sids[i].sid == sid) return &ij->sids[i].num;
    return NULL;
}

static size_t corr_slot(const CorrInfo *t, size_t cap, uint32_t corr) {
    size_t i = (corr * 2654435761u) & (cap - 1);
    while (t[i].corr && t[i].corr != corr) i = (i + 1) & (cap - 1);
    return i;
}

void injector_put_corr(Injector *ij, uint32_t corr, int stream, int event, const char *fn) {
    if (!corr || ij->corr_n >= MAX_CORR) return;
    if ((ij->corr_n + 1) * 2 > ij->corr_cap) {
        size_t cap = ij->corr_cap ? ij->corr_cap * 2 : 1024;
        CorrInfo *t = xcalloc(cap, sizeof *t);
        for (size_t i = 0; i < ij->corr_cap; i++)
            if (ij->corr[i].corr) t[corr_slot(t, cap, ij->corr[i].corr)] = ij->corr[i];
        free(ij->corr);
        ij->corr = t;
        ij->corr_cap = cap;
    }
    size_t i = corr_slot(ij->corr, ij->corr_cap, corr);
    if (!ij->corr[i].corr) ij->corr_n++;
    ij->corr[i] = (CorrInfo){corr, stream, event, fn};
}

const CorrInfo *injector_get_corr(const Injector *ij, uint32_t corr) {
    if (!corr || !ij->corr_cap) return NULL;
    const CorrInfo *c = &ij->corr[corr_slot(ij->corr, ij->corr_cap, corr)];
    return c->corr ? c : NULL;
}

void injector_send_hello_locked(Injector *ij) {
    ij->hello_sent = true;
    if (ij->hk.hello) ij->hk.hello(ij->hk.user, ij->device);
}

/* ---- life cycle ---------------------------------------------------------------------------- */

Injector *injector_new(const InjectHooks *hooks, uint64_t t0_ns) {
    Injector *ij = xcalloc(1, sizeof *ij);
    if (hooks) ij->hk = *hooks;
    ij->t0 = t0_ns;
    pthread_mutex_init(&ij->mu, NULL);
    return ij;
}

void injector_set_um_enabled(Injector *ij, bool on) { ij->um_enabled = on; }
void injector_set_um_refusal(Injector *ij, const char *why) {
    snprintf(ij->um_refusal, sizeof ij->um_refusal, "%s", why ? why : "");
}

void injector_free(Injector **p) {
    Injector *ij = *p;
    if (!ij) return;
    for (size_t i = 0; i < ij->n_acts; i++) free(ij->acts[i].name);
    free(ij->acts);
    free(ij->um_recs);
    free(ij->streams);
    free(ij->events);
    free(ij->sids);
    free(ij->corr);
    pthread_mutex_destroy(&ij->mu);
    free(ij);
    *p = NULL;
}
