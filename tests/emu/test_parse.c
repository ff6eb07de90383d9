/* tests/emu/test_parse.c: the PTX parser and decoder accept NVRTC's output
 * and turn anything malformed or unsupported into a Diag that names the
 * instruction and the PTX line, never a crash. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernels/emu/emu.h"

static const char GOOD[] =
    ".version 9.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    "\n"
    "\t// .globl\tvector_add\n"
    ".visible .entry vector_add(\n"
    "\t.param .u64 vector_add_param_0,\n"
    "\t.param .u64 vector_add_param_1,\n"
    "\t.param .u64 vector_add_param_2,\n"
    "\t.param .u32 vector_add_param_3\n"
    ")\n"
    "{\n"
    "\t.reg .pred \t%p<2>;\n"
    "\t.reg .f32 \t%f<4>;\n"
    "\t.reg .b32 \t%r<6>;\n"
    "\t.reg .b64 \t%rd<11>;\n"
    "\t.loc\t1 1 0\n"
    "\tld.param.u64 \t%rd1, [vector_add_param_0];\n"
    "\tld.param.u64 \t%rd2, [vector_add_param_1];\n"
    "\tld.param.u64 \t%rd3, [vector_add_param_2];\n"
    "\tld.param.u32 \t%r2, [vector_add_param_3];\n"
    "\t.loc\t1 2 3\n"
    "\tmov.u32 \t%r3, %ctaid.x;\n"
    "\tmov.u32 \t%r4, %ntid.x;\n"
    "\tmov.u32 \t%r5, %tid.x;\n"
    "\tmad.lo.s32 \t%r1, %r3, %r4, %r5;\n"
    "\t.loc\t1 3 3\n"
    "\tsetp.ge.s32 \t%p1, %r1, %r2;\n"
    "\t@%p1 bra \t$L__BB0_2;\n"
    "\tcvta.to.global.u64 \t%rd4, %rd1;\n"
    "\tmul.wide.s32 \t%rd5, %r1, 4;\n"
    "\tadd.s64 \t%rd6, %rd4, %rd5;\n"
    "\tcvta.to.global.u64 \t%rd7, %rd2;\n"
    "\tadd.s64 \t%rd8, %rd7, %rd5;\n"
    "\tld.global.f32 \t%f1, [%rd8];\n"
    "\tld.global.f32 \t%f2, [%rd6];\n"
    "\tadd.f32 \t%f3, %f2, %f1;\n"
    "\tcvta.to.global.u64 \t%rd9, %rd3;\n"
    "\tadd.s64 \t%rd10, %rd9, %rd5;\n"
    "\tst.global.f32 \t[%rd10], %f3;\n"
    "$L__BB0_2:\n"
    "\t.loc\t1 4 1\n"
    "\tret;\n"
    "\n"
    "}\n"
    "\t.file\t1 \"/tmp/vector_add.cu\"\n";

/* GOOD with the first occurrence of `from` replaced by `to`. */
static char *edit(const char *from, const char *to) {
    const char *p = strstr(GOOD, from);
    assert_non_null(p);
    size_t n = strlen(GOOD) - strlen(from) + strlen(to) + 1;
    char *s = malloc(n);
    size_t pre = (size_t)(p - GOOD);
    memcpy(s, GOOD, pre);
    strcpy(s + pre, to);
    strcat(s, p + strlen(from));
    return s;
}

static void expect_error(const char *ptx, const char *needle1, const char *needle2) {
    Diag *d = emu_parse_check(ptx, strlen(ptx));
    assert_non_null(d);
    if (needle1 && !strstr(d->message, needle1)) fail_msg("'%s' not in: %s", needle1, d->message);
    if (needle2 && !strstr(d->message, needle2)) fail_msg("'%s' not in: %s", needle2, d->message);
    diag_free(&d);
}

static void parse__accepts_nvrtc_vector_add(void **state) {
    (void)state;
    Diag *d = emu_parse_check(GOOD, strlen(GOOD));
    if (d) fail_msg("%s", d->message);
}

static void parse__names_opcode_and_line__when_instruction_unknown(void **state) {
    (void)state;
    char *s = edit("\tadd.f32 \t%f3, %f2, %f1;", "\tfrobnicate.f32 \t%f3, %f2, %f1;");
    expect_error(s, "frobnicate.f32", "PTX line 37");
    free(s);
}

static void parse__names_register__when_undeclared(void **state) {
    (void)state;
    char *s = edit("add.f32 \t%f3, %f2, %f1;", "add.f32 \t%f3, %f2, %q9;");
    expect_error(s, "%q9", "PTX line 37");
    free(s);
}

static void parse__names_grid_sync__when_a_kernel_reads_the_grid_workspace(void **state) {
    (void)state;
    char *s = edit("add.f32 \t%f3, %f2, %f1;", "add.f32 \t%f3, %f2, %f1;\n\tmov.u32 \t%r5, %envreg2;");
    expect_error(s, "this_grid().sync()", "%envreg2");
    free(s);
}

static void parse__reports_unknown_label(void **state) {
    (void)state;
    char *s = edit("@%p1 bra \t$L__BB0_2;", "@%p1 bra \t$L__nowhere;");
    expect_error(s, "$L__nowhere", NULL);
    free(s);
}

static void parse__reports_bad_modifier(void **state) {
    (void)state;
    char *s = edit("mul.wide.s32", "mul.wibble.s32");
    expect_error(s, "wibble", "PTX line 31");
    free(s);
}

/* sm_90's asynchronous copies decode (Thrust's PTX has them in kernels it
 * may never launch), and the forms the emulator lacks say so by name. */
static void parse__accepts_sm90_async_copies__and_names_the_ones_it_lacks(void **state) {
    (void)state;
    char *s = edit("\tadd.f32 \t%f3, %f2, %f1;",
                   "\tadd.f32 \t%f3, %f2, %f1;\n"
                   "\t{ .reg .pred P; elect.sync _|P, %r5; }\n"
                   "\tmbarrier.try_wait.parity.shared::cta.b64 %p1, [%rd4+8], %r5;\n"
                   "\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%rd4], [%rd5], %r5, [%rd4+16];\n"
                   "\tmbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%rd4+16], %r5;\n"
                   "\tbmsk.clamp.b32 %r4, %r3, %r5;\n"
                   "\tgriddepcontrol.wait;");
    Diag *d = emu_parse_check(s, strlen(s));
    if (d) fail_msg("%s", d->message);
    free(s);
    s = edit("\tadd.f32 \t%f3, %f2, %f1;",
             "\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%rd4], [%rd5, {%r3, %r4}], [%rd6];");
    expect_error(s, "cp.async.bulk.tensor", "tensor-map copies");
    free(s);
    s = edit("\tadd.f32 \t%f3, %f2, %f1;", "\tbmsk.b32 %r4, %r3, %r5;");
    expect_error(s, "bmsk needs .clamp or .wrap", "PTX line 37");
    free(s);
    /* lop3's truth-table form decodes; its form with a predicate result is named */
    s = edit("\tadd.f32 \t%f3, %f2, %f1;", "\tlop3.b32 %r4, %r3, %r5, %r2, 0x96;");
    Diag *ok = emu_parse_check(s, strlen(s));
    if (ok) fail_msg("%s", ok->message);
    free(s);
    s = edit("\tadd.f32 \t%f3, %f2, %f1;", "\t{ .reg .pred P; lop3.or.b32 %r4|P, %r3, %r5, %r2, 0x96, %p1; }");
    expect_error(s, "lop3 with a predicate result", "PTX line 37");
    free(s);
}

static void parse__reports_missing_operand(void **state) {
    (void)state;
    char *s = edit("mad.lo.s32 \t%r1, %r3, %r4, %r5;", "mad.lo.s32 \t%r1, %r3;");
    expect_error(s, "too few operands", "mad.lo.s32");
    free(s);
}

static void parse__reports_recursion(void **state) {
    (void)state;
    const char *ptx =
        ".version 9.0\n.target sm_80\n.address_size 64\n"
        ".func (.param .b32 func_retval0) f(.param .b32 f_param_0)\n{\n"
        "\t.reg .b32 %r<3>;\n"
        "\tld.param.u32 %r1, [f_param_0];\n"
        "\t{ .param .b32 param0; st.param.b32 [param0+0], %r1; .param .b32 retval0;\n"
        "\tcall.uni (retval0), f, (param0);\n"
        "\tld.param.b32 %r2, [retval0+0]; }\n"
        "\tst.param.b32 [func_retval0+0], %r2;\n\tret;\n}\n"
        ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n"
        "\t{ .param .b32 param0; st.param.b32 [param0+0], %r1; .param .b32 retval0;\n"
        "\tcall.uni (retval0), f, (param0);\n\t}\n\tret;\n}\n";
    expect_error(ptx, "recursive", "f");
}

static void parse__survives_every_truncation(void **state) {
    (void)state;
    size_t n = strlen(GOOD);
    int errors = 0;
    for (size_t i = 0; i < n; i++) {
        Diag *d = emu_parse_check(GOOD, i);
        if (d) errors++;
        diag_free(&d);
    }
    assert_true(errors > (int)n / 2);
}

static void parse__survives_random_mutations(void **state) {
    (void)state;
    size_t n = strlen(GOOD);
    char *s = malloc(n + 1);
    uint64_t seed = 0x1234567;
    static const char alphabet[] = "{}[]();,.:@!%$+-|<>0123456789abcdefxyz_ \n\t\"=";
    for (int it = 0; it < 3000; it++) {
        memcpy(s, GOOD, n + 1);
        int edits = 1 + it % 4;
        for (int e = 0; e < edits; e++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t pos = (size_t)(seed >> 33) % n;
            s[pos] = alphabet[(seed >> 20) % (sizeof alphabet - 1)];
        }
        Diag *d = emu_parse_check(s, n);
        diag_free(&d);
    }
    free(s);
}

/* Found by the UBSan fuzz build: the product of a .maxntid list overflowed
 * an int (a signed overflow that `make san` stops on). It saturates now. */
static void parse__accepts_launch_bounds_whose_product_overflows_an_int(void **state) {
    (void)state;
    char *s = edit(")\n{\n", ")\n.maxntid 60000, 60000, 60000, 60000, 60000\n{\n");
    Diag *d = emu_parse_check(s, strlen(s));
    if (d) fail_msg("%s", d->message);
    free(s);
}

static void parse__rejects_garbage_and_empty_input(void **state) {
    (void)state;
    const char *bad[] = {"", "\x01\x02\x03", ".entry", ".visible .entry k(", "{{{{", ".global .u32 x[",
                         ".entry k() { ld.global.f32 %f1, [; }", ".entry k() { .reg .b32 %r<99999999999>; }"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        Diag *d = emu_parse_check(bad[i], strlen(bad[i]));
        diag_free(&d);
    }
    Diag *d = emu_parse_check("\x01\x02", 2);
    assert_non_null(d);
    diag_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse__accepts_nvrtc_vector_add),
        cmocka_unit_test(parse__names_opcode_and_line__when_instruction_unknown),
        cmocka_unit_test(parse__names_register__when_undeclared),
        cmocka_unit_test(parse__names_grid_sync__when_a_kernel_reads_the_grid_workspace),
        cmocka_unit_test(parse__reports_unknown_label),
        cmocka_unit_test(parse__reports_bad_modifier),
        cmocka_unit_test(parse__accepts_sm90_async_copies__and_names_the_ones_it_lacks),
        cmocka_unit_test(parse__reports_missing_operand),
        cmocka_unit_test(parse__reports_recursion),
        cmocka_unit_test(parse__survives_every_truncation),
        cmocka_unit_test(parse__survives_random_mutations),
        cmocka_unit_test(parse__rejects_garbage_and_empty_input),
        cmocka_unit_test(parse__accepts_launch_bounds_whose_product_overflows_an_int),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
