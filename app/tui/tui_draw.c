/* app/tui/tui_draw.c: the semantic colour table and wide-character drawing.
 *
 * Screens never pick colours: they name a role (ROLE_FAIL, ROLE_KEYWORD...)
 * and this table says what it looks like in colour and in monochrome (used
 * when the terminal has no colours or NO_COLOR is set), as htop does. Text
 * is UTF-8 and drawn as wide characters, clipped by display width so a CJK
 * character is never cut in half at the edge. */
#include "app/tui/tui.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

#include "base/i18n.h"
#include "base/xalloc.h"

typedef struct RoleLook {
    short fg, bg;        /* colour; -1 = terminal default */
    attr_t attr;         /* added in colour mode */
    attr_t mono;         /* the whole look in monochrome */
} RoleLook;

static const RoleLook LOOKS[ROLE_COUNT] = {
    [ROLE_NORMAL] = {-1, -1, A_NORMAL, A_NORMAL},
    [ROLE_DIM] = {-1, -1, A_DIM, A_DIM},
    [ROLE_BOLD] = {-1, -1, A_BOLD, A_BOLD},
    [ROLE_TITLE] = {COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE},
    [ROLE_STATUS] = {COLOR_BLACK, COLOR_WHITE, A_NORMAL, A_REVERSE},
    [ROLE_KEY] = {COLOR_BLUE, COLOR_WHITE, A_BOLD, A_REVERSE | A_BOLD},
    [ROLE_H1] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD | A_UNDERLINE},
    [ROLE_H2] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
    [ROLE_H3] = {COLOR_GREEN, -1, A_BOLD, A_BOLD},
    [ROLE_EMPH] = {-1, -1, A_ITALIC, A_ITALIC},
    [ROLE_STRONG] = {-1, -1, A_BOLD, A_BOLD},
    [ROLE_CODE] = {COLOR_CYAN, -1, A_NORMAL, A_BOLD},
    [ROLE_CODEBLOCK] = {-1, -1, A_NORMAL, A_NORMAL},
    [ROLE_KEYWORD] = {COLOR_MAGENTA, -1, A_BOLD, A_BOLD},
    [ROLE_TYPE] = {COLOR_GREEN, -1, A_NORMAL, A_NORMAL},
    [ROLE_BUILTIN] = {COLOR_CYAN, -1, A_BOLD, A_BOLD},
    [ROLE_COMMENT] = {COLOR_BLUE, -1, A_NORMAL, A_DIM},
    [ROLE_STRING] = {COLOR_YELLOW, -1, A_NORMAL, A_NORMAL},
    [ROLE_NUMBER] = {COLOR_RED, -1, A_NORMAL, A_NORMAL},
    [ROLE_PREPROC] = {COLOR_MAGENTA, -1, A_NORMAL, A_NORMAL},
    [ROLE_LINK] = {COLOR_BLUE, -1, A_UNDERLINE, A_UNDERLINE},
    [ROLE_URL] = {COLOR_BLUE, -1, A_DIM, A_DIM},
    [ROLE_QUOTE] = {COLOR_GREEN, -1, A_NORMAL, A_DIM},
    [ROLE_PASS] = {COLOR_GREEN, -1, A_BOLD, A_BOLD},
    [ROLE_FAIL] = {COLOR_RED, -1, A_BOLD, A_BOLD},
    [ROLE_WARN] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
    [ROLE_NOTE] = {COLOR_CYAN, -1, A_NORMAL, A_NORMAL},
    [ROLE_SELECTED] = {COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE},
    [ROLE_NEXT] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
    [ROLE_SEARCH] = {COLOR_BLACK, COLOR_YELLOW, A_NORMAL, A_REVERSE | A_UNDERLINE},
    [ROLE_ERRLINE] = {COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE},
    [ROLE_HEAT_LOW] = {COLOR_GREEN, -1, A_NORMAL, A_NORMAL},
    [ROLE_HEAT_MID] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
    [ROLE_HEAT_HIGH] = {COLOR_RED, -1, A_BOLD, A_BOLD | A_REVERSE},
    [ROLE_LINENO] = {-1, -1, A_DIM, A_DIM},
    [ROLE_BAR_DONE] = {COLOR_BLACK, COLOR_GREEN, A_NORMAL, A_REVERSE},
    [ROLE_BAR_TODO] = {-1, -1, A_DIM, A_DIM},
    [ROLE_BORDER] = {COLOR_CYAN, -1, A_NORMAL, A_DIM},
    /* Timeline bars: a colour per kind; in monochrome their fill characters tell them apart. */
    [ROLE_TL_H2D] = {COLOR_GREEN, -1, A_BOLD, A_BOLD},
    [ROLE_TL_D2H] = {COLOR_MAGENTA, -1, A_BOLD, A_BOLD},
    [ROLE_TL_D2D] = {COLOR_CYAN, -1, A_NORMAL, A_NORMAL},
    [ROLE_TL_MEMSET] = {COLOR_YELLOW, -1, A_NORMAL, A_NORMAL},
    [ROLE_TL_KERNEL] = {COLOR_BLUE, -1, A_BOLD, A_BOLD},
    [ROLE_TL_HOST] = {-1, -1, A_NORMAL, A_NORMAL},
    [ROLE_TL_SYNC] = {COLOR_RED, -1, A_NORMAL, A_DIM},
};

static bool use_color;

void tui_colors_init(bool color) {
    use_color = color && has_colors();
    if (!use_color) return;
    start_color();
    use_default_colors();
    for (int r = 0; r < ROLE_COUNT; r++) init_pair((short)(r + 1), LOOKS[r].fg, LOOKS[r].bg);
}

attr_t tui_attr(int role, short *pair) {
    if (role < 0 || role >= ROLE_COUNT) role = ROLE_NORMAL;
    if (!use_color) {
        *pair = 0;
        return LOOKS[role].mono;
    }
    *pair = (short)(role + 1);
    return LOOKS[role].attr;
}

void tui_set_role(int role) {
    short pair;
    attr_t a = tui_attr(role, &pair);
    attr_set(a, pair, NULL);
}

int tui_put(int y, int x, int maxw, int role, const char *s) {
    if (maxw <= 0 || !s) return 0;
    tui_set_role(role);
    size_t n = strlen(s), i = 0;
    int used = 0;
    wchar_t buf[256];
    int nb = 0;
    move(y, x);
    while (i < n) {
        int c;
        size_t k = text_char(s + i, n - i, &c);
        wchar_t wc;
        mbstate_t st;
        memset(&st, 0, sizeof st);
        size_t got = mbrtowc(&wc, s + i, n - i, &st);
        if (got == (size_t)-1 || got == (size_t)-2 || got == 0) wc = L'?';
        else if (wc == L'\t') wc = L' ';
        else if (wc < 32 || wc == 127) wc = L'?';
        if (used + c > maxw) break;
        buf[nb++] = wc;
        used += c;
        i += k;
        if (nb == (int)(sizeof buf / sizeof *buf)) {
            addnwstr(buf, nb);
            nb = 0;
        }
    }
    if (nb) addnwstr(buf, nb);
    return used;
}

int tui_put_clip(const Tui *t, int y, int x, int maxw, int role, const char *s) {
    if (text_width(s) <= maxw || maxw < 2) return tui_put(y, x, maxw, role, s);
    int used = tui_put(y, x, maxw - 1, role, s);
    return used + tui_put(y, x + used, 1, role, tui_glyph(t, "…", "~"));
}

void tui_fill(int y, int x, int w, int role) {
    if (w <= 0) return;
    tui_set_role(role);
    mvhline(y, x, ' ', w);
}

/* Finds the next case-insensitive match of needle in hay from `from`. */
static const char *find_ci(const char *hay, const char *needle) {
    size_t nl = strlen(needle);
    if (!nl) return NULL;
    for (const char *p = hay; *p; p++)
        if (!strncasecmp(p, needle, nl)) return p;
    return NULL;
}

void tui_put_line(int y, int x, int w, const TextLine *line, int hscroll, const char *search, int override,
                  int fill_role) {
    char *plain = NULL;
    /* Byte ranges of matches in the line's plain text. */
    size_t mstart[16], mend[16];
    int nm = 0;
    if (search && *search) {
        plain = text_line_plain(line);
        const char *p = plain;
        while (nm < 16 && (p = find_ci(p, search))) {
            mstart[nm] = (size_t)(p - plain);
            mend[nm] = mstart[nm] + strlen(search);
            nm++;
            p += strlen(search);
        }
    }
    int col = 0;          /* columns of the line consumed (before hscroll) */
    int drawn = 0;        /* columns drawn on screen */
    size_t off = 0;       /* byte offset in the plain text */
    for (int s = 0; s < line->n && drawn < w; s++) {
        const char *t = line->spans[s].text;
        size_t n = strlen(t), i = 0;
        int role = override >= 0 ? override : line->spans[s].role;
        while (i < n && drawn < w) {
            /* The longest piece with one look: up to the next match boundary. */
            size_t here = off + i, stop = n;
            bool in_match = false;
            for (int m = 0; m < nm; m++) {
                if (here >= mstart[m] && here < mend[m]) {
                    in_match = true;
                    if (mend[m] - off < stop) stop = mend[m] - off;
                } else if (mstart[m] > here && mstart[m] - off < stop) {
                    stop = mstart[m] - off;
                }
            }
            /* Skip columns scrolled off to the left, a character at a time. */
            while (col < hscroll && i < stop) {
                int c;
                i += text_char(t + i, n - i, &c);
                col += c;
            }
            if (i >= stop) continue;
            size_t plen = stop - i;
            char *piece = xstrndup(t + i, plen);
            size_t fit = text_fit(piece, w - drawn);
            int used = tui_put(y, x + drawn, w - drawn, in_match ? ROLE_SEARCH : role, piece);
            free(piece);
            drawn += used;
            col += used;
            i += fit;
            if (fit < plen) {   /* the screen edge cut the piece */
                s = line->n;
                break;
            }
        }
        off += n;
    }
    if (drawn > w) drawn = w;
    tui_fill(y, x + drawn, w - drawn, fill_role);
    free(plain);
}

void tui_draw_title(Tui *t, const char *left, const char *right) {
    tui_fill(0, 0, t->cols, ROLE_TITLE);
    int rw = right ? text_width(right) : 0;
    if (rw > t->cols / 2) rw = 0;
    tui_put(0, 1, t->cols - rw - 3, ROLE_TITLE, left);
    if (rw) tui_put(0, t->cols - rw - 1, rw, ROLE_TITLE, right);
}

void tui_draw_confirm(Tui *t, const char *question) {
    int y = t->rows - 1;
    const char *answer = _("y/N");
    int aw = text_width(answer);
    tui_fill(y, 0, t->cols, ROLE_WARN);
    int used = tui_put_clip(t, y, 1, t->cols - 3 - aw, ROLE_WARN, question);
    tui_put(y, 1 + used + 1, aw, ROLE_WARN, answer);
}

void tui_draw_status(Tui *t, const char *keys) {
    int y = t->rows - 1;
    tui_fill(y, 0, t->cols, ROLE_STATUS);
    if (t->message) {
        tui_put(y, 1, t->cols - 2, t->message_error ? ROLE_FAIL : ROLE_STATUS, t->message);
        return;
    }
    if (!keys) return;
    /* "r run  e edit": the first word of each pair is the key, shown in ROLE_KEY. */
    int x = 0;
    const char *p = keys;
    while (*p && x < t->cols) {
        while (*p == ' ') p++;
        const char *ks = p;
        while (*p && *p != ' ') p++;
        char *key = xstrndup(ks, (size_t)(p - ks));
        while (*p == ' ' && p[1] != ' ' && p[1]) p++;
        const char *ws = p;
        while (*p && !(p[0] == ' ' && p[1] == ' ')) p++;
        char *what = xstrndup(ws, (size_t)(p - ws));
        int need = text_width(key) + text_width(what) + 1;
        if (x + need > t->cols) {
            free(key);
            free(what);
            break;
        }
        x += tui_put(y, x, t->cols - x, ROLE_KEY, key);
        x += tui_put(y, x, t->cols - x, ROLE_STATUS, " ");
        x += tui_put(y, x, t->cols - x, ROLE_STATUS, what);
        x += tui_put(y, x, t->cols - x, ROLE_STATUS, "  ");
        free(key);
        free(what);
    }
}

void tui_draw_bar(Tui *t, int y, int x, int w, double frac) {
    if (w <= 0) return;
    if (frac < 0) frac = 0;
    if (frac > 1) frac = 1;
    int done = (int)(frac * w + 0.5);
    if (t->color) {
        tui_fill(y, x, done, ROLE_BAR_DONE);
        tui_fill(y, x + done, w - done, ROLE_BAR_TODO);
        tui_set_role(ROLE_BAR_TODO);
        for (int i = done; i < w; i++) tui_put(y, x + i, 1, ROLE_BAR_TODO, tui_glyph(t, "·", "."));
    } else {
        for (int i = 0; i < w; i++) tui_put(y, x + i, 1, ROLE_NORMAL, i < done ? "#" : ".");
    }
}

const char *tui_glyph(const Tui *t, const char *utf8, const char *ascii) { return t->utf8 ? utf8 : ascii; }
