/* kernels/emurt/emurt_names.c: what the program calls its allocations —
 * "d_x" rather than "alloc1" in call records, timelines and messages — and
 * the host pointers it passes ("h_x").
 *
 * cudaMalloc(&d_x, n) gives us the address of d_x, not its name; but
 * programs are built with host line tables (cudojo: gcc -g1; -g has them
 * too), so the DWARF line table (emurt_dwarf.c) maps
 * the call's return address to the learner's file and line, and that line
 * of source says `cudaMalloc(&d_x, ...)`. */
#include <execinfo.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/emurt/emurt_internal.h"

static bool ident_char(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

/* In `text` (a few lines ending at the call), the first argument of the
 * last call to `fn` that starts before `limit` (the call's column on its
 * line; several calls may share one): "&d_x" or "(void **)&d_x" → "d_x"
 * (members and [i] kept). */
static bool name_from(const char *text, size_t len, const char *limit, const char *fn, size_t fl, char *out,
                      size_t n) {
    const char *hit = NULL;
    for (const char *p = text; p + fl < text + len && p < limit; p++)
        if (!memcmp(p, fn, fl) && (p == text || !ident_char(p[-1])) && !ident_char(p[fl])) hit = p + fl;
    if (!hit) return false;
    const char *p = hit, *end = text + len;
    while (p < end && *p != '(') p++;
    if (p >= end) return false;
    p++;
    const char *amp = NULL;
    for (const char *q = p; q < end && *q != ','; q++)
        if (*q == '&') {
            amp = q + 1;
            break;
        }
    if (!amp) return false;
    while (amp < end && (*amp == ' ' || *amp == '(')) amp++;
    size_t k = 0;
    for (const char *q = amp; q < end && k + 1 < n; q++) {
        if (ident_char(*q) || *q == '.' || *q == '[' || *q == ']' || (*q == '-' && q[1] == '>') || (*q == '>' && q > amp && q[-1] == '-'))
            out[k++] = *q;
        else break;
    }
    out[k] = 0;
    return k > 0 && !(out[0] >= '0' && out[0] <= '9');
}

/* Calls `fn(text, len, limit, name, name_len, ctx)` with the source around
 * each of the program's frames (the call's line and up to three before it,
 * `limit` the call's column on its line) until it returns true. */
typedef bool (*SiteFn)(const char *text, size_t len, const char *limit, const char *name, size_t fl, void *ctx);

static bool at_call_site(const char *fn, SiteFn try_site, void *ctx) {
    void *frames[12];
    int nf = backtrace(frames, 12);
    for (int i = 1; i < nf; i++) {
        int file, line, col;
        if (!rt_dwarf_line((uintptr_t)frames[i], &file, &line, &col)) continue; /* ours, libc's */
        const char *start = rt_dwarf_source(file, line > 3 ? line - 3 : 1);
        const char *here = rt_dwarf_source(file, line);
        const char *stop = rt_dwarf_source(file, line + 4); /* a call's arguments may go on */
        if (!start || !here) continue;
        size_t len = stop && stop > start ? (size_t)(stop - start) : strlen(start);
        if (len > 2000) len = 2000;
        /* gcc puts a call's column at its '(' or name: a call on this line starts before it */
        const char *limit = col > 0 && here + col <= start + len ? here + col : start + len;
        for (const char *f = fn; *f;) {
            size_t fl = strcspn(f, "|");
            if (try_site(start, len, limit, f, fl, ctx) ||
                (limit < start + len && try_site(start, len, start + len, f, fl, ctx)))
                return true;
            f += fl + (f[fl] == '|');
        }
    }
    return false;
}

typedef struct NameOut {
    char *out;
    size_t n;
} NameOut;

static bool site_name(const char *text, size_t len, const char *limit, const char *name, size_t fl, void *ctx) {
    NameOut *o = ctx;
    return name_from(text, len, limit, name, fl, o->out, o->n);
}

bool rt_name_allocation(const char *fn, char *out, size_t n) {
    NameOut o = {out, n};
    return at_call_site(fn, site_name, &o);
}

/* ---- the arguments as the program wrote them ------------------------------------------------------------ */
typedef struct ArgsOut {
    char (*args)[RT_ARG_TEXT];
    int max, n;
} ArgsOut;

static bool site_args(const char *text, size_t len, const char *limit, const char *name, size_t fl, void *ctx) {
    ArgsOut *o = ctx;
    const char *hit = NULL, *end = text + len;
    for (const char *p = text; p + fl < end && p < limit; p++)
        if (!memcmp(p, name, fl) && (p == text || !ident_char(p[-1])) && !ident_char(p[fl])) hit = p + fl;
    if (!hit) return false;
    const char *p = hit;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    if (p >= end || *p != '(') return false;
    p++;
    int depth = 0, n = 0;
    const char *arg = p;
    for (; p < end; p++) {
        char c = *p;
        if (c == '(' || c == '[' || c == '{') depth++;
        else if ((c == ')' || c == ']' || c == '}') && depth > 0) depth--;
        else if ((c == ',' || c == ')') && depth == 0) {
            if (n < o->max) {
                const char *a = arg, *z = p;
                while (a < z && (*a == ' ' || *a == '\t' || *a == '\n' || *a == '\r')) a++;
                while (z > a && (z[-1] == ' ' || z[-1] == '\t' || z[-1] == '\n' || z[-1] == '\r')) z--;
                size_t k = (size_t)(z - a) < RT_ARG_TEXT - 1 ? (size_t)(z - a) : RT_ARG_TEXT - 1;
                for (size_t i = 0; i < k; i++) o->args[n][i] = (a[i] == '\n' || a[i] == '\t' || a[i] == '\r') ? ' ' : a[i];
                o->args[n][k] = 0;
            }
            n++;
            arg = p + 1;
            if (c == ')') break;
        }
    }
    if (p >= end) return false; /* the call goes on past what we read */
    o->n = n < o->max ? n : o->max;
    return true;
}

int rt_call_args(const char *fn, char (*args)[RT_ARG_TEXT], int max) {
    ArgsOut o = {args, max, 0};
    return at_call_site(fn, site_args, &o) ? o.n : 0;
}

void rt_alloc_name(RtAlloc *a, const char *fn) {
    char name[sizeof a->name];
    if (!rt_name_allocation(fn, name, sizeof name)) return;
    /* the same name still live (an allocation in a loop): number the new one */
    int same = 0;
    for (int i = 0; i < g_rt.n_allocs; i++)
        if (&g_rt.allocs[i] != a && !strncmp(g_rt.allocs[i].name, name, strlen(name)) &&
            (g_rt.allocs[i].name[strlen(name)] == 0 || g_rt.allocs[i].name[strlen(name)] == '#'))
            same++;
    if (same) snprintf(a->name, sizeof a->name, "%.40s#%d", name, same + 1);
    else snprintf(a->name, sizeof a->name, "%s", name);
    if (a->kind != RT_MEM_SYMBOL) emu_alloc_set_label(g_rt.dev[a->dev].b, a->base, a->name);
}
