/* tests/kernels/test_program_profile.c: Nsight Compute's CSV and Nsight
 * Systems' stats read into records (kernels/program_profile.h): the real
 * H200 capture of ncu (tests/kernels/profile/ncu.csv, ncu-sol.csv), nsys
 * stats in today's and the 2021 layout, and hostile variants (cut off,
 * bad quotes, a huge file, the program's own output in between); running
 * a program under a fake ncu and a fake nsys (shell scripts that write
 * what the real tools write and start the program). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "kernels/program_profile.h"
#include "tests/kernels/program_fixture.h"

static char *fixture(const char *name) {
    char *path = xasprintf("tests/kernels/profile/%s", name), *text = NULL;
    size_t len = 0;
    Diag *d = fs_read_file_max(path, 1 << 20, &text, &len);
    if (d) fprintf(stderr, "%s: %s\n", path, d->message);
    assert_null(d);
    free(path);
    return text;
}

/* ---- numbers, fields, names ---- */

static void number__reads_thousands_separators_and_refuses_what_is_not_a_number(void **state) {
    (void)state;
    double v = 0;
    assert_true(profile_number_parse("5,792", &v));
    assert_true(v == 5792);
    assert_true(profile_number_parse("3,182,765,151.52", &v));
    assert_true(fabs(v - 3182765151.52) < 1e-3);
    assert_true(profile_number_parse(" 6.13 ", &v));
    assert_true(v == 6.13);
    assert_true(profile_number_parse("-1.5e3", &v));
    assert_true(v == -1500);
    assert_true(profile_number_parse("100", &v));
    assert_false(profile_number_parse("n/a", &v));
    assert_false(profile_number_parse("", &v));
    assert_false(profile_number_parse("1,23", &v));         /* not groups of three */
    assert_false(profile_number_parse("1234,567", &v));
    assert_false(profile_number_parse(",123", &v));
    assert_false(profile_number_parse("12 34", &v));
    assert_false(profile_number_parse("1e", &v));
    assert_false(profile_number_parse("1e999", &v));        /* not finite */
}

static void csv_split__reads_quoted_and_bare_fields__and_refuses_an_unclosed_quote(void **state) {
    (void)state;
    char *f[8];
    const char *line = "\"busy(float *, int, int)\",\"say \"\"hi\"\"\", bare ,\"\"";
    int n = profile_csv_split(line, strlen(line), f, 8);
    assert_int_equal(n, 4);
    assert_string_equal(f[0], "busy(float *, int, int)");
    assert_string_equal(f[1], "say \"hi\"");
    assert_string_equal(f[2], "bare");
    assert_string_equal(f[3], "");
    for (int i = 0; i < n; i++) free(f[i]);
    assert_int_equal(profile_csv_split("\"open,\"x", 8, f, 8), -1);     /* text after a closing quote */
    assert_int_equal(profile_csv_split("\"never closed", 13, f, 8), -1);
    assert_int_equal(profile_csv_split("a,b,c", 5, f, 2), -1);           /* more fields than room */
    assert_int_equal(profile_csv_split("a,b\"c", 5, f, 8), -1);
}

static void function_name__drops_parameters_and_return_type__and_keeps_template_arguments(void **state) {
    (void)state;
    const char *cases[][2] = {
        {"busy(float *, int, int)", "busy"},
        {"void scale<float>(float *, int)", "scale<float>"},
        {"void ns::k<std::pair<int, int>, 2>(int)", "ns::k<std::pair<int, int>, 2>"},
        {"plain", "plain"},
        {"(weird)", "(weird)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = profile_function_name(cases[i][0]);
        assert_string_equal(s, cases[i][1]);
        free(s);
    }
}

/* ---- ncu ---- */

static void ncu__gives_one_record_per_launch_with_its_metrics__on_the_real_h200_capture(void **state) {
    (void)state;
    char *text = fixture("ncu.csv");
    NcuReport r;
    ncu_report_parse(text, &r);
    assert_int_equal(r.n_kernels, 2);
    assert_int_equal(r.skipped, 0);          /* ==PROF== and the program's "sync: cudaSuccess" are not records */
    assert_int_equal(r.n_errors, 0);
    NcuKernel *a = &r.kernels[0], *b = &r.kernels[1];
    assert_string_equal(a->name, "busy(float *, int, int)");
    assert_string_equal(a->function, "busy");
    assert_int_equal(a->pid, 658);
    assert_int_equal(a->id, 0);
    assert_int_equal(b->id, 1);
    assert_int_equal(a->grid[0], 132);
    assert_int_equal(a->block[0], 128);
    assert_int_equal(b->grid[0], 1000);
    assert_int_equal(b->block[0], 256);
    assert_int_equal(b->grid[1], 1);
    assert_int_equal(a->n_metrics, 10);
    assert_true(ncu_kernel_value(a, "sm__warps_active.avg.pct_of_peak_sustained_active") == 6.13);
    assert_true(ncu_kernel_value(b, "sm__warps_active.avg.pct_of_peak_sustained_active") == 58.10);
    assert_true(ncu_kernel_value(a, "sm__maximum_warps_per_active_cycle_pct") == 100);
    assert_true(ncu_kernel_value(a, "gpu__time_duration.sum") == 5792);     /* "5,792" */
    assert_true(ncu_kernel_value(b, "launch__grid_size") == 1000);          /* "1,000" */
    assert_true(ncu_kernel_value(b, "launch__occupancy_limit_warps") == 8);
    const NcuMetric *m = ncu_kernel_metric(a, "gpu__time_duration.sum");
    assert_string_equal(m->unit, "ns");
    assert_string_equal(m->text, "5,792");
    assert_string_equal(ncu_kernel_metric(a, "launch__registers_per_thread")->unit, "register/thread");
    assert_null(ncu_kernel_metric(a, "dram__bytes.sum"));
    assert_true(isnan(ncu_kernel_value(a, "dram__bytes.sum")));
    ncu_report_fini(&r);
    free(text);
}

static void ncu__keeps_section_metrics_in_base_units_and_the_rules__on_the_speed_of_light_capture(void **state) {
    (void)state;
    char *text = fixture("ncu-sol.csv");
    NcuReport r;
    ncu_report_parse(text, &r);
    assert_int_equal(r.n_kernels, 2);
    assert_int_equal(r.skipped, 0);
    NcuKernel *a = &r.kernels[0];
    assert_int_equal(a->pid, 693);
    assert_true(ncu_kernel_value(a, "Duration") == 5632);
    assert_true(fabs(ncu_kernel_value(a, "SM Frequency") - 1491055575.28) < 1e-2);
    assert_string_equal(ncu_kernel_metric(a, "SM Frequency")->unit, "hz");
    assert_true(ncu_kernel_value(a, "SM Active Cycles") == 798.20);
    assert_int_equal(a->n_rules, 1);
    assert_string_equal(a->rules[0].name, "SOLBottleneck");
    assert_string_equal(a->rules[0].type, "OPT");
    assert_non_null(strstr(a->rules[0].description, "0.1 full waves"));
    assert_non_null(strstr(r.kernels[1].rules[0].description, "0.9 full waves"));
    ncu_report_fini(&r);
    ncu_report_parse(NULL, &r);
    assert_int_equal(r.n_kernels, 0);
    ncu_report_fini(&r);
    free(text);
}

static void ncu__brings_scaled_units_to_base_units__when_printed_with_auto_units(void **state) {
    (void)state;
    const char *text =
        "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
        "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
        "\"0\",\"9\",\"p\",\"h\",\"k(int)\",\"1\",\"7\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"s\",\"t\",\"usecond\",\"1.50\"\n"
        "\"0\",\"9\",\"p\",\"h\",\"k(int)\",\"1\",\"7\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"s\",\"b\",\"Mbyte\",\"2.5\"\n"
        "\"0\",\"9\",\"p\",\"h\",\"k(int)\",\"1\",\"7\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"s\",\"r\",\"Gbyte/second\",\"4,100\"\n"
        "\"0\",\"9\",\"p\",\"h\",\"k(int)\",\"1\",\"7\",\"(32, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"s\",\"x\",\"\",\"n/a\"\n";
    NcuReport r;
    ncu_report_parse(text, &r);
    assert_int_equal(r.n_kernels, 1);
    NcuKernel *k = &r.kernels[0];
    assert_true(fabs(ncu_kernel_value(k, "t") - 1500) < 1e-9);
    assert_string_equal(ncu_kernel_metric(k, "t")->unit, "ns");
    assert_true(fabs(ncu_kernel_value(k, "b") - 2.5e6) < 1e-6);
    assert_string_equal(ncu_kernel_metric(k, "r")->unit, "byte/s");
    assert_true(fabs(ncu_kernel_value(k, "r") - 4.1e12) < 1);
    assert_true(isnan(ncu_kernel_value(k, "x")));
    assert_string_equal(ncu_kernel_metric(k, "x")->text, "n/a");
    ncu_report_fini(&r);
}

static void ncu__keeps_the_tools_errors_and_no_launches__when_counters_are_not_permitted(void **state) {
    (void)state;
    const char *text =
        "==PROF== Connected to process 77 (/tmp/a.out)\n"
        "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters "
        "on the target device 0.\n"
        "==PROF== Disconnected from process 77\n"
        "==WARNING== No kernels were profiled.\n";
    NcuReport r;
    ncu_report_parse(text, &r);
    assert_int_equal(r.n_kernels, 0);
    assert_int_equal(r.n_errors, 1);
    assert_true(!strncmp(r.errors[0], "ERR_NVGPUCTRPERM", 16));
    assert_int_equal(r.n_warnings, 1);
    assert_string_equal(r.warnings[0], "No kernels were profiled.");
    ncu_report_fini(&r);
}

static void ncu__skips_cut_off_and_garbled_records_and_keeps_the_rest__when_the_csv_is_damaged(void **state) {
    (void)state;
    char *text = fixture("ncu.csv");
    StrBuf b;
    strbuf_init(&b);
    /* a record before any header, then the file with one record garbled and one cut in half */
    strbuf_append(&b, "\"0\",\"1\",\"early\"\n");
    int line = 0;
    for (char *p = text, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl) nl = p + strlen(p) - 1;
        line++;
        if (line == 6) strbuf_append(&b, "\"0\",\"658\",\"bugs\",\"127.0.0.1\",\"busy(float *, int, int)\",\"1\",\"7\",\"(128, 1, 1)\"oops,\"x\"\n");
        else if (line == 8) strbuf_append_n(&b, p, (size_t)(nl - p) / 2), strbuf_append(&b, "\n");
        else strbuf_append_n(&b, p, (size_t)(nl - p + 1));
    }
    NcuReport r;
    ncu_report_parse(b.data, &r);
    assert_int_equal(r.skipped, 3);
    assert_int_equal(r.n_kernels, 2);
    assert_int_equal(r.kernels[0].n_metrics, 8);        /* lines 6 and 8 lost their metrics, nothing else */
    assert_int_equal(r.kernels[1].n_metrics, 10);
    ncu_report_fini(&r);
    /* the whole text cut at every length: never a crash, never more than the whole */
    size_t len = strlen(text);
    for (size_t cut = 0; cut < len; cut += 37) {
        char *part = xstrndup(text, cut);
        ncu_report_parse(part, &r);
        assert_true(r.n_kernels <= 2);
        ncu_report_fini(&r);
        free(part);
    }
    strbuf_fini(&b);
    free(text);
}

static void ncu__caps_what_it_keeps__when_a_report_is_huge(void **state) {
    (void)state;
    StrBuf b;
    strbuf_init(&b);
    strbuf_append(&b, "\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n");
    for (int i = 0; i < 5000; i++) strbuf_printf(&b, "\"%d\",\"1\",\"k\",\"m\",\"\",\"%d\"\n", i, i);
    for (int i = 0; i < 600; i++) strbuf_printf(&b, "\"0\",\"1\",\"k\",\"m%d\",\"\",\"1\"\n", i);
    char *longname = xmalloc(100001);
    memset(longname, 'x', 100000);
    longname[100000] = '\0';
    strbuf_printf(&b, "\"1\",\"1\",\"k\",\"%s\",\"\",\"1\"\n", longname);
    NcuReport r;
    ncu_report_parse(b.data, &r);
    assert_int_equal(r.n_kernels, 4096);
    assert_true(r.truncated);
    assert_int_equal(r.kernels[0].n_metrics, 512);
    assert_true(strlen(r.kernels[1].metrics[1].name) <= 4096);
    ncu_report_fini(&r);
    free(longname);
    strbuf_fini(&b);
}

static void ncu_argv__asks_for_csv_in_base_units_into_the_output_file__and_refuses_a_bad_metric_name(void **state) {
    (void)state;
    ProfileArgv a;
    const char *bad;
    assert_true(ncu_tool_argv("/usr/local/cuda/bin/ncu", NULL, 0, 0, &a, &bad));
    assert_string_equal(a.v[0], "/usr/local/cuda/bin/ncu");
    assert_null(a.v[a.argc]);
    bool csv = false, units = false, log = false, count = false, metrics = false;
    for (int i = 1; i < a.argc; i++) {
        csv |= !strcmp(a.v[i], "--csv");
        units |= i + 1 < a.argc && !strcmp(a.v[i], "--print-units") && !strcmp(a.v[i + 1], "base");
        log |= i + 1 < a.argc && !strcmp(a.v[i], "--log-file") && !strcmp(a.v[i + 1], "{out}");
        count |= i + 1 < a.argc && !strcmp(a.v[i], "--launch-count") && !strcmp(a.v[i + 1], "200");
        metrics |= i + 1 < a.argc && !strcmp(a.v[i], "--metrics") &&
                   strstr(a.v[i + 1], "sm__warps_active.avg.pct_of_peak_sustained_active,") &&
                   strstr(a.v[i + 1], "launch__occupancy_limit_shared_mem");
    }
    assert_true(csv && units && log && count && metrics);
    profile_argv_fini(&a);
    const char *mine[] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "gpu__time_duration.sum"};
    assert_true(ncu_tool_argv("/x/ncu", mine, 2, 5, &a, &bad));
    assert_string_equal(a.v[a.argc - 3], "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,gpu__time_duration.sum");
    profile_argv_fini(&a);
    const char *evil[] = {"gpu__time_duration.sum", "a,b --kill"};
    assert_false(ncu_tool_argv("/x/ncu", evil, 2, 0, &a, &bad));
    assert_string_equal(bad, "a,b --kill");
    assert_int_equal(a.argc, 0);
}

static bool argv_has_pair(const ProfileArgv *a, const char *k, const char *v) {
    for (int i = 1; i + 1 < a->argc; i++)
        if (!strcmp(a->v[i], k) && !strcmp(a->v[i + 1], v)) return true;
    return false;
}

/* Under the GPU lock (grading: the run yields to others' timed sections)
 * ncu leaves the clocks alone; without it, ncu's default (base clocks). */
static void ncu_argv__leaves_the_clocks_alone__only_under_the_GPU_lock(void **state) {
    (void)state;
    ProfileArgv a;
    const char *bad;
    unsetenv("CUDOJO_GPU_LOCK_DIR");
    assert_true(ncu_tool_argv("/x/ncu", NULL, 0, 0, &a, &bad));
    assert_false(argv_has_pair(&a, "--clock-control", "none"));
    profile_argv_fini(&a);
    setenv("CUDOJO_GPU_LOCK_DIR", "/tmp", 1);
    assert_true(ncu_tool_argv("/x/ncu", NULL, 0, 0, &a, &bad));
    unsetenv("CUDOJO_GPU_LOCK_DIR");
    assert_true(argv_has_pair(&a, "--clock-control", "none"));
    profile_argv_fini(&a);
}

/* ---- nsys ---- */

static void nsys__sums_kernels_and_copies_per_kind__in_todays_stats_layout(void **state) {
    (void)state;
    char *text = fixture("nsys-stats.csv");
    NsysSummary s;
    nsys_summary_parse(text, &s);
    assert_true(s.has_kernel_table);
    assert_int_equal(s.skipped, 0);
    assert_int_equal(s.n_kernels, 3);
    assert_string_equal(s.kernels[0].function, "finish");
    assert_int_equal(s.kernels[0].count, 200);
    assert_true(s.kernels[0].total_ns == 1412608);
    assert_true(s.kernels[0].avg_ns == 7063);
    assert_true(s.kernels[0].share_pct == 61.9);
    assert_string_equal(s.kernels[2].name, "prepare(const float *, float *, int)");
    assert_int_equal(s.n_memops, 3);
    assert_string_equal(s.memops[0].kind, "DtoH");
    assert_string_equal(s.memops[1].kind, "HtoD");
    assert_string_equal(s.memops[2].kind, "memset");
    assert_int_equal(s.memops[2].count, 2);
    assert_true(s.memops[1].total_ns == 1214432);
    nsys_summary_fini(&s);
    free(text);
}

static void nsys__reads_the_2021_layout__with_bare_fields_and_short_copy_names(void **state) {
    (void)state;
    char *text = fixture("nsys-stats-2021.txt");
    NsysSummary s;
    nsys_summary_parse(text, &s);
    assert_int_equal(s.n_kernels, 3);
    assert_string_equal(s.kernels[0].name, "finish(float *, int)");     /* split at its comma, joined again */
    assert_string_equal(s.kernels[2].function, "prepare");
    assert_true(s.kernels[1].avg_ns == 803392);
    assert_int_equal(s.n_memops, 2);
    assert_string_equal(s.memops[0].kind, "DtoH");
    assert_string_equal(s.memops[1].kind, "HtoD");
    nsys_summary_fini(&s);
    free(text);
}

static void nsys__has_no_kernel_table__when_the_report_holds_no_kernels_or_is_not_stats(void **state) {
    (void)state;
    NsysSummary s;
    nsys_summary_parse("Processing [p.sqlite] with [cuda_gpu_kern_sum.py]...\n"
                       "SKIPPED: p.sqlite does not contain CUDA kernel data.\n", &s);
    assert_false(s.has_kernel_table);
    assert_int_equal(s.n_kernels, 0);
    nsys_summary_fini(&s);
    nsys_summary_parse("a,b,c\n1,2,3\n\"x\",\"y\n", &s);
    assert_false(s.has_kernel_table);
    nsys_summary_fini(&s);
    nsys_summary_parse(NULL, &s);
    assert_int_equal(s.n_memops, 0);
    nsys_summary_fini(&s);
    /* a table cut mid-row: the rows before it stay, the broken one is skipped */
    char *text = fixture("nsys-stats.csv");
    char *cut = strstr(text, "\"smooth");
    cut[3] = '\0';
    nsys_summary_parse(text, &s);
    assert_int_equal(s.n_kernels, 1);
    assert_int_equal(s.skipped, 1);
    nsys_summary_fini(&s);
    free(text);
    assert_string_equal(nsys_memop_kind("[CUDA memcpy Peer-to-Peer]"), "PtoP");
    assert_string_equal(nsys_memop_kind("[CUDA memcpy Unified Host-to-Device]"), "HtoD");
    assert_string_equal(nsys_memop_kind("[something new]"), "other");
}

/* ---- running under the tools ---- */

static char *write_script(Fixture *f, const char *name, const char *text) {
    char *p = xasprintf("%s/%s", f->dir, name);
    assert_null(fs_write_file_atomic(p, text, strlen(text)));
    assert_int_equal(chmod(p, 0755), 0);
    return p;
}

/* A stand-in for ncu: finds --log-file's value, writes the real capture
 * there (its path in $NCU_FIXTURE), and runs the program after the options. */
static const char *FAKE_NCU =
    "#!/bin/sh\n"
    "log=\n"
    "while [ $# -gt 0 ]; do\n"
    "  case \"$1\" in\n"
    "    --csv) shift ;;\n"
    "    --log-file) log=$2; shift 2 ;;\n"
    "    --*) echo \"$1 $2\" >> \"$log.args\"; shift 2 ;;\n"
    "    *) break ;;\n"
    "  esac\n"
    "done\n"
    "cat \"$NCU_FIXTURE\" > \"$log\"\n"
    "exec \"$@\"\n";

static void ncu_run__runs_the_program_under_ncu_and_parses_its_csv__with_a_fake_ncu(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "hello", "#include <stdio.h>\nint main(int c, char **v) { printf(\"hi %s\\n\", v[1]); return 0; }\n");
    char *ncu = write_script(f, "ncu", FAKE_NCU);
    char *cap = path_absolute("tests/kernels/profile/ncu.csv");
    setenv("NCU_FIXTURE", cap, 1);
    f->ropts.keep_env = true;
    const char *args[] = {"there"};
    f->ropts.args = args;
    f->ropts.n_args = 1;
    ProfileArgv a;
    const char *bad;
    assert_true(ncu_tool_argv(ncu, NULL, 0, 0, &a, &bad));
    NcuReport rep;
    assert_null(ncu_run_program(&a, exe, &f->ropts, &f->res, &rep));
    assert_int_equal(f->res.exit_code, 0);
    assert_string_equal(f->res.out, "hi there\n");      /* the program's output stays its own */
    assert_int_equal(rep.n_kernels, 2);
    assert_true(ncu_kernel_value(&rep.kernels[1], "sm__warps_active.avg.pct_of_peak_sustained_active") == 58.10);
    ncu_report_fini(&rep);
    profile_argv_fini(&a);
    unsetenv("NCU_FIXTURE");
    free(cap);
    free(ncu);
    free(exe);
}

/* A stand-in for nsys: `profile ... --output=P PROG` writes P.nsys-rep and
 * runs the program; `stats ... REP` prints the recorded stats (when the
 * report exists). */
static const char *FAKE_NSYS =
    "#!/bin/sh\n"
    "cmd=$1; shift\n"
    "if [ \"$cmd\" = profile ]; then\n"
    "  out=\n"
    "  while [ $# -gt 0 ]; do\n"
    "    case \"$1\" in\n"
    "      --output=*) out=${1#--output=}; shift ;;\n"
    "      --*) shift ;;\n"
    "      *) break ;;\n"
    "    esac\n"
    "  done\n"
    "  echo 'Collecting data...'\n"
    "  \"$@\"; rc=$?\n"
    "  [ -n \"$NSYS_NO_REPORT\" ] || printf 'binary' > \"$out.nsys-rep\"\n"
    "  exit $rc\n"
    "fi\n"
    "for a; do rep=$a; done\n"
    "[ -f \"$rep\" ] || { echo \"no such report $rep\" >&2; exit 1; }\n"
    "cat \"$NSYS_FIXTURE\"\n";

static void nsys_run__profiles_then_summarises__with_a_fake_nsys(void **state) {
    Fixture *f = *state;
    char *exe = cc_build(f, "seven", "#include <stdio.h>\nint main(void) { puts(\"ran\"); return 7; }\n");
    char *nsys = write_script(f, "nsys", FAKE_NSYS);
    char *cap = path_absolute("tests/kernels/profile/nsys-stats.csv");
    setenv("NSYS_FIXTURE", cap, 1);
    f->ropts.keep_env = true;
    NsysSummary s;
    char *text = NULL, *why = NULL;
    assert_null(nsys_run_program(nsys, exe, &f->ropts, &f->res, &s, &text, &why));
    assert_null(why);
    assert_int_equal(f->res.exit_code, 7);
    assert_non_null(strstr(f->res.out, "ran\n"));
    assert_non_null(text);
    assert_non_null(strstr(text, "cuda_gpu_kern_sum"));
    assert_int_equal(s.n_kernels, 3);
    assert_string_equal(s.kernels[1].function, "smooth");
    nsys_summary_fini(&s);
    free(text);
    program_result_fini(&f->res);
    /* no report written: a reason, no summary */
    setenv("NSYS_NO_REPORT", "1", 1);
    assert_null(nsys_run_program(nsys, exe, &f->ropts, &f->res, &s, &text, &why));
    assert_non_null(why);
    assert_non_null(strstr(why, "no report"));
    assert_null(text);
    assert_int_equal(s.n_kernels, 0);
    free(why);
    unsetenv("NSYS_NO_REPORT");
    unsetenv("NSYS_FIXTURE");
    Diag *d = nsys_run_program("nsys", exe, &f->ropts, &f->res, &s, &text, &why);
    assert_non_null(d);      /* not an absolute path */
    diag_free(&d);
    free(cap);
    free(nsys);
    free(exe);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(number__reads_thousands_separators_and_refuses_what_is_not_a_number),
        cmocka_unit_test(csv_split__reads_quoted_and_bare_fields__and_refuses_an_unclosed_quote),
        cmocka_unit_test(function_name__drops_parameters_and_return_type__and_keeps_template_arguments),
        cmocka_unit_test(ncu__gives_one_record_per_launch_with_its_metrics__on_the_real_h200_capture),
        cmocka_unit_test(ncu__keeps_section_metrics_in_base_units_and_the_rules__on_the_speed_of_light_capture),
        cmocka_unit_test(ncu__brings_scaled_units_to_base_units__when_printed_with_auto_units),
        cmocka_unit_test(ncu__keeps_the_tools_errors_and_no_launches__when_counters_are_not_permitted),
        cmocka_unit_test(ncu__skips_cut_off_and_garbled_records_and_keeps_the_rest__when_the_csv_is_damaged),
        cmocka_unit_test(ncu__caps_what_it_keeps__when_a_report_is_huge),
        cmocka_unit_test(ncu_argv__asks_for_csv_in_base_units_into_the_output_file__and_refuses_a_bad_metric_name),
        cmocka_unit_test(ncu_argv__leaves_the_clocks_alone__only_under_the_GPU_lock),
        cmocka_unit_test(nsys__sums_kernels_and_copies_per_kind__in_todays_stats_layout),
        cmocka_unit_test(nsys__reads_the_2021_layout__with_bare_fields_and_short_copy_names),
        cmocka_unit_test(nsys__has_no_kernel_table__when_the_report_holds_no_kernels_or_is_not_stats),
        cmocka_unit_test_setup_teardown(ncu_run__runs_the_program_under_ncu_and_parses_its_csv__with_a_fake_ncu, setup, teardown),
        cmocka_unit_test_setup_teardown(nsys_run__profiles_then_summarises__with_a_fake_nsys, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
