/* tests/kernels/test_host_pool.c: the backends' pool of big host buffers
 * (kernels/host_pool.h) hands a given-back buffer out again (the smallest
 * idle one that fits, at most twice the size asked), keeps no more idle
 * bytes than its cap (the least recently given back go first), and frees
 * everything, idle or not, when it is freed. The alloc and free functions
 * here count what they do. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernels/host_pool.h"

#define MIB ((size_t)1 << 20)

typedef struct Counts {
    int allocs, frees;
    size_t live_bytes;
} Counts;

static void *count_alloc(void *ud, size_t bytes, bool *zeroed, int *tag) {
    Counts *c = ud;
    c->allocs++;
    c->live_bytes += bytes;
    *zeroed = true;
    *tag = 7;
    return calloc(bytes, 1);
}

static void count_free(void *ud, void *p, size_t bytes, int tag) {
    Counts *c = ud;
    assert_int_equal(tag, 7);   /* the alloc function's tag comes back */
    c->frees++;
    c->live_bytes -= bytes;
    free(p);
}

static void host_pool__hands_back_the_given_buffer_dirty__when_the_same_size_is_asked(void **state) {
    (void)state;
    Counts n = {0};
    HostPool *p = host_pool_new(64 * MIB, count_alloc, count_free, &n);
    bool zeroed = false;
    char *a = host_pool_take(p, 2 * MIB, &zeroed);
    assert_non_null(a);
    assert_true(zeroed);                       /* fresh from the alloc function */
    memset(a, 0x5a, 2 * MIB);
    host_pool_give(p, a);
    char *b = host_pool_take(p, 2 * MIB, &zeroed);
    assert_ptr_equal(a, b);                    /* reused, not made */
    assert_false(zeroed);                      /* and it says so: the caller clears it */
    assert_int_equal(b[2 * MIB - 1], 0x5a);
    assert_int_equal(n.allocs, 1);
    HostPoolStats st;
    host_pool_stats(p, &st);
    assert_int_equal(st.reused, 1);
    assert_int_equal(st.busy, 1);
    host_pool_give(p, b);
    host_pool_free(&p);
    assert_null(p);
    assert_int_equal(n.frees, 1);
    assert_int_equal(n.live_bytes, 0);
}

static void host_pool__picks_the_smallest_fit__and_never_one_over_twice_the_size(void **state) {
    (void)state;
    Counts n = {0};
    HostPool *p = host_pool_new(64 * MIB, count_alloc, count_free, &n);
    bool z;
    void *big = host_pool_take(p, 8 * MIB, &z), *mid = host_pool_take(p, 3 * MIB, &z);
    host_pool_give(p, big);
    host_pool_give(p, mid);
    assert_ptr_equal(host_pool_take(p, 2 * MIB, &z), mid);   /* 3 MiB fits 2 MiB; 8 MiB is over twice */
    void *fresh = host_pool_take(p, 2 * MIB, &z);             /* only the 8 MiB one is idle: too big */
    assert_true(fresh != big);
    assert_true(z);
    assert_int_equal(n.allocs, 3);
    host_pool_give(p, fresh);
    host_pool_give(p, mid);
    host_pool_free(&p);
    assert_int_equal(n.frees, 3);
    assert_int_equal(n.live_bytes, 0);
}

static void host_pool__frees_the_least_recently_given_back__when_idle_bytes_pass_the_cap(void **state) {
    (void)state;
    Counts n = {0};
    HostPool *p = host_pool_new(5 * MIB, count_alloc, count_free, &n);
    bool z;
    void *a = host_pool_take(p, 2 * MIB, &z), *b = host_pool_take(p, 2 * MIB, &z), *c = host_pool_take(p, 2 * MIB, &z);
    host_pool_give(p, b);   /* b first: the least recently given back */
    host_pool_give(p, a);
    assert_int_equal(n.frees, 0);
    host_pool_give(p, c);   /* 6 MiB idle > 5 MiB: b goes */
    assert_int_equal(n.frees, 1);
    HostPoolStats st;
    host_pool_stats(p, &st);
    assert_int_equal(st.idle_bytes, 4 * MIB);
    assert_true(st.idle_bytes <= st.cap);
    /* the two kept are a and c, not b */
    void *x = host_pool_take(p, 2 * MIB, &z), *y = host_pool_take(p, 2 * MIB, &z);
    assert_true((x == a && y == c) || (x == c && y == a));
    assert_int_equal(n.allocs, 3);
    host_pool_give(p, x);
    host_pool_give(p, y);
    host_pool_free(&p);
    assert_int_equal(n.live_bytes, 0);
}

static void host_pool__keeps_nothing__when_its_cap_is_zero(void **state) {
    (void)state;
    Counts n = {0};
    HostPool *p = host_pool_new(0, count_alloc, count_free, &n);
    bool z;
    void *a = host_pool_take(p, 2 * MIB, &z);
    host_pool_give(p, a);
    assert_int_equal(n.frees, 1);
    assert_int_equal(n.live_bytes, 0);
    host_pool_free(&p);
}

static void host_pool__frees_buffers_still_handed_out__when_freed(void **state) {
    (void)state;
    Counts n = {0};
    HostPool *p = host_pool_new(64 * MIB, count_alloc, count_free, &n);
    bool z;
    (void)host_pool_take(p, 2 * MIB, &z);
    host_pool_give(p, host_pool_take(p, 4 * MIB, &z));
    host_pool_free(&p);
    assert_int_equal(n.allocs, 2);
    assert_int_equal(n.frees, 2);
    assert_int_equal(n.live_bytes, 0);
}

static void host_pool__default_cap_follows_the_environment__else_a_quarter_of_ram_at_most_4_gib(void **state) {
    (void)state;
    setenv("CUDOJO_HOST_POOL_MB", "12", 1);
    assert_int_equal(host_pool_default_cap(), 12 * MIB);
    setenv("CUDOJO_HOST_POOL_MB", "0", 1);
    assert_int_equal(host_pool_default_cap(), 0);
    unsetenv("CUDOJO_HOST_POOL_MB");
    size_t cap = host_pool_default_cap();
    assert_true(cap > 0 && cap <= HOST_POOL_DEFAULT_CAP);
}

/* A grader's workers share a quarter of the memory between them. */
static void host_pool__share_cap_splits_a_quarter_of_ram__between_the_workers(void **state) {
    (void)state;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t quarter = (size_t)pages / 4 * (size_t)page;
    for (int n = 1; n <= 64; n *= 4) {
        size_t want = quarter / (size_t)n < HOST_POOL_DEFAULT_CAP ? quarter / (size_t)n : HOST_POOL_DEFAULT_CAP;
        assert_int_equal(host_pool_share_cap(n), want);
    }
    assert_true(host_pool_share_cap(64) * 64 <= quarter);
}

/* Pieces end on multiples of HOST_PIECE_BYTES in address, so a copy at
 * any offset into a buffer pinned in pieces has each of its pieces within
 * one pinned piece; they cover the range exactly. */
static void host_piece_len__ends_pieces_on_the_address_grid__and_covers_the_range(void **state) {
    (void)state;
    const uintptr_t P = HOST_PIECE_BYTES;
    assert_int_equal(host_piece_len(0, 3 * P), P);
    assert_int_equal(host_piece_len(P - 4096, 3 * P), 4096);            /* up to the next edge */
    assert_int_equal(host_piece_len(5 * P + 7, 100), 100);              /* less left than to the edge */
    assert_int_equal(host_piece_len(5 * P + 7, P), P - 7);
    assert_int_equal(host_piece_len(2 * P, 0), 0);
    /* a buffer at 0x7f..1000 of 2 GiB + 5 bytes, copied from offset 12345 */
    uintptr_t buf = (uintptr_t)0x7f0000001000ULL, from = buf + 12345;
    size_t bytes = ((size_t)2 << 30) + 5 - 12345, at = 0, n;
    int pieces = 0;
    for (; at < bytes; at += n, pieces++) {
        n = host_piece_len(from + at, bytes - at);
        assert_true(n > 0 && n <= P);
        /* within one piece of the buffer's own registration grid */
        assert_int_equal((from + at) / P, (from + at + n - 1) / P);
    }
    assert_int_equal(at, bytes);
    assert_in_range(pieces, ((size_t)2 << 30) / P, ((size_t)2 << 30) / P + 2);     /* 16-18 of 128 MiB */
}

/* The piece's size: 128 MiB, or CUDOJO_HOST_PIECE_MB when it is a whole
 * number of MiB from 1 to 4096 (host_piece_bytes reads it once). */
static void host_piece_bytes__follows_CUDOJO_HOST_PIECE_MB__else_128_mib(void **state) {
    (void)state;
    static const struct {
        const char *env;
        size_t mib;
    } cases[] = {{NULL, 128}, {"32", 32}, {"1", 1}, {"4096", 4096}, {"0", 128}, {"32k", 128},
                 {"-8", 128}, {" 8", 128}, {"+8", 128}, {"5000", 128}, {"", 128}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (host_piece_bytes_of(cases[i].env) != cases[i].mib << 20)
            fail_msg("'%s': %zu MiB, not %zu", cases[i].env ? cases[i].env : "(unset)",
                     host_piece_bytes_of(cases[i].env) >> 20, cases[i].mib);
    /* what the pieces use is what the environment says (HOST_PIECE_BYTES is host_piece_bytes()) */
    assert_int_equal(host_piece_bytes(), host_piece_bytes_of(getenv("CUDOJO_HOST_PIECE_MB")));
}

/* host_pool_populate makes every page of a fresh mapping (mincore: all
 * resident) and leaves them zero: pinning then finds them made. */
static void host_pool_populate__makes_every_page__and_leaves_them_zero(void **state) {
    (void)state;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = 64 * page + 5;
    size_t pages = (bytes + page - 1) / page;
    unsigned char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    unsigned char *in = calloc(pages, 1);
    assert_int_equal(mincore(p, bytes, in), 0);
    size_t before = 0, after = 0;
    for (size_t i = 0; i < pages; i++) before += in[i] & 1;
    assert_true(before < pages);    /* fresh: not all made yet */
    host_pool_populate(p, bytes);
    assert_int_equal(mincore(p, bytes, in), 0);
    for (size_t i = 0; i < pages; i++) after += in[i] & 1;
    assert_int_equal(after, pages);
    for (size_t i = 0; i < bytes; i++)
        if (p[i]) fail_msg("byte %zu is %d, not 0", i, p[i]);
    host_pool_populate(p, 0);       /* nothing to do */
    free(in);
    munmap(p, bytes);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(host_pool__hands_back_the_given_buffer_dirty__when_the_same_size_is_asked),
        cmocka_unit_test(host_pool__picks_the_smallest_fit__and_never_one_over_twice_the_size),
        cmocka_unit_test(host_pool__frees_the_least_recently_given_back__when_idle_bytes_pass_the_cap),
        cmocka_unit_test(host_pool__keeps_nothing__when_its_cap_is_zero),
        cmocka_unit_test(host_pool__frees_buffers_still_handed_out__when_freed),
        cmocka_unit_test(host_pool__default_cap_follows_the_environment__else_a_quarter_of_ram_at_most_4_gib),
        cmocka_unit_test(host_pool__share_cap_splits_a_quarter_of_ram__between_the_workers),
        cmocka_unit_test(host_piece_len__ends_pieces_on_the_address_grid__and_covers_the_range),
        cmocka_unit_test(host_piece_bytes__follows_CUDOJO_HOST_PIECE_MB__else_128_mib),
        cmocka_unit_test(host_pool_populate__makes_every_page__and_leaves_them_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
