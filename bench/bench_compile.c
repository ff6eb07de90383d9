/* bench/bench_compile.c: NVRTC compile latency, cold and cached, and what
 * a GPU build costs over the course's kernel exercises (issue 13: grading
 * throughput).
 *
 * Latency: vector_add. Cold: a unique source each repetition (a comment
 * with a counter) and the cache off, so every rep pays NVRTC (and ptxas for
 * the cubin row). Cached: the same source with a cache directory, after one
 * fill, so every rep is a hit. Median and min of REPS runs each.
 *
 * Course: every kernel exercise's solution (lessons/, not kind = "program")
 * built as a GPU builds it, cache off. NEW is compile_cuda with cubin_arch
 * 90: one NVRTC program (-arch=sm_90) gives the cubin and the PTX, the
 * emulator's parse check of that PTX, and a compute_80 program only when it
 * fails. OLD is what compile_cuda did before: a compute_80 program for the
 * PTX, then the sm_90 one for the cubin; measured as compile_cuda with
 * cubin_arch 0 plus NEW less its parse check (the sm_90 program is the same
 * program in both). The two are interleaved per rep, so drift in the
 * machine's load falls on both; medians per file, summed. Per file it also
 * says how many NVRTC programs NEW ran, whether its PTX equals compute_80's
 * apart from the .version/.target lines, and whether both list the same
 * kernels; a file that does not compile on its own gets the -D values its
 * .lua passes (LESSON_DEFINES).
 *
 * Usage: build/bench/bench_compile [--reps N] [--arch SM] [--course-only] [FILE.cu...]
 *   --reps N       repetitions per file for the course (default 3)
 *   --arch SM      the cubin's arch (default 90)
 *   --course-only  skip the vector_add latency table
 *   FILE.cu        these kernel sources instead of the course's solutions
 * Run from the repository root (make bench does); NVRTC needs no GPU. On a
 * GPU machine run with CUDA_CACHE_DISABLE=1: else the driver's compute
 * cache may answer for ptxas. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fs.h"
#include "base/xalloc.h"
#include "bench/bench_stats.h"
#include "kernels/compile.h"
#include "kernels/compile_internal.h"
#include "kernels/emu/emu.h"
#include "lua/exercise.h"

#define REPS 10
#define MAX_REPS 64

/* The -D values the lessons' .lua files pass for the macros some solutions
 * need (as tests/kernels/test_cubin_info.c). */
static const char *const LESSON_DEFINES[] = {
    "-DNCOEF=4", "-DCOEFFS=1.0f,2.0f,3.0f,4.0f", "-DN=4096", "-DCHUNK=4096", "-DITEMS=4",
    "-DTM=4", "-DTN=4", "-DITERS=8", "-DROUNDS=2", "-DDEGREE=8", "-DSTEPS=64",
};

static const char *KERNEL =
    "__global__ void vector_add(const float *a, const float *b, float *c, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) c[i] = a[i] + b[i];\n"
    "}\n";

typedef struct Row {
    const char *name;
    double median, min;
} Row;

static void print_diag(const char *what, Diag **d) {
    char *t = diag_format_all(*d, false);
    fprintf(stderr, "bench_compile: %s: %s\n", what, t);
    free(t);
    diag_free(d);
}

/* Compiles REPS times; unique = a fresh source each time. Returns false on a compile error. */
static bool measure(Row *row, const char *name, const CompileOptions *o, bool unique, bool want_hit) {
    double ms[REPS];
    static int serial;
    for (int r = 0; r < REPS; r++) {
        char *src = unique ? xasprintf("// bench %d-%d\n%s", (int)getpid(), serial++, KERNEL) : xstrdup(KERNEL);
        CompiledModule *m = NULL;
        Diag *d = compile_cuda("bench.cu", src, o, &m);
        free(src);
        if (d) {
            print_diag(name, &d);
            return false;
        }
        if (m->cache_hit != want_hit) {
            fprintf(stderr, "bench_compile: %s: expected cache_hit=%d\n", name, want_hit);
            compiled_module_free(&m);
            return false;
        }
        ms[r] = m->compile_ms;
        compiled_module_free(&m);
    }
    row->name = name;
    row->min = ms[0];
    for (int r = 1; r < REPS; r++)
        if (ms[r] < row->min) row->min = ms[r];
    row->median = bench_median(ms, REPS);
    return true;
}

static bool latency_table(void) {
    char dir[] = "/tmp/cudojo-bench-compile-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return false;
    }
    Row rows[4];
    int n = 0;
    CompileOptions cold = {0};
    cold.cache_dir = "";
    CompileOptions cold_cubin = cold;
    cold_cubin.cubin_arch = 90;
    CompileOptions cached = {0};
    cached.cache_dir = dir;
    cached.cubin_arch = 90;
    CompiledModule *fill = NULL;
    Diag *d = compile_cuda("bench.cu", KERNEL, &cached, &fill);
    compiled_module_free(&fill);
    bool ok = !d && measure(&rows[n++], "cold: PTX (compute_80)", &cold, true, false) &&
              measure(&rows[n++], "cold: sm_90 cubin + its PTX", &cold_cubin, true, false) &&
              measure(&rows[n++], "cached: sm_90 cubin + PTX", &cached, false, true);
    if (d) print_diag("vector_add", &d);
    char *rm = xasprintf("rm -rf '%s'", dir);
    if (system(rm) != 0) fprintf(stderr, "bench_compile: could not remove %s\n", dir);
    free(rm);
    if (!ok) return false;
    printf("compile latency, NVRTC %s, vector_add, median of %d\n", compile_nvrtc_version(), REPS);
    printf("%-32s %10s %10s\n", "case", "median ms", "min ms");
    for (int i = 0; i < n; i++) printf("%-32s %10.2f %10.2f\n", rows[i].name, rows[i].median, rows[i].min);
    printf("cold (cubin + PTX) / cached: %.0fx\n\n", rows[1].median / (rows[2].median > 0 ? rows[2].median : 1e-9));
    return true;
}

/* ---- the course's kernel solutions, built as a GPU builds them ---- */

typedef struct Source {
    char *name;                     /* "02-threads/box-blur", or the file given */
    char *path;
    char *text;
    bool defines;                   /* needs LESSON_DEFINES */
} Source;

/* One file's figures: medians over the reps. */
typedef struct Figures {
    double old_ms, new_ms, check_ms;
    unsigned long programs;         /* NVRTC programs NEW ran (1, or 2 with the fallback) */
    bool same_ptx, same_kernels, emu_decodes;
} Figures;

static void source_free(Source *s) {
    free(s->name);
    free(s->path);
    free(s->text);
}

/* The course's kernel exercises' solutions, in course order; -1 when it does not load. */
static int course_kernel_sources(Source **out) {
    char *root = path_absolute("lessons");
    Course *course = NULL;
    Diag *d = course_load(root, &course);
    int n = -1;
    if (course && !diag_count_errors(d)) {
        n = 0;
        for (int c = 0; c < course->n_chapters; c++) {
            const ChapterMeta *ch = &course->chapters[c];
            for (int e = 0; e < ch->n_exercises; e++) {
                const ExerciseMeta *ex = &ch->exercises[e];
                if (ex->program || !ex->solution) continue;
                *out = xrealloc(*out, (size_t)(n + 1) * sizeof **out);
                (*out)[n++] = (Source){xasprintf("%s/%s", ch->id, ex->id), path_join(ch->dir, ex->solution),
                                       NULL, false};
            }
        }
    } else {
        char *s = diag_format_all(d, false);
        fprintf(stderr, "bench_compile: the course at %s does not load (run from the repository root):\n%s",
                root, s ? s : "");
        free(s);
    }
    diag_free(&d);
    course_free(&course);
    free(root);
    return n;
}

static CompileOptions options_for(const Source *s, int cubin_arch) {
    CompileOptions o = {.cubin_arch = cubin_arch, .opt_level = -1, .cache_dir = ""};
    if (s->defines) {
        o.extra_opts = LESSON_DEFINES;
        o.n_extra_opts = (int)(sizeof LESSON_DEFINES / sizeof LESSON_DEFINES[0]);
    }
    return o;
}

/* Reads the file and finds the options it compiles with; false (and says
 * why) when it compiles with neither. */
static bool source_prepare(Source *s) {
    size_t len = 0;
    Diag *d = fs_read_file(s->path, &s->text, &len);
    if (d) {
        print_diag(s->name, &d);
        return false;
    }
    for (int pass = 0; pass < 2; pass++) {
        s->defines = pass == 1;
        CompileOptions o = options_for(s, 0);
        CompiledModule *m = NULL;
        d = compile_cuda(s->path, s->text, &o, &m);
        compiled_module_free(&m);
        if (!d) return true;
        if (pass == 1) print_diag(s->name, &d);
        diag_free(&d);
    }
    return false;
}

/* The PTX without its .version and .target lines (what the arch names). */
static char *ptx_body(const char *ptx) {
    char *s = xstrdup(ptx), *w = s;
    for (const char *p = ptx; *p;) {
        size_t n = strcspn(p, "\n");
        if (strncmp(p, ".version ", 9) && strncmp(p, ".target ", 8)) {
            memcpy(w, p, n + (p[n] == '\n'));
            w += n + (p[n] == '\n');
        }
        p += n + (p[n] == '\n');
    }
    *w = '\0';
    return s;
}

static bool same_kernels(const CompiledModule *a, const CompiledModule *b) {
    if (a->n_kernels != b->n_kernels) return false;
    for (int i = 0; i < a->n_kernels; i++)
        if (strcmp(a->kernels[i].name, b->kernels[i].name) || strcmp(a->kernels[i].lowered, b->kernels[i].lowered))
            return false;
    return true;
}

/* One rep of the file: OLD's compute_80 program, then NEW. False on an error. */
static bool rep_once(const Source *s, int arch, Figures *f, double *ptx_ms, double *new_ms, double *check_ms) {
    CompileOptions o80 = options_for(s, 0), onew = options_for(s, arch);
    CompiledModule *m80 = NULL, *mnew = NULL;
    Diag *d = compile_cuda(s->path, s->text, &o80, &m80);
    unsigned long runs = compile_nvrtc_runs();
    if (!d) d = compile_cuda(s->path, s->text, &onew, &mnew);
    if (d) {
        print_diag(s->name, &d);
        compiled_module_free(&m80);
        return false;
    }
    f->programs = compile_nvrtc_runs() - runs;
    *ptx_ms = m80->compile_ms;
    *new_ms = mnew->compile_ms;
    /* NEW's parse check, again on the sm_XX PTX it checked: OLD had none */
    double t0 = bench_now_ms();
    Diag *bad = NULL;
    if (f->programs == 1) bad = emu_parse_check(mnew->ptx, mnew->ptx_size);
    *check_ms = bench_now_ms() - t0;
    f->emu_decodes = f->programs == 1 && !bad;
    diag_free(&bad);
    char *b80 = ptx_body(m80->ptx), *bnew = ptx_body(mnew->ptx);
    f->same_ptx = !strcmp(b80, bnew);
    f->same_kernels = same_kernels(m80, mnew);
    free(b80);
    free(bnew);
    compiled_module_free(&m80);
    compiled_module_free(&mnew);
    return true;
}

static bool measure_file(const Source *s, int arch, int reps, Figures *f) {
    double old_ms[MAX_REPS], new_ms[MAX_REPS], check_ms[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        double ptx_ms;
        if (!rep_once(s, arch, f, &ptx_ms, &new_ms[r], &check_ms[r])) return false;
        /* with the fallback NEW ran OLD's two programs (and the check) */
        old_ms[r] = f->programs > 1 ? new_ms[r] : ptx_ms + new_ms[r] - check_ms[r];
    }
    f->old_ms = bench_median(old_ms, reps);
    f->new_ms = bench_median(new_ms, reps);
    f->check_ms = bench_median(check_ms, reps);
    return true;
}

static int course_table(Source *src, int n, int arch, int reps) {
    printf("a GPU build (sm_%d cubin + PTX) of each kernel solution, NVRTC %s, median of %d, cache off\n", arch,
           compile_nvrtc_version(), reps);
    printf("OLD: compute_80 program + sm_%d program; NEW: one sm_%d program (+ compute_80 when the emulator "
           "cannot decode its PTX)\n", arch, arch);
    printf("%-36s %9s %9s %8s %6s %8s %9s %8s\n", "solution", "old ms", "new ms", "new/old", "progs", "check ms",
           "same PTX", "emu");
    double sum_old = 0, sum_new = 0, sum_check = 0;
    int files = 0, fallbacks = 0, same_ptx = 0, failed = 0;
    for (int i = 0; i < n; i++) {
        Figures f = {0};
        if (!source_prepare(&src[i]) || !measure_file(&src[i], arch, reps, &f)) {
            printf("%-36s (does not compile: left out)\n", src[i].name);
            failed++;
            continue;
        }
        if (!f.same_kernels) {
            fprintf(stderr, "bench_compile: %s: the sm_%d build lists other kernels than compute_80's\n",
                    src[i].name, arch);
            failed++;
        }
        printf("%-36s %9.1f %9.1f %8.2f %6lu %8.2f %9s %8s\n", src[i].name, f.old_ms, f.new_ms,
               f.new_ms / f.old_ms, f.programs, f.check_ms, f.same_ptx ? "yes" : "no",
               f.emu_decodes ? "decodes" : "fallback");
        sum_old += f.old_ms;
        sum_new += f.new_ms;
        sum_check += f.check_ms;
        files++;
        fallbacks += f.programs > 1;
        same_ptx += f.same_ptx;
    }
    printf("%d files: old %.2f s, new %.2f s, new/old %.2f; parse checks %.1f ms in all; %d fell back to "
           "compute_80; %d with PTX equal to compute_80's but for .version/.target\n",
           files, sum_old / 1e3, sum_new / 1e3, sum_old > 0 ? sum_new / sum_old : 0, sum_check, fallbacks,
           same_ptx);
    return failed;
}

int main(int argc, char **argv) {
    int reps = 3, arch = 90;
    bool latency = true;
    Source *src = NULL;
    int n = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--arch") && i + 1 < argc) {
            arch = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--course-only")) {
            latency = false;
        } else if (argv[i][0] != '-') {
            src = xrealloc(src, (size_t)(n + 1) * sizeof *src);
            src[n++] = (Source){xstrdup(argv[i]), xstrdup(argv[i]), NULL, false};
        } else {
            fprintf(stderr, "usage: %s [--reps N] [--arch SM] [--course-only] [FILE.cu...]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1 || reps > MAX_REPS || arch <= 0) {
        fprintf(stderr, "bench_compile: --reps 1..%d, --arch an sm_XX number (90)\n", MAX_REPS);
        return 2;
    }
    if (latency && !latency_table()) return 1;
    if (!n && (n = course_kernel_sources(&src)) <= 0) {
        if (n == 0) fprintf(stderr, "bench_compile: the course has no kernel exercises\n");
        return 1;
    }
    int failed = course_table(src, n, arch, reps);
    for (int i = 0; i < n; i++) source_free(&src[i]);
    free(src);
    return failed ? 1 : 0;
}
