/* tests/base/test_sha256.c: SHA-256 against the FIPS 180-4 examples (empty,
 * "abc", the two-block message, a million 'a'), and an incremental hash in
 * pieces of every size equals the one-shot hash (cache keys depend on it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/sha256.h"
#include "base/xalloc.h"

static void hex__matches_the_standard_examples(void **state) {
    (void)state;
    char hex[65];
    sha256_hex("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_hex(two, strlen(two), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void hex__of_a_million_a__matches_the_standard(void **state) {
    (void)state;
    size_t n = 1000000;
    char *a = xmalloc(n);
    memset(a, 'a', n);
    char hex[65];
    sha256_hex(a, n, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
}

static void update__in_pieces__equals_the_one_shot_hash(void **state) {
    (void)state;
    unsigned char data[300];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i * 7 + 3);
    char whole[65];
    sha256_hex(data, sizeof data, whole);
    for (size_t piece = 1; piece <= 130; piece++) {   /* around the 64-byte block and its padding */
        Sha256 s;
        sha256_init(&s);
        for (size_t off = 0; off < sizeof data; off += piece)
            sha256_update(&s, data + off, off + piece <= sizeof data ? piece : sizeof data - off);
        unsigned char digest[32];
        sha256_final(&s, digest);
        char hex[65];
        sha256_to_hex(digest, hex);
        assert_string_equal(hex, whole);
    }
}

static void hex__differs__when_one_bit_differs(void **state) {
    (void)state;
    char a[65], b[65];
    sha256_hex("kernel<<<1,256>>>", 17, a);
    sha256_hex("kernel<<<1,257>>>", 17, b);
    assert_string_not_equal(a, b);
    assert_int_equal(strlen(a), 64);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hex__matches_the_standard_examples),
        cmocka_unit_test(hex__of_a_million_a__matches_the_standard),
        cmocka_unit_test(update__in_pieces__equals_the_one_shot_hash),
        cmocka_unit_test(hex__differs__when_one_bit_differs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
