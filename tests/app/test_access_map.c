/* tests/app/test_access_map.c: the access map drawn from synthetic warp
 * accesses: coalesced float loads (4 sectors, one line), a stride of two
 * (8 sectors, half of each used), a transpose's column (32 lines), float4
 * loads (16 sectors, indices in float4s), and shared memory with a 2-way
 * and a 32-way bank conflict and a broadcast (no conflict). Every line fits
 * 80 columns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/access_map.h"
#include "base/i18n.h"

#define BASE 0x7f0000000000ull

static const EmuTraceRegion REGIONS[] = {
    {"in", EMU_MEM_GLOBAL, BASE, 1 << 20, 4},
    {"out", EMU_MEM_GLOBAL, BASE + (2 << 20), 1 << 20, 4},
    {"tile", EMU_MEM_SHARED, 0, 32 * 33 * 4, 4},
};

/* Lane l at base + l * stride bytes, every lane active. */
static EmuTraceMem strided(int space, uint64_t base, int64_t stride, int width) {
    EmuTraceMem m;
    memset(&m, 0, sizeof m);
    m.space = (uint8_t)space;
    m.op = EMU_MEM_LOAD;
    m.width = (uint8_t)width;
    m.mask = 0xffffffffu;
    m.line = 7;
    for (int l = 0; l < 32; l++) m.addr[l] = base + (uint64_t)((int64_t)l * stride);
    return m;
}

static AccessMapText render(const EmuTraceMem *m, const char *src) {
    AccessMapInput in = {.mem = m, .regions = REGIONS, .n_regions = 3, .source = src, .warp = 0};
    AccessMapText t = {0};
    access_map_render(&t, &in, 80, false);
    for (int i = 0; i < t.n; i++) {
        if ((int)strlen(t.line[i]) > 80) fail_msg("line %d is %zu columns: %s", i, strlen(t.line[i]), t.line[i]);
    }
    return t;
}

/* The one-line summary of m. */
static bool summary_is(const EmuTraceMem *m, const char *want) {
    AccessMapInput in = {.mem = m, .regions = REGIONS, .n_regions = 3};
    char *s = access_map_summary(&in, false);
    bool ok = !strcmp(s, want);
    if (!ok) fprintf(stderr, "summary: %s\n   want: %s\n", s, want);
    free(s);
    return ok;
}

/* Whether some line of t contains s. */
static bool has(const AccessMapText *t, const char *s) {
    for (int i = 0; i < t->n; i++)
        if (strstr(t->line[i], s)) return true;
    return false;
}

/* Rows of the bank picture under the header of banks `first`..first+15. */
static int column_rows(const AccessMapText *t, int first) {
    char hdr[16];
    snprintf(hdr, sizeof hdr, "  bank %3d", first);
    int i = 0;
    while (i < t->n && strncmp(t->line[i], hdr, strlen(hdr))) i++;
    int n = 0;
    for (i++; i < t->n && (!strncmp(t->line[i], "  lane", 6) || !strncmp(t->line[i], "       ", 7)); i++) n++;
    return n;
}

/* Lines of t that contain s. */
static int count(const AccessMapText *t, const char *s) {
    int n = 0;
    for (int i = 0; i < t->n; i++)
        if (strstr(t->line[i], s)) n++;
    return n;
}

static void dump(const AccessMapText *t) {
    if (getenv("ACCESS_MAP_SHOW"))
        for (int i = 0; i < t->n; i++) printf("%s\n", t->line[i]);
}

static void coalesced_floats__take_4_sectors_in_one_line(void **state) {
    (void)state;
    EmuTraceMem m = strided(EMU_MEM_GLOBAL, BASE, 4, 4);
    AccessCost c;
    access_map_cost(&m, &c);
    assert_int_equal(c.sectors, 4);
    assert_int_equal(c.ideal, 4);
    assert_int_equal(c.lines, 1);
    AccessMapText t = render(&m, "    float v = in[i];");
    dump(&t);
    assert_true(has(&t, "line 7: float v = in[i];"));
    assert_true(has(&t, "4 sectors for 32 lanes x 4 bytes: ideal 4 -- consecutive elements"));
    assert_true(has(&t, "[0..31]  |########|########|########|########|  0-31"));
    assert_true(has(&t, "  31  31"));   /* lane 31 reads in[31] */
    access_map_text_fini(&t);
}

static void stride_two__takes_8_sectors_half_used(void **state) {
    (void)state;
    EmuTraceMem m = strided(EMU_MEM_GLOBAL, BASE, 8, 4);
    AccessMapText t = render(&m, NULL);
    dump(&t);
    assert_true(has(&t, "8 sectors for 32 lanes x 4 bytes: ideal 4 -- stride 2 elements (8 bytes)"));
    assert_true(has(&t, "  [0..31]   |#.#.#.#.|#.#.#.#.|#.#.#.#.|#.#.#.#.|  0-15"));
    assert_true(has(&t, "  [32..63]  |#.#.#.#.|#.#.#.#.|#.#.#.#.|#.#.#.#.|  16-31"));
    assert_true(has(&t, "  16  32"));   /* lane 16 reads in[32] */
    access_map_text_fini(&t);
}

static void transpose_column__touches_32_lines_one_sector_each(void **state) {
    (void)state;
    /* out[x * n + y] with n = 1024: lanes (consecutive x) 4 KiB apart */
    EmuTraceMem m = strided(EMU_MEM_GLOBAL, BASE + (2 << 20), 4096, 4);
    m.op = EMU_MEM_STORE;
    AccessCost c;
    access_map_cost(&m, &c);
    assert_int_equal(c.sectors, 32);
    assert_int_equal(c.lines, 32);
    AccessMapText t = render(&m, "out[x * n + y] = in[y * n + x];");
    dump(&t);
    assert_true(has(&t, "global store of 4 bytes per lane, out,"));
    assert_true(has(&t, "32 sectors for 32 lanes x 4 bytes: ideal 4 -- stride 1024 elements (4096 bytes)"));
    assert_int_equal(count(&t, "|#.......|        |        |        |"), 32);
    assert_true(has(&t, "[31744..31775]"));   /* lane 31's line */
    access_map_text_fini(&t);
}

static void float4_loads__take_16_sectors_indexed_in_float4s(void **state) {
    (void)state;
    EmuTraceMem m = strided(EMU_MEM_GLOBAL, BASE, 16, 16);
    AccessCost c;
    access_map_cost(&m, &c);
    assert_int_equal(c.sectors, 16);
    assert_int_equal(c.ideal, 16);
    assert_int_equal(c.lines, 4);
    AccessMapText t = render(&m, NULL);
    dump(&t);
    assert_true(has(&t, "16 sectors for 32 lanes x 16 bytes: ideal 16 -- consecutive elements"));
    assert_true(has(&t, "in (indices in 16-byte pieces)"));
    assert_true(has(&t, "  [0..7]    |########|########|########|########|  0-7"));
    assert_true(has(&t, "  [24..31]  |########|########|########|########|  24-31"));
    assert_true(has(&t, "  31  31"));   /* lane 31 reads float4 number 31 */
    access_map_text_fini(&t);
}

static void shared_stride_two__is_a_2_way_conflict(void **state) {
    (void)state;
    EmuTraceMem m = strided(EMU_MEM_SHARED, 0, 8, 4);
    AccessCost c;
    access_map_cost(&m, &c);
    assert_int_equal(c.degree, 2);
    assert_int_equal(c.wavefronts, 2);
    AccessMapText t = render(&m, "s[2 * tid] += s[2 * tid + 1];");
    dump(&t);
    assert_true(summary_is(&m, "2-way bank conflict: 2 wavefronts for 32 lanes x 4 bytes: ideal 1 -- stride 2 words"));
    /* bank 0 holds lanes 0 and 16 (words 0 and 32): a column two high */
    assert_true(has(&t, "  bank   0   1   2   3   4   5   6   7   8   9  10  11  12  13  14  15"));
    assert_true(has(&t, "  lane   0       1       2       3       4       5       6       7"));
    assert_true(has(&t, "        16      17      18      19      20      21      22      23"));
    assert_int_equal(column_rows(&t, 0), 2);
    assert_int_equal(column_rows(&t, 16), 2);
    assert_true(has(&t, "  16  32       0"));   /* lane 16: tile[32], bank 0 */
    access_map_text_fini(&t);
}

static void shared_column__is_a_32_way_conflict_in_one_bank(void **state) {
    (void)state;
    EmuTraceMem m = strided(EMU_MEM_SHARED, 0, 128, 4);   /* tile[lane][0] of float tile[32][32] */
    AccessCost c;
    access_map_cost(&m, &c);
    assert_int_equal(c.degree, 32);
    AccessMapText t = render(&m, NULL);
    dump(&t);
    assert_true(summary_is(&m, "32-way bank conflict: 32 wavefronts for 32 lanes x 4 bytes: ideal 1 -- stride 32 words"));
    assert_true(has(&t, "banks 16-31: no lane"));
    /* one column of 32 lanes under bank 0, nothing beside it */
    assert_true(has(&t, "  lane   0"));
    assert_true(has(&t, "        31"));
    assert_int_equal(column_rows(&t, 0), 32);
    access_map_text_fini(&t);
}

static void shared_broadcast__is_no_conflict(void **state) {
    (void)state;
    EmuTraceMem m = strided(EMU_MEM_SHARED, 64, 0, 4);   /* every lane reads tile[16] */
    AccessCost c;
    access_map_cost(&m, &c);
    assert_int_equal(c.degree, 1);
    assert_true(c.broadcast);
    AccessMapText t = render(&m, NULL);
    dump(&t);
    assert_true(summary_is(&m, "no bank conflict: 1 wavefront for 32 lanes x 4 bytes -- every lane the same address "
                               "(shared words are broadcast)"));
    assert_true(has(&t, "banks 0-15: no lane"));
    assert_true(has(&t, "  lane   0*"));   /* bank 16 (tile[16]): lane 0 and the others */
    assert_int_equal(column_rows(&t, 16), 1);
    assert_true(has(&t, "   0  16      16"));
    access_map_text_fini(&t);
}

static void inactive_lanes__are_left_out(void **state) {
    (void)state;
    EmuTraceMem m = strided(EMU_MEM_GLOBAL, BASE, 4, 4);
    m.mask = 0x0000ffffu;   /* a tail: 16 lanes */
    AccessCost c;
    access_map_cost(&m, &c);
    assert_int_equal(c.active, 16);
    assert_int_equal(c.sectors, 2);
    AccessMapText t = render(&m, NULL);
    dump(&t);
    assert_true(has(&t, "2 sectors for 16 lanes x 4 bytes: ideal 2"));
    assert_true(has(&t, "|########|########|        |        |  0-15"));
    assert_true(has(&t, "  31  -"));
    access_map_text_fini(&t);
}

int main(void) {
    i18n_set_chinese(false);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(coalesced_floats__take_4_sectors_in_one_line),
        cmocka_unit_test(stride_two__takes_8_sectors_half_used),
        cmocka_unit_test(transpose_column__touches_32_lines_one_sector_each),
        cmocka_unit_test(float4_loads__take_16_sectors_indexed_in_float4s),
        cmocka_unit_test(shared_stride_two__is_a_2_way_conflict),
        cmocka_unit_test(shared_column__is_a_32_way_conflict_in_one_bank),
        cmocka_unit_test(shared_broadcast__is_no_conflict),
        cmocka_unit_test(inactive_lanes__are_left_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
