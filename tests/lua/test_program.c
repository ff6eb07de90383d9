/* tests/lua/test_program.c: program exercises (kind = "program") end to
 * end: the learner's whole .cu built by the real nvcc, run as a child
 * through t:program on the fake backend (so the emulator runtime), and the
 * verdict, checks, messages and metrics a learner or an author reads.
 *
 * The host-only program needs no runtime of ours: until the emulator
 * runtime library is built ($(BUILD)/emurt/libcudart.so.13, or
 * CUDOJO_EMURT_DIR) those tests run on a stand-in (the toolkit's own
 * libcudart.so.<major>), and the
 * tests with a real kernel skip, saying why. Everything skips without
 * nvcc. nvcc's builds are cached for the whole file (one cache folder), so
 * each distinct source is built once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/lua/program_fixture.h"

/* Host code only. The line numbers matter: CRASH_LINE is `return *p;`. */
static const char *const prog_cu =
    "// prog.cu: what the tests ask of a program, by argv[1]\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "\n"
    "static int deref(volatile int *p) {\n"
    "    return *p;\n"
    "}\n"
    "\n"
    "/* One progwire record, written with ' for \" (kernels/progwire.h). */\n"
    "static void rec(FILE *w, const char *s) {\n"
    "    for (; *s; s++) fputc(*s == '\\'' ? '\"' : *s, w);\n"
    "    fputc('\\n', w);\n"
    "}\n"
    "\n"
    "#ifndef SCALE\n"
    "#define SCALE 1\n"
    "#endif\n"
    "\n"
    "int main(int argc, char **argv) {\n"
    "    const char *mode = argc > 1 ? argv[1] : \"\";\n"
    "    if (!strcmp(mode, \"crash\")) return deref(NULL);\n"
    "    if (!strcmp(mode, \"fail\")) {\n"
    "        printf(\"starting\\n\");\n"
    "        fprintf(stderr, \"warming up\\ncannot open the input\\n\");\n"
    "        return 3;\n"
    "    }\n"
    "    if (!strcmp(mode, \"hang\")) for (;;) {}\n"
    "    if (!strncmp(mode, \"report\", 6)) {  /* what a runtime library would report */\n"
    "        const char *fd = getenv(\"CUDOJO_REPORT_FD\");\n"
    "        FILE *w = fd ? fdopen(atoi(fd), \"w\") : NULL;\n"
    "        if (!w) return 9;\n"
    "        rec(w, \"{'type':'call','fn':'cudaMalloc','args':'&d_x, 1024','stream':0,'rc':0,\"\n"
    "               \"'error':'cudaSuccess','t_us':1}\");\n"
    "        rec(w, \"{'type':'call','fn':'cudaMemcpyAsync','args':'d_x, h_x, 1024, cudaMemcpyHostToDevice, \"\n"
    "               \"stream 1','stream':1,'rc':0,'error':'cudaSuccess','t_us':2}\");\n"
    "        rec(w, \"{'type':'call','fn':'cudaMemcpyAsync','args':'h_y, d_y, 1024, cudaMemcpyDeviceToHost, \"\n"
    "               \"stream 2','stream':2,'rc':0,'error':'cudaSuccess','t_us':3}\");\n"
    "        rec(w, \"{'type':'call','fn':'cudaFree','args':'d_x','stream':0,'rc':0,'error':'cudaSuccess','t_us':4}\");\n"
    "        for (int i = 0; i < 2; i++)\n"
    "            rec(w, i ? \"{'type':'kernel','name':'scale','mangled':'_Z5scalePfi','grid':[4,1,1],'block':[256,1,1],\"\n"
    "                       \"'shared':0,'stream':2,'registers':16,'local_bytes':0,'shared_static':0,'ms':1.5,\"\n"
    "                       \"'modeled':true,'metrics':{'totals':{'global_requests':8,'global_sectors':32}}}\"\n"
    "                     : \"{'type':'kernel','name':'scale','mangled':'_Z5scalePfi','grid':[4,1,1],'block':[256,1,1],\"\n"
    "                       \"'shared':0,'stream':2,'registers':16,'local_bytes':0,'shared_static':0,'ms':0.5,\"\n"
    "                       \"'modeled':true,'metrics':{'totals':{'global_requests':4,'global_sectors':4}}}\");\n"
    "        rec(w, strcmp(mode, \"report-error\")\n"
    "                   ? \"{'type':'finding','diag':[{'severity':'warning','code':'uncoalesced','file':'prog.cu',\"\n"
    "                     \"'line':7,'col':0,'message':'a warning finding'}]}\"\n"
    "                   : \"{'type':'finding','diag':[{'severity':'error','code':'oob-global','file':'prog.cu',\"\n"
    "                     \"'line':7,'col':0,'message':'an error finding'}]}\");\n"
    "        rec(w, \"{'type':'timeline','timeline':{'modeled':true,'source':'emu-model','device':'test',\"\n"
    "               \"'streams':[{'id':0,'name':'default (legacy)','priority':0},{'id':1,'name':'s1','priority':0},\"\n"
    "               \"{'id':2,'name':'s2','priority':0}],'events':[\"\n"
    "               \"{'kind':'h2d','stream':1,'name':'copy x','start_us':0,'dur_us':10,'bytes':1024,'pinned':true},\"\n"
    "               \"{'kind':'kernel','stream':2,'name':'scale','start_us':5,'dur_us':10,'grid':[4,1,1],\"\n"
    "               \"'block':[256,1,1]},\"\n"
    "               \"{'kind':'d2h','stream':2,'name':'copy y','start_us':15,'dur_us':10,'bytes':1024,\"\n"
    "               \"'pinned':true}]}}\");\n"
    "        fclose(w);\n"
    "        return 0;\n"
    "    }\n"
    "    if (!strcmp(mode, \"echo\")) {\n"
    "        char buf[64];\n"
    "        if (fgets(buf, sizeof buf, stdin)) printf(\"read: %s\", buf);\n"
    "        return 0;\n"
    "    }\n"
    "    int n = argc > 2 ? atoi(argv[2]) : 0;\n"
    "    float *x = (float *)calloc(n ? n : 1, sizeof *x);\n"
    "    FILE *f = fopen(\"x.bin\", \"rb\");\n"
    "    if (!f || fread(x, sizeof *x, n, f) != (size_t)n) {\n"
    "        fprintf(stderr, \"cannot read x.bin\\n\");\n"
    "        return 1;\n"
    "    }\n"
    "    fclose(f);\n"
    "    double sum = 0;\n"
    "    for (int i = 0; i < n; i++) sum += x[i] *= SCALE;\n"
    "    f = fopen(\"y.bin\", \"wb\");\n"
    "    fwrite(x, sizeof *x, n, f);\n"
    "    fclose(f);\n"
    "    printf(\"N = %d\\nsum = %.1f\\n\", n, sum);\n"
    "    free(x);\n"
    "    return 0;\n"
    "}\n";
#define CRASH_LINE 7

/* The program exercise around prog.cu; RUN is the body of run(t). */
#define PROG_LUA(RUN)                                                      \
    "return {\n"                                                           \
    "  id = 'prog',\n"                                                     \
    "  kind = 'program',\n"                                                \
    "  source = 'prog.cu',\n"                                              \
    "  hints = { 'a', 'b' },\n"                                            \
    "  timeout = 60,\n"                                                    \
    "  run = function(t)\n" RUN "  end,\n"                                 \
    "}\n"

static const char *const doubling_lua = PROG_LUA(
    "    local x = gpu.array('f32', 4):iota(1, 1)\n"
    "    local r = t:program{ args = { 'double', #x }, defines = { SCALE = 2 },\n"
    "                         files = { ['x.bin'] = x }, outputs = { ['y.bin'] = 'f32' } }\n"
    "    t:expect_exit(r)\n"
    "    t:expect_output(r, 'sum = 20%.0')\n"
    "    t:expect_equal(r.files['y.bin'], { 2, 4, 6, 8 })\n"
    "    t:expect(r.files['y.bin'].name == 'y.bin' and #r.calls == 0 and r:count('cudaMalloc') == 0,\n"
    "             'the output array is named after its file; a host-only program makes no CUDA call')\n");

/* The worked example of lua/API.md ("Program exercises"), verbatim. */
static const char *const saxpy_cu =
    "// saxpy.cu: out = a*x + y for N floats read from x.bin and y.bin, written to out.bin.\n"
    "#include <cstdio>\n"
    "#include <cstdlib>\n"
    "#include <vector>\n"
    "\n"
    "#define CHECK(call)                                                                   \\\n"
    "    do {                                                                              \\\n"
    "        cudaError_t err_ = (call);                                                    \\\n"
    "        if (err_ != cudaSuccess) {                                                    \\\n"
    "            fprintf(stderr, \"%s:%d: %s\\n\", __FILE__, __LINE__, cudaGetErrorString(err_)); \\\n"
    "            exit(1);                                                                  \\\n"
    "        }                                                                             \\\n"
    "    } while (0)\n"
    "\n"
    "__global__ void saxpy(int n, float a, const float *x, const float *y, float *out) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) out[i] = a * x[i] + y[i];\n"
    "}\n"
    "\n"
    "static std::vector<float> read_floats(const char *path, int n) {\n"
    "    std::vector<float> v(n);\n"
    "    FILE *f = fopen(path, \"rb\");\n"
    "    if (!f || fread(v.data(), sizeof(float), n, f) != (size_t)n) {\n"
    "        fprintf(stderr, \"cannot read %d floats from %s\\n\", n, path);\n"
    "        exit(1);\n"
    "    }\n"
    "    fclose(f);\n"
    "    return v;\n"
    "}\n"
    "\n"
    "int main(int argc, char **argv) {\n"
    "    if (argc < 3) {\n"
    "        fprintf(stderr, \"usage: %s N A\\n\", argv[0]);\n"
    "        return 2;\n"
    "    }\n"
    "    int n = atoi(argv[1]);\n"
    "    float a = (float)atof(argv[2]);\n"
    "    std::vector<float> x = read_floats(\"x.bin\", n), y = read_floats(\"y.bin\", n), out(n);\n"
    "    size_t bytes = n * sizeof(float);\n"
    "    float *d_x, *d_y, *d_out;\n"
    "    CHECK(cudaMalloc(&d_x, bytes));\n"
    "    CHECK(cudaMalloc(&d_y, bytes));\n"
    "    CHECK(cudaMalloc(&d_out, bytes));\n"
    "    CHECK(cudaMemcpy(d_x, x.data(), bytes, cudaMemcpyHostToDevice));\n"
    "    CHECK(cudaMemcpy(d_y, y.data(), bytes, cudaMemcpyHostToDevice));\n"
    "    saxpy<<<(n + 255) / 256, 256>>>(n, a, d_x, d_y, d_out);\n"
    "    CHECK(cudaGetLastError());\n"
    "    CHECK(cudaMemcpy(out.data(), d_out, bytes, cudaMemcpyDeviceToHost));\n"
    "    FILE *f = fopen(\"out.bin\", \"wb\");\n"
    "    fwrite(out.data(), sizeof(float), n, f);\n"
    "    fclose(f);\n"
    "    printf(\"saxpy: %d elements\\n\", n);\n"
    "    CHECK(cudaFree(d_x));\n"
    "    CHECK(cudaFree(d_y));\n"
    "    CHECK(cudaFree(d_out));\n"
    "    return 0;\n"
    "}\n";
#define SAXPY_GUARD_LINE 17

static const char *const saxpy_lua =
    "return {\n"
    "  id = 'saxpy-program',\n"
    "  kind = 'program',\n"
    "  title = 'SAXPY, the whole program',\n"
    "  source = 'saxpy.cu',\n"
    "  hints = { 'Copy x and y to the device before the launch, the result back after it.',\n"
    "            'Wrap every call in CHECK(...) and call cudaGetLastError() after the launch.' },\n"
    "  timeout = 30,\n"
    "  run = function(t)\n"
    "    local n = t:param('n', 1000)\n"
    "    local x = gpu.array('f32', n):random{ seed = 1 }\n"
    "    local y = gpu.array('f32', n):random{ seed = 2 }\n"
    "    local r = t:program{\n"
    "      args = { n, 2.5 },\n"
    "      files = { ['x.bin'] = x, ['y.bin'] = y },\n"
    "      outputs = { ['out.bin'] = 'f32' },\n"
    "    }\n"
    "    t:expect_exit(r)\n"
    "    t:expect_output(r, 'saxpy: %d+ elements')\n"
    "    t:expect_close(r.files['out.bin'], ref.axpy(2.5, x, y), { rel = 1e-6 })\n"
    "    t:expect(r:count('cudaFree') == 3, 'frees its three device buffers')\n"
    "    t:expect(r.kernels[1] and r.kernels[1].name == 'saxpy', 'launches saxpy')\n"
    "  end,\n"
    "}\n";

#define NEED_EMURT()                                                                                         \
    do {                                                                                                     \
        NEED_NVCC();                                                                                         \
        if (g_standin || !program_emurt_dir()) {                                                             \
            print_message("skip: the emulator runtime is not built ($(BUILD)/emurt/libcudart.so.13; "        \
                          "CUDOJO_EMURT_DIR names another folder)\n");                                      \
            skip();                                                                                          \
        }                                                                                                    \
    } while (0)

/* Runs exercise `prog` on the learner's prog.cu, `cu` (NULL: prog_cu). */
static RunResult *run_prog(Fixture *f, const char *lua, const char *cu) {
    return fixture_run_exercise(f, "prog", lua, "prog.cu", cu ? cu : prog_cu, NULL);
}

static const CheckResult *check_named(const RunResult *r, const char *name) {
    for (int i = 0; i < r->n_checks; i++)
        if (!strcmp(r->checks[i].name, name)) return &r->checks[i];
    fail_msg("no check named %s", name);
    return NULL;
}

static void program__passes__when_it_exits_0_prints_and_writes_its_output(void **state) {
    NEED_NVCC();
    Fixture *f = *state;
    RunResult *r = run_prog(f, doubling_lua, NULL);
    if (r->verdict != VERDICT_PASS) show(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_string_equal(r->summary, "4 checks passed");
    assert_string_equal(check_named(r, "exit")->message, "exited with status 0");
    /* Its stdout is the run's device output, as a kernel's printf is. */
    assert_non_null(r->device_output);
    assert_non_null(strstr(r->device_output, "N = 4\nsum = 20.0\n"));
    json_t *prog = json_object_get(r->metrics, "program");
    assert_int_equal(json_integer_value(json_object_get(prog, "exit_code")), 0);
    assert_string_equal(json_string_value(json_object_get(json_object_get(r->metrics, "compile"), "compiler")),
                        "nvcc");
}

static void program__defines_and_args_reach_the_program__with_a_build_per_defines(void **state) {
    NEED_NVCC();
    Fixture *f = *state;
    RunResult *r = run_prog(f, PROG_LUA(
        "    local x = gpu.array('f32', 3):fill(1)\n"
        "    local function run(scale)\n"
        "      return t:program{ args = { 'double', 3 }, defines = { SCALE = scale },\n"
        "                        files = { ['x.bin'] = x }, outputs = { ['y.bin'] = 'f32' } }\n"
        "    end\n"
        "    t:expect_equal(run(3).files['y.bin'], 3, { name = 'times 3' })\n"
        "    t:expect_equal(run(5).files['y.bin'], 5, { name = 'times 5' })\n"
        "    t:expect_equal(run(3).files['y.bin'], 3, { name = 'times 3 again' })\n"), NULL);
    if (r->verdict != VERDICT_PASS) show(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r->metrics, "program"), "runs")), 3);
}

static void program__expect_exit_fails_with_status_and_stderr_tail__when_it_exits_nonzero(void **state) {
    NEED_NVCC();
    Fixture *f = *state;
    RunResult *r = run_prog(f, PROG_LUA(
        "    local r = t:program{ args = { 'fail' } }\n"
        "    t:expect(r.exit_code == 3 and r.stdout == 'starting\\n', 'the status and stdout are in r')\n"
        "    t:expect_exit(r, 'the program must succeed')\n"
        "    t:expect_exit(r, 3)\n"), NULL);
    assert_int_equal(r->verdict, VERDICT_FAIL);
    assert_int_equal(r->n_checks, 3);
    assert_true(r->checks[0].passed);
    assert_false(r->checks[1].passed);
    assert_string_equal(r->checks[1].message,
                        "the program must succeed: the program exited with status 3, expected status 0; its stderr "
                        "ends: warming up | cannot open the input");
    assert_true(r->checks[2].passed);
    /* stderr is shown with the output. */
    assert_non_null(strstr(r->device_output, "starting\n--- stderr ---\nwarming up\ncannot open the input\n"));
}

static void program__expect_output_fails_showing_the_pattern_and_first_lines__when_absent(void **state) {
    NEED_NVCC();
    Fixture *f = *state;
    RunResult *r = run_prog(f, PROG_LUA(
        "    local x = gpu.array('f32', 2):fill(1)\n"
        "    local r = t:program{ args = { 'double', 2 }, defines = { SCALE = 2 }, files = { ['x.bin'] = x } }\n"
        "    t:expect_output(r, '^N = 2\\n')\n"
        "    t:expect_output(r, 'total = %d+')\n"), NULL);
    assert_int_equal(r->verdict, VERDICT_FAIL);
    assert_true(r->checks[0].passed);
    assert_string_equal(r->checks[1].message,
                        "expected the output to match 'total = %d+' (a Lua pattern); it begins: N = 2 | sum = 4.0");
    assert_string_equal(r->summary, "output: expected the output to match 'total = %d+' (a Lua pattern); it begins: "
                                    "N = 2 | sum = 4.0");
}

static void program__reads_its_stdin(void **state) {
    NEED_NVCC();
    Fixture *f = *state;
    RunResult *r = run_prog(f, PROG_LUA(
        "    local r = t:program{ args = { 'echo' }, stdin = 'hello there\\n' }\n"
        "    t:expect_output(r, '^read: hello there\\n$')\n"), NULL);
    if (r->verdict != VERDICT_PASS) show(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
}

static void program__reported_calls_kernels_and_timeline__reach_r_and_the_run(void **state) {
    NEED_NVCC();
    Fixture *f = *state;
    RunResult *r = run_prog(f, PROG_LUA(
        "    local r = t:program{ args = { 'report' } }\n"
        "    t:expect_exit(r)\n"
        "    t:expect(#r.calls == 4 and r:count('cudaMemcpyAsync') == 2 and r:count('cudaMemcpy') == 0,\n"
        "             'r.calls, r:count (exact names)')\n"
        "    local c = r:calls_of('cudaMemcpyAsync')\n"
        "    t:expect(#c == 2 and c[2].stream == 2 and c[2].error == 'cudaSuccess', 'r:calls_of')\n"
        "    local k = r.kernels[2]\n"
        "    t:expect(#r.kernels == 2 and k.name == 'scale' and k.grid[1] == 4 and k.block[1] == 256\n"
        "             and k.ms == 1.5 and k.modeled and k.registers == 16 and k.metrics == nil, 'r.kernels')\n"
        "    local tl = t:timeline()\n"
        "    t:expect(tl.source == 'emu-model' and r:timeline():find{ kind = 'd2h' } ~= nil, 'timelines')\n"
        "    t:expect_overlap(tl:find{ kind = 'h2d' }, tl:find{ kind = 'kernel', name = 'scale', stream = 2 })\n"
        "    t:expect_no_default_stream_work()\n"
        "    t:expect(t:emu_metrics().global_requests == 8, 't:emu_metrics() is the last launch')\n"), NULL);
    if (r->verdict != VERDICT_PASS) show(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_string_equal(r->summary, "8 checks passed");
    /* A warning finding is kept and does not fail the run. */
    assert_non_null(r->diags);
    assert_int_equal(r->diags->severity, DIAG_WARNING);
    assert_string_equal(r->diags->message, "a warning finding");
    json_t *k = json_object_get(json_object_get(r->metrics, "kernels"), "scale");
    assert_int_equal(json_integer_value(json_object_get(k, "launches")), 2);
    assert_int_equal(json_integer_value(json_object_get(k, "block")), 256);
    assert_int_equal(json_integer_value(json_object_get(k, "registers")), 16);
    assert_true(json_number_value(json_object_get(k, "modeled_ms")) == 1.0);   /* the median */
    assert_null(json_object_get(k, "time_ms"));
    assert_int_equal(json_integer_value(json_object_get(r->metrics, "launches")), 2);
    json_t *tl = json_object_get(r->metrics, "timeline");
    assert_string_equal(json_string_value(json_object_get(tl, "source")), "emu-model");
    assert_int_equal(json_array_size(json_object_get(tl, "events")), 3);
    json_t *prog = json_object_get(r->metrics, "program");
    assert_int_equal(json_integer_value(json_object_get(prog, "calls")), 4);
    assert_true(json_is_true(json_object_get(prog, "touched_gpu")));
}

static void program__error_finding_fails_the_run__even_when_every_check_passes(void **state) {
    NEED_NVCC();
    Fixture *f = *state;
    RunResult *r = run_prog(f, PROG_LUA(
        "    local r = t:program{ args = { 'report-error' } }\n"
        "    t:expect_exit(r)\n"), NULL);
    assert_int_equal(r->verdict, VERDICT_FAIL);
    assert_string_equal(r->summary, "prog.cu:7: an error finding");
    assert_true(r->checks[0].passed);
}

static void program__compile_error__maps_to_the_cu_line(void **state) {
    NEED_NVCC();
    Fixture *f = *state;
    RunResult *r = run_prog(f, doubling_lua,
                            "#include <stdio.h>\n"
                            "\n"
                            "int main(void) {\n"
                            "    int n = 4\n"
                            "    printf(\"%d\\n\", n);\n"
                            "    return 0;\n"
                            "}\n");
    if (r->verdict != VERDICT_COMPILE_ERROR) show(r);
    assert_int_equal(r->verdict, VERDICT_COMPILE_ERROR);
    assert_non_null(r->diags);
    assert_string_equal(r->diags->file, "prog.cu");
    assert_true(r->diags->line == 4 || r->diags->line == 5);
    assert_non_null(strstr(r->summary, "prog.cu did not compile"));
    assert_int_equal(r->n_checks, 0);
}

static void program__crash_fails_the_run_with_the_signal_and_host_line(void **state) {
    NEED_NVCC();
    Fixture *f = *state;
    RunResult *r = run_prog(f, PROG_LUA(
        "    local r = t:program{ args = { 'crash' } }\n"
        "    t:expect_exit(r)\n"), NULL);
    assert_int_equal(r->verdict, VERDICT_FAIL);
    assert_non_null(strstr(r->summary, "the program was killed by SIGSEGV"));
    assert_int_equal(r->n_checks, 0);   /* nothing after a crash runs */
    assert_string_equal(json_string_value(json_object_get(json_object_get(r->metrics, "program"), "signal")),
                        "SIGSEGV");
    if (g_standin) {
        print_message("note: the host line of a crash needs the emulator runtime; not checked\n");
        return;
    }
    char *where = xasprintf("prog.cu:%d", CRASH_LINE);
    bool found = strstr(r->summary, where) != NULL;
    for (const Diag *d = r->diags; d && !found; d = d->next) found = d->file && !strcmp(d->file, "prog.cu") &&
                                                                    d->line == CRASH_LINE;
    if (!found) show(r);
    assert_true(found);
    free(where);
}

static void program__hang_ends_with_the_timeout_verdict(void **state) {
    NEED_NVCC();
    Fixture *f = *state;
    RunResult *r = run_prog(f, PROG_LUA(
        "    local r = t:program{ args = { 'hang' }, timeout = 1 }\n"
        "    t:expect_exit(r)\n"), NULL);
    assert_int_equal(r->verdict, VERDICT_TIMEOUT);
    assert_non_null(strstr(r->summary, "did not finish within"));
    assert_true(json_is_true(json_object_get(json_object_get(r->metrics, "program"), "timed_out")));
    /* what a worker's timeout message would name while it ran */
    assert_non_null(strstr(g_activity, "compile: compiling prog.cu with nvcc\n"));
    assert_non_null(strstr(g_activity, "program: running the program built from prog.cu\n"));
}

static void program__reading_an_output_it_did_not_write_fails_the_run_naming_the_file(void **state) {
    NEED_NVCC();
    Fixture *f = *state;
    RunResult *r = run_prog(f, PROG_LUA(
        "    local r = t:program{ args = { 'fail' }, outputs = { ['y.bin'] = 'f32' } }\n"
        "    t:expect(r.missing[1] == 'y.bin' and rawget(r.files, 'y.bin') == nil, 'r.missing lists it')\n"
        "    t:expect_equal(r.files['y.bin'], 0)\n"), NULL);
    assert_int_equal(r->verdict, VERDICT_FAIL);
    assert_string_equal(r->summary, "the program did not write y.bin (it exited with status 3)");
    assert_int_equal(r->n_checks, 1);
    assert_true(r->checks[0].passed);
}

static void program__output_of_a_partial_element_fails_the_run(void **state) {
    NEED_NVCC();
    Fixture *f = *state;
    /* 3 floats written, read back as f64: 12 bytes are not whole doubles. */
    RunResult *r = run_prog(f, PROG_LUA(
        "    local x = gpu.array('f32', 3):fill(1)\n"
        "    local r = t:program{ args = { 'double', 3 }, defines = { SCALE = 1 },\n"
        "                         files = { ['x.bin'] = x }, outputs = { ['y.bin'] = 'f64' } }\n"
        "    t:expect_equal(r.files['y.bin'], 1)\n"), NULL);
    assert_int_equal(r->verdict, VERDICT_FAIL);
    assert_string_equal(r->summary, "y.bin has 12 bytes, not a whole number of f64 values (8 bytes each)");
}

static void program__misuse_is_an_exercise_error_at_the_authors_line(void **state) {
    NEED_NVCC();
    Fixture *f = *state;
    static const struct {
        const char *run;
        const char *says;
    } cases[] = {
        {"    t:program{ arg = { 'x' } }\n", "t:program has no option 'arg' (did you mean 'args'?)"},
        {"    t:program{ outputs = { ['y.bin'] = 'float' } }\n", "outputs[\"y.bin\"] must name a type"},
        {"    t:program{ files = { ['../x.bin'] = 'x' } }\n", "'../x.bin' is not a plain file name"},
        {"    t:program{ files = { ['x.bin'] = 5 } }\n", "must be a gpu.array (its raw bytes) or a string, not number"},
        {"    t:kernel('k')\n", "prog is a program exercise (kind = \"program\")"},
        {"    local r = t:program{ args = { 'echo' } }\n    local c = r.exit_cod\n",
         "program results have no field 'exit_cod' (did you mean 'exit_code'?)"},
        {"    local r = t:program{ args = { 'echo' } }\n    local c = r.files['z.bin']\n",
         "z.bin is not among t:program's outputs"},
        {"    t:expect_exit({ exit_code = 0 })\n", "the first argument is what t:program returned, not table"},
        {"    t:program{ profile = 'nvprof' }\n", "profile must be \"ncu\" (Nsight Compute"},
        {"    t:program{ profile = 'nsys', metrics = { 'a' } }\n", "metrics = {...} are Nsight Compute's"},
        {"    t:program{ profile = 'ncu', metrics = { 'a,b --x' } }\n", "'a,b --x' is not a metric name"},
        {"    t:program{ profile = 'ncu', metrics = { 5 } }\n", "metrics[1] must be a metric name"},
        {"    t:program{ after = function() end }\n", "goes with profile = \"ncu\" or \"nsys\", or with sanitizer"},
        {"    t:program{ profile = 'ncu', sanitizer = 'memcheck', after = function() end }\n",
         "goes with one of profile and sanitizer"},
        {"    t:program{ sanitizer = 'memcheck', after = 1 }\n", "called with the sanitizer's report after the verdict"},
        {"    t:program{ emulator = 1 }\n", "emulator must be true or false"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *lua = xasprintf(PROG_LUA("%s"), cases[i].run);
        RunResult *r = run_prog(f, lua, NULL);
        free(lua);
        if (r->verdict != VERDICT_EXERCISE_ERROR || !strstr(r->summary, cases[i].says)) {
            show(r);
            fail_msg("case %zu: want an exercise error saying: %s", i, cases[i].says);
        }
        assert_non_null(strstr(r->summary, "lessons/01-p/prog.lua:"));
    }
}

static void program__t_program_in_a_kernel_exercise_is_an_exercise_error(void **state) {
    NEED_NVCC();
    Fixture *f = *state;
    RunResult *r = run_prog(f,
                            "return { id = 'prog', source = 'prog.cu', hints = { 'a', 'b' },\n"
                            "  run = function(t) t:program{} end }\n",
                            NULL);
    assert_int_equal(r->verdict, VERDICT_EXERCISE_ERROR);
    assert_non_null(strstr(r->summary, "prog is a kernel exercise; a whole program needs kind = \"program\""));
}

static void course__kind_other_than_kernel_or_program__is_an_error_at_its_line(void **state) {
    Fixture *f = *state;
    Diag *d = fixture_load_course(f,
                                  "return {\n  id = 'prog',\n  source = 'prog.cu',\n  hints = { 'a', 'b' },\n"
                                  "  kind = 'script',\n  run = function(t) end,\n}\n",
                                  "prog.cu", prog_cu);
    assert_int_equal(diag_count_errors(d), 1);
    const Diag *e = d;
    while (e->severity != DIAG_ERROR) e = e->next;
    assert_string_equal(e->file, "lessons/01-p/prog.lua");
    assert_int_equal(e->line, 5);
    assert_string_equal(e->message, "kind must be \"kernel\" (the default) or \"program\" (a whole program with "
                                    "main()), not \"script\"");
    assert_null(course_find_exercise(f->course, "prog", NULL));
    diag_free(&d);
    /* The two kinds load, and say which they are. */
    d = fixture_load_course(f, PROG_LUA(""), "prog.cu", prog_cu);
    assert_int_equal(diag_count_errors(d), 0);
    diag_free(&d);
    assert_true(course_find_exercise(f->course, "prog", NULL)->program);
    d = fixture_load_course(f,
                            "return { id = 'prog', kind = 'kernel', source = 'prog.cu', hints = { 'a', 'b' },\n"
                            "  run = function(t) end }\n",
                            "prog.cu", prog_cu);
    assert_int_equal(diag_count_errors(d), 0);
    diag_free(&d);
    assert_false(course_find_exercise(f->course, "prog", NULL)->program);
}

/* ---- with a real kernel, on the emulator runtime ---- */

static void emurt__worked_example_passes_with_its_calls_kernels_and_timeline(void **state) {
    NEED_EMURT();
    Fixture *f = *state;
    RunResult *r = fixture_run_exercise(f, "saxpy-program", saxpy_lua, "saxpy.cu", saxpy_cu, NULL);
    if (r->verdict != VERDICT_PASS) show(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_string_equal(r->summary, "5 checks passed");
    json_t *k = json_object_get(json_object_get(r->metrics, "kernels"), "saxpy");
    assert_int_equal(json_integer_value(json_object_get(k, "launches")), 1);
    assert_int_equal(json_integer_value(json_object_get(k, "block")), 256);
    /* The emulator's time is a model, never shown as a measurement. */
    assert_null(json_object_get(k, "time_ms"));
    json_t *tl = json_object_get(r->metrics, "timeline");
    assert_non_null(tl);
    assert_true(json_is_true(json_object_get(tl, "modeled")));
    bool kernel = false;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(tl, "events"), i, e) {
        kernel |= !strcmp(json_string_value(json_object_get(e, "kind")), "kernel");
    }
    assert_true(kernel);
}

/* A kernel that never ends, in a program: the emulator runtime stops it with
 * did-not-finish at its line before the program's share of the time limit
 * kills the child (CUDOJO_EMU_DEADLINE), not a bare "timed out". */
static void emurt__runaway_kernel__ends_with_did_not_finish_at_its_line(void **state) {
    NEED_EMURT();
    Fixture *f = *state;
    static const char *cu =
        "#include <cstdio>\n"
        "__global__ void spin(volatile int *flag) {\n"
        "    while (*flag == 0) {}   // line 3: nobody sets flag\n"
        "}\n"
        "int main() {\n"
        "    int *flag;\n"
        "    cudaMalloc(&flag, sizeof(int));\n"
        "    cudaMemset(flag, 0, sizeof(int));\n"
        "    spin<<<1, 32>>>(flag);\n"
        "    printf(\"%d\\n\", (int)cudaDeviceSynchronize());\n"
        "    return 0;\n"
        "}\n";
    static const char *lua =
        "return { id = 'prog', kind = 'program', source = 'prog.cu', hints = {'a','b'}, timeout = 10,\n"
        "  run = function(t)\n"
        "    local r = t:program{}\n"
        "    t:expect_exit(r)\n"
        "  end,\n}\n";
    /* timeout 10: it covers the compile, which took 6.5 s of a 6 s timeout in
       a loaded CI run (session 14), leaving the kernel 0.1 s */
    RunResult *r = run_prog(f, lua, cu);
    const Diag *dnf = NULL;
    for (const Diag *d = r->diags; d; d = d->next)
        if (d->code && !strcmp(d->code, "did-not-finish")) dnf = d;
    if (!dnf) show(r);
    assert_non_null(dnf);
    assert_int_equal(dnf->line, 3);
    assert_non_null(strstr(dnf->message, "time limit"));
}

static void emurt__timeline_checks_read_the_programs_timeline(void **state) {
    NEED_EMURT();
    Fixture *f = *state;
    char *lua = xasprintf("%.*s%s", (int)(strstr(saxpy_lua, "    t:expect_exit(r)") - saxpy_lua), saxpy_lua,
                          "    local tl = t:timeline()\n"
                          "    t:expect(tl:find{ kind = 'kernel', name = 'saxpy' } ~= nil, 'saxpy on t:timeline()')\n"
                          "    t:expect(r:timeline():find{ kind = 'h2d', n = 2 } ~= nil, 'two copies in')\n"
                          "    t:expect(#r:calls_of('cudaMemcpy') == 3, 'three cudaMemcpy')\n"
                          "    t:expect_no_default_stream_work('all on the legacy stream')\n"
                          "  end,\n}\n");
    RunResult *r = fixture_run_exercise(f, "saxpy-program", lua, "saxpy.cu", saxpy_cu, NULL);
    free(lua);
    assert_int_equal(r->verdict, VERDICT_FAIL);
    assert_int_equal(r->n_checks, 4);
    for (int c = 0; c < 3; c++) {
        if (!r->checks[c].passed) show(r);
        assert_true(r->checks[c].passed);
    }
    assert_false(r->checks[3].passed);
    assert_non_null(strstr(r->checks[3].message, "ran on the legacy default stream"));
}

static void emurt__kernel_out_of_bounds_in_a_program_fails_the_run_at_its_line(void **state) {
    NEED_EMURT();
    Fixture *f = *state;
    /* Without the guard the last block writes past out (1000 is not a multiple of 256). */
    const char *guard = "    if (i < n) out[i] = a * x[i] + y[i];\n";
    const char *at = strstr(saxpy_cu, guard);
    char *cu = xasprintf("%.*s    out[i] = a * x[i] + y[i];\n%s", (int)(at - saxpy_cu), saxpy_cu, at + strlen(guard));
    RunResult *r = fixture_run_exercise(f, "saxpy-program", saxpy_lua, "saxpy.cu", cu, NULL);
    free(cu);
    if (r->verdict != VERDICT_FAIL) show(r);
    assert_int_equal(r->verdict, VERDICT_FAIL);
    const Diag *oob = NULL;
    for (const Diag *d = r->diags; d && !oob; d = d->next)
        if (d->severity == DIAG_ERROR && d->line == SAXPY_GUARD_LINE) oob = d;
    if (!oob) show(r);
    assert_non_null(oob);
    assert_string_equal(oob->file, "saxpy.cu");
}

static void emurt__devices_option_sets_the_emulated_device_count(void **state) {
    NEED_EMURT();
    Fixture *f = *state;
    RunResult *r = run_prog(f, PROG_LUA(
        "    local r = t:program{ devices = 3 }\n"
        "    t:expect_output(r, '^devices: 3\\n')\n"
        "    t:expect(r.runtime == 'emu' and r.touched_gpu, 'on the emulator runtime')\n"),
                            "#include <cstdio>\n"
                            "int main() {\n"
                            "    int n = 0;\n"
                            "    if (cudaGetDeviceCount(&n) != cudaSuccess) return 1;\n"
                            "    printf(\"devices: %d\\n\", n);\n"
                            "    return 0;\n"
                            "}\n");
    if (r->verdict != VERDICT_PASS) show(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
}

static const char *const fault_cu =
    "#include <cstdio>\n"
    "__global__ void poke(int *nowhere) { nowhere[threadIdx.x] = 1; }\n"
    "int main() {\n"
    "    poke<<<1, 32>>>(nullptr);\n"
    "    printf(\"%s\\n\", cudaGetErrorName(cudaDeviceSynchronize()));\n"
    "    return 0;\n"
    "}\n";

/* sanitizer = with after = function(san): t:program returns without
 * r.sanitizer; once the verdict is in the sanitizer's run happens and the
 * function gets its report (on the emulator: not available, saying why). */
static void emurt__sanitizer_after_the_verdict__calls_the_function_with_the_report(void **state) {
    NEED_EMURT();
    Fixture *f = *state;
    RunResult *r = run_prog(f, PROG_LUA(
        "    local r = t:program{ sanitizer = 'racecheck', emulator = true,\n"
        "                         after = function(san) t:log('after: ' .. san.tool .. ' ' .. tostring(san.available)) end }\n"
        "    t:expect(rawget(r, 'sanitizer') == nil, 'no report before the verdict')\n"),
                            "#include <cstdio>\nint main() { printf(\"hi\\n\"); return 0; }\n");
    if (r->verdict != VERDICT_PASS) show(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_int_equal(r->n_checks, 1);
    assert_non_null(r->after_log);
    assert_non_null(strstr(r->after_log, "after: racecheck false"));
    json_t *tools = json_object_get(json_object_get(r->metrics, "after"), "tools");
    assert_string_equal(json_string_value(json_array_get(tools, 0)), "compute-sanitizer");
}

static void emurt__expect_errors_makes_a_fault_a_warning__and_r_tells_findings_sanitizer_and_source(void **state) {
    NEED_EMURT();
    Fixture *f = *state;
    RunResult *r = run_prog(f, PROG_LUA(
        "    local r = t:program{ expect_errors = true, sanitizer = 'memcheck' }\n"
        "    t:expect_output(r, 'cudaErrorIllegalAddress')\n"
        "    local fd = r.findings[1]\n"
        "    t:expect(fd and fd.severity == 'warning' and fd.code:find('^oob') and fd.line == 2,\n"
        "             'the fault is a warning finding at its line')\n"
        "    t:expect(r.sanitizer.available == false and r.sanitizer.tool == 'memcheck' and\n"
        "             #r.sanitizer.errors == 0 and r.sanitizer.reason:find('emulator'), 'no compute-sanitizer on the emulator')\n"
        "    local src, name = t:source()\n"
        "    t:expect(name == 'prog.cu' and src:find('nowhere', 1, true), 't:source() is the learner file')\n"),
                            fault_cu);
    if (r->verdict != VERDICT_PASS) show(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_int_equal(r->n_checks, 4);
    /* without expect_errors the same fault is an error finding: the run fails */
    r = run_prog(f, PROG_LUA("    t:expect_exit(t:program{})\n"), fault_cu);
    assert_int_equal(r->verdict, VERDICT_FAIL);
}

static void emurt__profile_is_not_available_on_the_emulator__and_says_what_stands_in_for_it(void **state) {
    NEED_EMURT();
    Fixture *f = *state;
    RunResult *r = run_prog(f, PROG_LUA(
        "    for _, tool in ipairs{ 'ncu', 'nsys' } do\n"
        "      local r = t:program{ profile = tool, devices = 2 }\n"
        "      local p = r.profile\n"
        "      t:expect(p.tool == tool and p.available == false and #p.kernels == 0 and p.text == '' and\n"
        "               p.reason:find('emulator') and p.reason:find('timeline'), tool .. ' stands aside on the emulator')\n"
        "    end\n"
        "    local r = t:program{ profile = 'ncu', metrics = { 'gpu__time_duration.sum' } }\n"
        "    t:expect(#r.profile.errors == 0 and #r.profile.warnings == 0, 'ncu: no errors')\n"
        "    t:expect(#t:program{ profile = 'nsys' }.profile.memops == 0, 'nsys: no copies')\n"),
                            "#include <cstdio>\n"
                            "int main() { int n = 0; cudaGetDeviceCount(&n); printf(\"%d\\n\", n); return 0; }\n");
    if (r->verdict != VERDICT_PASS) show(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_int_equal(r->n_checks, 4);
}

static void course__bug_hunt_is_read__and_must_be_a_boolean(void **state) {
    Fixture *f = *state;
    const char *const values[] = {"true", "'yes'"};
    for (int i = 0; i < 2; i++) {
        char *lua = xasprintf("return { id = 'prog', kind = 'program', source = 'prog.cu', bug_hunt = %s,\n"
                              "  hints = { 'a', 'b' }, run = function(t) end }\n", values[i]);
        Diag *d = fixture_load_course(f, lua, "prog.cu", "int main() { return 0; }\n");
        free(lua);
        if (i == 0) {
            assert_int_equal(diag_count_errors(d), 0);
            const ExerciseMeta *ex = course_find_exercise(f->course, "prog", NULL);
            assert_non_null(ex);
            assert_true(ex->bug_hunt);
        } else {
            bool said = false;
            for (const Diag *e = d; e; e = e->next) said |= strstr(e->message, "bug_hunt must be true or false") != NULL;
            assert_true(said);
        }
        diag_free(&d);
    }
}

/* ---- on a GPU (make test-gpu) ---- */

/* The GPU's backend in place of f's, or a skip (a failure under CUDOJO_TEST_GPU=1). */
static void use_gpu_or_skip(Fixture *f) {
    Diag *why = NULL;
    Backend *gpu = cuda_backend_new(&why);
    if (!gpu) {
        const char *must = getenv("CUDOJO_TEST_GPU");
        if (must && *must && strcmp(must, "0")) fail_msg("no GPU: %s", why ? why->message : "?");
        print_message("skip: no GPU (%s)\n", why ? why->message : "?");
        diag_free(&why);
        skip();
    }
    backend_close(&f->b);
    f->b = gpu;
}

static void gpu__worked_example_passes_with_measured_kernel_time_and_cupti_timeline(void **state) {
    NEED_NVCC();
    Fixture *f = *state;
    use_gpu_or_skip(f);
    RunResult *r = fixture_run_exercise(f, "saxpy-program", saxpy_lua, "saxpy.cu", saxpy_cu, NULL);
    if (r->verdict != VERDICT_PASS) show(r);
    assert_int_equal(r->verdict, VERDICT_PASS);
    assert_string_equal(json_string_value(json_object_get(json_object_get(r->metrics, "program"), "runtime")),
                        "cuda");
    /* Measured by CUPTI: a time, not a model. */
    json_t *k = json_object_get(json_object_get(r->metrics, "kernels"), "saxpy");
    assert_true(json_number_value(json_object_get(k, "time_ms")) > 0);
    assert_null(json_object_get(k, "modeled_ms"));
    json_t *tl = json_object_get(r->metrics, "timeline");
    assert_non_null(tl);
    assert_false(json_is_true(json_object_get(tl, "modeled")));
    assert_string_equal(json_string_value(json_object_get(tl, "source")), "cupti");
}

/* Threads read the tile words other warps wrote, with no barrier between
 * (RACE_WRITE and RACE_READ: the two lines; racecheck names the first access). */
static const char *const race_cu =
    "#include <stdio.h>\n"
    "#include <cuda_runtime.h>\n"
    "__global__ void rev(const float *x, float *y) {\n"
    "    __shared__ float tile[256];\n"
    "    int t = threadIdx.x;\n"
    "    tile[t] = x[blockIdx.x * 256 + t];\n"
    "    y[blockIdx.x * 256 + t] = tile[255 - t];\n"
    "}\n"
    "int main(void) {\n"
    "    float *x, *y;\n"
    "    cudaMalloc(&x, 4096 * sizeof(float));\n"
    "    cudaMalloc(&y, 4096 * sizeof(float));\n"
    "    cudaMemset(x, 0, 4096 * sizeof(float));\n"
    "    rev<<<16, 256>>>(x, y);\n"
    "    printf(\"%s\\n\", cudaGetErrorString(cudaDeviceSynchronize()));\n"
    "    return 0;\n"
    "}\n";
#define RACE_WRITE 6
#define RACE_READ 7

/* The race exercise: t:program with `options`, then `then` (a statement). */
#define RACE_LUA(options, then)                                                                 \
    "return {\n"                                                                                 \
    "  id = 'race', kind = 'program', source = 'race.cu', timed = false, timeout = 60,\n"         \
    "  run = function(t)\n"                                                                      \
    "    local r = t:program{ " options " }\n"                                                   \
    "    t:expect_exit(r)\n"                                                                     \
    "    " then "\n"                                                                              \
    "  end,\n"                                                                                   \
    "}\n"
static const char *const race_lua =
    RACE_LUA("sanitizer = 'racecheck'",
             "t:log('available=' .. tostring(r.sanitizer.available) .. ' errors=' .. #r.sanitizer.errors)");
static const char *const race_after_lua =
    RACE_LUA("sanitizer = 'racecheck', emulator = true, after = function(san) t:log('racecheck after: ' .. "
             "#san.errors) end",
             "");

/* emulator = true on a GPU: the program also runs on the emulator
 * runtime, whose race fails the run; under grading whose emulator check
 * will run it there (emu_checked: --emu-check on) only the GPU's run
 * happens, and the check's own run is what fails it. Without a GPU the
 * fake backend named "cuda" runs the program on NVIDIA's runtime, where it
 * finds no device, says so and exits 0: only the run beside can fail it. */
static void emurt__emulator_beside_a_gpu_run__finds_the_race__unless_gradings_check_will(void **state) {
    NEED_EMURT();
    Fixture *f = *state;
    fake_backend_set_name(f->b, "cuda");
    const char *lua = RACE_LUA("emulator = true", "");
    const struct {
        bool grading, emu_checked, beside;
    } cases[] = {{false, false, true}, {true, false, true}, {false, true, true}, {true, true, false}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ExerciseRunOptions o = {.grading = cases[i].grading, .emu_checked = cases[i].emu_checked};
        RunResult *r = fixture_run_exercise(f, "race", lua, "race.cu", race_cu, &o);
        const Diag *race = NULL;
        for (const Diag *d = r->diags; d; d = d->next)
            if (d->code && !strncmp(d->code, "race", 4) && d->severity == DIAG_ERROR) race = d;
        Verdict want = cases[i].beside ? VERDICT_FAIL : VERDICT_PASS;
        if (r->verdict != want || !race != !cases[i].beside) {
            print_message("grading=%d emu_checked=%d\n", cases[i].grading, cases[i].emu_checked);
            show(r);
        }
        assert_int_equal(r->verdict, want);
        if (!cases[i].beside) {
            assert_null(race);
            continue;
        }
        assert_non_null(race);
        assert_true(race->line == RACE_WRITE || race->line == RACE_READ);
    }
}

/* compute-sanitizer's run beside the plain one (an untimed program, the
 * default) gives what the run after it gives (CUDOJO_SANITIZER_BESIDE=0):
 * the race at its line fails the run, r.sanitizer lists it. With
 * emulator = true and after = function(san), the emulator's run beside
 * the GPU's fails it at the same place, and racecheck's report follows
 * the verdict as a warning. */
static void gpu__racecheck_beside_or_after_the_verdict__finds_the_race_the_emulator_finds_beside(void **state) {
    NEED_NVCC();
    Fixture *f = *state;
    use_gpu_or_skip(f);
    char *tool = program_find_tool("compute-sanitizer");
    if (!tool) {
        print_message("skip: no compute-sanitizer in this toolkit\n");
        skip();
    }
    free(tool);
    int line_beside = 0;
    for (int beside = 1; beside >= 0; beside--) {
        if (beside) unsetenv("CUDOJO_SANITIZER_BESIDE");
        else setenv("CUDOJO_SANITIZER_BESIDE", "0", 1);
        RunResult *r = fixture_run_exercise(f, "race", race_lua, "race.cu", race_cu, NULL);
        unsetenv("CUDOJO_SANITIZER_BESIDE");
        if (r->verdict != VERDICT_FAIL) show(r);
        assert_int_equal(r->verdict, VERDICT_FAIL);
        const Diag *race = NULL;
        for (const Diag *d = r->diags; d; d = d->next)
            if (d->code && !strcmp(d->code, "sanitizer") && d->severity == DIAG_ERROR) race = d;
        if (!race) show(r);
        assert_non_null(race);
        assert_true(race->line == RACE_WRITE || race->line == RACE_READ);
        if (beside) line_beside = race->line;
        else assert_int_equal(race->line, line_beside);
        bool logged = r->log && strstr(r->log, "available=true") && !strstr(r->log, "errors=0");
        if (!logged) show(r);
        assert_true(logged);
    }
    /* emulator = true, racecheck after = : the emulator's race (beside the GPU's run) is the verdict;
       racecheck's report comes after it, its race a warning */
    RunResult *r = fixture_run_exercise(f, "race", race_after_lua, "race.cu", race_cu, NULL);
    const Diag *emu_race = NULL, *after = NULL;
    for (const Diag *d = r->diags; d; d = d->next) {
        if (d->code && !strncmp(d->code, "race", 4) && d->severity == DIAG_ERROR) emu_race = d;
        if (d->code && !strcmp(d->code, "sanitizer") && d->severity == DIAG_WARNING &&
            strstr(d->message, "after the verdict: compute-sanitizer racecheck"))
            after = d;
    }
    if (r->verdict != VERDICT_FAIL || !emu_race || !after || !r->after_log || !strstr(r->after_log, "racecheck after: "))
        show(r);
    assert_int_equal(r->verdict, VERDICT_FAIL);
    assert_non_null(emu_race);
    assert_true(emu_race->line == RACE_WRITE || emu_race->line == RACE_READ);
    assert_non_null(after);
    assert_non_null(strstr(r->after_log, "racecheck after: "));
    assert_null(strstr(r->after_log, "racecheck after: 0"));
}

/* A graded program under compute-sanitizer is shut in as it is without a
 * tool (cudojo-confine between the tool and the program): it cannot read
 * a file outside its cage, and memcheck still sees its out-of-bounds
 * write and fails the run. */
static const char *const caged_oob_cu =
    "#include <errno.h>\n"
    "#include <stdio.h>\n"
    "#include <string.h>\n"
    "#include <cuda_runtime.h>\n"
    "__global__ void w(float *y) { y[threadIdx.x + 256] = 1.0f; }\n"
    "int main(int argc, char **argv) {\n"
    "    FILE *s = argc > 1 ? fopen(argv[1], \"r\") : NULL;\n"
    "    printf(\"read:%s\\n\", s ? \"yes\" : strerror(errno));\n"
    "    float *y;\n"
    "    cudaMalloc(&y, 256 * sizeof(float));\n"
    "    w<<<1, 32>>>(y);\n"
    "    cudaDeviceSynchronize();\n"
    "    return 0;\n"
    "}\n";

static void gpu__graded_program_under_memcheck_is_shut_in__and_its_out_of_bounds_write_still_fails_it(void **state) {
    NEED_NVCC();
    Fixture *f = *state;
    use_gpu_or_skip(f);
    char *tool = program_find_tool("compute-sanitizer");
    if (!tool || program_sandbox_landlock_abi() <= 0) {
        print_message("skip: no compute-sanitizer or no Landlock here\n");
        free(tool);
        skip();
    }
    free(tool);
    char secret_dir[] = "/tmp/cudojo-secret-XXXXXX";
    assert_non_null(mkdtemp(secret_dir));
    char *secret = xasprintf("%s/answer", secret_dir);
    assert_null(fs_write_file_atomic(secret, "42\n", 3));
    char *lua = xasprintf("return {\n"
                          "  id = 'caged', kind = 'program', source = 'caged.cu', timed = false, timeout = 60,\n"
                          "  run = function(t)\n"
                          "    local r = t:program{ sanitizer = 'memcheck', args = { '%s' } }\n"
                          "    t:log('said ' .. r.stdout)\n"
                          "  end,\n"
                          "}\n",
                          secret);
    for (int graded = 1; graded >= 0; graded--) {
        ExerciseRunOptions o = {.grading = graded};
        RunResult *r = fixture_run_exercise(f, "caged", lua, "caged.cu", caged_oob_cu, &o);
        const Diag *oob = NULL;
        for (const Diag *d = r->diags; d; d = d->next)
            if (d->code && !strcmp(d->code, "sanitizer") && d->severity == DIAG_ERROR) oob = d;
        const char *said = graded ? "said read:Permission denied" : "said read:yes";
        if (r->verdict != VERDICT_FAIL || !oob || !r->log || !strstr(r->log, said)) show(r);
        assert_int_equal(r->verdict, VERDICT_FAIL);
        assert_non_null(oob);
        assert_int_equal(oob->line, 5);
        assert_non_null(strstr(r->log, said));      /* a learner's own run reads what the learner can */
    }
    unlink(secret);
    rmdir(secret_dir);
    free(secret);
    free(lua);
}

int main(void) {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(program__passes__when_it_exits_0_prints_and_writes_its_output),
        T(program__defines_and_args_reach_the_program__with_a_build_per_defines),
        T(program__expect_exit_fails_with_status_and_stderr_tail__when_it_exits_nonzero),
        T(program__expect_output_fails_showing_the_pattern_and_first_lines__when_absent),
        T(program__reads_its_stdin),
        T(program__reported_calls_kernels_and_timeline__reach_r_and_the_run),
        T(program__error_finding_fails_the_run__even_when_every_check_passes),
        T(program__compile_error__maps_to_the_cu_line),
        T(program__crash_fails_the_run_with_the_signal_and_host_line),
        T(program__hang_ends_with_the_timeout_verdict),
        T(program__reading_an_output_it_did_not_write_fails_the_run_naming_the_file),
        T(program__output_of_a_partial_element_fails_the_run),
        T(program__misuse_is_an_exercise_error_at_the_authors_line),
        T(program__t_program_in_a_kernel_exercise_is_an_exercise_error),
        T(course__kind_other_than_kernel_or_program__is_an_error_at_its_line),
        T(emurt__worked_example_passes_with_its_calls_kernels_and_timeline),
        T(emurt__runaway_kernel__ends_with_did_not_finish_at_its_line),
        T(emurt__timeline_checks_read_the_programs_timeline),
        T(emurt__kernel_out_of_bounds_in_a_program_fails_the_run_at_its_line),
        T(emurt__devices_option_sets_the_emulated_device_count),
        T(emurt__profile_is_not_available_on_the_emulator__and_says_what_stands_in_for_it),
        T(emurt__expect_errors_makes_a_fault_a_warning__and_r_tells_findings_sanitizer_and_source),
        T(emurt__sanitizer_after_the_verdict__calls_the_function_with_the_report),
        T(emurt__emulator_beside_a_gpu_run__finds_the_race__unless_gradings_check_will),
        T(course__bug_hunt_is_read__and_must_be_a_boolean),
        T(gpu__worked_example_passes_with_measured_kernel_time_and_cupti_timeline),
        T(gpu__racecheck_beside_or_after_the_verdict__finds_the_race_the_emulator_finds_beside),
        T(gpu__graded_program_under_memcheck_is_shut_in__and_its_out_of_bounds_write_still_fails_it),
    };
#undef T
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
