/* tests/kernels/test_program_run.c: running a program as a sandboxed
 * child: crashes, hangs, fork bombs, floods of output, files in and out,
 * stdin, raw bytes, cancel, and the report records a runtime library sends
 * (here from plain C stand-ins built with cc: no GPU, no nvcc and no
 * emulator runtime needed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/kernels/program_fixture.h"

/* ---- running: faults ---- */

/* A stand-in for the runtime library's crash handler: the faulting
 * instruction's offset in the executable, as progwire sends it. */
static const char *SEGV_SRC =
    "#define _GNU_SOURCE\n"
    "#include <link.h>\n#include <signal.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
    "#include <string.h>\n#include <ucontext.h>\n#include <unistd.h>\n"
    "static int report_fd = -1;\n"
    "static int first(struct dl_phdr_info *i, size_t n, void *base) { (void)n; *(unsigned long *)base = i->dlpi_addr; return 1; }\n"
    "static void on_segv(int sig, siginfo_t *si, void *ctx) {\n"
    "    unsigned long base = 0;\n"
    "    dl_iterate_phdr(first, &base);\n"
    "    unsigned long pc = ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];\n"
    "    dprintf(report_fd, \"{\\\"type\\\":\\\"crash\\\",\\\"signal\\\":%d,\\\"addr\\\":\\\"%p\\\",\\\"frames\\\":[\\\"0x%lx\\\"]}\\n\",\n"
    "            sig, si->si_addr, pc - base);\n"
    "    signal(sig, SIG_DFL);\n"
    "    raise(sig);\n"
    "}\n"
    "static int poke(int *p) {\n"
    "    return *p;\n"            /* line 21 */
    "}\n"
    "int main(void) {\n"
    "    const char *fd = getenv(\"CUDOJO_REPORT_FD\");\n"
    "    report_fd = fd ? atoi(fd) : -1;\n"
    "    struct sigaction sa; memset(&sa, 0, sizeof sa);\n"
    "    sa.sa_sigaction = on_segv; sa.sa_flags = SA_SIGINFO;\n"
    "    sigaction(SIGSEGV, &sa, NULL);\n"
    "    printf(\"before\\n\"); fflush(stdout);\n"
    "    return poke(NULL);\n"
    "}\n";

static void run__reports_signal_and_host_line__when_the_program_segfaults(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "segv", SEGV_SRC);
    f->ropts.display_path = "segv.c";
    f->ropts.source = SEGV_SRC;
    assert_null(program_run(exe, &f->ropts, &f->res));
    assert_true(f->res.started);
    assert_true(f->res.signaled);
    assert_int_equal(f->res.signal, SIGSEGV);
    assert_string_equal(f->res.out, "before\n");
    const Diag *c = find_code(f->res.findings, "host-crash");
    assert_non_null(c);
    char *addr2line = proc_find_in_path("addr2line");
    if (addr2line) {
        free(addr2line);
        assert_string_equal(c->file, "segv.c");
        assert_int_equal(c->line, 21);
        assert_non_null(c->excerpt);
        assert_non_null(strstr(c->excerpt, "return *p;"));
        char *end = program_result_ending(&f->res);
        assert_string_equal(end, "was killed by SIGSEGV (segmentation fault) at segv.c:21 (host code)");
        free(end);
    }
    free(exe);
}

static void run__reports_the_signal_without_a_line__when_no_runtime_reported_the_crash(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "fpe", "#include <stdlib.h>\nint main(int c, char **v) { (void)v; return 5 / (c - 1); }\n");
    assert_null(program_run(exe, &f->ropts, &f->res));
    assert_true(f->res.signaled);
    assert_int_equal(f->res.signal, SIGFPE);
    const Diag *c = find_code(f->res.findings, "host-crash");
    assert_non_null(c);
    assert_int_equal(c->line, 0);
    assert_non_null(strstr(c->message, "division"));
    free(exe);
}

static void run__kills_it_after_the_timeout__when_the_program_never_ends(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "spin", "int main(void) { volatile int x = 0; for (;;) x++; }\n");
    f->ropts.timeout_s = 1;
    assert_null(program_run(exe, &f->ropts, &f->res));
    assert_true(f->res.timed_out);
    assert_false(f->res.signaled);
    assert_true(f->res.wall_ms >= 900 && f->res.wall_ms < 4000);
    assert_non_null(find_code(f->res.findings, "timeout"));
    char *end = program_result_ending(&f->res);
    assert_string_equal(end, "did not finish within 1 s (killed)");
    free(end);
    free(exe);
}

static void run__stops_a_fork_bomb_and_leaves_no_process__when_the_program_forks_forever(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "bomb",
                         "#include <errno.h>\n#include <stdio.h>\n#include <string.h>\n#include <unistd.h>\n"
                         "int main(void) {\n"
                         "    printf(\"%d\\n\", (int)getpid()); fflush(stdout);\n"
                         "    pid_t p = fork();\n"
                         "    if (p < 0) printf(\"fork: %s\\n\", strerror(errno));\n"
                         "    fflush(stdout);\n"
                         "    for (;;) if (fork() == 0) for (;;) pause();\n"
                         "}\n");
    f->ropts.timeout_s = 1;
    assert_null(program_run(exe, &f->ropts, &f->res));
    assert_true(f->res.timed_out);
    int pid = atoi(f->res.out);
    assert_true(pid > 0);
    assert_non_null(strstr(f->res.out, "fork: Resource temporarily unavailable"));
    errno = 0;
    assert_int_equal(kill(-pid, 0), -1);    /* the process group is gone */
    assert_int_equal(errno, ESRCH);
    free(exe);
}

static long maxrss_kb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static void run__keeps_the_cap_and_counts_the_rest__when_the_program_floods_stdout(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "flood",
                         "#include <stdio.h>\n#include <string.h>\n"
                         "int main(void) { static char b[1 << 20]; memset(b, 'x', sizeof b);\n"
                         "    for (int i = 0; i < 100; i++) fwrite(b, 1, sizeof b, stdout);\n"
                         "    fprintf(stderr, \"done\\n\"); return 0; }\n");
    long before = maxrss_kb();
    f->ropts.timeout_s = 30;
    assert_null(program_run(exe, &f->ropts, &f->res));
    assert_int_equal(f->res.exit_code, 0);
    assert_int_equal(f->res.out_total, 100u << 20);
    assert_int_equal(f->res.out_len, 1u << 20);
    assert_string_equal(f->res.err, "done\n");
    assert_non_null(find_code(f->res.findings, "output-capped"));
    assert_true(maxrss_kb() - before < 24 * 1024);  /* the worker stayed small */
    free(exe);
}

/* ---- running: ordinary programs ---- */

static void run__is_a_normal_result__when_the_program_never_touches_the_gpu(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "plain", "#include <stdio.h>\nint main(void) { puts(\"hi\"); return 0; }\n");
    assert_null(program_run(exe, &f->ropts, &f->res));
    assert_true(f->res.started);
    assert_int_equal(f->res.exit_code, 0);
    assert_false(f->res.touched_gpu);
    assert_null(f->res.runtime_name);
    assert_null(f->res.timeline);
    assert_string_equal(f->res.out, "hi\n");
    assert_null(f->res.findings);
    char *end = program_result_ending(&f->res);
    assert_string_equal(end, "exited with status 0");
    free(end);
    free(exe);
}

static void run__passes_files_stdin_and_arguments_and_reads_files_back(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "io",
                         "#include <stdio.h>\n#include <ctype.h>\n"
                         "int main(int argc, char **argv) {\n"
                         "    FILE *in = fopen(\"in.txt\", \"r\"); char w[64] = \"\";\n"
                         "    if (!in || !fgets(w, sizeof w, in)) return 3;\n"
                         "    FILE *out = fopen(\"out.bin\", \"wb\"); int c;\n"
                         "    while ((c = getchar()) != EOF) fputc(toupper(c), out);\n"
                         "    fputc(0, out); fputs(w, out); fclose(out);\n"
                         "    printf(\"%d %s\\n\", argc, argv[1]); return 0;\n"
                         "}\n");
    ProgramFile in = {"in.txt", (unsigned char *)"word", 4};
    const char *want[] = {"out.bin", "missing.txt"};
    const char *args[] = {"first", "second"};
    f->ropts.files = &in;
    f->ropts.n_files = 1;
    f->ropts.want_files = want;
    f->ropts.n_want = 2;
    f->ropts.stdin_data = "abc";
    f->ropts.stdin_size = 3;
    f->ropts.args = args;
    f->ropts.n_args = 2;
    assert_null(program_run(exe, &f->ropts, &f->res));
    assert_int_equal(f->res.exit_code, 0);
    assert_string_equal(f->res.out, "3 first\n");
    assert_int_equal(f->res.n_files, 1);
    assert_string_equal(f->res.files[0].name, "out.bin");
    assert_int_equal(f->res.files[0].size, 8);
    assert_memory_equal(f->res.files[0].data, "ABC\0word", 8);
    free(exe);
}

static void run__keeps_every_byte__when_the_output_is_not_utf8(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "bytes", "#include <stdio.h>\nint main(void) { fwrite(\"\\xff\\xfe ok \\xe9\\0z\", 1, 9, stdout); return 0; }\n");
    assert_null(program_run(exe, &f->ropts, &f->res));
    assert_int_equal(f->res.out_len, 9);
    assert_memory_equal(f->res.out, "\xff\xfe ok \xe9\0z", 9);
    free(exe);
}

static void run__refuses_before_starting__when_an_input_file_name_has_a_slash(void **state) {
    Fixture *f = *state;
    ProgramFile bad = {"../escape", (unsigned char *)"x", 1};
    f->ropts.files = &bad;
    f->ropts.n_files = 1;
    Diag *d = program_run("/bin/true", &f->ropts, &f->res);
    assert_non_null(d);
    assert_string_equal(d->code, "bad-file");
    assert_false(f->res.started);
    diag_free(&d);
}

static void run__kills_it_at_once__when_cancelled(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "sleepy", "#include <unistd.h>\nint main(void) { sleep(30); return 0; }\n");
    volatile int cancel = 1;
    f->ropts.cancel = &cancel;
    assert_null(program_run(exe, &f->ropts, &f->res));
    assert_true(f->res.cancelled);
    assert_true(f->res.wall_ms < 2000);
    free(exe);
}

/* A worker killed with SIGKILL (the CLI closed, the TUI crashed) must not
 * leave the learner's program running: it is in its own process group, so
 * only its parent-death signal can reach it. */
static void run__ends_the_program__when_the_worker_is_killed(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "sleeper",
                         "#include <stdio.h>\n#include <unistd.h>\n"
                         "int main(void) { printf(\"%d\\n\", (int)getpid()); fflush(stdout);\n"
                         "    sleep(60); return 0; }\n");
    char pidfile[512];
    snprintf(pidfile, sizeof pidfile, "%s/sleeper.pid", f->dir);
    unlink(pidfile);
    pid_t worker = fork();
    if (worker == 0) {
        /* the stand-in worker: tees the program's stdout (its pid) to a file */
        FILE *out = fopen(pidfile, "w");
        if (!out) _exit(1);
        f->ropts.tee_out = fileno(out);
        f->ropts.timeout_s = 60;
        program_run(exe, &f->ropts, &f->res);
        _exit(0);
    }
    assert_true(worker > 0);
    int child = 0;
    for (int i = 0; i < 500 && child <= 0; i++) {
        usleep(10000);
        FILE *in = fopen(pidfile, "r");
        if (in) {
            if (fscanf(in, "%d", &child) != 1) child = 0;
            fclose(in);
        }
    }
    assert_true(child > 0);
    kill(worker, SIGKILL);
    waitpid(worker, NULL, 0);
    bool gone = false;
    for (int i = 0; i < 300 && !gone; i++) {
        char stat[64], buf[256] = "";
        snprintf(stat, sizeof stat, "/proc/%d/stat", child);
        FILE *st = fopen(stat, "r");
        /* gone, or a zombie waiting for a PID 1 that does not reap (containers) */
        if (!st) gone = true;
        else {
            if (fgets(buf, sizeof buf, st)) {
                const char *rp = strrchr(buf, ')');
                gone = rp && rp[1] == ' ' && rp[2] == 'Z';
            }
            fclose(st);
        }
        if (!gone) usleep(10000);
    }
    if (!gone) kill(child, SIGKILL);
    assert_true(gone);
    free(exe);
}

static void run__says_how_to_get_it__when_the_emulator_runtime_is_missing(void **state) {
    Fixture *f = *state;
    if (program_emurt_dir()) skip();
    f->ropts.runtime = PROGRAM_RT_EMU;
    Diag *d = program_run("/bin/true", &f->ropts, &f->res);
    assert_non_null(d);
    assert_string_equal(d->code, "no-emurt");
    assert_non_null(strstr(d->message, "CUDOJO_EMURT_DIR"));
    diag_free(&d);
}

/* ---- the report records ---- */

static void run__fills_the_result_from_report_records__when_the_runtime_sends_them(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(
        f, "fake",
        "#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\n"
        "int main(void) {\n"
        "    int fd = atoi(getenv(\"CUDOJO_REPORT_FD\"));\n"
        "    dprintf(fd, \"{\\\"type\\\":\\\"hello\\\",\\\"runtime\\\":\\\"emu\\\",\\\"device\\\":\\\"emulated H200\\\"}\\n\");\n"
        "    for (int i = 0; i < 3; i++)\n"
        "        dprintf(fd, \"{\\\"type\\\":\\\"call\\\",\\\"fn\\\":\\\"cudaMalloc\\\",\\\"rc\\\":0,\\\"t_us\\\":%d}\\n\", i);\n"
        "    dprintf(fd, \"this is not json\\n{\\\"no_type\\\":1}\\n[1,2]\\n\");\n"
        "    dprintf(fd, \"{\\\"type\\\":\\\"kernel\\\",\\\"name\\\":\\\"k\\\",\\\"ms\\\":0.5,\\\"modeled\\\":true}\\n\");\n"
        "    dprintf(fd, \"{\\\"type\\\":\\\"finding\\\",\\\"diag\\\":[{\\\"severity\\\":\\\"error\\\",\\\"code\\\":\\\"oob-global\\\","
        "\\\"file\\\":\\\"/tmp/x/ws/k.cu\\\",\\\"line\\\":2,\\\"col\\\":0,\\\"message\\\":\\\"read past the end\\\","
        "\\\"block\\\":[1,0,0],\\\"thread\\\":[5,0,0]}]}\\n\");\n"
        "    dprintf(fd, \"{\\\"type\\\":\\\"unimplemented\\\",\\\"fn\\\":\\\"cudaGraphFoo\\\"}\\n\");\n"
        "    dprintf(fd, \"{\\\"type\\\":\\\"unimplemented\\\",\\\"fn\\\":\\\"cudaGraphFoo\\\"}\\n\");\n"
        "    dprintf(fd, \"{\\\"type\\\":\\\"timeline\\\",\\\"timeline\\\":{\\\"modeled\\\":true,\\\"source\\\":\\\"emu-model\\\","
        "\\\"streams\\\":[{\\\"id\\\":1,\\\"name\\\":\\\"s1\\\",\\\"priority\\\":0}],\\\"events\\\":[{\\\"kind\\\":\\\"kernel\\\","
        "\\\"stream\\\":1,\\\"name\\\":\\\"k\\\",\\\"start_us\\\":0,\\\"dur_us\\\":500,\\\"grid\\\":[4,1,1],\\\"block\\\":[256,1,1]}]}}\\n\");\n"
        "    dprintf(fd, \"{\\\"type\\\":\\\"call\\\",\\\"fn\\\":\\\"cudaFree\\\",\\\"rc\\\":0}\");  /* no newline */\n"
        "    return 0;\n"
        "}\n");
    const char *src = "__global__ void k(float *x) {\n    x[threadIdx.x] = 0;\n}\n";
    f->ropts.display_path = "ws/k.cu";
    f->ropts.source = src;
    assert_null(program_run(exe, &f->ropts, &f->res));
    assert_int_equal(f->res.exit_code, 0);
    assert_string_equal(f->res.runtime_name, "emu");
    assert_string_equal(f->res.device, "emulated H200");
    assert_true(f->res.touched_gpu);
    assert_int_equal(json_array_size(f->res.calls), 4);
    assert_string_equal(json_string_value(json_object_get(json_array_get(f->res.calls, 3), "fn")), "cudaFree");
    assert_null(json_object_get(json_array_get(f->res.calls, 0), "type"));
    assert_int_equal(json_array_size(f->res.kernels), 1);
    const Diag *oob = find_code(f->res.findings, "oob-global");
    assert_non_null(oob);
    assert_string_equal(oob->file, "ws/k.cu");
    assert_true(oob->has_thread);
    assert_int_equal(oob->thread[0], 5);
    assert_non_null(oob->excerpt);
    assert_non_null(strstr(oob->excerpt, "x[threadIdx.x] = 0;"));
    const Diag *un = find_code(f->res.findings, "unimplemented");
    assert_non_null(un);
    assert_non_null(strstr(un->message, "cudojo's emulator runtime does not implement cudaGraphFoo"));
    assert_null(find_code(un->next, "unimplemented"));     /* said once */
    assert_non_null(f->res.timeline);
    assert_true(f->res.timeline->modeled);
    assert_int_equal(f->res.timeline->n, 1);
    assert_int_equal(f->res.timeline->v[0].stream, 1);
    assert_int_equal(f->res.timeline->v[0].grid[0], 4);
    free(exe);
}

static void report__skips_oversized_lines_and_keeps_going(void **state) {
    Fixture *f = *state;
    ReportReader rr;
    report_reader_init(&rr);
    size_t big = (32u << 20) + 100;
    char *junk = xmalloc(big);
    memset(junk, 'a', big);
    report_reader_feed(&rr, junk, big, &f->res, &f->ropts);
    const char *tail = "aaa\n{\"type\":\"call\",\"fn\":\"cudaMemcpy\"}\n";
    report_reader_feed(&rr, tail, strlen(tail), &f->res, &f->ropts);
    report_reader_finish(&rr, &f->res, &f->ropts, "/bin/true");
    assert_true(rr.truncated);
    assert_int_equal(json_array_size(f->res.calls), 1);
    assert_non_null(find_code(f->res.findings, "report-truncated"));
    report_reader_fini(&rr);
    free(junk);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(run__reports_signal_and_host_line__when_the_program_segfaults, setup, teardown),
        cmocka_unit_test_setup_teardown(run__reports_the_signal_without_a_line__when_no_runtime_reported_the_crash, setup, teardown),
        cmocka_unit_test_setup_teardown(run__kills_it_after_the_timeout__when_the_program_never_ends, setup, teardown),
        cmocka_unit_test_setup_teardown(run__stops_a_fork_bomb_and_leaves_no_process__when_the_program_forks_forever, setup, teardown),
        cmocka_unit_test_setup_teardown(run__keeps_the_cap_and_counts_the_rest__when_the_program_floods_stdout, setup, teardown),
        cmocka_unit_test_setup_teardown(run__is_a_normal_result__when_the_program_never_touches_the_gpu, setup, teardown),
        cmocka_unit_test_setup_teardown(run__passes_files_stdin_and_arguments_and_reads_files_back, setup, teardown),
        cmocka_unit_test_setup_teardown(run__keeps_every_byte__when_the_output_is_not_utf8, setup, teardown),
        cmocka_unit_test_setup_teardown(run__refuses_before_starting__when_an_input_file_name_has_a_slash, setup, teardown),
        cmocka_unit_test_setup_teardown(run__kills_it_at_once__when_cancelled, setup, teardown),
        cmocka_unit_test_setup_teardown(run__ends_the_program__when_the_worker_is_killed, setup, teardown),
        cmocka_unit_test_setup_teardown(run__says_how_to_get_it__when_the_emulator_runtime_is_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(run__fills_the_result_from_report_records__when_the_runtime_sends_them, setup, teardown),
        cmocka_unit_test_setup_teardown(report__skips_oversized_lines_and_keeps_going, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
