/* tests/base/test_strlist.c: the NULL-ended list of owned strings that
 * argv builders and path lists share (base/strlist.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "base/strlist.h"
#include "base/xalloc.h"

static void strlist__stays_null_ended_as_it_grows__and_skips_a_null(void **state) {
    (void)state;
    StrList l = {0};
    assert_null(l.v);
    strlist_add(&l, NULL);
    assert_null(l.v);
    for (int i = 0; i < 100; i++) {
        strlist_add(&l, xasprintf("arg%d", i));
        assert_int_equal(l.n, i + 1);
        assert_null(l.v[l.n]);
    }
    strlist_add(&l, NULL);
    assert_int_equal(l.n, 100);
    assert_string_equal(l.v[0], "arg0");
    assert_string_equal(l.v[99], "arg99");
    strlist_free(&l);
    assert_null(l.v);
    assert_int_equal(l.n, 0);
    strlist_add(&l, xstrdup("again"));      /* usable after a free */
    char **v = l.v;
    strlist_free_v(&v);
    assert_null(v);
    strlist_free_v(&v);                       /* a NULL array: nothing */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strlist__stays_null_ended_as_it_grows__and_skips_a_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
