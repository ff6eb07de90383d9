/* app/tui/tui_map.c: the course map, the workbench's home screen: every
 * chapter and exercise with its status, the next exercise highlighted, the
 * overall progress bar and time spent. Enter opens an exercise (or a
 * chapter's lesson). */
#include "app/tui/tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "base/i18n.h"
#include "base/xalloc.h"
#include "progress-db/store.h"

typedef struct MapRow {
    int chapter;        /* index in the course */
    int exercise;       /* index in the chapter, -1 for the chapter's own row */
    int status;         /* index into MapPanel.status for exercises */
} MapRow;

typedef struct MapPanel {
    Panel base;
    MapRow *rows;
    int n_rows;
    ExerciseStatus *status;   /* one per exercise, in course order */
    int n_status;
    int sel, top;
    int next_row;             /* row of the next exercise, -1 when all passed */
    int list_y, list_h;       /* where the rows were drawn (for clicks) */
    int passed, total;
    double spent_ms;
} MapPanel;

static const TuiKeyHelp MAP_HELP[] = {
    {"j/k ↑/↓", N_("move")},
    {"PgUp/PgDn g/G", N_("page, first, last")},
    {"Enter", N_("open the exercise (on a chapter: its lesson)")},
    {"l", N_("read the chapter's lesson")},
    {"n", N_("jump to the next exercise to do")},
    {"p", N_("progress: attempts, first pass, best time")},
    {"d", N_("device: GPU, toolkit, backends")},
    {"L", N_("switch language (English / 中文)")},
    {"?", N_("this help")},
    {"q", N_("quit")},
    {NULL, NULL},
};

static void map_load(MapPanel *m, Tui *t) {
    const Course *c = t->ws->course;
    for (int i = 0; i < m->n_status; i++) exercise_status_fini(&m->status[i]);
    free(m->status);
    free(m->rows);
    int n_ex = 0;
    for (int ci = 0; ci < c->n_chapters; ci++) n_ex += c->chapters[ci].n_exercises;
    m->rows = xcalloc((size_t)(n_ex + c->n_chapters + 1), sizeof *m->rows);
    m->status = xcalloc((size_t)n_ex + 1, sizeof *m->status);
    m->n_rows = m->n_status = 0;
    m->passed = m->total = 0;
    m->spent_ms = 0;
    m->next_row = -1;
    for (int ci = 0; ci < c->n_chapters; ci++) {
        const ChapterMeta *ch = &c->chapters[ci];
        m->rows[m->n_rows++] = (MapRow){ci, -1, -1};
        for (int e = 0; e < ch->n_exercises; e++) {
            ExerciseStatus *st = &m->status[m->n_status];
            Diag *d = store_exercise_status(t->ws->store, ch->exercises[e].id, st);
            if (d) {
                tui_notify(t, true, _("progress: %s"), d->message);
                diag_free(&d);
            }
            m->total++;
            m->passed += st->passed;
            m->spent_ms += st->time_spent_ms;
            if (!st->passed && m->next_row < 0) m->next_row = m->n_rows;
            m->rows[m->n_rows++] = (MapRow){ci, e, m->n_status++};
        }
    }
}

static void map_resume(Panel *p, Tui *t) { map_load((MapPanel *)p, t); }

static void format_duration(char *buf, size_t n, double ms) {
    long s = (long)(ms / 1000.0);
    if (s < 60) snprintf(buf, n, "%lds", s);
    else if (s < 3600) snprintf(buf, n, "%ldm%02lds", s / 60, s % 60);
    else snprintf(buf, n, "%ldh%02ldm", s / 3600, (s / 60) % 60);
}

static void map_draw(Panel *p, Tui *t, int top, int h, int w) {
    MapPanel *m = (MapPanel *)p;
    const Course *c = t->ws->course;
    tui_draw_title(t, _("cudojo — Course map"), path_basename(t->ws->dir));

    /* Progress: a bar, the counts and the time spent. */
    char spent[32], counts[96];
    format_duration(spent, sizeof spent, m->spent_ms);
    snprintf(counts, sizeof counts, _(" %d/%d passed  %d%%  time %s"), m->passed, m->total,
             m->total ? m->passed * 100 / m->total : 0, spent);
    const char *label = _("Progress");
    int lw = text_width(label) + 1, bx = 1 + lw;
    int cw = text_width(counts);
    int bw = w - cw - bx - 3;
    if (bw > 40) bw = 40;
    tui_put(top, 1, lw, ROLE_BOLD, label);
    if (bw >= 5) tui_draw_bar(t, top, bx, bw, m->total ? (double)m->passed / m->total : 0);
    tui_put(top, bx + (bw >= 5 ? bw : 0), w - bx - 1 - (bw >= 5 ? bw : 0), ROLE_NORMAL, counts);
    /* Where the learner's files are (the lessons say "your workspace"; after `make run` it is
       $XDG_DATA_HOME/cudojo, not a folder they made). */
    if (h > 2) {
        const char *home = getenv("HOME");
        size_t hl = home && *home && strcmp(home, "/") ? strlen(home) : 0;
        bool tilde = hl && !strncmp(t->ws->dir, home, hl) && (t->ws->dir[hl] == '/' || !t->ws->dir[hl]);
        char *where = xasprintf("%s%s", tilde ? "~" : "", t->ws->dir + (tilde ? hl : 0));
        int x = 1 + tui_put(top + 1, 1, w - 2, ROLE_DIM, _("Your files: "));
        tui_put_clip(t, top + 1, x, w - x - 1, ROLE_DIM, where);
        free(where);
    }
    top += 2;
    h -= 2;
    if (h < 1) return;

    m->list_y = top;
    m->list_h = h;
    if (m->sel < m->top) m->top = m->sel;
    if (m->sel >= m->top + h) m->top = m->sel - h + 1;
    if (m->top < 0) m->top = 0;

    int id_w = 0;
    for (int i = 0; i < m->n_rows; i++)
        if (m->rows[i].exercise >= 0) {
            int iw = text_width(c->chapters[m->rows[i].chapter].exercises[m->rows[i].exercise].id);
            if (iw > id_w) id_w = iw;
        }
    if (id_w > w / 3) id_w = w / 3;
    int st_w = 14;
    for (int i = 0; i < h && m->top + i < m->n_rows; i++) {
        int ri = m->top + i, y = top + i;
        const MapRow *row = &m->rows[ri];
        const ChapterMeta *ch = &c->chapters[row->chapter];
        bool sel = ri == m->sel;
        int base = sel ? ROLE_SELECTED : ROLE_NORMAL;
        tui_fill(y, 0, w, base);
        if (row->exercise < 0) {
            int done = 0;
            for (int k = 0; k < m->n_rows; k++)
                if (m->rows[k].chapter == row->chapter && m->rows[k].exercise >= 0)
                    done += m->status[m->rows[k].status].passed;
            char head[64];
            snprintf(head, sizeof head, "%d  ", ch->order);
            int x = 1 + tui_put(y, 1, w - 2, sel ? base : ROLE_H2, head);
            x += tui_put(y, x, w - x - st_w, sel ? base : ROLE_H2, tui_chapter_title(t, ch));
            char frac[32];
            snprintf(frac, sizeof frac, "%d/%d", done, ch->n_exercises);
            tui_put(y, w - st_w, st_w - 1, sel ? base : ROLE_DIM, frac);
            continue;
        }
        const ExerciseMeta *ex = &ch->exercises[row->exercise];
        const ExerciseStatus *st = &m->status[row->status];
        bool next = ri == m->next_row;
        const char *mark;
        int mark_role;
        char word[32];
        if (st->passed) {
            mark = st->passed_fast ? tui_glyph(t, "★", "*") : tui_glyph(t, "✓", "+");
            mark_role = ROLE_PASS;
            snprintf(word, sizeof word, "%s", st->passed_fast ? _("passed fast") : _("passed"));
        } else if (st->attempts > 0) {
            mark = tui_glyph(t, "✗", "x");
            mark_role = ROLE_FAIL;
            snprintf(word, sizeof word, t->utf8 ? _("failing ×%d") : _("failing x%d"), st->attempts);
        } else {
            mark = tui_glyph(t, "·", ".");
            mark_role = ROLE_DIM;
            snprintf(word, sizeof word, "%s", _("not started"));
        }
        tui_put(y, 1, 2, next && !sel ? ROLE_NEXT : base, next ? tui_glyph(t, "▶", ">") : " ");
        tui_put(y, 4, 1, sel ? base : mark_role, mark);
        int x = 6;
        tui_put(y, x, id_w, sel ? base : next ? ROLE_NEXT : ROLE_BOLD, ex->id);
        x += id_w + 2;
        int title_w = w - x - st_w - 2;
        if (title_w > 0) tui_put_clip(t, y, x, title_w, base, tui_exercise_title(t, ex));
        tui_put(y, w - st_w, st_w - 1, sel ? base : mark_role == ROLE_DIM ? ROLE_DIM : mark_role, word);
    }
    tui_draw_status(t, _("Enter open  l lesson  n next  p progress  d device  L lang  ? help  q quit"));
}

static int map_key(Panel *p, Tui *t, int key) {
    MapPanel *m = (MapPanel *)p;
    if (m->n_rows == 0) return TUI_UNHANDLED;
    int page = t->rows - 5 > 1 ? t->rows - 5 : 1;
    const MapRow *row = &m->rows[m->sel];
    const ChapterMeta *ch = &t->ws->course->chapters[row->chapter];
    switch (key) {
    case KEY_DOWN:
    case 'j': m->sel++; break;
    case KEY_UP:
    case 'k': m->sel--; break;
    case KEY_NPAGE: m->sel += page; break;
    case KEY_PPAGE: m->sel -= page; break;
    case KEY_HOME:
    case 'g': m->sel = 0; break;
    case KEY_END:
    case 'G': m->sel = m->n_rows - 1; break;
    case 'n':
        if (m->next_row >= 0) m->sel = m->next_row;
        else tui_notify(t, false, "%s", _("Every exercise passed. Well done!"));
        break;
    case '\n':
    case '\r':
    case KEY_ENTER:
    case KEY_RIGHT:
        if (row->exercise >= 0)
            tui_open(t, &(TuiRequest){.what = TUI_OPEN_EXERCISE, .ch = ch, .ex = &ch->exercises[row->exercise]});
        else tui_open(t, &(TuiRequest){.what = TUI_OPEN_LESSON, .ch = ch});
        break;
    case 'l': tui_open(t, &(TuiRequest){.what = TUI_OPEN_LESSON, .ch = ch}); break;
    case 'p': tui_open(t, &(TuiRequest){.what = TUI_OPEN_PROGRESS}); break;
    case 'd': tui_open(t, &(TuiRequest){.what = TUI_OPEN_DEVICE}); break;
    case 'q': return TUI_QUIT;
    default: return TUI_UNHANDLED;
    }
    if (m->sel < 0) m->sel = 0;
    if (m->sel >= m->n_rows) m->sel = m->n_rows - 1;
    return TUI_HANDLED;
}

/* A click selects a row; a double click (or a click on the selected row) opens it. */
static int map_click(Panel *p, Tui *t, int y, int x, bool dbl) {
    MapPanel *m = (MapPanel *)p;
    (void)x;
    if (y < m->list_y || y >= m->list_y + m->list_h) return TUI_HANDLED;
    int row = m->top + (y - m->list_y);
    if (row >= m->n_rows) return TUI_HANDLED;
    bool again = row == m->sel;
    m->sel = row;
    if (dbl || again) return map_key(p, t, '\n');
    return TUI_HANDLED;
}

static void map_free(Panel *p, Tui *t) {
    (void)t;
    MapPanel *m = (MapPanel *)p;
    for (int i = 0; i < m->n_status; i++) exercise_status_fini(&m->status[i]);
    free(m->status);
    free(m->rows);
    free(m);
}

Panel *tui_map_new(Tui *t) {
    MapPanel *m = xcalloc(1, sizeof *m);
    m->base = (Panel){.title = N_("Course map"), .help = MAP_HELP, .draw = map_draw, .key = map_key,
                      .resume = map_resume, .free = map_free, .click = map_click};
    map_load(m, t);
    m->sel = m->next_row >= 0 ? m->next_row : 0;
    return &m->base;
}
