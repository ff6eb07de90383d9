/* tests/emu/test_trace.c: the warp debugger's recorder (kernels/emu/emu_trace.c)
 * on small kernels: a divergent branch, shared memory with a barrier, a
 * loop; variable names from the source; the cap; untraced launches. */
#include "tests/emu/emu_fixture.h"

#include "kernels/emu/emu_trace.h"

static const char *DIVERGE =
    "extern \"C\" __global__ void k(int *out, int n) {\n"        /* 1 */
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"       /* 2 */
    "    int v = 0;\n"                                           /* 3 */
    "    if (i % 2 == 0) {\n"                                    /* 4 */
    "        for (int k = 0; k < i; k++)\n"                      /* 5 */
    "            v += k;\n"                                      /* 6 */
    "    } else {\n"                                             /* 7 */
    "        v = -i;\n"                                          /* 8 */
    "    }\n"                                                    /* 9 */
    "    if (i < n) out[i] += v;\n"                              /* 10 */
    "}\n";

/* CUDOJO_TEST_DUMP=1 prints a trace's steps (when a test fails). */
static void dump(const EmuTrace *t) {
    if (!getenv("CUDOJO_TEST_DUMP")) return;
    for (int s = 0; s < t->n_steps; s++)
        fprintf(stderr, "step %d line %d kind %d active %08x mem_first %u\n", s, t->steps[s].line, t->steps[s].kind,
                t->steps[s].active, t->steps[s].mem_first);
}

static int var_index(const EmuTrace *t, const char *name) {
    for (int i = 0; i < t->n_vars; i++)
        if (!strcmp(t->var_names[i], name)) return i;
    return -1;
}

static void trace__steps_both_sides_with_their_lanes__when_the_branch_diverges(void **state) {
    (void)state;
    EmuFx f;
    DevPtr out = 0;
    EmuTraceRequest rq = {.block = {1, 0, 0}, .warp = 0};
    EmuOptions o = fx_opts(true, true);
    fx_load(&f, DIVERGE, &o);
    out = fx_array(&f, "out", 4, 64, NULL);
    KernelArg args[2] = {kernel_arg_ptr(out), kernel_arg_i32(64)};
    assert_null(emu_trace_arm(f.b, &rq));
    fx_run(&f, "k", 2, 32, args, 2);
    EmuTrace *t = emu_trace_take(f.b);
    assert_non_null(t);
    dump(t);
    assert_null(t->note);
    assert_int_equal(t->block_idx[0], 1);
    int s6 = emu_trace_find_line(t, 6, 0), s8 = emu_trace_find_line(t, 8, 0);
    assert_true(s6 >= 0 && s8 >= 0);
    /* only the even lanes run the loop, only the odd ones line 8 */
    assert_int_equal(t->steps[s6].active, 0x55555555u);
    assert_int_equal(t->steps[s8].active, 0xaaaaaaaau);
    /* i is named and holds the global index of each lane of block 1 */
    int vi = var_index(t, "i"), vv = var_index(t, "v");
    assert_true(vi >= 0 && vv >= 0);
    const EmuTraceVal *v = &emu_trace_vals(t, s6)[vi];
    assert_int_equal(v->set, 0xffffffffu);
    assert_int_equal(v->lane[0], 32);
    assert_int_equal(v->lane[31], 63);
    /* at the end, v holds 0+1+...+(i-1) on even lanes and -i on odd ones */
    const EmuTraceVal *end = &emu_trace_vals(t, t->n_steps - 1)[vv];
    assert_int_equal(t->steps[t->n_steps - 1].kind, EMU_STEP_END);
    char buf[32];
    emu_trace_format(end, 2, buf, sizeof buf);
    assert_string_equal(buf, "561");
    emu_trace_format(end, 3, buf, sizeof buf);
    assert_string_equal(buf, "-35");
    /* the store on line 10: one record, 32 lanes, 4 bytes, consecutive addresses */
    int found = 0;
    for (int i = 0; i < t->n_mem; i++) {
        const EmuTraceMem *m = &t->mem[i];
        if (m->line != 10 || m->op != EMU_MEM_STORE) continue;
        found++;
        assert_int_equal(m->space, EMU_MEM_GLOBAL);
        assert_int_equal(m->width, 4);
        assert_int_equal(m->mask, 0xffffffffu);
        assert_true(m->addr[0] == out + 32 * 4);
        assert_true(m->addr[31] == out + 63 * 4);
    }
    assert_int_equal(found, 1);
    emu_trace_free(&t);
    fx_free(&f);
}

static const char *SHARED =
    "extern \"C\" __global__ void k(const float *in, float *out) {\n"    /* 1 */
    "    __shared__ float s[64];\n"                                      /* 2 */
    "    int t = threadIdx.x;\n"                                         /* 3 */
    "    s[t] = in[t] * 2.0f;\n"                                         /* 4 */
    "    __syncthreads();\n"                                             /* 5 */
    "    float x = s[63 - t];\n"                                         /* 6 */
    "    out[t] = x;\n"                                                  /* 7 */
    "}\n";

static void trace__snapshots_the_block_shared_memory__after_the_barrier(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, true);
    fx_load(&f, SHARED, &o);
    float h[64];
    for (int i = 0; i < 64; i++) h[i] = (float)i;
    DevPtr in = fx_array(&f, "in", 4, 64, h), out = fx_array(&f, "out", 4, 64, NULL);
    KernelArg args[2] = {kernel_arg_ptr(in), kernel_arg_ptr(out)};
    EmuTraceRequest rq = {.warp = 0};
    assert_null(emu_trace_arm(f.b, &rq));
    fx_run(&f, "k", 1, 64, args, 2);
    EmuTrace *t = emu_trace_take(f.b);
    assert_non_null(t);
    dump(t);
    assert_int_equal(t->n_warps, 2);
    assert_int_equal(t->shared_size, 256);
    int sb = emu_trace_next_barrier(t, -1);
    assert_int_equal(t->steps[sb].kind, EMU_STEP_BARRIER);
    assert_int_equal(t->steps[sb].line, 5);
    /* after the barrier both warps' stores are in the snapshot */
    int s6 = emu_trace_find_line(t, 6, sb);
    assert_true(s6 > sb);
    const float *sh = (const float *)emu_trace_shared_at(t, s6);
    assert_non_null(sh);
    assert_true(sh[0] == 0.0f && sh[40] == 80.0f && sh[63] == 126.0f);
    /* x reads the mirrored element */
    int vx = var_index(t, "x");
    assert_true(vx >= 0);
    char buf[32];
    emu_trace_format(&emu_trace_vals(t, t->n_steps - 1)[vx], 0, buf, sizeof buf);
    assert_string_equal(buf, "126");
    /* the shared load of line 6 is recorded as shared offsets */
    bool seen = false;
    for (int i = 0; i < t->n_mem; i++)
        if (t->mem[i].line == 6 && t->mem[i].space == EMU_MEM_SHARED) {
            seen = true;
            assert_int_equal(t->mem[i].addr[0], 63 * 4);
            assert_int_equal(t->mem[i].addr[31], 32 * 4);
        }
    assert_true(seen);
    emu_trace_free(&t);
    fx_free(&f);
}

static const char *LOOP =
    "extern \"C\" __global__ void k(const int *a, int *out, int n) {\n"   /* 1 */
    "    int sum = 0;\n"                                                /* 2 */
    "#pragma unroll 1\n"                                                /* 3 */
    "    for (int j = 0; j < n; j++) {\n"                               /* 4 */
    "        sum += a[j] * (int)threadIdx.x;\n"                         /* 5 */
    "    }\n"                                                           /* 6 */
    "    out[threadIdx.x] = sum;\n"                                     /* 7 */
    "}\n";

static void trace__makes_a_step_per_iteration__when_a_loop_runs(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, true);
    fx_load(&f, LOOP, &o);
    int h[5] = {1, 2, 3, 4, 5};
    DevPtr a = fx_array(&f, "a", 4, 5, h), out = fx_array(&f, "out", 4, 32, NULL);
    KernelArg args[3] = {kernel_arg_ptr(a), kernel_arg_ptr(out), kernel_arg_i32(5)};
    EmuTraceRequest rq = {.warp = 0};
    assert_null(emu_trace_arm(f.b, &rq));
    fx_run(&f, "k", 1, 32, args, 3);
    EmuTrace *t = emu_trace_take(f.b);
    assert_non_null(t);
    dump(t);
    int n5 = 0;
    for (int s = 0; s < t->n_steps; s++) {
        int first, end;
        emu_trace_mem_of(t, s, &first, &end);
        n5 += t->steps[s].line == 5 && end > first;
    }
    assert_int_equal(n5, 5);   /* once per iteration, each with its load of a[j] */
    int vs = var_index(t, "sum");
    assert_true(vs >= 0);
    char buf[32];
    emu_trace_format(&emu_trace_vals(t, t->n_steps - 1)[vs], 3, buf, sizeof buf);
    assert_string_equal(buf, "45");
    emu_trace_free(&t);
    fx_free(&f);
}

static void trace__stops_at_the_cap_and_says_so(void **state) {
    (void)state;
    EmuFx f;
    int h[5] = {1, 2, 3, 4, 5};
    EmuOptions o = fx_opts(true, true);
    fx_load(&f, LOOP, &o);
    DevPtr a = fx_array(&f, "a", 4, 5, h), out = fx_array(&f, "out", 4, 32, NULL);
    KernelArg args[3] = {kernel_arg_ptr(a), kernel_arg_ptr(out), kernel_arg_i32(5)};
    EmuTraceRequest rq = {.warp = 0, .cap_bytes = 4096};
    assert_null(emu_trace_arm(f.b, &rq));
    fx_run(&f, "k", 1, 32, args, 3);
    EmuTrace *t = emu_trace_take(f.b);
    assert_non_null(t);
    dump(t);
    assert_true(t->truncated);
    assert_non_null(t->note);
    assert_non_null(strstr(t->note, "cap"));
    assert_true(emu_trace_bytes(t) <= 4096);
    /* the kernel still ran to the end untraced */
    int got[32];
    fx_get(&f, got, out, sizeof got);
    assert_int_equal(got[3], 45);
    emu_trace_free(&t);
    fx_free(&f);
}

static void trace__says_so__when_the_block_is_outside_the_grid(void **state) {
    (void)state;
    EmuFx f;
    EmuTraceRequest rq = {.block = {7, 0, 0}, .warp = 0};
    EmuOptions o = fx_opts(true, true);
    fx_load(&f, DIVERGE, &o);
    DevPtr out = fx_array(&f, "out", 4, 64, NULL);
    KernelArg args[2] = {kernel_arg_ptr(out), kernel_arg_i32(64)};
    assert_null(emu_trace_arm(f.b, &rq));
    fx_run(&f, "k", 2, 32, args, 2);
    EmuTrace *t = emu_trace_take(f.b);
    assert_non_null(t);
    dump(t);
    assert_int_equal(t->n_steps, 0);
    assert_non_null(strstr(t->note, "outside the grid"));
    emu_trace_free(&t);
    /* a warp past the block's warps */
    EmuTraceRequest rq2 = {.warp = 3};
    assert_null(emu_trace_arm(f.b, &rq2));
    fx_run(&f, "k", 2, 32, args, 2);
    t = emu_trace_take(f.b);
    assert_non_null(strstr(t->note, "warp 3 does not exist"));
    emu_trace_free(&t);
    fx_free(&f);
}

static void trace__records_only_the_first_matching_launch__and_none_unarmed(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, true);
    fx_load(&f, DIVERGE, &o);
    DevPtr out = fx_array(&f, "out", 4, 64, NULL);
    KernelArg args[2] = {kernel_arg_ptr(out), kernel_arg_i32(64)};
    fx_run(&f, "k", 2, 32, args, 2);
    assert_null(emu_trace_take(f.b));       /* never armed */
    EmuTraceRequest other = {.kernel = "not_this_one"};
    assert_null(emu_trace_arm(f.b, &other));
    fx_run(&f, "k", 2, 32, args, 2);
    EmuTrace *t = emu_trace_take(f.b);
    assert_null(t);                         /* armed for another kernel: nothing matched */
    EmuTraceRequest rq = {.kernel = "k"};
    assert_null(emu_trace_arm(f.b, &rq));
    fx_run(&f, "k", 2, 32, args, 2);
    args[1] = kernel_arg_i32(0);
    fx_run(&f, "k", 2, 32, args, 2);        /* a second launch does not overwrite the first */
    t = emu_trace_take(f.b);
    assert_non_null(t);
    assert_true(emu_trace_find_line(t, 10, 0) >= 0);
    int found = 0;
    for (int i = 0; i < t->n_mem; i++)
        found += t->mem[i].line == 10 && t->mem[i].op == EMU_MEM_STORE && t->mem[i].mask == 0xffffffffu;
    assert_int_equal(found, 1);
    emu_trace_free(&t);
    fx_free(&f);
}

/* The debugger's recording stops the run after the traced launch (a warp
 * switch records again: what runs after it would only cost time). */
static void trace__refuses_the_launches_after_it__when_asked_to_stop_after(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, true);
    fx_load(&f, DIVERGE, &o);
    DevPtr out = fx_array(&f, "out", 4, 64, NULL);
    KernelArg args[2] = {kernel_arg_ptr(out), kernel_arg_i32(64)};
    EmuTraceRequest rq = {.kernel = "k", .stop_after = true};
    assert_null(emu_trace_arm(f.b, &rq));
    fx_run(&f, "k", 2, 32, args, 2);
    Diag *d = fx_launch(&f, "k", (Dim3){2, 1, 1}, (Dim3){32, 1, 1}, 0, args, 2);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "warp debugger has its trace"));
    diag_free(&d);
    EmuTrace *t = emu_trace_take(f.b);
    assert_non_null(t);
    emu_trace_free(&t);
    fx_run(&f, "k", 2, 32, args, 2);        /* taken: the backend runs launches again */
    fx_free(&f);
}

static const char *RACE =
    "extern \"C\" __global__ void k(int *out) {\n"          /* 1 */
    "    __shared__ int s[32];\n"                          /* 2 */
    "    int t = threadIdx.x;\n"                           /* 3 */
    "    s[t] = t;\n"                                      /* 4 */
    "    int y = s[(t + 1) % 32];\n"                       /* 5 */
    "    out[t] = y;\n"                                    /* 6 */
    "}\n";

static void trace__finds_the_line_of_the_first_finding(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, true);
    fx_load(&f, RACE, &o);
    DevPtr out = fx_array(&f, "out", 4, 32, NULL);
    KernelArg args[1] = {kernel_arg_ptr(out)};
    EmuTraceRequest rq = {.warp = 0};
    assert_null(emu_trace_arm(f.b, &rq));
    fx_run(&f, "k", 1, 32, args, 1);
    EmuTrace *t = emu_trace_take(f.b);
    assert_non_null(t);
    dump(t);
    assert_true(t->n_findings >= 1);
    assert_non_null(fx_finding(&f, t->findings[0].code));
    int s = emu_trace_find_finding(t);
    assert_true(s >= 0);
    assert_int_equal(t->steps[s].line, t->findings[0].line);
    emu_trace_free(&t);
    fx_free(&f);
}

static void trace__changes_nothing_the_launch_reports(void **state) {
    (void)state;
    EmuFx f;
    EmuOptions o = fx_opts(true, true);
    fx_load(&f, SHARED, &o);
    float h[64];
    for (int i = 0; i < 64; i++) h[i] = (float)i;
    DevPtr in = fx_array(&f, "in", 4, 64, h), out = fx_array(&f, "out", 4, 64, NULL);
    KernelArg args[2] = {kernel_arg_ptr(in), kernel_arg_ptr(out)};
    fx_run(&f, "k", 2, 64, args, 2);
    double wi = fx_total(&f, "warp_instructions"), l6 = fx_line(&f, 6, "executions");
    EmuTraceRequest rq = {.block = {1, 0, 0}, .warp = 1};
    assert_null(emu_trace_arm(f.b, &rq));
    fx_run(&f, "k", 2, 64, args, 2);
    EmuTrace *t = emu_trace_take(f.b);
    assert_non_null(t);
    dump(t);
    assert_true(t->n_steps > 3);
    assert_true(fx_total(&f, "warp_instructions") == wi);
    assert_true(fx_line(&f, 6, "executions") == l6);
    float got[64];
    fx_get(&f, got, out, sizeof got);
    assert_true(got[0] == 126.0f && got[63] == 0.0f);
    emu_trace_free(&t);
    fx_free(&f);
}

static void trace__refuses__when_the_backend_is_not_the_emulator(void **state) {
    (void)state;
    Backend fake = {0};
    EmuTraceRequest rq = {0};
    Diag *d = emu_trace_arm(&fake, &rq);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "emulator"));
    diag_free(&d);
    assert_null(emu_trace_take(&fake));
}

static void trace__names_the_variable_a_line_assigns(void **state) {
    (void)state;
    struct { const char *line, *name; } cases[] = {
        {"    int i = blockIdx.x * blockDim.x + threadIdx.x;", "i"},
        {"    for (int s = blockDim.x / 2; s > 0; s >>= 1) {", "s"},
        {"        sum += a[j];", "sum"},
        {"    float x = s[63 - t]; // x = y", "x"},
        {"    if (i < n) c[i] = a[i] + b[i];", NULL},
        {"    if (a == b) return;", NULL},
        {"    k++;", "k"},
        {"    ++count;", "count"},
        {"    p->x = 3;", NULL},
        {"    while (x <= 3) {", NULL},
        {"    acc <<= 2;", "acc"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char name[32];
        bool got = emu_trace_assigned_name(cases[i].line, strlen(cases[i].line), name, sizeof name);
        if (!cases[i].name) {
            if (got) fail_msg("%s: named %s", cases[i].line, name);
        } else {
            if (!got) fail_msg("%s: no name", cases[i].line);
            assert_string_equal(name, cases[i].name);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace__steps_both_sides_with_their_lanes__when_the_branch_diverges),
        cmocka_unit_test(trace__snapshots_the_block_shared_memory__after_the_barrier),
        cmocka_unit_test(trace__makes_a_step_per_iteration__when_a_loop_runs),
        cmocka_unit_test(trace__stops_at_the_cap_and_says_so),
        cmocka_unit_test(trace__says_so__when_the_block_is_outside_the_grid),
        cmocka_unit_test(trace__records_only_the_first_matching_launch__and_none_unarmed),
        cmocka_unit_test(trace__refuses_the_launches_after_it__when_asked_to_stop_after),
        cmocka_unit_test(trace__finds_the_line_of_the_first_finding),
        cmocka_unit_test(trace__changes_nothing_the_launch_reports),
        cmocka_unit_test(trace__refuses__when_the_backend_is_not_the_emulator),
        cmocka_unit_test(trace__names_the_variable_a_line_assigns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
