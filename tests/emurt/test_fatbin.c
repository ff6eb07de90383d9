/* tests/emurt/test_fatbin.c: the fat binary reader finds the PTX nvcc
 * embedded (zstd-compressed, as CUDA 13's nvcc stores it) and gives back
 * the kernel's text; uncompressed entries and cubins are listed; a damaged
 * or hostile fat binary is a Diag, never a read out of bounds (every
 * truncation and every scribbled byte of the real fixture is tried).
 *
 * fixtures/vadd.fatbin is the .nv_fatbin section of fixtures/vadd.cu built
 * with `nvcc -lineinfo -g -cudart shared -gencode
 * arch=compute_80,code=compute_80` (CUDA 13.0), from its fat binary header on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fs.h"
#include "kernels/fatbin.h"

static unsigned char *fixture(size_t *n) {
    FILE *f = fopen("tests/emurt/fixtures/vadd.fatbin", "rb");
    assert_non_null(f);
    unsigned char *buf = malloc(4096);
    *n = fread(buf, 1, 4096, f);
    fclose(f);
    assert_true(*n > 64);
    return buf;
}

static void fatbin__gives_the_ptx__when_nvcc_compressed_it_with_zstd(void **state) {
    (void)state;
    size_t n;
    unsigned char *buf = fixture(&n);
    Fatbin *fb = NULL;
    Diag *d = fatbin_parse(buf, n, &fb);
    assert_null(d);
    assert_int_equal(fb->size, n);
    assert_int_equal(fb->n_entries, 1);
    const FatbinEntry *e = fatbin_find_ptx(fb, 90);
    assert_non_null(e);
    assert_int_equal(e->arch, 80);
    assert_true(e->zstd);
    assert_string_equal(e->name, "vadd.cu");
    unsigned char *ptx;
    size_t len;
    assert_null(fatbin_entry_data(e, &ptx, &len));
    assert_int_equal(strlen((char *)ptx), len);
    assert_non_null(strstr((char *)ptx, ".visible .entry _Z4vaddPKfS0_Pfi("));
    assert_non_null(strstr((char *)ptx, ".global .align 4 .u32 counter;"));
    assert_non_null(strstr((char *)ptx, "vadd.cu\""));
    assert_null(fatbin_find_elf(fb, 90));
    free(ptx);
    fatbin_free(&fb);
    free(buf);
}

/* A fat binary of two plain entries: PTX for arch 70 and 86, and a cubin. */
static size_t put_entry(unsigned char *p, int kind, int arch, const char *payload) {
    size_t len = strlen(payload);
    memset(p, 0, 64);
    p[0] = (unsigned char)kind;
    p[4] = 64;
    p[8] = (unsigned char)len;
    p[28] = (unsigned char)arch;
    memcpy(p + 64, payload, len);
    return 64 + len;
}

static size_t make_plain(unsigned char *buf) {
    size_t off = 16;
    off += put_entry(buf + off, FATBIN_KIND_PTX, 70, ".version 7.0 // seventy");
    off += put_entry(buf + off, FATBIN_KIND_PTX, 86, ".version 8.0 // eighty-six\0\0\0");
    off += put_entry(buf + off, FATBIN_KIND_ELF, 90, "\x7f" "ELF....");
    memset(buf, 0, 16);
    buf[0] = 0x50, buf[1] = 0xed, buf[2] = 0x55, buf[3] = 0xba;
    buf[4] = 1;
    buf[6] = 16;
    buf[8] = (unsigned char)(off - 16);
    return off;
}

static void fatbin__picks_the_highest_ptx_up_to_the_arch__when_there_are_several(void **state) {
    (void)state;
    unsigned char buf[512];
    size_t n = make_plain(buf);
    Fatbin *fb;
    assert_null(fatbin_parse(buf, n, &fb));
    assert_int_equal(fb->n_entries, 3);
    assert_int_equal(fatbin_find_ptx(fb, 90)->arch, 86);
    assert_int_equal(fatbin_find_ptx(fb, 80)->arch, 70);
    assert_int_equal(fatbin_find_ptx(fb, 60)->arch, 70);
    assert_non_null(fatbin_find_elf(fb, 90));
    unsigned char *ptx;
    size_t len;
    assert_null(fatbin_entry_data(fatbin_find_ptx(fb, 90), &ptx, &len));
    assert_string_equal((char *)ptx, ".version 8.0 // eighty-six");
    free(ptx);
    fatbin_free(&fb);
}

static void fatbin__is_a_diag__when_not_a_fat_binary(void **state) {
    (void)state;
    unsigned char junk[64] = "this is not a fat binary at all, not even close to one.";
    Fatbin *fb = (Fatbin *)junk;
    Diag *d = fatbin_parse(junk, sizeof junk, &fb);
    assert_non_null(d);
    assert_null(fb);
    assert_string_equal(d->code, "fatbin");
    assert_non_null(strstr(d->message, "not a fat binary"));
    diag_free(&d);
}

/* Every prefix of the real fixture, and every byte of it flipped: each is
 * either read correctly or refused; under ASan any over-read would fail. */
static void fatbin__never_reads_past_the_buffer__when_truncated_or_scribbled(void **state) {
    (void)state;
    size_t n;
    unsigned char *orig = fixture(&n);
    int refused = 0;
    for (size_t cut = 0; cut < n; cut++) {
        unsigned char *buf = malloc(cut ? cut : 1);
        memcpy(buf, orig, cut);
        Fatbin *fb;
        Diag *d = fatbin_parse(buf, cut, &fb);
        if (d) refused++;
        diag_free(&d);
        fatbin_free(&fb);
        free(buf);
    }
    assert_int_equal(refused, (int)n); /* the header says n bytes: every shorter buffer is refused */
    for (size_t i = 0; i < n; i++)
        for (int v = 0; v < 3; v++) {
            unsigned char *buf = malloc(n);
            memcpy(buf, orig, n);
            buf[i] = v == 0 ? 0xff : v == 1 ? 0 : (unsigned char)(buf[i] ^ 0x80);
            Fatbin *fb;
            Diag *d = fatbin_parse(buf, n, &fb);
            if (!d) {
                for (int k = 0; k < fb->n_entries; k++) {
                    unsigned char *data;
                    size_t len;
                    Diag *d2 = fatbin_entry_data(&fb->entries[k], &data, &len);
                    if (!d2) assert_non_null(data);
                    diag_free(&d2);
                    free(data);
                }
            }
            diag_free(&d);
            fatbin_free(&fb);
            free(buf);
        }
    free(orig);
}

static void fatbin__refuses_lz4__naming_the_older_nvcc(void **state) {
    (void)state;
    unsigned char buf[512];
    size_t n = make_plain(buf);
    buf[16 + 41] = 0x20; /* flags of the first entry: 0x2000, LZ4 */
    Fatbin *fb;
    assert_null(fatbin_parse(buf, n, &fb));
    assert_true(fb->entries[0].lz4);
    unsigned char *data;
    size_t len;
    Diag *d = fatbin_entry_data(&fb->entries[0], &data, &len);
    assert_non_null(d);
    assert_non_null(strstr(d->message, "LZ4"));
    assert_null(data);
    diag_free(&d);
    fatbin_free(&fb);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fatbin__gives_the_ptx__when_nvcc_compressed_it_with_zstd),
        cmocka_unit_test(fatbin__picks_the_highest_ptx_up_to_the_arch__when_there_are_several),
        cmocka_unit_test(fatbin__is_a_diag__when_not_a_fat_binary),
        cmocka_unit_test(fatbin__never_reads_past_the_buffer__when_truncated_or_scribbled),
        cmocka_unit_test(fatbin__refuses_lz4__naming_the_older_nvcc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
