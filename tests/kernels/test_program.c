/* tests/kernels/test_program.c: whole programs compiled by nvcc — errors
 * in the learner's file (host, device, link, ptxas), the executable cache
 * (and two compiles of one key at once), a missing nvcc — and run on cudojo's emulator runtime (a host crash at
 * the learner's line, a runtime function it lacks). The running itself
 * (faults, limits, records) is test_program_run.c. nvcc cases skip when
 * nvcc is missing, emulator cases until $BUILD/emurt is built. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/kernels/program_fixture.h"

/* ---- compiling ---- */

static void compile__reports_learners_line_and_column__when_host_code_is_wrong(void **state) {
    Fixture *f = *state;
    if (!has_nvcc()) skip();
    const char *src = "#include <cstdio>\n"
                      "__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n"
                      "int main() {\n"
                      "    int y = undefined_thing + 1;\n"
                      "    printf(\"%d\\n\", y);\n"
                      "}\n";
    CompiledProgram *p = NULL;
    Diag *d = program_compile("ws/host.cu", src, &f->copts, &p);
    assert_null(p);
    assert_non_null(d);
    assert_string_equal(d->file, "ws/host.cu");
    assert_int_equal(d->line, 4);
    assert_int_equal(d->col, 13);
    assert_non_null(strstr(d->message, "undefined_thing"));
    assert_non_null(d->excerpt);
    assert_false(chain_mentions(d, "/tmp") || chain_mentions(d, "tmp-") || chain_mentions(d, "tmpxft"));
    diag_free(&d);
}

static void compile__reports_the_column_in_the_learners_text__when_device_code_is_wrong(void **state) {
    Fixture *f = *state;
    if (!has_nvcc()) skip();
    /* nvcc echoes __global__ expanded (__attribute__((global))): the column
     * must still be the one in the learner's line. */
    const char *src = "#include <cstdio>\n"
                      "__global__ void k(float *x) { x[threadIdx.x] = bogus; }\n"
                      "int main() { return 0; }\n";
    CompiledProgram *p = NULL;
    Diag *d = program_compile("dev.cu", src, &f->copts, &p);
    assert_non_null(d);
    assert_string_equal(d->file, "dev.cu");
    assert_int_equal(d->line, 2);
    assert_int_equal(d->col, 48);
    assert_non_null(strstr(d->message, "bogus"));
    diag_free(&d);
}

static void compile__names_the_learners_line__when_a_function_is_never_defined(void **state) {
    Fixture *f = *state;
    if (!has_nvcc()) skip();
    const char *src = "#include <cstdio>\n"
                      "void missing_fn(int);\n"
                      "int main() {\n"
                      "    missing_fn(3);\n"
                      "    return 0;\n"
                      "}\n";
    CompiledProgram *p = NULL;
    Diag *d = program_compile("ws/link.cu", src, &f->copts, &p);
    assert_non_null(d);
    const Diag *l = find_code(d, "link");
    assert_non_null(l);
    assert_string_equal(l->file, "ws/link.cu");
    assert_int_equal(l->line, 4);
    assert_non_null(strstr(l->message, "missing_fn"));
    assert_false(chain_mentions(d, "/tmp") || chain_mentions(d, "tmpxft"));
    diag_free(&d);
}

static void compile__hits_the_cache_and_runs__when_the_same_program_is_compiled_twice(void **state) {
    Fixture *f = *state;
    if (!has_nvcc()) skip();
    const char *src = "#include <cstdio>\n"
                      "int main() {\n"
                      "    int unused = 3;\n"
                      "    printf(\"hello from %s\\n\", __FILE__);\n"
                      "    return 7;\n"
                      "}\n";
    CompiledProgram *a = NULL, *b = NULL;
    assert_null(program_compile("ws/hello.cu", src, &f->copts, &a));
    assert_false(a->cache_hit);
    assert_non_null(a->warnings);
    assert_string_equal(a->warnings->file, "ws/hello.cu");
    assert_int_equal(a->warnings->line, 3);
    assert_null(program_compile("ws/hello.cu", src, &f->copts, &b));
    assert_true(b->cache_hit);
    assert_string_equal(a->exe, b->exe);
    assert_non_null(b->warnings);   /* warnings come back on a hit too */
    assert_true(b->compile_ms < a->compile_ms);
    assert_null(program_run(b->exe, &f->ropts, &f->res));
    assert_true(f->res.started);
    assert_int_equal(f->res.exit_code, 7);
    assert_string_equal(f->res.out, "hello from ws/hello.cu\n");  /* __FILE__ is the learner's */
    compiled_program_free(&a);
    compiled_program_free(&b);
    assert_null(a);
}

/* An nvcc (CUDOJO_NVCC, made current) that logs "compile NICENESS" for each
 * compile (not --version) in `log`, then runs the real one. Caller frees. */
static char *counting_nvcc(Fixture *f, const char *log) {
    char *wrapper = path_join(f->dir, "nvcc");
    char *script = xasprintf("#!/bin/sh\ncase \" $* \" in *\" -o \"*) echo compile $(nice) >> '%s' ;; esac\n"
                             "exec '%s' \"$@\"\n",
                             log, program_nvcc_path());
    assert_null(fs_write_file_atomic(wrapper, script, strlen(script)));
    assert_int_equal(chmod(wrapper, 0755), 0);
    setenv("CUDOJO_NVCC", wrapper, 1);
    assert_string_equal(program_nvcc_path(), wrapper);
    assert_non_null(program_nvcc_version());    /* the static caches filled before any thread */
    free(script);
    return wrapper;
}

static char *read_log(const char *log) {
    unsetenv("CUDOJO_NVCC");
    program_nvcc_path();
    char *text = NULL;
    size_t len = 0;
    assert_null(fs_read_file(log, &text, &len));
    return text;
}

/* `cudojo grade` compiles ahead at a lower priority what its workers then
 * find in the cache: the niceness is no part of the key. */
static void compile__runs_nvcc_at_the_niceness_asked__and_hits_the_cache_at_any_other(void **state) {
    Fixture *f = *state;
    if (!has_nvcc()) skip();
    char *log = path_join(f->dir, "nvcc.log"), *wrapper = counting_nvcc(f, log);
    int base = getpriority(PRIO_PROCESS, 0);
    CompiledProgram *a = NULL, *b = NULL;
    f->copts.nice = 15;
    assert_null(program_compile("ws/nice.cu", "int main() { return 0; }\n", &f->copts, &a));
    f->copts.nice = 0;
    assert_null(program_compile("ws/nice.cu", "int main() { return 0; }\n", &f->copts, &b));
    char *text = read_log(log), *want = xasprintf("compile %d\n", base + 15 > 19 ? 19 : base + 15);
    assert_string_equal(text, want);
    assert_false(a->cache_hit);
    assert_true(b->cache_hit);
    compiled_program_free(&a);
    compiled_program_free(&b);
    free(want);
    free(text);
    free(wrapper);
    free(log);
}

typedef struct SameCompile {
    Fixture *f;
    CompiledProgram *cp;
    Diag *d;
} SameCompile;

static void *compile_same(void *arg) {
    SameCompile *c = arg;
    c->d = program_compile("ws/twice.cu", "int main() { return 3; }\n", &c->f->copts, &c->cp);
    return NULL;
}

/* `cudojo grade` compiles ahead what a worker then reaches: when both get
 * to one key at once, the second waits for the first's entry. */
static void compile__runs_nvcc_once__when_two_threads_compile_the_same_program_at_once(void **state) {
    Fixture *f = *state;
    if (!has_nvcc()) skip();
    char *log = path_join(f->dir, "nvcc.log"), *wrapper = counting_nvcc(f, log);
    SameCompile c[2] = {{.f = f}, {.f = f}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&t[i], NULL, compile_same, &c[i]), 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    char *text = read_log(log), *want = xasprintf("compile %d\n", getpriority(PRIO_PROCESS, 0));
    assert_string_equal(text, want);     /* one compile */
    assert_null(c[0].d);
    assert_null(c[1].d);
    assert_int_equal(c[0].cp->cache_hit + c[1].cp->cache_hit, 1);
    const CompiledProgram *waited = c[0].cp->cache_hit ? c[0].cp : c[1].cp;
    assert_true(waited->wait_ms > 0);
    assert_string_equal(c[0].cp->exe, c[1].cp->exe);
    for (int i = 0; i < 2; i++) compiled_program_free(&c[i].cp);
    free(want);
    free(text);
    free(log);
    free(wrapper);
}

static void compile__names_the_asm_line__when_ptxas_rejects_inline_asm(void **state) {
    Fixture *f = *state;
    if (!has_nvcc()) skip();
    const char *src = "__global__ void k(int *p) {\n"
                      "    asm(\"bogus.op %0;\" :: \"r\"(p[0]));\n"
                      "}\n"
                      "__global__ void big(int *p) {\n"
                      "    __shared__ int s[20000]; s[threadIdx.x] = 1; __syncthreads(); p[0] = s[5];\n"
                      "}\n"
                      "int main() { k<<<1, 1>>>(0); big<<<1, 1>>>(0); return 0; }\n";
    f->copts.sass_arch = 90;    /* ptxas runs only for SASS */
    CompiledProgram *p = NULL;
    Diag *d = program_compile("asm.cu", src, &f->copts, &p);
    assert_non_null(d);
    assert_string_equal(d->file, "asm.cu");
    assert_int_equal(d->line, 2);
    assert_non_null(strstr(d->message, "ptxas"));
    assert_false(chain_mentions(d, "tmpxft") || chain_mentions(d, "/tmp"));
    diag_free(&d);
}

static void compile__says_what_to_install__when_nvcc_is_missing(void **state) {
    Fixture *f = *state;
    char *home = xstrdup(getenv("CUDA_HOME")), *path = xstrdup(getenv("PATH"));
    char *nowhere = path_join(f->dir, "no-toolkit");
    setenv("CUDA_HOME", nowhere, 1);
    setenv("PATH", "/usr/bin:/bin", 1);
    if (program_nvcc_path()) {   /* this machine has nvcc in /usr/bin */
        if (home) setenv("CUDA_HOME", home, 1);
        else unsetenv("CUDA_HOME");
        setenv("PATH", path, 1);
        free(nowhere);
        free(home);
        free(path);
        skip();
    }
    CompiledProgram *p = NULL;
    Diag *d = program_compile("a.cu", "int main() { return 0; }\n", &f->copts, &p);
    if (home) setenv("CUDA_HOME", home, 1);
    else unsetenv("CUDA_HOME");
    setenv("PATH", path, 1);
    assert_null(p);
    assert_non_null(d);
    assert_string_equal(d->code, "no-nvcc");
    assert_non_null(strstr(d->message, nowhere));
    assert_non_null(strstr(d->message, "cuda-nvcc"));
    diag_free(&d);
    free(nowhere);
    free(home);
    free(path);
}

/* ---- nvcc's output, canned (no nvcc needed) ---- */

static const char *LOG_SRC = "#include <cstdio>\n"
                             "void missing(int);\n"
                             "int main() {\n"
                             "    missing(1);\n"
                             "}\n";

static void log__maps_linker_and_gcc_lines_to_the_learners_file__and_hides_temp_paths(void **state) {
    (void)state;
    const char *log =
        "/usr/bin/ld: /tmp/tmpxft_00003576_00000000-10_a.o: in function `main':\n"
        "/home/u/.cache/cudojo/nvcc/tmp-Ab12Cd/ws/a.cu:4: undefined reference to `missing(int)'\n"
        "collect2: error: ld returned 1 exit status\n"
        "ws/a.cu:3:5: warning: unused thing [-Wunused]\n"
        "/usr/include/x.h:9:1: warning: not ours\n";
    Diag *w = NULL;
    Diag *d = program_log_parse(log, "ws/a.cu", LOG_SRC, "/home/u/.cache/cudojo/nvcc/tmp-Ab12Cd", 1, &w);
    assert_non_null(d);
    assert_string_equal(d->code, "link");
    assert_string_equal(d->file, "ws/a.cu");
    assert_int_equal(d->line, 4);
    assert_non_null(strstr(d->message, "missing(int)"));
    assert_null(d->next);       /* collect2's summary is not a second error */
    assert_non_null(w);
    assert_int_equal(w->line, 3);
    assert_int_equal(w->col, 5);
    assert_null(w->next);       /* a header's warning is not the learner's */
    assert_false(chain_mentions(d, "tmp") || chain_mentions(w, "tmp"));
    diag_free(&d);
    diag_free(&w);
}

/* binutils 2.42 (Ubuntu 24.04, the H200's host) adds the section and offset:
 * "FILE:LINE:(.text+0x71): undefined reference to ..." */
static void log__maps_the_linker_line__when_ld_names_the_section_too(void **state) {
    (void)state;
    const char *log =
        "/usr/bin/ld: /tmp/tmpxft_000001c6_00000000-11_a.o: in function `main':\n"
        "/tmp/cudojo-nvcc-x/ws/a.cu:4:(.text+0x71): undefined reference to `missing(int)'\n"
        "collect2: error: ld returned 1 exit status\n";
    Diag *d = program_log_parse(log, "ws/a.cu", LOG_SRC, "/tmp/cudojo-nvcc-x", 1, NULL);
    assert_non_null(d);
    assert_string_equal(d->code, "link");
    assert_string_equal(d->file, "ws/a.cu");
    assert_int_equal(d->line, 4);
    assert_non_null(strstr(d->message, "missing(int)"));
    assert_false(chain_mentions(d, "tmp"));
    diag_free(&d);
}

static void log__quotes_the_output__when_nothing_in_it_is_recognised(void **state) {
    (void)state;
    Diag *d = program_log_parse("Segmentation fault in /tmp/wd/cicc\n", "a.cu", LOG_SRC, "/tmp/wd", 139, NULL);
    assert_non_null(d);
    assert_string_equal(d->file, "a.cu");
    assert_non_null(strstr(d->message, "exit status 139"));
    assert_non_null(strstr(d->message, "Segmentation fault in cicc"));
    diag_free(&d);
    assert_null(program_log_parse("", "a.cu", LOG_SRC, "/tmp/wd", 0, NULL));
}

static void log__recognises_the_learners_file_under_any_directory(void **state) {
    (void)state;
    assert_true(program_path_is("ws/a.cu", "ws/a.cu"));
    assert_true(program_path_is("/tmp/cudojo-nvcc-x/ws/a.cu", "ws/a.cu"));
    assert_true(program_path_is("/tmp/x/a.cu", "./a.cu"));
    assert_false(program_path_is("/tmp/x/wsa.cu", "a.cu"));
    assert_false(program_path_is("/tmp/x/xws/a.cu", "ws/a.cu"));
    assert_false(program_path_is("/other/a.cu", "/home/u/a.cu"));
    assert_false(program_path_is(NULL, "a.cu"));
}

/* ---- on cudojo's emulator runtime (skipped until it is built) ---- */

static const char *HOST_FAULT_SRC =
    "#include <cstdio>\n"
    "__global__ void fill(int *x) { x[threadIdx.x] = threadIdx.x; }\n"
    "int main(int argc, char **argv) {\n"
    "    int *d = nullptr;\n"
    "    cudaMalloc(&d, 32 * sizeof(int));\n"
    "    fill<<<1, 32>>>(d);\n"
    "    cudaDeviceSynchronize();\n"
    "    if (argc > 1) {\n"
    "        cudaIpcMemHandle_t h;\n"
    "        cudaError_t e = cudaIpcGetMemHandle(&h, d);\n"
    "        printf(\"%s\\n\", cudaGetErrorName(e));\n"
    "        return 0;\n"
    "    }\n"
    "    volatile int *h = nullptr;\n"
    "    printf(\"%d\\n\", h[3]);   /* NULL read on the host */\n"
    "    return 0;\n"
    "}\n";

static CompiledProgram *build_for_emurt(Fixture *f) {
    if (!has_nvcc() || !program_emurt_dir()) return NULL;
    CompiledProgram *p = NULL;
    Diag *d = program_compile("ws/fault.cu", HOST_FAULT_SRC, &f->copts, &p);
    if (d) fprintf(stderr, "%s\n", diag_format_all(d, false));
    assert_null(d);
    f->ropts.runtime = PROGRAM_RT_EMU;
    f->ropts.display_path = "ws/fault.cu";
    f->ropts.source = HOST_FAULT_SRC;
    return p;
}

static void run_emu__names_the_host_line__when_host_code_reads_through_null(void **state) {
    Fixture *f = *state;
    CompiledProgram *p = build_for_emurt(f);
    if (!p) skip();
    assert_null(program_run(p->exe, &f->ropts, &f->res));
    if (!f->res.touched_gpu) fprintf(stderr, "the program's stderr: %s\n", f->res.err);
    assert_true(f->res.touched_gpu);
    assert_string_equal(f->res.runtime_name, "emu");
    assert_true(f->res.signaled);
    assert_int_equal(f->res.signal, SIGSEGV);
    const Diag *c = find_code(f->res.findings, "host-crash");
    assert_non_null(c);
    char *addr2line = proc_find_in_path("addr2line");
    free(addr2line);
    if (addr2line) {
        assert_string_equal(c->file, "ws/fault.cu");
        assert_int_equal(c->line, 15);
        assert_non_null(strstr(c->message, "NULL"));
    }
    assert_true(json_array_size(f->res.kernels) >= 1);
    compiled_program_free(&p);
}

static void run_emu__names_the_function__when_the_runtime_lacks_it(void **state) {
    Fixture *f = *state;
    CompiledProgram *p = build_for_emurt(f);
    if (!p) skip();
    const char *args[] = {"ipc"};
    f->ropts.args = args;
    f->ropts.n_args = 1;
    assert_null(program_run(p->exe, &f->ropts, &f->res));
    assert_int_equal(f->res.exit_code, 0);
    assert_string_equal(f->res.out, "cudaErrorNotSupported\n");
    const Diag *u = find_code(f->res.findings, "unimplemented");
    assert_non_null(u);
    assert_non_null(strstr(u->message, "cudaIpcGetMemHandle"));
    compiled_program_free(&p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(log__maps_linker_and_gcc_lines_to_the_learners_file__and_hides_temp_paths),
        cmocka_unit_test(log__maps_the_linker_line__when_ld_names_the_section_too),
        cmocka_unit_test(log__quotes_the_output__when_nothing_in_it_is_recognised),
        cmocka_unit_test(log__recognises_the_learners_file_under_any_directory),
        cmocka_unit_test_setup_teardown(compile__reports_learners_line_and_column__when_host_code_is_wrong, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__reports_the_column_in_the_learners_text__when_device_code_is_wrong, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__names_the_learners_line__when_a_function_is_never_defined, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__hits_the_cache_and_runs__when_the_same_program_is_compiled_twice, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__runs_nvcc_at_the_niceness_asked__and_hits_the_cache_at_any_other,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(compile__runs_nvcc_once__when_two_threads_compile_the_same_program_at_once,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(compile__names_the_asm_line__when_ptxas_rejects_inline_asm, setup, teardown),
        cmocka_unit_test_setup_teardown(compile__says_what_to_install__when_nvcc_is_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(run_emu__names_the_host_line__when_host_code_reads_through_null, setup, teardown),
        cmocka_unit_test_setup_teardown(run_emu__names_the_function__when_the_runtime_lacks_it, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
