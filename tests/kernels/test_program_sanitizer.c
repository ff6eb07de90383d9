/* tests/kernels/test_program_sanitizer.c: running a program under a tool
 * (a fake compute-sanitizer: a shell script that writes its log and starts
 * the program) and reading compute-sanitizer's report (recorded-format
 * fixtures in tests/kernels/sanitizer/: memcheck in the 2023+ and the older
 * place format, racecheck, initcheck, synccheck, API errors and leaks). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/kernels/program_fixture.h"

/* ---- the parser ---- */

static char *fixture(const char *name) {
    char *path = xasprintf("tests/kernels/sanitizer/%s", name), *text = NULL;
    size_t len = 0;
    Diag *d = fs_read_file_max(path, 1 << 20, &text, &len);
    if (d) fprintf(stderr, "%s: %s\n", path, d->message);
    assert_null(d);
    free(path);
    return text;
}

static void parse__reads_kind_kernel_line_thread_and_block__when_memcheck_reports_an_out_of_bounds_write(void **state) {
    (void)state;
    char *text = fixture("memcheck_oob.log");
    SanitizerReport r;
    sanitizer_report_parse(text, "memcheck", &r);
    assert_string_equal(r.tool, "memcheck");
    assert_true(r.has_summary);
    assert_int_equal(r.total, 3);
    assert_int_equal(r.n_errors, 2);     /* the two threads' writes at one place merge */
    SanitizerError *e = &r.errors[0];
    assert_string_equal(e->kind, "invalid-write");
    assert_string_equal(e->message, "Invalid __global__ write of size 4 bytes");
    assert_string_equal(e->kernel, "scale(float *, int)");
    assert_string_equal(e->file, "/tmp/cudojo-nvcc-Ab12Cd/errors-and-debugging/oob-write.cu");
    assert_int_equal(e->line, 31);
    assert_int_equal(e->count, 2);
    assert_int_equal(e->thread[0], 232);
    assert_int_equal(e->block[0], 3);
    assert_int_equal(e->block[1], 0);
    assert_string_equal(r.errors[1].kind, "api-error");
    assert_non_null(strstr(r.errors[1].message, "cudaErrorLaunchFailure"));
    assert_null(r.errors[1].file);
    assert_int_equal(r.errors[1].line, 0);
    assert_int_equal(r.errors[1].thread[0], -1);
    assert_true(sanitizer_kind_is_error(e->kind));
    assert_false(sanitizer_kind_is_error(r.errors[1].kind));  /* a program may check for a failed call */
    sanitizer_report_relocate(&r, "errors-and-debugging/oob-write.cu");
    assert_string_equal(e->file, "errors-and-debugging/oob-write.cu");   /* nvcc's private dir is not shown */
    sanitizer_report_relocate(&r, "other.cu");
    assert_string_equal(e->file, "errors-and-debugging/oob-write.cu");
    sanitizer_report_fini(&r);
    free(text);
}

static void parse__reads_the_place__when_the_report_uses_the_older_address_file_line_function_form(void **state) {
    (void)state;
    char *text = fixture("memcheck_old.log");
    SanitizerReport r;
    sanitizer_report_parse(text, "memcheck", &r);
    assert_int_equal(r.n_errors, 1);
    assert_int_equal(r.total, 1);
    assert_string_equal(r.errors[0].kind, "invalid-read");
    assert_string_equal(r.errors[0].file, "/home/learner/oob.cu");
    assert_int_equal(r.errors[0].line, 12);
    assert_string_equal(r.errors[0].kernel, "add(const float *, const float *, float *, int)");
    assert_int_equal(r.errors[0].thread[0], 31);
    sanitizer_report_fini(&r);
    free(text);
}

static void parse__gives_the_first_access_of_each_race__when_racecheck_reports_hazards(void **state) {
    (void)state;
    char *text = fixture("racecheck.log");
    SanitizerReport r;
    sanitizer_report_parse(text, "racecheck", &r);
    assert_int_equal(r.n_errors, 2);
    assert_int_equal(r.total, 1);        /* RACECHECK SUMMARY: 1 error (the other is a warning) */
    assert_string_equal(r.errors[0].kind, "race");
    assert_int_equal(r.errors[0].line, 27);
    assert_string_equal(r.errors[0].kernel, "block_sum(const float *, float *, int)");
    assert_non_null(strstr(r.errors[0].message, "Write access"));
    assert_int_equal(r.errors[1].line, 29);
    sanitizer_report_fini(&r);
    free(text);
}

/* Reports compute-sanitizer 2025.3.1 wrote on an H200 (driver 580.159.04),
 * for chapter 14's bug hunts: tests/kernels/sanitizer/h200_*.log. */
static void parse__reads_the_h200s_own_reports__of_an_out_of_bounds_read_a_race_and_a_failed_call(void **state) {
    (void)state;
    char *text = fixture("h200_memcheck_oob.log");
    SanitizerReport r;
    sanitizer_report_parse(text, "memcheck", &r);
    assert_int_equal(r.total, 27);
    assert_string_equal(r.errors[0].kind, "invalid-read");
    assert_string_equal(r.errors[0].kernel, "twice(const float *, float *, int)");
    assert_string_equal(r.errors[0].file, "bug-out-of-bounds.cu");
    assert_int_equal(r.errors[0].line, 51);
    assert_int_equal(r.errors[0].thread[0], 232);
    assert_int_equal(r.errors[0].block[0], 3);
    assert_int_equal(r.errors[0].count, 24);
    assert_string_equal(r.errors[1].kind, "api-error");
    sanitizer_report_fini(&r);
    free(text);
    text = fixture("h200_racecheck.log");
    sanitizer_report_parse(text, "racecheck", &r);
    assert_int_equal(r.total, 1);
    assert_int_equal(r.n_errors, 1);
    assert_string_equal(r.errors[0].kind, "race");
    assert_int_equal(r.errors[0].line, 56);
    sanitizer_report_fini(&r);
    free(text);
    text = fixture("h200_memcheck_api_error.log");
    sanitizer_report_parse(text, "memcheck", &r);
    assert_int_equal(r.total, 1);
    assert_string_equal(r.errors[0].kind, "api-error");
    assert_non_null(strstr(r.errors[0].message, "cudaErrorInvalidValue"));
    sanitizer_report_fini(&r);
    free(text);
}

static void parse__takes_the_total__not_the_count_left_unprinted__past_the_print_limit(void **state) {
    (void)state;
    char *text = fixture("h200_memcheck_use_after_free.log");
    SanitizerReport r;
    sanitizer_report_parse(text, "memcheck", &r);
    assert_int_equal(r.total, 1002);   /* then "ERROR SUMMARY: 902 errors were not printed" */
    assert_string_equal(r.errors[0].kind, "invalid-read");
    assert_int_equal(r.errors[0].line, 56);
    sanitizer_report_fini(&r);
    free(text);
}

static void parse__names_uninitialised_reads_and_barrier_errors__when_initcheck_and_synccheck_report_them(void **state) {
    (void)state;
    char *text = fixture("initcheck.log");
    SanitizerReport r;
    sanitizer_report_parse(text, "initcheck", &r);
    assert_int_equal(r.n_errors, 1);
    assert_string_equal(r.errors[0].kind, "uninitialized");
    assert_int_equal(r.errors[0].line, 18);
    assert_int_equal(r.errors[0].block[0], 4);
    sanitizer_report_fini(&r);
    free(text);
    text = fixture("synccheck.log");
    sanitizer_report_parse(text, "synccheck", &r);
    assert_int_equal(r.n_errors, 1);
    assert_string_equal(r.errors[0].kind, "barrier");
    assert_int_equal(r.errors[0].line, 40);
    assert_string_equal(r.errors[0].kernel, "reduce(float *)");
    sanitizer_report_fini(&r);
    free(text);
}

static void parse__lists_api_errors_and_leaks_without_a_place__when_host_calls_fail(void **state) {
    (void)state;
    char *text = fixture("memcheck_api_leak.log");
    SanitizerReport r;
    sanitizer_report_parse(text, "memcheck", &r);
    assert_int_equal(r.total, 3);
    assert_int_equal(r.n_errors, 3);     /* two different API calls do not merge */
    assert_string_equal(r.errors[0].kind, "api-error");
    assert_non_null(strstr(r.errors[0].message, "cudaMemcpy"));
    assert_non_null(strstr(r.errors[1].message, "cudaFree"));
    assert_string_equal(r.errors[2].kind, "leak");
    assert_string_equal(r.errors[2].message, "Leaked 4000 bytes at 0x7f5a3c200000");
    sanitizer_report_fini(&r);
    free(text);
}

static void parse__has_no_errors__when_the_program_is_clean_or_the_text_is_not_a_report(void **state) {
    (void)state;
    char *text = fixture("memcheck_clean.log");
    SanitizerReport r;
    sanitizer_report_parse(text, "memcheck", &r);
    assert_int_equal(r.n_errors, 0);
    assert_true(r.has_summary);
    assert_int_equal(r.total, 0);
    sanitizer_report_fini(&r);
    free(text);
    sanitizer_report_parse("hello\nInvalid __global__ write of size 4\n========\n", "memcheck", &r);
    assert_int_equal(r.n_errors, 0);     /* no prefix: the program's own words */
    assert_false(r.has_summary);
    sanitizer_report_fini(&r);
    sanitizer_report_parse(NULL, NULL, &r);
    assert_string_equal(r.tool, "memcheck");
    sanitizer_report_fini(&r);
}

static void tool_argv__logs_to_the_output_file_with_a_print_limit__for_every_tool(void **state) {
    (void)state;
    const char *argv[16];
    int n = sanitizer_tool_argv("/usr/local/cuda/bin/compute-sanitizer", "racecheck", argv);
    assert_true(n < 16);
    assert_null(argv[n]);
    assert_string_equal(argv[0], "/usr/local/cuda/bin/compute-sanitizer");
    bool tool = false, log = false, limit = false;
    for (int i = 1; i + 1 < n; i++) {
        tool |= !strcmp(argv[i], "--tool") && !strcmp(argv[i + 1], "racecheck");
        log |= !strcmp(argv[i], "--log-file") && !strcmp(argv[i + 1], "{out}");
        limit |= !strcmp(argv[i], "--print-limit");
    }
    assert_true(tool && log && limit);
}

/* ---- running under a tool ---- */

/* A stand-in for compute-sanitizer: writes its log to $2 (after
 * --log-file), runs the program as its child (a fork: the anti-fork filter
 * must be off under a tool), then logs the program's status and returns it. */
static const char *FAKE_TOOL =
    "#!/bin/sh\n"
    "log=$2; shift 2\n"
    "echo \"========= COMPUTE-SANITIZER\" > \"$log\"\n"
    "echo \"fd=$CUDOJO_REPORT_FD inject=${CUDA_INJECTION64_PATH-none} prog=$1 argv=$*\" >> \"$log\"\n"
    "\"$@\"\n"
    "rc=$?\n"
    "echo \"========= ERROR SUMMARY: $rc errors\" >> \"$log\"\n"
    "exit $rc\n";

static char *write_script(Fixture *f, const char *name, const char *text) {
    char *p = xasprintf("%s/%s", f->dir, name);
    assert_null(fs_write_file_atomic(p, text, strlen(text)));
    assert_int_equal(chmod(p, 0755), 0);
    return p;
}

static void run__runs_the_program_under_the_tool_and_reads_its_log__when_a_tool_is_given(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "args", "#include <stdio.h>\nint main(int argc, char **argv) {\n"
                                    "    printf(\"%d %s %s\\n\", argc, argv[1], argv[2]); return 3;\n}\n");
    char *tool = write_script(f, "fake-sanitizer", FAKE_TOOL);
    const char *targv[] = {tool, "--log-file", "{out}"};
    ProgramTool t = {.argv = targv, .argc = 3, .out_name = "sanitizer.log"};
    const char *args[] = {"one", "two"};
    f->ropts.args = args;
    f->ropts.n_args = 2;
    f->ropts.tool = &t;
    assert_null(program_run(exe, &f->ropts, &f->res));
    assert_true(f->res.started);
    assert_int_equal(f->res.exit_code, 3);               /* the tool passes the program's status on */
    assert_string_equal(f->res.out, "3 one two\n");      /* the program got its own arguments */
    assert_non_null(f->res.tool_output);
    assert_non_null(strstr(f->res.tool_output, "fd=3 inject=none"));   /* report fd kept, no CUPTI injection */
    assert_non_null(strstr(f->res.tool_output, exe));
    assert_non_null(strstr(f->res.tool_output, "/cudojo-confine --"));    /* the program's cage goes in front */
    assert_non_null(strstr(f->res.tool_output, "ERROR SUMMARY: 3 errors"));
    assert_int_equal(f->res.tool_output_len, strlen(f->res.tool_output));
    assert_false(f->res.tool_output_truncated);
    free(tool);
    free(exe);
}

/* A graded program under a tool is shut in as it is without one (the
 * trampoline, kernels/program_confine.c): it cannot read outside what
 * Landlock allows nor fork, while the tool still forks it and writes its
 * log where the program may not. */
static void run__shuts_the_program_in_but_not_the_tool__when_a_confined_program_runs_under_a_tool(void **state) {
    Fixture *f = *state;
    if (program_sandbox_landlock_abi() <= 0) skip();
    char secret_dir[] = "/tmp/cudojo-secret-XXXXXX";
    assert_non_null(mkdtemp(secret_dir));
    char *secret = xasprintf("%s/answer", secret_dir);
    assert_null(fs_write_file_atomic(secret, "42\n", 3));
    char *src = xasprintf("#include <errno.h>\n#include <stdio.h>\n#include <string.h>\n#include <unistd.h>\n"
                          "int main(void) {\n"
                          "    FILE *s = fopen(\"%s\", \"r\");\n"
                          "    printf(\"read:%%s\\n\", s ? \"yes\" : strerror(errno));\n"
                          "    pid_t p = fork();\n"
                          "    if (p == 0) _exit(0);\n"
                          "    printf(\"fork:%%s\\n\", p > 0 ? \"yes\" : strerror(errno));\n"
                          "    FILE *o = fopen(\"mine.txt\", \"w\");\n"
                          "    printf(\"write:%%s\\n\", o ? \"yes\" : strerror(errno));\n"
                          "    return 0;\n}\n",
                          secret);
    char *exe = cc_build(f, "caged", src);
    char *tool = write_script(f, "fake-sanitizer", FAKE_TOOL);
    const char *targv[] = {tool, "--log-file", "{out}"};
    ProgramTool t = {.argv = targv, .argc = 3, .out_name = "sanitizer.log"};
    f->ropts.tool = &t;
    f->ropts.confine = true;
    assert_null(program_run(exe, &f->ropts, &f->res));
    assert_int_equal(f->res.exit_code, 0);
    assert_non_null(strstr(f->res.out, "read:Permission denied"));
    assert_non_null(strstr(f->res.out, "fork:Resource temporarily unavailable"));
    assert_non_null(strstr(f->res.out, "write:yes"));                  /* its run folder */
    assert_non_null(f->res.tool_output);                                 /* the tool wrote outside it */
    assert_non_null(strstr(f->res.tool_output, "ERROR SUMMARY: 0 errors"));
    unlink(secret);
    rmdir(secret_dir);
    free(secret);
    free(src);
    free(tool);
    free(exe);
}

static void run__finds_the_report_by_its_prefix_in_the_callers_directory__when_the_tool_adds_an_extension(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "quiet", "int main(void) { return 0; }\n");
    char *tool = write_script(f, "fake-nsys", "#!/bin/sh\nout=$2; shift 2\necho report > \"$out.nsys-rep\"\nexec \"$@\"\n");
    char *dir = xasprintf("%s/reports", f->dir);
    assert_int_equal(mkdir(dir, 0700), 0);
    const char *targv[] = {tool, "-o", "{out}"};
    ProgramTool t = {.argv = targv, .argc = 3, .out_dir = dir, .out_name = "report", .out_cap = 3};
    f->ropts.tool = &t;
    assert_null(program_run(exe, &f->ropts, &f->res));
    assert_int_equal(f->res.exit_code, 0);
    assert_string_equal(f->res.tool_output, "rep");     /* cut at out_cap */
    assert_true(f->res.tool_output_truncated);
    char *kept = xasprintf("%s/report.nsys-rep", dir);
    assert_true(fs_exists(kept));                        /* the caller's directory is left to it */
    free(kept);
    free(dir);
    free(tool);
    free(exe);
}

static void run__refuses_before_starting__when_the_tool_path_is_not_absolute(void **state) {
    Fixture *f = *state;
    const char *targv[] = {"compute-sanitizer"};
    ProgramTool t = {.argv = targv, .argc = 1};
    f->ropts.tool = &t;
    Diag *d = program_run("/bin/true", &f->ropts, &f->res);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "absolute path"));
    diag_free(&d);
}

static void find_tool__looks_in_cuda_home_bin_first__when_cuda_home_is_set(void **state) {
    Fixture *f = *state;
    char *bin = xasprintf("%s/bin", f->dir);
    assert_int_equal(mkdir(bin, 0700), 0);
    char *p = write_script(f, "bin/compute-sanitizer", "#!/bin/sh\nexit 0\n");
    char *old = getenv("CUDA_HOME") ? xstrdup(getenv("CUDA_HOME")) : NULL;
    setenv("CUDA_HOME", f->dir, 1);
    char *found = program_find_tool("compute-sanitizer");
    assert_non_null(found);
    assert_string_equal(found, p);
    free(found);
    assert_null(program_find_tool("no-such-tool-cudojo"));
    assert_null(program_find_tool("../bin/compute-sanitizer"));
    if (old) setenv("CUDA_HOME", old, 1);
    else unsetenv("CUDA_HOME");
    free(old);
    free(p);
    free(bin);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse__reads_kind_kernel_line_thread_and_block__when_memcheck_reports_an_out_of_bounds_write),
        cmocka_unit_test(parse__reads_the_place__when_the_report_uses_the_older_address_file_line_function_form),
        cmocka_unit_test(parse__gives_the_first_access_of_each_race__when_racecheck_reports_hazards),
        cmocka_unit_test(parse__reads_the_h200s_own_reports__of_an_out_of_bounds_read_a_race_and_a_failed_call),
        cmocka_unit_test(parse__takes_the_total__not_the_count_left_unprinted__past_the_print_limit),
        cmocka_unit_test(parse__names_uninitialised_reads_and_barrier_errors__when_initcheck_and_synccheck_report_them),
        cmocka_unit_test(parse__lists_api_errors_and_leaks_without_a_place__when_host_calls_fail),
        cmocka_unit_test(parse__has_no_errors__when_the_program_is_clean_or_the_text_is_not_a_report),
        cmocka_unit_test(tool_argv__logs_to_the_output_file_with_a_print_limit__for_every_tool),
        cmocka_unit_test_setup_teardown(run__runs_the_program_under_the_tool_and_reads_its_log__when_a_tool_is_given, setup, teardown),
        cmocka_unit_test_setup_teardown(run__shuts_the_program_in_but_not_the_tool__when_a_confined_program_runs_under_a_tool, setup, teardown),
        cmocka_unit_test_setup_teardown(run__finds_the_report_by_its_prefix_in_the_callers_directory__when_the_tool_adds_an_extension, setup, teardown),
        cmocka_unit_test_setup_teardown(run__refuses_before_starting__when_the_tool_path_is_not_absolute, setup, teardown),
        cmocka_unit_test_setup_teardown(find_tool__looks_in_cuda_home_bin_first__when_cuda_home_is_set, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
