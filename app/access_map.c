/* app/access_map.c: the access map of one warp access (see access_map.h).
 *
 * Counts follow the emulator's metrics (kernels/emu/emu_metrics.c): a
 * global access costs the distinct 32-byte sectors its lanes' bytes touch,
 * against their bytes over 32; a shared access costs, per phase (1, 2 or 4
 * for 4-, 8- and 16-byte accesses), the most distinct 4-byte words in one
 * of the 32 banks, the same word read by several lanes being a broadcast. */
#include "app/access_map.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/i18n.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

/* Global rows beyond this many 128-byte lines are counted, not drawn. */
#define MAX_ROWS 40

/* ---- text -------------------------------------------------------------------------------- */
/* Columns of the UTF-8 character at s (its bytes in *len). */
static int char_cols(const char *s, int *len) {
    unsigned char c = (unsigned char)*s;
    int n = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    for (int i = 1; i < n; i++)
        if (!s[i]) { n = i; break; }
    char one[8];
    memcpy(one, s, (size_t)n);
    one[n] = 0;
    *len = n;
    return i18n_width(one);
}

/* s cut to `width` columns (whole characters). */
static void clip_cols(char *s, int width) {
    int cols = 0;
    for (char *p = s; *p;) {
        int len, w = char_cols(p, &len);
        if (cols + w > width) { *p = 0; return; }
        cols += w;
        p += len;
    }
}

void access_map_text_add(AccessMapText *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 32;
        t->line = xrealloc(t->line, sizeof *t->line * (size_t)t->cap);
    }
    t->line[t->n++] = s;
}

void access_map_text_fini(AccessMapText *t) {
    for (int i = 0; i < t->n; i++) free(t->line[i]);
    free(t->line);
    memset(t, 0, sizeof *t);
}

/* Adds s cut to width columns. */
static void add_clipped(AccessMapText *t, int width, char *s) {
    clip_cols(s, width);
    access_map_text_add(t, "%s", s);
    free(s);
}

/* Adds s wrapped at spaces to width columns, later lines indented by 2. */
static void add_wrapped(AccessMapText *t, int width, char *s) {
    char *p = s;
    bool first = true;
    while (*p) {
        char *q = xstrdup(p);
        int room = first ? width : width - 2;
        clip_cols(q, room);
        size_t n = strlen(q);
        if (p[n]) {   /* cut: back up to a space */
            size_t sp = n;
            while (sp > 0 && q[sp] != ' ') sp--;
            if (sp > 0) n = sp;
            q[n] = 0;
        }
        access_map_text_add(t, "%s%s", first ? "" : "  ", q);
        free(q);
        p += n;
        while (*p == ' ') p++;
        first = false;
    }
    free(s);
}

/* "0-7,16-23" or "0,2..30" (every other lane) for a lane mask. */
static void format_lanes(uint32_t m, char *buf, size_t n) {
    int l[32], k = 0;
    for (int i = 0; i < 32; i++)
        if (m >> i & 1) l[k++] = i;
    buf[0] = 0;
    if (!k) return;
    if (k >= 3 && l[1] - l[0] > 1) {   /* one step for all: 0,2..30 */
        int st = l[1] - l[0];
        bool even = true;
        for (int i = 2; i < k && even; i++) even = l[i] - l[i - 1] == st;
        if (even) { snprintf(buf, n, "%d,%d..%d", l[0], l[1], l[k - 1]); return; }
    }
    size_t used = 0;
    for (int i = 0; i < k;) {
        int j = i;
        while (j + 1 < k && l[j + 1] == l[j] + 1) j++;
        int w = j > i ? snprintf(buf + used, n - used, "%s%d-%d", used ? "," : "", l[i], l[j])
                      : snprintf(buf + used, n - used, "%s%d", used ? "," : "", l[i]);
        if (w < 0 || (size_t)w >= n - used) { buf[used] = 0; return; }
        used += (size_t)w;
        i = j + 1;
    }
}

/* ---- cost -------------------------------------------------------------------------------- */
static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v and keeps each value once; returns how many are left. */
static int distinct(uint64_t *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    int d = 0;
    for (int i = 0; i < n; i++)
        if (!d || v[i] != v[d - 1]) v[d++] = v[i];
    return d;
}

static int phases_of(int width) { return width <= 4 ? 1 : width == 8 ? 2 : 4; }

/* Wavefronts of one shared phase (lanes lo..hi-1): the most distinct words in one bank. */
static int phase_wavefronts(const EmuTraceMem *m, int lo, int hi, bool *broadcast) {
    uint64_t words[32][32];
    int nw[32] = {0};
    for (int l = lo; l < hi; l++) {
        if (!(m->mask >> l & 1)) continue;
        for (uint64_t w = m->addr[l] >> 2; w <= (m->addr[l] + (uint64_t)(m->width ? m->width : 1) - 1) >> 2; w++) {
            int b = (int)(w & 31);
            bool seen = false;
            for (int i = 0; i < nw[b]; i++)
                if (words[b][i] == w) seen = true;
            if (seen) *broadcast = true;
            else if (nw[b] < 32) words[b][nw[b]++] = w;
        }
    }
    int worst = 0;
    for (int b = 0; b < 32; b++)
        if (nw[b] > worst) worst = nw[b];
    return worst;
}

void access_map_cost(const EmuTraceMem *m, AccessCost *c) {
    memset(c, 0, sizeof *c);
    int width = m->width ? m->width : 1;
    c->width = width;
    c->active = __builtin_popcount(m->mask);
    if (!c->active) return;
    /* one stride for all lanes: addr[l] = addr[first] + (l - first) * stride */
    int first = __builtin_ctz(m->mask), prev = first;
    c->has_stride = c->active >= 2;
    for (int l = first + 1; l < 32; l++) {
        if (!(m->mask >> l & 1)) continue;
        int64_t d = (int64_t)(m->addr[l] - m->addr[prev]);
        if (prev == first) c->stride = d / (l - prev);
        if (d != c->stride * (l - prev)) c->has_stride = false;
        prev = l;
    }
    if (m->space == EMU_MEM_SHARED) {
        int ph = phases_of(width), per = 32 / ph;
        for (int p = 0; p < ph; p++) {
            int wf = phase_wavefronts(m, p * per, (p + 1) * per, &c->broadcast);
            if (!wf) continue;
            c->ideal_wavefronts++;
            c->wavefronts += wf;
            if (wf > c->degree) c->degree = wf;
        }
        return;
    }
    uint64_t sec[32 * 9], lin[32 * 9];
    int ns = 0, nl = 0;
    for (int l = 0; l < 32; l++) {
        if (!(m->mask >> l & 1)) continue;
        uint64_t lo = m->addr[l], hi = m->addr[l] + (uint64_t)width - 1;
        for (uint64_t s = lo >> 5; s <= hi >> 5 && ns < 32 * 9; s++) sec[ns++] = s;
        for (uint64_t s = lo >> 7; s <= hi >> 7 && nl < 32 * 9; s++) lin[nl++] = s;
    }
    c->sectors = distinct(sec, ns);
    c->lines = distinct(lin, nl);
    c->ideal = (c->active * width + 31) / 32;
}

/* ---- naming ------------------------------------------------------------------------------ */
const EmuTraceRegion *access_map_region(const EmuTraceRegion *r, int n, int space, uint64_t addr) {
    const EmuTraceRegion *best = NULL;
    for (int i = 0; i < n; i++) {
        if (r[i].space != space) continue;
        if (space == EMU_MEM_GLOBAL) {
            if (addr >= r[i].base && addr < r[i].base + r[i].size) return &r[i];
        } else if (r[i].base <= addr && (!best || r[i].base >= best->base)) {
            best = &r[i];   /* shared: the variable at or before the offset (dynamic ones run on) */
        }
    }
    return best;
}

/* Bytes of one index step: the access's own width when the array is read in
 * wider pieces (a float4 load of a float array counts float4s, as the
 * source's index does), else the array's element. */
static uint64_t index_unit(const EmuTraceRegion *g, int width) {
    uint64_t e = g && g->elem ? g->elem : 1;
    return (uint64_t)width > e && (uint64_t)width % e == 0 ? (uint64_t)width : e;
}

/* "1024" (the element index in g), "12+2B" off an element boundary, or the address. */
static void format_index(const EmuTraceRegion *g, uint64_t unit, uint64_t addr, char *buf, size_t n) {
    if (!g) { snprintf(buf, n, "0x%" PRIx64, addr); return; }
    uint64_t off = addr - g->base;
    if (off % unit) snprintf(buf, n, "%" PRIu64 "+%" PRIu64 "B", off / unit, off % unit);
    else snprintf(buf, n, "%" PRIu64, off / unit);
}

/* The region most lanes use (lane order breaks ties). */
static const EmuTraceRegion *main_region(const AccessMapInput *in) {
    const EmuTraceMem *m = in->mem;
    const EmuTraceRegion *best = NULL;
    int best_n = 0;
    for (int l = 0; l < 32; l++) {
        if (!(m->mask >> l & 1)) continue;
        const EmuTraceRegion *g = access_map_region(in->regions, in->n_regions, m->space, m->addr[l]);
        if (!g || g == best) continue;
        int k = 0;
        for (int j = 0; j < 32; j++)
            if ((m->mask >> j & 1) && access_map_region(in->regions, in->n_regions, m->space, m->addr[j]) == g) k++;
        if (k > best_n) { best = g; best_n = k; }
    }
    return best;
}

/* "stride 2 elements (8 bytes)", "consecutive elements", "one address"... */
static void stride_words(const AccessCost *c, uint64_t unit, bool shared, char *buf, size_t n) {
    if (c->active < 2) { snprintf(buf, n, "%s", _("one lane")); return; }
    if (!c->has_stride) { snprintf(buf, n, "%s", _("no single stride (scattered)")); return; }
    if (c->stride == 0) { snprintf(buf, n, "%s", _("every lane the same address")); return; }
    if (c->stride == c->width) {
        snprintf(buf, n, "%s", _("consecutive elements"));
        return;
    }
    int64_t s = c->stride;
    uint64_t a = (uint64_t)(s < 0 ? -s : s);
    if (shared && a % 4 == 0 && unit == 4) snprintf(buf, n, _("stride %lld words"), (long long)(s / 4));
    else if (a % unit == 0)
        snprintf(buf, n, _("stride %lld elements (%lld bytes)"), (long long)(s / (int64_t)unit), (long long)s);
    else snprintf(buf, n, _("stride %lld bytes"), (long long)s);
}

char *access_map_summary(const AccessMapInput *in, bool utf8) {
    const EmuTraceMem *m = in->mem;
    AccessCost c;
    access_map_cost(m, &c);
    const EmuTraceRegion *g = main_region(in);
    char st[96];
    stride_words(&c, index_unit(g, c.width), m->space == EMU_MEM_SHARED, st, sizeof st);
    const char *dash = utf8 ? " — " : " -- ";
    if (m->space == EMU_MEM_SHARED) {
        if (c.degree <= 1)
            return xasprintf(_("no bank conflict: %d wavefront%s for %d lanes x %d bytes%s%s%s"), c.wavefronts,
                             c.wavefronts == 1 ? "" : "s", c.active, c.width, dash, st,
                             c.broadcast ? _(" (shared words are broadcast)") : "");
        return xasprintf(_("%d-way bank conflict: %d wavefronts for %d lanes x %d bytes: ideal %d%s%s"), c.degree,
                         c.wavefronts, c.active, c.width, c.ideal_wavefronts, dash, st);
    }
    return xasprintf(_("%d sectors for %d lanes x %d bytes: ideal %d%s%s"), c.sectors, c.active, c.width, c.ideal,
                     dash, st);
}

/* ---- drawing ----------------------------------------------------------------------------- */
/* Lanes → element indices, four columns of eight lanes (shared: with the bank). */
static void draw_lanes(AccessMapText *out, const AccessMapInput *in, const EmuTraceRegion *g, uint64_t unit,
                       int width) {
    const EmuTraceMem *m = in->mem;
    bool sh = m->space == EMU_MEM_SHARED;
    int cols = width >= 74 ? 4 : width >= 56 ? 3 : 2;
    int rows = (32 + cols - 1) / cols;
    StrBuf sb;
    strbuf_init(&sb);
    char pad[96];   /* headings padded by display width: Chinese characters take two columns */
    for (int c = 0; c < cols; c++)
        strbuf_printf(&sb, "%s%s", c ? "  " : "", i18n_pad(pad, sizeof pad, sh ? _("lane index bank") : _("lane  index"), 17, false));
    while (sb.len && sb.data[sb.len - 1] == ' ') sb.data[--sb.len] = 0;
    add_clipped(out, width, strbuf_steal(&sb));
    for (int r = 0; r < rows; r++) {
        strbuf_init(&sb);
        for (int c = 0; c < cols; c++) {
            int l = c * rows + r;
            if (l >= 32) break;
            char idx[48], cell[192];
            if (!(m->mask >> l & 1)) snprintf(cell, sizeof cell, "%4d  -", l);
            else {
                const EmuTraceRegion *lg = access_map_region(in->regions, in->n_regions, m->space, m->addr[l]);
                format_index(lg, lg == g ? unit : index_unit(lg, m->width ? m->width : 1), m->addr[l], idx, sizeof idx);
                if (lg && lg != g) {   /* another array: say which */
                    char two[112];
                    snprintf(two, sizeof two, "%s[%s]", lg->name, idx);
                    if (sh) snprintf(cell, sizeof cell, "%4d  %-7s %2d", l, two, (int)((m->addr[l] >> 2) & 31));
                    else snprintf(cell, sizeof cell, "%4d  %s", l, two);
                } else if (sh) snprintf(cell, sizeof cell, "%4d  %-7s %2d", l, idx, (int)((m->addr[l] >> 2) & 31));
                else snprintf(cell, sizeof cell, "%4d  %s", l, idx);
            }
            strbuf_printf(&sb, "%s%-17s", c ? "  " : "", cell);
        }
        while (sb.len && sb.data[sb.len - 1] == ' ') sb.data[--sb.len] = 0;
        add_clipped(out, width, strbuf_steal(&sb));
    }
}

/* A row per 128-byte line: a mark per 4 bytes ('#' a lane's, '.' fetched
 * with the sector but unused, ' ' a sector not fetched), then the lanes. */
static void draw_lines(AccessMapText *out, const AccessMapInput *in, const EmuTraceRegion *g, uint64_t unit,
                       int width) {
    const EmuTraceMem *m = in->mem;
    uint64_t w = m->width ? m->width : 1;
    uint64_t lines[32 * 9];
    int n = 0;
    for (int l = 0; l < 32; l++) {
        if (!(m->mask >> l & 1)) continue;
        for (uint64_t s = m->addr[l] >> 7; s <= (m->addr[l] + w - 1) >> 7 && n < 32 * 9; s++) lines[n++] = s;
    }
    n = distinct(lines, n);
    const uint64_t *u = lines;
    /* labels first, to size their column */
    char label[MAX_ROWS][112];
    int lw = 4, rows = n < MAX_ROWS ? n : MAX_ROWS;
    for (int i = 0; i < rows; i++) {
        uint64_t lo = u[i] << 7, hi = lo + 127;
        const EmuTraceRegion *lg = access_map_region(in->regions, in->n_regions, EMU_MEM_GLOBAL, lo);
        if (!lg) lg = access_map_region(in->regions, in->n_regions, EMU_MEM_GLOBAL, hi);
        if (lg) {
            uint64_t a = lo < lg->base ? lg->base : lo, b = hi >= lg->base + lg->size ? lg->base + lg->size - 1 : hi;
            uint64_t un = lg == g ? unit : lg->elem ? lg->elem : 1;
            snprintf(label[i], sizeof label[i], "%s[%" PRIu64 "..%" PRIu64 "]", lg == g ? "" : lg->name,
                     (a - lg->base) / un, (b - lg->base) / un);
        } else snprintf(label[i], sizeof label[i], "0x%" PRIx64, lo);
        int lc = (int)strlen(label[i]);
        if (lc > lw) lw = lc;
    }
    if (lw > 24) lw = 24;
    char hdr[240], p1[64], p2[128];
    snprintf(hdr, sizeof hdr, "  %s  %s  %s", i18n_pad(p1, sizeof p1, _("line"), lw, false),
             i18n_pad(p2, sizeof p2, _("sector 0 sector 1 sector 2 sector 3"), 37, false), _("lanes"));
    add_clipped(out, width, xstrdup(hdr));
    for (int i = 0; i < rows; i++) {
        uint64_t lo = u[i] << 7;
        char bar[38], lanes[128];
        uint32_t hit = 0;
        bool used[32] = {false}, fetched[4] = {false};
        for (int l = 0; l < 32; l++) {
            if (!(m->mask >> l & 1)) continue;
            uint64_t a = m->addr[l], e = a + w;   /* [a, e) */
            if (e <= lo || a >= lo + 128) continue;
            hit |= 1u << l;
            for (uint64_t b = a > lo ? a : lo; b < e && b < lo + 128; b++) {
                used[(b - lo) >> 2] = true;
                fetched[(b - lo) >> 5] = true;
            }
        }
        int p = 0;
        bar[p++] = '|';
        for (int s = 0; s < 4; s++) {
            for (int x = 0; x < 8; x++) bar[p++] = used[s * 8 + x] ? '#' : fetched[s] ? '.' : ' ';
            bar[p++] = '|';
        }
        bar[p] = 0;
        format_lanes(hit, lanes, sizeof lanes);
        char *row = xasprintf("  %-*.*s  %s  %s", lw, lw, label[i], bar, lanes);
        add_clipped(out, width, row);
    }
    if (n > rows) access_map_text_add(out, _("  … and %d more lines"), n - rows);
}

/* A column per bank, a row per distinct word in it: the lane that asked
 * for it ('*' when several lanes share the word: a broadcast). Banks in two
 * halves of 16 so that 80 columns hold them. */
static void draw_banks(AccessMapText *out, const AccessMapInput *in, int width) {
    const EmuTraceMem *m = in->mem;
    int bytes = m->width ? m->width : 1;
    int ph = phases_of(bytes), per = 32 / ph;
    for (int p = 0; p < ph; p++) {
        int lane[32][32], nw[32] = {0};
        uint64_t word[32][32];
        bool shared_word[32][32];
        for (int l = p * per; l < (p + 1) * per; l++) {
            if (!(m->mask >> l & 1)) continue;
            for (uint64_t wd = m->addr[l] >> 2; wd <= (m->addr[l] + (uint64_t)bytes - 1) >> 2; wd++) {
                int b = (int)(wd & 31), i = 0;
                while (i < nw[b] && word[b][i] != wd) i++;
                if (i < nw[b]) { shared_word[b][i] = true; continue; }
                if (nw[b] == 32) continue;
                word[b][i] = wd;
                lane[b][i] = l;
                shared_word[b][i] = false;
                nw[b]++;
            }
        }
        if (ph > 1)
            access_map_text_add(out, _("phase %d of %d (lanes %d-%d):"), p + 1, ph, p * per, (p + 1) * per - 1);
        for (int half = 0; half < 2; half++) {
            int height = 0;
            for (int b = half * 16; b < half * 16 + 16; b++)
                if (nw[b] > height) height = nw[b];
            if (!height) {
                access_map_text_add(out, _("  banks %d-%d: no lane"), half * 16, half * 16 + 15);
                continue;
            }
            StrBuf sb;
            strbuf_init(&sb);
            char pad[32];   /* the row names' column: as wide as the wider of the two, in display columns */
            int kw = i18n_width(_("bank")) > i18n_width(_("lane")) ? i18n_width(_("bank")) : i18n_width(_("lane"));
            if (kw < 5) kw = 5;
            strbuf_printf(&sb, "  %s", i18n_pad(pad, sizeof pad, _("bank"), kw, false));
            for (int b = half * 16; b < half * 16 + 16; b++) strbuf_printf(&sb, "%3d ", b);
            sb.data[--sb.len] = 0;
            add_clipped(out, width, strbuf_steal(&sb));
            for (int r = 0; r < height; r++) {
                strbuf_init(&sb);
                strbuf_printf(&sb, "  %s", i18n_pad(pad, sizeof pad, r == 0 ? _("lane") : "", kw, false));
                for (int b = half * 16; b < half * 16 + 16; b++) {
                    if (r < nw[b]) strbuf_printf(&sb, "%3d%c", lane[b][r], shared_word[b][r] ? '*' : ' ');
                    else strbuf_append(&sb, "    ");
                }
                while (sb.len && sb.data[sb.len - 1] == ' ') sb.data[--sb.len] = 0;
                add_clipped(out, width, strbuf_steal(&sb));
            }
        }
    }
}

void access_map_render(AccessMapText *out, const AccessMapInput *in, int width, bool utf8) {
    const EmuTraceMem *m = in->mem;
    if (width < 40) width = 40;
    AccessCost c;
    access_map_cost(m, &c);
    const EmuTraceRegion *g = main_region(in);
    uint64_t unit = index_unit(g, c.width);
    if (in->source) {
        const char *s = in->source;
        while (*s == ' ' || *s == '\t') s++;
        size_t len = strcspn(s, "\n");
        add_clipped(out, width, xasprintf(_("line %d: %.*s"), m->line, (int)len, s));
    }
    static const char *const ops[] = {N_("load"), N_("store"), N_("atomic")};
    const char *space = m->space == EMU_MEM_SHARED ? _("shared") : _("global");
    char what[96];
    if (g && unit != g->elem) snprintf(what, sizeof what, _("%s (indices in %d-byte pieces)"), g->name, (int)unit);
    else if (g) snprintf(what, sizeof what, "%s", g->name);
    else snprintf(what, sizeof what, "%s", _("memory outside the arrays"));
    add_wrapped(out, width, xasprintf(_("%s %s of %d bytes per lane, %s, by warp %d of block (%u,%u,%u)"), space,
                                      _(ops[m->op % 3]), c.width, what, in->warp, in->block[0], in->block[1],
                                      in->block[2]));
    if (in->times > 1)
        add_clipped(out, width, xasprintf(_("(the first of %d times this warp ran it)"), in->times));
    add_wrapped(out, width, access_map_summary(in, utf8));
    access_map_text_add(out, "%s", "");
    draw_lanes(out, in, g, unit, width);
    access_map_text_add(out, "%s", "");
    if (m->space == EMU_MEM_SHARED) {
        add_clipped(out, width, xstrdup(_("banks: a column each, a row per distinct word (its lane; * a broadcast):")));
        draw_banks(out, in, width);
    } else {
        add_clipped(out, width, xasprintf(P_(c.lines, "%d line of 128 bytes, %d sectors of 32 (# used, . fetched unused):",
                                             "%d lines of 128 bytes, %d sectors of 32 (# used, . fetched unused):"),
                                          c.lines, c.sectors));
        draw_lines(out, in, g, unit, width);
    }
}
