/* tests/grade/test_include_check.c: what a graded source may #include
 * (kernels/include_check.h): headers by a relative path only, however the
 * directive is spelt (comments, splices, digraphs, trigraphs), never a
 * macro, never the assembler's .incbin; the error names the line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kernels/include_check.h"

/* The line of the refusal, 0 when the source is allowed. */
static int refused_at_n(const char *src, size_t len) {
    Diag *d = include_check_graded("ch/x.cu", src, len);
    int line = d ? d->line : 0;
    if (d) assert_string_equal(d->file, "ch/x.cu");
    diag_free(&d);
    return line;
}

static int refused_at(const char *src) { return refused_at_n(src, strlen(src)); }

static void include_check__allows_the_headers_lessons_use(void **state) {
    (void)state;
    assert_int_equal(refused_at("#include <cuda_runtime.h>\n#include <stdio.h>\n  #  include <cooperative_groups/scan.h>\n"
                                "#include \"helpers.h\"\n#include <cuda/std/atomic>\nint main() {}\n"), 0);
}

static void include_check__refuses_an_absolute_path_at_its_line(void **state) {
    (void)state;
    assert_int_equal(refused_at("#include <stdio.h>\n\n#include \"/home/t/course/solutions/x.cu\"\n"), 3);
    assert_int_equal(refused_at("#include </etc/passwd>\n"), 1);
}

static void include_check__refuses_dot_dot_anywhere_in_the_name(void **state) {
    (void)state;
    assert_int_equal(refused_at("#include <cuda/../../../../etc/passwd>\n"), 1);
    assert_int_equal(refused_at("#include \"../solutions/x.cu\"\n"), 1);
    assert_int_equal(refused_at("#include \"a/..\"\n"), 1);
    assert_int_equal(refused_at("#include \"a/...b/x.h\"\n"), 0);
}

static void include_check__sees_through_comments_splices_digraphs_and_trigraphs(void **state) {
    (void)state;
    assert_int_equal(refused_at("#/* x */include/**/\"/etc/passwd\"\n"), 1);
    assert_int_equal(refused_at("int a;\n#inc\\\nlude \"/etc/passwd\"\n"), 2);
    assert_int_equal(refused_at("%:include \"/etc/passwd\"\n"), 1);
    assert_int_equal(refused_at("?\?=include \"/etc/passwd\"\n"), 1);
    assert_int_equal(refused_at("#include_next </etc/passwd>\n"), 1);
    assert_int_equal(refused_at("#embed \"/etc/passwd\"\n"), 1);
}

/* GCC (nvcc's preprocessor) joins a backslash, blanks and a newline, and a
 * backslash before a lone carriage return: each read /etc files past the scan. */
static void include_check__joins_splices_gcc_accepts_with_blanks_or_a_lone_cr(void **state) {
    (void)state;
    assert_int_equal(refused_at("int a;\n#inc\\  \nlude \"/etc/passwd\"\n"), 2);
    assert_int_equal(refused_at("int a;\n#inc\\\t\r\nlude \"/etc/passwd\"\n"), 2);
    assert_int_equal(refused_at("int a;\n#inc\\\rlude \"/etc/passwd\"\n"), 2);
    assert_int_equal(refused_at("#inc?\?/ \nlude \"/etc/passwd\"\n"), 1);
    assert_int_equal(refused_at("char c = '\\\\';\nint b;\n"), 0);
}

/* GCC reads on past a NUL byte; the C string would end there. */
static void include_check__refuses_a_nul_byte_at_its_line(void **state) {
    (void)state;
    static const char src[] = "int a; // \0\n#include \"/etc/passwd\"\n";
    assert_int_equal(refused_at_n(src, sizeof src - 1), 1);
    static const char later[] = "int a;\nint b;\n\0";
    assert_int_equal(refused_at_n(later, sizeof later - 1), 3);
}

static void include_check__checks_directives_a_string_or_raw_string_might_hide(void **state) {
    (void)state;
    /* A raw string that fools a lexer about where a comment starts. */
    assert_int_equal(refused_at("auto s = R\"(a\" /* )\";\n#include \"/etc/passwd\"\n// */\n"), 2);
    assert_int_equal(refused_at("/* #include \"/etc/passwd\" */\n"), 1);
}

static void include_check__refuses_a_file_name_made_by_a_macro(void **state) {
    (void)state;
    assert_int_equal(refused_at("#define F \"/etc/passwd\"\n#include F\n"), 2);
    assert_int_equal(refused_at("#include\n"), 1);
}

static void include_check__refuses_the_assemblers_incbin_and_include(void **state) {
    (void)state;
    assert_int_equal(refused_at("int main() {}\nasm(\".incbin \\\"/etc/passwd\\\"\");\n"), 2);
    assert_int_equal(refused_at("asm(\".INCLUDE \\\"/etc/passwd\\\"\");\n"), 1);
    assert_int_equal(refused_at("s.includes(x);\n"), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(include_check__allows_the_headers_lessons_use),
        cmocka_unit_test(include_check__refuses_an_absolute_path_at_its_line),
        cmocka_unit_test(include_check__refuses_dot_dot_anywhere_in_the_name),
        cmocka_unit_test(include_check__sees_through_comments_splices_digraphs_and_trigraphs),
        cmocka_unit_test(include_check__joins_splices_gcc_accepts_with_blanks_or_a_lone_cr),
        cmocka_unit_test(include_check__refuses_a_nul_byte_at_its_line),
        cmocka_unit_test(include_check__checks_directives_a_string_or_raw_string_might_hide),
        cmocka_unit_test(include_check__refuses_a_file_name_made_by_a_macro),
        cmocka_unit_test(include_check__refuses_the_assemblers_incbin_and_include),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
