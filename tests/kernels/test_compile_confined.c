/* tests/kernels/test_compile_confined.c: a graded source's nvcc compile
 * (ProgramCompileOptions.confine) runs shut in: an assembler directive
 * made of adjacent strings, which the include check cannot see, cannot
 * read a file outside the toolkit and the system; an executable cached by
 * an unconfined compile of the same source is not handed to a confined
 * one; a template bomb ends with "the compiler ran out of memory"; the
 * compiler filter lets a pipeline fork but not signal its worker or
 * everyone, nor make a device node. NVRTC (kernel exercises, inside the
 * worker): a graded source named "ch/k.cu" cannot #include
 * "solutions/k.cu" from the worker's folder, and a template bomb ends
 * with "ran out of memory" while the worker lives on with its old limit,
 * built as the emulator builds it and as a GPU does. Skips without nvcc;
 * the Landlock checks skip without Landlock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/resource.h>

#include "kernels/compile.h"
#include "tests/kernels/program_fixture.h"

#define SECRET "TOPSECRET-compile-k3y"

/* A source whose assembler reads `path` at compile time: ".inc" "bin" joined by the compiler. */
static char *incbin_source(const char *path) {
    return xasprintf("#include <cstdio>\n"
                     "asm(\".section .rodata\\n.globl stolen\\nstolen:\\n.inc\" \"bin \\\"%s\\\"\\n.byte 0\\n\");\n"
                     "extern const char stolen[];\n"
                     "int main() { printf(\"%%s\", stolen); return 0; }\n",
                     path);
}

static char *write_secret(Fixture *f) {
    char *p = xasprintf("%s/secret.txt", f->dir);
    assert_null(fs_write_file_atomic(p, SECRET "\n", strlen(SECRET) + 1));
    return p;
}

static void confined__an_assembler_directive_from_adjacent_strings_cannot_read_a_file(void **state) {
    Fixture *f = *state;
    if (!has_nvcc() || program_sandbox_landlock_abi() <= 0) skip();
    char *secret = write_secret(f);
    char *src = incbin_source(secret);
    f->copts.confine = true;
    CompiledProgram *cp = NULL;
    Diag *d = program_compile("hostile/steal.cu", src, &f->copts, &cp);
    assert_null(cp);
    assert_non_null(d);
    assert_false(chain_mentions(d, SECRET));
    diag_free(&d);
    free(src);
    free(secret);
}

static void confined__never_reuses_an_executable_an_unconfined_compile_cached(void **state) {
    Fixture *f = *state;
    if (!has_nvcc() || program_sandbox_landlock_abi() <= 0) skip();
    char *secret = write_secret(f);
    char *src = incbin_source(secret);
    /* The learner's own `cudojo run`: unconfined, it works and is cached. */
    CompiledProgram *cp = NULL;
    Diag *d = program_compile("hostile/steal.cu", src, &f->copts, &cp);
    assert_null(d);
    assert_non_null(cp);
    compiled_program_free(&cp);
    f->copts.confine = true;
    d = program_compile("hostile/steal.cu", src, &f->copts, &cp);
    assert_null(cp);
    assert_non_null(d);
    diag_free(&d);
    free(src);
    free(secret);
}

static void confined__an_honest_program_compiles_and_is_cached(void **state) {
    Fixture *f = *state;
    if (!has_nvcc()) skip();
    const char *src = "#include <cstdio>\n#include <cuda_runtime.h>\n__global__ void k(int *p) { *p = 1; }\n"
                      "int main() { printf(\"hello\\n\"); return 0; }\n";
    f->copts.confine = true;
    CompiledProgram *cp = NULL;
    Diag *d = program_compile("hello/hello.cu", src, &f->copts, &cp);
    if (d) fprintf(stderr, "%s\n", diag_format_all(d, false));
    assert_null(d);
    assert_false(cp->cache_hit);
    compiled_program_free(&cp);
    assert_null(program_compile("hello/hello.cu", src, &f->copts, &cp));
    assert_true(cp->cache_hit);
    compiled_program_free(&cp);
}

static void confined__a_template_bomb_says_the_compiler_ran_out_of_memory(void **state) {
    Fixture *f = *state;
    if (!has_nvcc()) skip();
    const char *src = "template <int N, long M> struct T { typedef T<N - 1, 2 * M> A; typedef T<N - 1, 2 * M + 1> B;\n"
                      "  static const long v = A::v + B::v; };\n"
                      "template <long M> struct T<0, M> { static const long v = M; };\n"
                      "int main() { return (int)T<40, 0>::v; }\n";
    setenv("CUDOJO_COMPILE_AS_MB", "400", 1);
    f->copts.confine = true;
    CompiledProgram *cp = NULL;
    double t0 = proc_now_ms();
    Diag *d = program_compile("bomb/bomb.cu", src, &f->copts, &cp);
    double ms = proc_now_ms() - t0;
    unsetenv("CUDOJO_COMPILE_AS_MB");
    assert_null(cp);
    assert_non_null(d);
    assert_non_null(find_code(d, "compile-memory"));
    assert_true(chain_mentions(d, "the compiler ran out of memory on this file"));
    assert_true(chain_mentions(d, "400 MiB"));
    assert_true(ms < 30000);
    diag_free(&d);
}

/* The compiler filter on /bin/sh: a pipeline may fork and signal its own
 * children, not its worker (this test) nor every process (kill -1). */
static void compiler_filter__lets_a_pipeline_fork_but_not_signal_its_worker(void **state) {
    (void)state;
    char *script = xasprintf("sleep 5 & p=$!; kill $p && echo child-ok; kill -0 %d 2>/dev/null && echo worker-reached; "
                             "kill -0 -1 2>/dev/null && echo everyone-reached; echo done",
                             (int)getpid());
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    ChildLimits lim = {.compiler = true, .ancestors = {getpid(), getppid()}};
    ProcCapture c;
    assert_null(proc_capture_limited(argv, NULL, NULL, 20, 1 << 16, &lim, &c));
    assert_non_null(c.out);
    assert_non_null(strstr(c.out, "child-ok"));
    assert_null(strstr(c.out, "worker-reached"));
    assert_null(strstr(c.out, "everyone-reached"));
    assert_non_null(strstr(c.out, "done"));
    proc_capture_fini(&c);
    free(script);
}

/* A graded compile runs 10 nicer than its worker (ChildLimits.nice), so a
 * timed program's host thread gets a core before a compiler does. */
static void limits__make_the_child_nicer_by_the_amount_asked(void **state) {
    (void)state;
    const char *argv[] = {"/bin/sh", "-c", "cut -d' ' -f19 /proc/self/stat", NULL};
    ChildLimits lim = {.nice = 10};
    ProcCapture c;
    assert_null(proc_capture_limited(argv, NULL, NULL, 20, 1 << 16, &lim, &c));
    assert_non_null(c.out);
    int mine = getpriority(PRIO_PROCESS, 0);
    int want = mine + 10 > 19 ? 19 : mine + 10;
    if (atoi(c.out) != want) fail_msg("child's nice %s, want %d", c.out, want);
    proc_capture_fini(&c);
}

/* The filter of programs and compilers: as root a block device node made
 * where Landlock lets it write would read the raw disk; a FIFO is fine.
 * (Not as root mknod of a device fails anyway.) */
static void filter__refuses_device_nodes_but_not_a_fifo(void **state) {
    (void)state;
    char tmpl[] = "/tmp/cudojo-mknod-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    char *script = xasprintf("cd %s || exit 1; mknod blk b 7 0 2>/dev/null && echo blk-made; "
                             "mknod chr c 1 3 2>/dev/null && echo chr-made; mkfifo fifo && echo fifo-made; echo done",
                             tmpl);
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    ChildLimits lim = {.compiler = true, .ancestors = {getpid(), getppid()}};
    ProcCapture c;
    assert_null(proc_capture_limited(argv, NULL, NULL, 20, 1 << 16, &lim, &c));
    assert_non_null(c.out);
    assert_null(strstr(c.out, "blk-made"));
    assert_null(strstr(c.out, "chr-made"));
    assert_non_null(strstr(c.out, "fifo-made"));
    assert_non_null(strstr(c.out, "done"));
    proc_capture_fini(&c);
    proc_remove_tree(tmpl);
    free(script);
}

static void nvrtc_confined__reads_no_header_beside_the_source_name(void **state) {
    Fixture *f = *state;
    char *sol_dir = xasprintf("%s/ch/solutions", f->dir);
    assert_null(fs_mkdir_p(sol_dir));
    char *sol = xasprintf("%s/k.cu", sol_dir);
    const char *text = "__global__ void k(int *p) { *p = 4242; } /* " SECRET " */\n";
    assert_null(fs_write_file_atomic(sol, text, strlen(text)));
    char *here = getcwd(NULL, 0);
    assert_int_equal(chdir(f->dir), 0);     /* the grader's folder: the course's chapters in it */
    const char *src = "#include \"solutions/k.cu\"\n";
    CompileOptions co = {.cache_dir = ""};
    CompiledModule *m = NULL;
    Diag *d = compile_cuda("ch/k.cu", src, &co, &m);    /* the learner's own run: their header is read */
    assert_null(d);
    assert_non_null(strstr(m->ptx, "4242"));
    compiled_module_free(&m);
    co.confine = true;
    d = compile_cuda("ch/k.cu", src, &co, &m);
    assert_int_equal(chdir(here), 0);
    assert_null(m);
    assert_non_null(d);
    assert_true(chain_mentions(d, "solutions/k.cu"));
    diag_free(&d);
    free(here);
    free(sol);
    free(sol_dir);
}

/* The toolkit's own headers include their neighbours by quoted names
   (<mma.h> -> "crt/mma.h" -> "mma.hpp", cooperative_groups' details ->
   "helpers.h"): a confined compile must still find those, or every graded
   tensor-core and cooperative-groups exercise fails to compile. */
static void nvrtc_confined__toolkit_headers_still_find_their_neighbours(void **state) {
    Fixture *f = *state;
    char *here = getcwd(NULL, 0);
    assert_int_equal(chdir(f->dir), 0);
    const char *src = "#include <mma.h>\n#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n"
                      "namespace cg = cooperative_groups;\n"
                      "__global__ void k(float *p) { auto w = cg::tiled_partition<32>(cg::this_thread_block());\n"
                      "  nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> c;\n"
                      "  nvcuda::wmma::fill_fragment(c, 0.0f); nvcuda::wmma::store_matrix_sync(p, c, 16, nvcuda::wmma::mem_row_major);\n"
                      "  p[0] = cg::reduce(w, p[threadIdx.x], cg::plus<float>()); }\n";
    /* as the emulator builds it, and as a GPU does (one sm_90 program) */
    for (int cubin_arch = 0; cubin_arch <= 90; cubin_arch += 90) {
        CompileOptions co = {.cache_dir = "", .confine = true, .cubin_arch = cubin_arch};
        CompiledModule *m = NULL;
        Diag *d = compile_cuda("ch/k.cu", src, &co, &m);
        char *here_after = getcwd(NULL, 0);
        if (d) {
            assert_int_equal(chdir(here), 0);
            fail_msg("cubin_arch %d: %s", cubin_arch, diag_format_all(d, false));
        }
        assert_non_null(m);
        assert_int_equal(m->cubin_arch, cubin_arch);
        assert_string_equal(here_after, f->dir);   /* the process's folder is given back */
        compiled_module_free(&m);
        free(here_after);
    }
    assert_int_equal(chdir(here), 0);
    free(here);
}

static void nvrtc_confined__a_template_bomb_runs_out_of_memory_and_the_worker_lives_on(void **state) {
    (void)state;
#ifdef __SANITIZE_ADDRESS__
    /* AddressSanitizer's allocator aborts the process when the bounded address
       space refuses it (NVRTC's own malloc would get NULL and fail the compile). */
    skip();
#endif
    const char *src = "template <int N, long M> struct T { typedef T<N - 1, 2 * M> A; typedef T<N - 1, 2 * M + 1> B;\n"
                      "  static const long v = A::v + B::v; };\n"
                      "template <long M> struct T<0, M> { static const long v = M; };\n"
                      "__global__ void k(long *p) { *p = T<40, 0>::v; }\n";
    struct rlimit before, after;
    assert_int_equal(getrlimit(RLIMIT_AS, &before), 0);
    setenv("CUDOJO_COMPILE_AS_MB", "300", 1);
    /* as the emulator builds it, and as a GPU does (one sm_90 program, ptxas's lines in its log) */
    for (int cubin_arch = 0; cubin_arch <= 90; cubin_arch += 90) {
        CompileOptions co = {.cache_dir = "", .confine = true, .cubin_arch = cubin_arch};
        CompiledModule *m = NULL;
        double t0 = proc_now_ms();
        Diag *d = compile_cuda("bomb/k.cu", src, &co, &m);
        double ms = proc_now_ms() - t0;
        assert_null(m);
        assert_non_null(find_code(d, "compile-memory"));
        assert_true(chain_mentions(d, "the compiler ran out of memory on this file"));
        assert_true(ms < 30000);
        diag_free(&d);
        assert_int_equal(getrlimit(RLIMIT_AS, &after), 0);
        assert_true(after.rlim_cur == before.rlim_cur);
    }
    unsetenv("CUDOJO_COMPILE_AS_MB");
    void *big = malloc(1ull << 30);     /* the worker can allocate again */
    assert_non_null(big);
    free(big);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(confined__an_assembler_directive_from_adjacent_strings_cannot_read_a_file,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(confined__never_reuses_an_executable_an_unconfined_compile_cached, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(confined__an_honest_program_compiles_and_is_cached, setup, teardown),
        cmocka_unit_test_setup_teardown(confined__a_template_bomb_says_the_compiler_ran_out_of_memory, setup,
                                        teardown),
        cmocka_unit_test(compiler_filter__lets_a_pipeline_fork_but_not_signal_its_worker),
        cmocka_unit_test(limits__make_the_child_nicer_by_the_amount_asked),
        cmocka_unit_test(filter__refuses_device_nodes_but_not_a_fifo),
        cmocka_unit_test_setup_teardown(nvrtc_confined__reads_no_header_beside_the_source_name, setup, teardown),
        cmocka_unit_test_setup_teardown(nvrtc_confined__toolkit_headers_still_find_their_neighbours, setup, teardown),
        cmocka_unit_test_setup_teardown(nvrtc_confined__a_template_bomb_runs_out_of_memory_and_the_worker_lives_on,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
