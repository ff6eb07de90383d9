/* app/cmd_new.c: `cudojo new chapter ID` and `cudojo new exercise CHAPTER ID
 * [--program]` for authors: a skeleton that `cudojo verify` already runs and
 * passes as written (the starter fails, the solution passes, the wrong
 * variant fails), with TODO(author) marks where the author's words go.
 *
 * The pack is the folder of --lessons, else the current directory; a chapter
 * may also be named by the path of its folder. Nothing is overwritten: every
 * file is checked first and written with fs_write_file_new. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "app/cmd_common.h"
#include "base/fs.h"
#include "base/i18n.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

#define NEW_BLOCK 256   /* threads per block in the skeleton; n = 1000 leaves the last block part empty */

/* The course's id rule (lua/API.md): letters, digits, '-', '_', '.', not
 * starting with '.'; new ids also start with a letter or digit. */
static bool new_id_ok(const char *id) {
    if (!*id || strlen(id) > 64 || id[0] == '.' || id[0] == '-' || id[0] == '_') return false;
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
              *p == '_' || *p == '.'))
            return false;
    return true;
}

/* "vector-scale" → "vector_scale" (a C name; a leading digit gets "k_"). Caller frees. */
static char *kernel_name(const char *id) {
    char *k = (id[0] >= '0' && id[0] <= '9') ? xasprintf("k_%s", id) : xstrdup(id);
    for (char *p = k; *p; p++)
        if (*p == '-' || *p == '.') *p = '_';
    return k;
}

/* "vector-scale" → "Vector scale". Caller frees. */
static char *title_of(const char *id) {
    char *t = xstrdup(id);
    for (char *p = t; *p; p++)
        if (*p == '-' || *p == '_' || *p == '.') *p = ' ';
    if (t[0] >= 'a' && t[0] <= 'z') t[0] = (char)(t[0] - 'a' + 'A');
    return t;
}

/* A file to write: its path and text (both owned). */
typedef struct NewFile {
    char *path;
    char *text;
} NewFile;

typedef struct NewPlan {
    NewFile files[8];
    int n;
} NewPlan;

static void plan_add(NewPlan *p, char *path, char *text) {
    p->files[p->n++] = (NewFile){path, text};
}

static void plan_fini(NewPlan *p) {
    for (int i = 0; i < p->n; i++) {
        free(p->files[i].path);
        free(p->files[i].text);
    }
    p->n = 0;
}

/* Writes every file of the plan, or none when one exists already. */
static Diag *plan_write(const NewPlan *p) {
    for (int i = 0; i < p->n; i++) {
        if (fs_exists(p->files[i].path)) {
            char *shown = cmd_path_shown(p->files[i].path);
            Diag *d = diag_new(DIAG_ERROR, "exists", shown, 0, 0,
                               N_("%s exists already; cudojo new never overwrites a file (nothing was written)"), shown);
            free(shown);
            return d;
        }
    }
    for (int i = 0; i < p->n; i++) {
        char *dir = path_dirname(p->files[i].path);
        Diag *d = fs_mkdir_p(dir);
        free(dir);
        if (!d) d = fs_write_file_new(p->files[i].path, p->files[i].text, strlen(p->files[i].text));
        if (d) return d;
    }
    return NULL;
}

/* ---- new chapter ---- */

/* The next chapter number in the pack: one more than the largest leading number of its folders. */
static int next_order(const char *pack) {
    int best = 0;
    DIR *d = opendir(pack);
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (de->d_name[0] >= '0' && de->d_name[0] <= '9' && atoi(de->d_name) > best) best = atoi(de->d_name);
    if (d) closedir(d);
    return best + 1;
}

static void plan_chapter(NewPlan *p, const char *dir, const char *id, int order) {
    char *title = title_of(id);
    plan_add(p, path_join(dir, "chapter.lua"),
             xasprintf("-- chapter.lua: the chapter \"%s\". TODO(author): one or two lines on what it teaches.\n"
                       "-- `cudojo new exercise %s ID` adds an exercise and lists it below.\n"
                       "return {\n"
                       "  id = \"%s\",                 -- stable: progress is kept under it, never rename it\n"
                       "  title = \"%s\",\n"
                       "  title_zh = \"%s（TODO(author): 中文标题）\",\n"
                       "  order = %d,\n"
                       "  exercises = {},\n"
                       "}\n",
                       id, id, id, title, title, order));
    plan_add(p, path_join(dir, "README.md"),
             xasprintf("# %s\n\n"
                       "TODO(author): the lesson. What the learner should know before the first\n"
                       "exercise, one idea at a time, with a short code example each.\n\n"
                       "## Exercises\n",
                       title));
    plan_add(p, path_join(dir, "README.zh-CN.md"),
             xasprintf("# %s\n\n"
                       "TODO(author): README.md 的中文翻译（术语见 lessons/GLOSSARY.zh-CN.md）。\n\n"
                       "## 练习\n",
                       title));
    free(title);
}

static int new_chapter(Cli *cli, const char *id) {
    if (!new_id_ok(id)) {
        fprintf(stderr, _("cudojo new chapter: '%s' is not a chapter id: use letters, digits, '-', '_' and '.', "
                          "starting with a letter or digit (e.g. shared-memory)\n"), id);
        return 2;
    }
    const char *pack = cli->lessons_arg ? cli->lessons_arg : ".";
    if (!fs_is_dir(pack)) {
        fprintf(stderr, _("cudojo new chapter: --lessons %s: no such directory\n"), pack);
        return 2;
    }
    /* A chapter id must be new in the pack too (ids are unique across a course). */
    Course *course = NULL;
    Diag *d = course_load(pack, &course);
    diag_free(&d);
    for (int i = 0; course && i < course->n_chapters; i++) {
        if (!strcmp(course->chapters[i].id, id)) {
            char *shown = cmd_path_shown(course->chapters[i].dir);
            fprintf(stderr, _("cudojo new chapter: the pack has a chapter '%s' already (%s)\n"), id, shown);
            free(shown);
            course_free(&course);
            return 1;
        }
    }
    course_free(&course);
    int order = next_order(pack);
    char *folder = xasprintf("%02d-%s", order, id);
    char *dir = path_join(pack, folder);
    NewPlan plan = {0};
    plan_chapter(&plan, dir, id, order);
    d = plan_write(&plan);
    int status = 0;
    char *shown = cmd_path_shown(dir);
    if (d) {
        cli_print_diags(d);
        diag_free(&d);
        status = 1;
    } else if (cli->json) {
        cli_print_json(json_pack("{s:s, s:s, s:i}", "chapter", id, "dir", shown, "order", order));
    } else {
        printf(_("made chapter '%s' in %s/ (chapter.lua, README.md, README.zh-CN.md)\n"
                 "next: cudojo new exercise %s EXERCISE-ID%s%s\n"),
               id, shown, id, cli->lessons_arg ? " --lessons " : "", cli->lessons_arg ? cli->lessons_arg : "");
    }
    plan_fini(&plan);
    free(shown);
    free(dir);
    free(folder);
    return status;
}

/* ---- new exercise ---- */

static char *kernel_lua(const char *id, const char *k, const char *title) {
    return xasprintf(
        "-- %s: TODO(author): what the learner builds, and what the checks below make sure of.\n"
        "-- As written: y[i] = a * x[i] for n = 1000 floats with blocks of %d threads, so the\n"
        "-- last block has threads past the end (the emulator reports any access there).\n"
        "return {\n"
        "  id = \"%s\",                    -- unique across the course, stable\n"
        "  title = \"%s\",\n"
        "  title_zh = \"%s（TODO(author): 中文标题）\",\n"
        "  source = \"%s.cu\",             -- the starter the learner edits: it must fail\n"
        "  solution = \"solutions/%s.cu\", -- must pass\n"
        "  wrong = { \"solutions/wrong/%s-off-by-one.cu\" },   -- typical mistakes: each must fail\n"
        "  hints = {\n"
        "    \"TODO(author): a first, vague hint. Each thread handles one element: which one?\",\n"
        "    \"TODO(author): a specific hint. i = blockIdx.x * blockDim.x + threadIdx.x, and only i < n exists.\",\n"
        "  },\n"
        "  hints_zh = {\n"
        "    \"TODO(author): 第一条提示（笼统）。每个线程处理一个元素：哪一个？\",\n"
        "    \"TODO(author): 第二条提示（具体）。i = blockIdx.x * blockDim.x + threadIdx.x，只有 i < n 的元素存在。\",\n"
        "  },\n"
        "  run = function(t)\n"
        "    local n = t:param(\"n\", 1000)      -- not a multiple of the block: tails get tested\n"
        "    local a = 2.5\n"
        "    local x = gpu.array(\"f32\", n, \"x\"):random{ lo = -1, hi = 1, seed = 1 }\n"
        "    local y = gpu.array(\"f32\", n, \"y\")\n"
        "    local k = t:kernel(\"%s\")\n"
        "    k:launch{ grid = (n + %d - 1) // %d, block = %d, args = { x, y, gpu.f32(a), gpu.i32(n) } }\n"
        "    -- The CPU reference: what every element must be (rounded to f32 as the GPU stores it).\n"
        "    local want = ref.map(x, function(v) return a * v end, \"f32\")\n"
        "    t:expect_close(y, want, { rel = 1e-6, abs = 1e-7 })\n"
        "  end,\n"
        "}\n",
        id, NEW_BLOCK, id, title, title, id, id, id, k, NEW_BLOCK, NEW_BLOCK, NEW_BLOCK);
}

static char *kernel_cu(const char *id, const char *k, int variant /* 0 starter, 1 solution, 2 wrong */) {
    const char *head = variant == 0   ? "TODO(author): what the learner must make this kernel do."
                       : variant == 1 ? "(solution) one thread per element; threads past the end do nothing."
                                      : "(wrong: off by one) element n does not exist, yet i == n writes it.";
    const char *body = variant == 0 ? "    // TODO: give element i of y its value, for every element that exists;\n"
                                      "    // threads past the end (i >= n) must not touch x or y.\n"
                       : variant == 1 ? "    if (i < n)\n        y[i] = a * x[i];\n"
                                      : "    if (i <= n)\n        y[i] = a * x[i];\n";
    return xasprintf("// %s.cu %s\n"
                     "//\n"
                     "// y = a x, element by element, for the n elements of x and y.\n\n"
                     "extern \"C\" __global__ void %s(const float *x, float *y, float a, int n)\n"
                     "{\n"
                     "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                     "%s%s"
                     "}\n",
                     id, head, k, variant == 0 ? "    (void)i;\n" : "", body);
}

static char *program_lua(const char *id, const char *title) {
    return xasprintf(
        "-- %s: TODO(author): what the learner's program does, and what the checks make sure of.\n"
        "-- As written: a whole program (main) reads n floats from x.bin, computes\n"
        "-- y = a * x on the GPU and writes y.bin; the exercise checks y against the CPU.\n"
        "return {\n"
        "  id = \"%s\",\n"
        "  kind = \"program\",                 -- a whole .cu with main(), built by nvcc\n"
        "  title = \"%s\",\n"
        "  title_zh = \"%s（TODO(author): 中文标题）\",\n"
        "  source = \"%s.cu\",\n"
        "  solution = \"solutions/%s.cu\",\n"
        "  wrong = { \"solutions/wrong/%s-off-by-one.cu\" },\n"
        "  timeout = 60,                       -- an nvcc build that misses the cache takes seconds\n"
        "  hints = {\n"
        "    \"TODO(author): a first, vague hint. Which thread handles which element?\",\n"
        "    \"TODO(author): a specific hint. if (i < n) y[i] = a * x[i]; in the kernel.\",\n"
        "  },\n"
        "  hints_zh = {\n"
        "    \"TODO(author): 第一条提示（笼统）。哪个线程处理哪个元素？\",\n"
        "    \"TODO(author): 第二条提示（具体）。在核函数里写 if (i < n) y[i] = a * x[i];\",\n"
        "  },\n"
        "  run = function(t)\n"
        "    local n = t:param(\"n\", 1000)\n"
        "    local a = 2.5\n"
        "    local x = gpu.array(\"f32\", n, \"x\"):random{ lo = -1, hi = 1, seed = 1 }\n"
        "    local r = t:program{ args = { n, a }, files = { [\"x.bin\"] = x }, outputs = { [\"y.bin\"] = \"f32\" } }\n"
        "    t:expect_exit(r)\n"
        "    local y = r.files[\"y.bin\"]\n"
        "    if not y then return t:fail(\"the program wrote no y.bin\") end\n"
        "    t:expect_close(y, ref.map(x, function(v) return a * v end, \"f32\"), { rel = 1e-6, abs = 1e-7 })\n"
        "  end,\n"
        "}\n",
        id, id, title, title, id, id, id);
}

static char *program_cu(const char *id, const char *k, int variant) {
    const char *head = variant == 0   ? "TODO(author): what the learner must make this program do."
                       : variant == 1 ? "(solution)"
                                      : "(wrong: off by one) element n does not exist, yet i == n writes it.";
    const char *body = variant == 0 ? "    // TODO: give element i of y its value, for every element that exists;\n"
                                      "    // threads past the end (i >= n) must not touch x or y.\n"
                                      "    (void)i;\n"
                       : variant == 1 ? "    if (i < n)\n        y[i] = a * x[i];\n"
                                      : "    if (i <= n)\n        y[i] = a * x[i];\n";
    return xasprintf(
        "// %s.cu %s\n"
        "//\n"
        "// y = a x for N floats read from x.bin; the result goes to y.bin.\n"
        "//\n"
        "//   nvcc -O2 -lineinfo %s.cu -o %s && ./%s N A\n\n"
        "#include <stdio.h>\n"
        "#include <stdlib.h>\n"
        "#include <cuda_runtime.h>\n\n"
        "#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)\n"
        "static void cuda_check(cudaError_t err, const char *what, const char *file, int line)\n"
        "{\n"
        "    if (err != cudaSuccess) {\n"
        "        fprintf(stderr, \"%%s:%%d: %%s failed: %%s\\n\", file, line, what, cudaGetErrorString(err));\n"
        "        exit(EXIT_FAILURE);\n"
        "    }\n"
        "}\n\n"
        "__global__ void %s(const float *x, float *y, float a, int n)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "%s"
        "}\n\n"
        "int main(int argc, char **argv)\n"
        "{\n"
        "    if (argc < 3) {\n"
        "        fprintf(stderr, \"usage: %%s N A\\n\", argv[0]);\n"
        "        return 2;\n"
        "    }\n"
        "    int n = atoi(argv[1]);\n"
        "    float a = (float)atof(argv[2]);\n"
        "    size_t bytes = (size_t)n * sizeof(float);\n"
        "    float *h_x = (float *)malloc(bytes), *h_y = (float *)malloc(bytes);\n"
        "    FILE *f = fopen(\"x.bin\", \"rb\");\n"
        "    if (!f || fread(h_x, sizeof(float), (size_t)n, f) != (size_t)n) {\n"
        "        fprintf(stderr, \"cannot read %%d floats from x.bin\\n\", n);\n"
        "        return EXIT_FAILURE;\n"
        "    }\n"
        "    fclose(f);\n"
        "    float *d_x, *d_y;\n"
        "    cudaCheck(cudaMalloc(&d_x, bytes));\n"
        "    cudaCheck(cudaMalloc(&d_y, bytes));\n"
        "    cudaCheck(cudaMemcpy(d_x, h_x, bytes, cudaMemcpyHostToDevice));\n"
        "    cudaCheck(cudaMemset(d_y, 0, bytes));\n"
        "    %s<<<(n + %d - 1) / %d, %d>>>(d_x, d_y, a, n);\n"
        "    cudaCheck(cudaGetLastError());\n"
        "    cudaCheck(cudaMemcpy(h_y, d_y, bytes, cudaMemcpyDeviceToHost));\n"
        "    f = fopen(\"y.bin\", \"wb\");\n"
        "    if (!f || fwrite(h_y, sizeof(float), (size_t)n, f) != (size_t)n) {\n"
        "        fprintf(stderr, \"cannot write y.bin\\n\");\n"
        "        return EXIT_FAILURE;\n"
        "    }\n"
        "    fclose(f);\n"
        "    cudaCheck(cudaFree(d_x));\n"
        "    cudaCheck(cudaFree(d_y));\n"
        "    free(h_x);\n"
        "    free(h_y);\n"
        "    return 0;\n"
        "}\n",
        id, head, id, id, id, k, body, k, NEW_BLOCK, NEW_BLOCK, NEW_BLOCK);
}

/* Where a new stem goes in `exercises = { ... }` of chapter.lua: the offset
 * just after the list's last item (or after its '{' when it has none), and
 * in *last that item's last character (0 for an empty list). -1 when the
 * text has no such list. Lua strings and -- comments are skipped, so a brace
 * or a quote in them does not count. */
static long exercises_list_insert_at(const char *s, char *last) {
    const char *p = s;
    bool in_list = false;
    int depth = 0;
    long at = -1;
    *last = 0;
    while (*p) {
        if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n') p++;
            continue;
        }
        if (*p == '"' || *p == '\'') {
            char q = *p++;
            while (*p && *p != q && *p != '\n') p += (*p == '\\' && p[1]) ? 2 : 1;
            if (*p) p++;
            if (in_list) {
                *last = q;
                at = p - s;
            }
            continue;
        }
        if (!in_list) {
            if (!strncmp(p, "exercises", 9) && (p == s || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z')))) {
                const char *q = p + 9;
                while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
                if (*q == '=') {
                    q++;
                    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
                    if (*q == '{') {
                        in_list = true;
                        depth = 1;
                        p = q + 1;
                        at = p - s;
                        continue;
                    }
                }
            }
            p++;
            continue;
        }
        if (*p == '{') depth++;
        else if (*p == '}' && --depth == 0) return at;
        if (!(*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) {
            *last = *p;
            at = p + 1 - s;
        }
        p++;
    }
    return -1;
}

/* chapter.lua's text with `"stem"` added at the end of its exercises list;
 * NULL when the list cannot be found. Caller frees. */
static char *chapter_add_stem(const char *text, const char *stem) {
    char last;
    long at = exercises_list_insert_at(text, &last);
    if (at < 0) return NULL;
    StrBuf b;
    strbuf_init(&b);
    strbuf_append_n(&b, text, (size_t)at);
    if (last == 0) strbuf_printf(&b, " \"%s\"%s", stem, text[at] == '}' ? " " : "");
    else if (last == ',' || last == ';') strbuf_printf(&b, " \"%s\",", stem);
    else strbuf_printf(&b, ", \"%s\"", stem);
    strbuf_append(&b, text + at);
    return strbuf_steal(&b);
}

/* Finds the chapter folder CHAPTER names: a folder holding chapter.lua, or
 * a chapter of the pack by id or folder name. Caller frees; NULL + *why. */
static char *find_chapter(const char *pack, const char *name, Course *course, char **why) {
    *why = NULL;
    char *cl = path_join(name, "chapter.lua");
    bool is_dir = fs_exists(cl);
    free(cl);
    if (is_dir) return path_absolute(name);
    for (int i = 0; course && i < course->n_chapters; i++) {
        const ChapterMeta *ch = &course->chapters[i];
        if (!strcmp(ch->id, name) || !strcmp(path_basename(ch->dir), name)) return xstrdup(ch->dir);
    }
    char *shown = cmd_path_shown(pack);
    *why = xasprintf(_("no chapter '%s' in %s (give a chapter id, its folder name, or the path of a folder holding "
                       "chapter.lua; `cudojo new chapter %s` makes one)"),
                     name, shown, name);
    free(shown);
    return NULL;
}

static int new_exercise(Cli *cli, const char *chapter, const char *id, bool program) {
    if (!new_id_ok(id)) {
        fprintf(stderr, _("cudojo new exercise: '%s' is not an exercise id: use letters, digits, '-', '_' and '.', "
                          "starting with a letter or digit (e.g. vector-add)\n"), id);
        return 2;
    }
    const char *pack = cli->lessons_arg ? cli->lessons_arg : ".";
    Course *course = NULL;
    Diag *d = fs_is_dir(pack) ? course_load(pack, &course) : NULL;
    diag_free(&d);
    char *why = NULL;
    char *dir = find_chapter(pack, chapter, course, &why);
    if (!dir) {
        fprintf(stderr, _("cudojo new exercise: %s\n"), why);
        free(why);
        course_free(&course);
        return 1;
    }
    /* Ids are unique across the course: the pack around the chapter folder. */
    if (!course || !course->n_chapters) {
        course_free(&course);
        char *up = path_dirname(dir);
        d = course_load(up, &course);
        diag_free(&d);
        free(up);
    }
    for (int i = 0; course && i < course->n_chapters; i++)
        for (int e = 0; e < course->chapters[i].n_exercises; e++)
            if (!strcmp(course->chapters[i].exercises[e].id, id)) {
                char *shown = cmd_path_shown(course->chapters[i].exercises[e].lua_path);
                fprintf(stderr, _("cudojo new exercise: the course has an exercise '%s' already (%s); exercise ids "
                                  "are unique across the course\n"), id, shown);
                free(shown);
                course_free(&course);
                free(dir);
                return 1;
            }
    course_free(&course);

    char *clpath = path_join(dir, "chapter.lua"), *cltext = NULL;
    d = fs_read_file(clpath, &cltext, NULL);
    char *shown_cl = cmd_path_shown(clpath);
    char *newcl = d ? NULL : chapter_add_stem(cltext, id);
    int status = 0;
    NewPlan plan = {0};
    if (d) {
        cli_print_diags(d);
        diag_free(&d);
        status = 1;
        goto out;
    }
    if (!newcl) {
        fprintf(stderr, _("cudojo new exercise: %s has no `exercises = { ... }` list to add '%s' to\n"), shown_cl, id);
        status = 1;
        goto out;
    }
    char *k = kernel_name(id), *title = title_of(id);
    char *f = xasprintf("%s.lua", id);
    plan_add(&plan, path_join(dir, f), program ? program_lua(id, title) : kernel_lua(id, k, title));
    free(f);
    for (int v = 0; v < 3; v++) {
        f = v == 0 ? xasprintf("%s.cu", id) : v == 1 ? xasprintf("solutions/%s.cu", id)
                                                     : xasprintf("solutions/wrong/%s-off-by-one.cu", id);
        plan_add(&plan, path_join(dir, f), program ? program_cu(id, k, v) : kernel_cu(id, k, v));
        free(f);
    }
    free(k);
    free(title);
    d = plan_write(&plan);
    if (!d) d = fs_write_file_atomic(clpath, newcl, strlen(newcl));
    char *shown_dir = cmd_path_shown(dir);
    if (d) {
        cli_print_diags(d);
        diag_free(&d);
        status = 1;
    } else if (cli->json) {
        json_t *files = json_array();
        for (int i = 0; i < plan.n; i++) {
            char *s = cmd_path_shown(plan.files[i].path);
            json_array_append_new(files, json_string(s));
            free(s);
        }
        cli_print_json(json_pack("{s:s, s:s, s:s, s:o}", "exercise", id, "kind", program ? "program" : "kernel",
                                 "chapter", shown_dir, "files", files));
    } else {
        printf(program ? _("made program exercise '%s' in %s/:\n") : _("made kernel exercise '%s' in %s/:\n"), id,
               shown_dir);
        for (int i = 0; i < plan.n; i++) {
            char *s = cmd_path_shown(plan.files[i].path);
            printf("  %s\n", s);
            free(s);
        }
        printf(_("and listed it in %s. Check it with: cudojo verify %s\n"), shown_cl, shown_dir);
    }
    free(shown_dir);
out:
    plan_fini(&plan);
    free(newcl);
    free(cltext);
    free(shown_cl);
    free(clpath);
    free(dir);
    return status;
}

int cmd_new(Cli *cli, int argc, char **argv) {
    const char *pos[4];
    int np = 0;
    bool program = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--program")) program = true;
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, _("cudojo new: unknown option '%s' (see cudojo new --help)\n"), argv[i]);
            return 2;
        } else if (np < 4) pos[np++] = argv[i];
        else np++;
    }
    if (np == 2 && !strcmp(pos[0], "chapter") && !program) return new_chapter(cli, pos[1]);
    if (np == 3 && !strcmp(pos[0], "exercise")) return new_exercise(cli, pos[1], pos[2], program);
    fputs(_("usage: cudojo new chapter ID\n"
            "       cudojo new exercise CHAPTER ID [--program]\n"), stderr);
    return 2;
}

/* The command's entry in the table app/cli.c lists. */
const Command CMD_NEW = {"new", "chapter ID | exercise CHAPTER ID [--program]",
    N_("authors: a new chapter or exercise that verify already passes"),
    N_("new chapter ID makes the folder NN-ID (NN: the next chapter number) in the\n"
    "pack (--lessons DIR, default: the current directory) with chapter.lua,\n"
    "README.md and README.zh-CN.md.\n"
    "\n"
    "new exercise CHAPTER ID adds an exercise to a chapter (its id, its folder\n"
    "name, or the path of a folder holding chapter.lua) and lists it in\n"
    "chapter.lua: ID.lua with a CPU reference, the starter ID.cu, the solution\n"
    "solutions/ID.cu and one wrong variant under solutions/wrong/. As written,\n"
    "`cudojo verify` passes it: the starter fails, the solution passes, the\n"
    "wrong variant fails. TODO(author) marks what to write; lessons/AUTHORING.md\n"
    "goes on from there.\n"
    "\n"
    "Options:\n"
    "  --program    a whole-program exercise (main(), built by nvcc) instead of\n"
    "               a kernel compiled by NVRTC\n"
    "\n"
    "Nothing is overwritten: when a file exists already, nothing is written.\n"),
    cmd_new};
