/* app/grade_output.c: what `cudojo grade --out DIR` leaves for people, all
 * made from the grading database (gradedb_export_json) and written
 * atomically (a temporary file renamed over the old one): gradebook.csv,
 * gradebook.json, per student a Gradescope-style results.json and a
 * feedback.md, and similarity.md (app/similarity.h).
 *
 * feedback.md is read in a browser or a Markdown viewer, and holds what the
 * student's program printed and names they chose: everything of theirs is
 * inside a fenced code block (md_fence: no link, image or HTML is made in
 * one, whatever it holds) or, inline, has every ASCII punctuation mark
 * escaped (md_inline). Course text (titles, hints) is the instructor's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/grade.h"
#include "app/similarity.h"
#include "base/bytes.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

static Diag *write_text(const char *dir, const char *name, StrBuf *sb) {
    char *p = path_join(dir, name);
    Diag *d = fs_write_file_atomic(p, sb->data ? sb->data : "", sb->len);
    free(p);
    strbuf_fini(sb);
    return d;
}

static Diag *write_json(const char *dir, const char *name, const json_t *j) {
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS * 0);
    StrBuf sb;
    strbuf_init(&sb);
    strbuf_append(&sb, text ? text : "null");
    strbuf_append(&sb, "\n");
    free(text);
    return write_text(dir, name, &sb);
}

/* A CSV field: quoted when it holds a comma, quote or line break; a leading
 * = + - @ is defused so a spreadsheet never runs a student's name as a formula. */
static void csv_field(StrBuf *sb, const char *s) {
    bool quote = strpbrk(s, ",\"\r\n") != NULL || strchr("=+-@", s[0]) != NULL;
    if (!quote) {
        strbuf_append(sb, s);
        return;
    }
    strbuf_append_char(sb, '"');
    if (strchr("=+-@", s[0]) && s[0]) strbuf_append_char(sb, '\'');
    for (; *s; s++) {
        if (*s == '"') strbuf_append_char(sb, '"');
        strbuf_append_char(sb, *s);
    }
    strbuf_append_char(sb, '"');
}

static Diag *write_csv(Grade *g, const json_t *book) {
    StrBuf sb;
    strbuf_init(&sb);
    json_t *exs = json_object_get(book, "exercises"), *v;
    size_t i, k;
    strbuf_append(&sb, "student");
    json_array_foreach(exs, i, v) {
        strbuf_append_char(&sb, ',');
        csv_field(&sb, json_string_value(json_object_get(v, "id")));
    }
    strbuf_append(&sb, ",total\n");
    json_t *s;
    json_array_foreach(json_object_get(book, "students"), k, s) {
        char *name = bytes_printable(json_string_value(json_object_get(s, "student")));
        csv_field(&sb, name);
        free(name);
        json_t *cells = json_object_get(s, "exercises");
        json_array_foreach(exs, i, v) {
            json_t *c = json_object_get(cells, json_string_value(json_object_get(v, "id")));
            strbuf_printf(&sb, ",%g", json_number_value(json_object_get(c, "points")));
        }
        strbuf_printf(&sb, ",%g\n", json_number_value(json_object_get(s, "total")));
    }
    return write_text(g->out_dir, "gradebook.csv", &sb);
}

/* `text` (one line, printable) as Markdown text: every ASCII punctuation
 * mark backslash-escaped, so no link, image, emphasis or HTML is made of it. */
static void md_inline(StrBuf *sb, const char *text) {
    for (const char *p = text; *p; p++) {
        if (*p == '\n' || *p == '\r') {
            strbuf_append_char(sb, ' ');
            continue;
        }
        if (strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", *p)) strbuf_append_char(sb, '\\');
        strbuf_append_char(sb, *p);
    }
}

/* `text` as a fenced code block, shown as it is: the fence is a run of
 * tildes longer than any in the text, so no line of it can close the block. */
static void md_fence(StrBuf *sb, const char *text) {
    size_t run = 0, longest = 0;
    for (const char *p = text; *p; p++) {
        run = *p == '~' ? run + 1 : 0;
        if (run > longest) longest = run;
    }
    size_t n = longest >= 3 ? longest + 1 : 3;
    for (size_t i = 0; i < n; i++) strbuf_append_char(sb, '~');
    strbuf_append(sb, "text\n");
    strbuf_append(sb, text);
    if (*text && text[strlen(text) - 1] != '\n') strbuf_append_char(sb, '\n');
    for (size_t i = 0; i < n; i++) strbuf_append_char(sb, '~');
    strbuf_append_char(sb, '\n');
}

/* The folder name of a student's files: their name, made harmless. Caller frees. */
static char *student_dir_name(const char *name) {
    char *s = bytes_printable(name);
    for (char *p = s; *p; p++)
        if (*p == '/' || *p == '\\') *p = '_';
    if (s[0] == '.' || !s[0]) {
        char *t = xasprintf("_%s", s);
        free(s);
        s = t;
    }
    return s;
}

static const char *str(const json_t *o, const char *k) {
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* Words a hint about a kind of failure is likely to use. */
static const char *const *hint_words(const char *kind) {
    static const char *const oob[] = {"guard", "bound", "past the end", "i < n", NULL};
    static const char *const race[] = {"__syncthreads", "barrier", "race", "atomic", NULL};
    static const char *const uninit[] = {"load", "initial", "shared", NULL};
    static const char *const misaligned[] = {"align", "float4", "cast", NULL};
    static const char *const slow[] = {"coalesc", "bandwidth", "fast", "occupancy", NULL};
    static const char *const none[] = {NULL};
    if (!kind) return none;
    if (!strcmp(kind, "out-of-bounds")) return oob;
    if (!strcmp(kind, "race") || !strcmp(kind, "barrier")) return race;
    if (!strcmp(kind, "uninitialised")) return uninit;
    if (!strcmp(kind, "misaligned")) return misaligned;
    if (!strcmp(kind, "too-slow")) return slow;
    return none;
}

/* The first hint that speaks of this kind of failure, else the first hint. */
static const char *pick_hint(const ExerciseMeta *ex, const char *kind) {
    if (!ex || ex->n_hints == 0) return NULL;
    const char *const *w = hint_words(kind);
    for (int h = 0; h < ex->n_hints; h++)
        for (int i = 0; w[i]; i++)
            if (strstr(ex->hints[h], w[i])) return ex->hints[h];
    return ex->hints[0];
}

/* One finding ({severity, message, file, line}) as a line of what the run
 * said (said, fenced in feedback.md) and of the Gradescope output (out). */
static void add_finding(StrBuf *said, StrBuf *out, const json_t *f, const char *prefix) {
    char *fm = bytes_printable(str(f, "message"));
    char *ff = bytes_printable(str(f, "file"));
    json_int_t line = json_integer_value(json_object_get(f, "line"));
    StrBuf where;
    strbuf_init(&where);
    if (*ff && line > 0) strbuf_printf(&where, "%s:%lld: ", ff, (long long)line);
    else if (*ff) strbuf_printf(&where, "%s: ", ff);
    strbuf_printf(said, "- %s%s%s: %s\n", prefix, where.data ? where.data : "", str(f, "severity"), fm);
    strbuf_printf(out, "\n%s%s%s: %s", prefix, where.data ? where.data : "", str(f, "severity"), fm);
    strbuf_fini(&where);
    free(fm);
    free(ff);
}

/* One student's results.json (Gradescope autograder) and feedback.md. */
static Diag *write_student(Grade *g, const json_t *book, const json_t *s) {
    char *dname = student_dir_name(str(s, "student"));
    char *sdir = xasprintf("%s/students/%s", g->out_dir, dname);
    free(dname);
    Diag *d = fs_mkdir_p(sdir);
    if (d) {
        free(sdir);
        return d;
    }
    json_t *tests = json_array();
    StrBuf md;
    strbuf_init(&md);
    char *who = bytes_printable(str(s, "student"));
    strbuf_append(&md, "# Feedback for ");
    md_inline(&md, who);
    strbuf_printf(&md, "\n\nScore: **%g / %g**\n", json_number_value(json_object_get(s, "total")),
                  json_number_value(json_object_get(s, "max_total")));
    free(who);
    size_t i;
    json_t *p;
    if (json_array_size(json_object_get(s, "problems"))) {
        strbuf_append(&md, "\nAbout the submission:\n\n");
        StrBuf probs;
        strbuf_init(&probs);
        json_array_foreach(json_object_get(s, "problems"), i, p) {
            char *t = bytes_printable(json_string_value(p));
            strbuf_printf(&probs, "- %s\n", t);
            free(t);
        }
        md_fence(&md, probs.data);
        strbuf_fini(&probs);
    }
    json_t *ex;
    json_array_foreach(json_object_get(book, "exercises"), i, ex) {
        const char *id = str(ex, "id");
        json_t *c = json_object_get(json_object_get(s, "exercises"), id);
        const char *verdict = json_is_string(json_object_get(c, "verdict")) ? str(c, "verdict") : "not graded";
        const char *kind = json_string_value(json_object_get(c, "failure_kind"));
        double pts = json_number_value(json_object_get(c, "points")), max = json_number_value(json_object_get(c, "max_points"));
        bool passed = !strcmp(verdict, "pass") && !kind;
        char *title = bytes_printable(str(ex, "title"));
        char *msg = bytes_printable(str(c, "message"));
        StrBuf out;
        strbuf_init(&out);
        strbuf_printf(&out, "%s%s%s", verdict, kind ? " — " : "", kind ? kind : "");
        if (*msg) strbuf_printf(&out, ": %s", msg);
        strbuf_printf(&md, "\n## %s (`%s`) — %s, %g / %g\n\n", title, id, passed ? "passed" : verdict, pts, max);
        /* What the run said (its program's output among it): fenced, below. */
        StrBuf said;
        strbuf_init(&said);
        if (*msg) strbuf_printf(&said, "%s\n", msg);
        size_t k;
        json_t *ck;
        json_array_foreach(json_object_get(c, "checks"), k, ck) {
            if (json_is_true(json_object_get(ck, "passed"))) continue;
            char *cm = bytes_printable(str(ck, "message"));
            char *cn = bytes_printable(str(ck, "name"));
            strbuf_printf(&said, "- check %s failed%s: %s\n", cn, json_is_true(json_object_get(ck, "stretch")) ? " (stretch goal)" : "", cm);
            strbuf_printf(&out, "\ncheck %s failed: %s", cn, cm);
            free(cm);
            free(cn);
        }
        json_array_foreach(json_object_get(c, "findings"), k, ck) add_finding(&said, &out, ck, "");
        /* A pass on the GPU that the emulator found a bug in: what it found. */
        json_t *ec = json_object_get(c, "emulator_check");
        bool lucky = json_is_true(json_object_get(ec, "overturned"));
        if (lucky) {
            strbuf_append(&md, "This passed on the GPU by luck: the emulator, which runs the kernel with every access "
                               "checked, found the bug below. A race or a stray read is a bug even when the hardware "
                               "happens to give the right answer.\n\n");
            json_array_foreach(json_object_get(ec, "findings"), k, ck) add_finding(&said, &out, ck, "emulator: ");
        }
        if (said.len) md_fence(&md, said.data);
        strbuf_fini(&said);
        if (!passed && strcmp(verdict, "missing")) {
            const ExerciseMeta *em = course_find_exercise(g->course, id, NULL);
            const char *hint = pick_hint(em, kind);
            if (hint) {
                char *h = bytes_printable(hint);
                strbuf_printf(&md, "\nHint: %s\n", h);
                free(h);
            }
        }
        char *name = xasprintf("%s/%s: %s", str(ex, "chapter"), id, title);
        /* output_format "text": Gradescope shows the output as it is, never as Markdown or HTML. */
        json_array_append_new(tests, json_pack("{s:o, s:f, s:f, s:s, s:s, s:s}", "name", bytes_to_json(name), "score",
                                               pts, "max_score", max, "status", passed ? "passed" : "failed", "output",
                                               out.data ? out.data : "", "output_format", "text"));
        free(name);
        strbuf_fini(&out);
        free(title);
        free(msg);
    }
    json_t *results = json_pack("{s:f, s:f, s:o, s:s}", "score", json_number_value(json_object_get(s, "total")),
                                "max_score", json_number_value(json_object_get(s, "max_total")), "tests", tests,
                                "visibility", "visible");
    d = write_json(sdir, "results.json", results);
    json_decref(results);
    Diag *d2 = write_text(sdir, "feedback.md", &md);
    if (!d) d = d2;
    else diag_free(&d2);
    free(sdir);
    return d;
}

/* similarity.md from the students' files (when this run has them), and the
 * groups into the database so gradebook.json carries them. */
static Diag *write_similarity(Grade *g) {
    if (g->n_students == 0) return NULL;
    int cap = g->n_students * g->n_items + 1, n = 0;
    SimilarityItem *items = xcalloc((size_t)cap, sizeof *items);
    char **starters = xcalloc((size_t)g->n_items + 1, sizeof *starters);
    for (int i = 0; i < g->n_items; i++)
        if (!g->items[i].skipped) starters[i] = path_join(g->items[i].ch->dir, g->items[i].ex->source);
    for (int s = 0; s < g->n_students; s++)
        for (int i = 0; i < g->n_items; i++)
            if (!g->items[i].skipped && g->students[s].paths[i])
                items[n++] = (SimilarityItem){.student = g->students[s].name, .exercise = g->items[i].ex->id,
                                              .path = g->students[s].paths[i], .starter_path = starters[i]};
    json_t *groups = similarity_groups(items, n);
    char *path = path_join(g->out_dir, "similarity.md");
    Diag *d = similarity_write_markdown(groups, path);
    free(path);
    char *text = json_dumps(groups, JSON_COMPACT);
    if (!d) d = gradedb_meta_set(g->db, GRADEDB_META_SIMILARITY, text);
    free(text);
    json_decref(groups);
    for (int i = 0; i < g->n_items; i++) free(starters[i]);
    free(starters);
    free(items);
    return d;
}

Diag *grade_write_outputs(Grade *g, json_t **book_out) {
    *book_out = NULL;
    Diag *d = write_similarity(g);
    json_t *book = NULL;
    if (!d) d = gradedb_export_json(g->db, &book);
    if (d) return d;
    d = write_csv(g, book);
    if (!d) d = write_json(g->out_dir, "gradebook.json", book);
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(book, "students"), i, s) {
        if (d) break;
        d = write_student(g, book, s);
    }
    *book_out = book;
    return d;
}
