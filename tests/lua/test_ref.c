/* tests/lua/test_ref.c: the C references give the answers a CPU loop
 * would, at the dtypes exercises use. Each case is a Lua snippet run in
 * the sandbox with the gpu and ref modules (host-only arrays). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lua/api.h"
#include "lua/sandbox.h"

static void run_lua(const char *code) {
    Sandbox *sb = sandbox_new(NULL);
    api_install(sb);
    Diag *d = sandbox_load_string(sb, code, strlen(code), "lessons/test/ref.lua");
    if (!d) d = sandbox_call(sb, 0, 0);
    if (d) {
        char *s = diag_format_all(d, false);
        diag_free(&d);
        sandbox_free(&sb);
        fail_msg("%s", s);
    }
    sandbox_free(&sb);
}

static void ref__add_axpy_scale(void **state) {
    (void)state;
    run_lua("local a = gpu.array('f32', 5):iota(1)\n"
            "local b = gpu.array('f32', 5):fill(0.5)\n"
            "local c = ref.add(a, b)\n"
            "assert(c.dtype == 'f32' and #c == 5)\n"
            "for i = 0, 4 do assert(c[i] == i + 1.5, 'add ' .. i) end\n"
            "local y = ref.axpy(2, a, b)\n"
            "for i = 0, 4 do assert(y[i] == 2 * (i + 1) + 0.5, 'axpy ' .. i) end\n"
            "local s = ref.scale(a, -3)\n"
            "assert(s[4] == -15)\n"
            "local ia = gpu.array('i32', 2):set{ 2147483647, 1 }\n"
            "local ib = gpu.array('i32', 2):set{ 1, 1 }\n"
            "assert(ref.add(ia, ib)[0] == -2147483648, 'i32 add wraps like the GPU')\n"
            "assert(not pcall(ref.add, a, gpu.array('f32', 4)), 'length mismatch is an error')\n");
}

static void ref__sum_dot_exact_enough(void **state) {
    (void)state;
    run_lua("local n = 1000000\n"
            "local a = gpu.array('f32', n):iota(1)\n"
            "assert(ref.sum(a) == n * (n + 1) / 2, 'sum ' .. ref.sum(a))\n"
            "local x = gpu.array('f64', 3):set{ 1e100, 1, -1e100 }\n"
            "assert(ref.sum(x) == 1, 'compensated sum ' .. ref.sum(x))\n"
            "local i = gpu.array('i64', 3):set{ 1 << 62, 1 << 62, -(1 << 62) }\n"
            "assert(ref.sum(i) == 1 << 62 and math.type(ref.sum(i)) == 'integer')\n"
            "local b = gpu.array('f32', n):fill(2)\n"
            "assert(ref.dot(a, b) == n * (n + 1), 'dot')\n");
}

static void ref__matmul_row_major(void **state) {
    (void)state;
    run_lua("local A = gpu.array('f32', {2, 3}):set{ {1, 2, 3}, {4, 5, 6} }\n"
            "local B = gpu.array('f32', {3, 2}):set{ {7, 8}, {9, 10}, {11, 12} }\n"
            "local C = ref.matmul(A, B)\n"
            "assert(C.shape[1] == 2 and C.shape[2] == 2)\n"
            "assert(C[0] == 58 and C[1] == 64 and C[2] == 139 and C[3] == 154)\n"
            "local A1 = gpu.array('f32', 6):iota(1)\n"
            "local C1 = ref.matmul(A1, B, 2, 2, 3)\n"
            "assert(C1[3] == 154)\n"
            "assert(not pcall(ref.matmul, A1, B, 3, 2, 3), 'bad sizes are an error')\n"
            "local n = 256\n"
            "local X = gpu.array('f32', {n, n}):random{ seed = 1 }\n"
            "local I = gpu.array('f32', {n, n})\n"
            "for k = 0, n - 1 do I[k * n + k] = 1 end\n"
            "local Y = ref.matmul(X, I)\n"
            "for k = 0, n * n - 1, 97 do assert(Y[k] == X[k], 'identity') end\n");
}

static void ref__transpose(void **state) {
    (void)state;
    run_lua("local a = gpu.array('i16', {2, 3}):iota()\n"
            "local t = ref.transpose(a)\n"
            "assert(t.shape[1] == 3 and t.shape[2] == 2)\n"
            "local want = { 0, 3, 1, 4, 2, 5 }\n"
            "for i = 0, 5 do assert(t[i] == want[i + 1], 'transpose ' .. i) end\n"
            "local b = ref.transpose(gpu.array('f64', 6):iota(), 3, 2)\n"
            "assert(b[1] == 2 and b[3] == 1 and b[5] == 5)\n");
}

static void ref__histogram(void **state) {
    (void)state;
    run_lua("local a = gpu.array('u8', 10):set{ 0, 1, 1, 255, 3, 3, 3, 200, 7, 7 }\n"
            "local h = ref.histogram(a, 256)\n"
            "assert(h.dtype == 'u32' and #h == 256)\n"
            "assert(h[0] == 1 and h[1] == 2 and h[3] == 3 and h[7] == 2 and h[200] == 1 and h[255] == 1)\n"
            "local f = gpu.array('f32', 4):set{ -1, 0.1, 0.5, 0.99 }\n"
            "local hf = ref.histogram(f, 2, 0, 1)\n"
            "assert(hf[0] == 1 and hf[1] == 2, 'values outside [lo, hi) are ignored')\n"
            "local x = gpu.array('i32', 100):iota()\n"
            "local hx = ref.histogram(x, 10, 0, 100)\n"
            "for b = 0, 9 do assert(hx[b] == 10, 'bin ' .. b .. ' = ' .. hx[b]) end\n");
}

static void ref__scan_inclusive_exclusive(void **state) {
    (void)state;
    run_lua("local a = gpu.array('i32', 5):set{ 3, 1, 4, 1, 5 }\n"
            "local inc = ref.scan(a)\n"
            "local exc = ref.scan(a, { inclusive = false })\n"
            "local wi, we = { 3, 4, 8, 9, 14 }, { 0, 3, 4, 8, 9 }\n"
            "for i = 0, 4 do assert(inc[i] == wi[i + 1] and exc[i] == we[i + 1], 'scan ' .. i) end\n"
            "local u = gpu.array('u32', 2):set{ 4294967295, 2 }\n"
            "assert(ref.scan(u)[1] == 1, 'u32 scan wraps')\n"
            "local f = ref.scan(gpu.array('f32', 1000):fill(0.1))\n"
            "assert(math.abs(f[999] - 100) < 1e-4)\n");
}

static void ref__scan_restarts_at_every_segment(void **state) {
    (void)state;
    run_lua("local a = gpu.array('i32', 7):set{ 3, 1, 4, 1, 5, 9, 2 }\n"
            "local inc, exc = ref.scan(a, { segment = 3 }), ref.scan(a, { segment = 3, exclusive = true })\n"
            "local wi, we = { 3, 4, 8, 1, 6, 15, 2 }, { 0, 3, 4, 0, 1, 6, 0 }\n"
            "for i = 0, 6 do assert(inc[i] == wi[i + 1] and exc[i] == we[i + 1], 'segmented scan ' .. i) end\n"
            "assert(not pcall(ref.scan, a, { segment = 0 }), 'segment 0 is an error')\n"
            /* across the C blocks of 2^16 elements and the cores: segments that divide them, that do
             * not, and one longer than a block */
            "local n = 300007\n"
            "local x = gpu.array('i32', n):random{ lo = -50, hi = 50, seed = 3 }\n"
            "local f = gpu.array('f32', n):random{ lo = -1, hi = 1, seed = 4 }\n"
            "for _, seg in ipairs{ 1000, 70001 } do\n"
            "  local sx, sf = ref.scan(x, { segment = seg }), ref.scan(f, { segment = seg, exclusive = true })\n"
            "  local s, e = 0, 0.0\n"
            "  for i = 0, n - 1 do\n"
            "    if i % seg == 0 then s, e = 0, 0.0 end\n"
            "    s = s + x[i]\n"
            "    assert(sx[i] == s, 'segment ' .. seg .. ' at ' .. i .. ': ' .. sx[i] .. ' vs ' .. s)\n"
            "    assert(math.abs(sf[i] - e) <= 1e-5 * (1 + math.abs(e)), 'f32 segment ' .. seg .. ' at ' .. i)\n"
            "    e = e + f[i]\n"
            "  end\n"
            "end\n");
}

/* ref.reverse: the whole array, or within runs of `segment` (the last
 * run shorter), the dtype kept; a bad segment is refused. */
static void ref__reverse_whole_and_by_segment(void **state) {
    (void)state;
    run_lua("local x = gpu.array('i32', 10):iota()\n"
            "local r = ref.reverse(x)\n"
            "for i = 0, 9 do assert(r[i] == 9 - i, 'whole ' .. i) end\n"
            "local s = ref.reverse(x, { segment = 4 })\n"
            "local want = { 3, 2, 1, 0, 7, 6, 5, 4, 9, 8 }\n"
            "for i = 0, 9 do assert(s[i] == want[i + 1], 'segment ' .. i .. ': ' .. s[i]) end\n"
            "assert(s.dtype == 'i32')\n"
            "local f = gpu.array('f64', 600001):random{ seed = 2 }\n"
            "local fr = ref.reverse(f, { segment = 256 })\n"
            "for _, i in ipairs{ 0, 255, 256, 599807, 600000 } do\n"
            "  local base = i // 256 * 256\n"
            "  local count = math.min(256, 600001 - base)\n"
            "  assert(fr[i] == f[base + count - 1 - (i - base)], 'large ' .. i)\n"
            "end\n"
            "assert(ref.reverse(x, { segment = 99 })[0] == 9, 'a segment past the end: the whole array')\n"
            "assert(not pcall(ref.reverse, x, { segment = 0 }))\n"
            "assert(not pcall(ref.reverse, x, 4))\n");
}

static void ref__sort(void **state) {
    (void)state;
    run_lua("local a = gpu.array('f32', 1000):random{ lo = -5, hi = 5, seed = 9 }\n"
            "local s = ref.sort(a)\n"
            "for i = 1, 999 do assert(s[i - 1] <= s[i], 'sorted at ' .. i) end\n"
            "assert(ref.sum(s) == ref.sum(a))\n"
            "local u = ref.sort(gpu.array('u64', 3):set{ 3, 1, 2 })\n"
            "assert(u[0] == 1 and u[2] == 3)\n"
            "local n = ref.sort(gpu.array('i8', 3):set{ 5, -7, 0 })\n"
            "assert(n[0] == -7 and n[1] == 0)\n");
}

static void ref__map_block_sums_minmax(void **state) {
    (void)state;
    run_lua("local a = gpu.array('f32', 10):iota()\n"
            "local m = ref.map(a, function(x, i) return x * x + i end)\n"
            "assert(m[3] == 12 and m.dtype == 'f32')\n"
            "local mi = ref.map(a, function(x) return math.floor(x) // 2 end, 'i32')\n"
            "assert(mi.dtype == 'i32' and mi[9] == 4)\n"
            "assert(not pcall(ref.map, a, function(x) return x / 3 end, 'i32'), 'fractions into i32')\n"
            "local bs = ref.block_sums(gpu.array('i32', 10):fill(1), 4)\n"
            "assert(#bs == 3 and bs[0] == 4 and bs[2] == 2)\n"
            "assert(ref.max(a) == 9 and ref.min(a) == 0)\n");
}

/* Past PAR_MIN_ELEMS the references run on every core in fixed blocks;
 * each must still give what one plain loop gives, and a:random the same
 * data as splitmix64 stepped once per element. */
static void ref__large_arrays_on_every_core_give_what_one_loop_gives(void **state) {
    (void)state;
    run_lua("local n = 600001\n"
            "local x = gpu.array('i32', n):random{ lo = -50, hi = 50, seed = 5 }\n"
            "local function mix(s)\n"
            "  local z = s\n"
            "  z = (z ~ (z >> 30)) * -4658895280553007687\n"
            "  z = (z ~ (z >> 27)) * -7723592293110705685\n"
            "  return z ~ (z >> 31)\n"
            "end\n"
            "local g = -7046029254386353131\n"
            "for _, i in ipairs{ 0, 1, 262143, 262144, 300000, n - 1 } do\n"
            "  local r = mix(5 + (i + 1) * g)\n"
            "  local v = -50 + (((r >> 1) % 101) * 2 + (r & 1)) % 101\n"
            "  assert(x[i] == v, 'random element ' .. i .. ': ' .. x[i] .. ' vs ' .. v)\n"
            "end\n"
            "for _, c in ipairs{ { 0, 2, 11 }, { -1099511627776, 1099511627776, 12 }, { 0, 1000000000000036, 13 } } do\n"
            "  local lo, span = c[1], c[2] - c[1] + 1\n"
            "  local y = gpu.array('i64', n):random{ lo = c[1], hi = c[2], seed = c[3] }\n"
            "  for _, i in ipairs{ 0, 1, 777, 262144, 300001, n - 1 } do\n"
            "    local r = mix(c[3] + (i + 1) * g)\n"
            "    assert(y[i] == lo + (((r >> 1) % span) * 2 + (r & 1)) % span, 'i64 random element ' .. i)\n"
            "  end\n"
            "end\n"
            "local sc, ex = ref.scan(x), ref.scan(x, { exclusive = true })\n"
            "local s = 0\n"
            "for i = 0, n - 1 do\n"
            "  assert(ex[i] == s, 'exclusive scan at ' .. i)\n"
            "  s = s + x[i]\n"
            "  assert(sc[i] == s, 'inclusive scan at ' .. i)\n"
            "end\n"
            "assert(ref.sum(x) == s, 'integer sum')\n"
            "local f = gpu.array('f32', n):random{ seed = 9 }\n"
            "local d = gpu.array('f64', n):random{ seed = 9 }\n"
            "local fr = gpu.array('f32', n):random{ lo = -3, hi = 2.5, seed = 4 }\n"
            "local dr = gpu.array('f64', n):random{ lo = -3, hi = 2.5, seed = 4 }\n"
            "for _, i in ipairs{ 0, 1, 4095, 4096, 262144, 300000, n - 1 } do\n"
            "  local r = mix(9 + (i + 1) * g)\n"
            "  assert(d[i] == (r >> 11) * 0x1.0p-53, 'f64 random element ' .. i)\n"
            "  assert(f[i] == gpu.round_f32(d[i]), 'f32 random element ' .. i .. ': the f64 one rounded once')\n"
            "  assert(fr[i] == gpu.round_f32(dr[i]) and fr[i] >= -3 and fr[i] < 2.5, 'f32 in [lo, hi) ' .. i)\n"
            "end\n"
            "local fs = 0\n"
            "for i = 0, n - 1 do fs = fs + f[i] end\n"
            "assert(math.abs(ref.sum(f) - fs) < 1e-6 * fs, 'float sum')\n"
            "local fsc = ref.scan(f)\n"
            "assert(math.abs(fsc[n - 1] - fs) < 1e-6 * fs and fsc[0] == f[0], 'float scan')\n"
            "local b = gpu.array('u8', n):random{ lo = 0, hi = 255, seed = 7 }\n"
            "local h, want = ref.histogram(b, 256), {}\n"
            "for i = 0, n - 1 do want[b[i]] = (want[b[i]] or 0) + 1 end\n"
            "for v = 0, 255 do assert(h[v] == (want[v] or 0), 'histogram bin ' .. v) end\n"
            "local h4 = ref.histogram(b, 4, 0, 256)\n"
            "assert(h4[0] + h4[1] + h4[2] + h4[3] == n, 'every byte in one of 4 bins')\n"
            "f[0] = 0.5; f[400000] = 0 / 0; f[500000] = 7; f[500001] = 7; f[300000] = -3\n"
            "assert(ref.max(f) == 7 and ref.min(f) == -3, 'max/min skip a NaN past the first element')\n"
            "f[0] = 0 / 0\n"
            "assert(ref.max(f) ~= ref.max(f), 'a NaN first stays the answer')\n"
            "local m = gpu.array('f32', { 700, 900 }):random{ seed = 3 }\n"
            "local mt = ref.transpose(m)\n"
            "assert(mt.shape[1] == 900 and mt.shape[2] == 700)\n"
            "for _, p in ipairs{ { 0, 0 }, { 699, 899 }, { 350, 17 }, { 31, 32 }, { 500, 640 } } do\n"
            "  assert(mt[p[2] * 700 + p[1]] == m[p[1] * 900 + p[2]], 'transpose ' .. p[1] .. ',' .. p[2])\n"
            "end\n"
            "local bs = ref.block_sums(x, 1000)\n"
            "local t = 0\n"
            "for i = 0, 999 do t = t + x[599000 + i] end\n"
            "assert(#bs == 601 and bs[599] == t and bs[600] == x[n - 1], 'block sums')\n"
            "local y = gpu.array('i32', n):random{ seed = 8 }\n"
            "local sum = ref.add(x, y)\n"
            "for _, i in ipairs{ 0, 300000, n - 1 } do assert(sum[i] == x[i] + y[i], 'add ' .. i) end\n");
}

/* ref.window, ref.cast and grouped block sums give what the Lua loops they
 * replace in the lessons gave (box blur, median of 5, weighted stencil). */
static void ref__window_cast_grouped_block_sums(void **state) {
    (void)state;
    run_lua("local w, h = 7, 5\n"
            "local img = gpu.array('f32', { h, w }):random{ lo = -1, hi = 1, seed = 11 }\n"
            "local blur = ref.window(img, { 1, 1 }, 'mean')\n"
            "for y = 0, h - 1 do for x = 0, w - 1 do\n"
            "  local s, c = 0.0, 0\n"
            "  for yy = math.max(y - 1, 0), math.min(y + 1, h - 1) do\n"
            "    for xx = math.max(x - 1, 0), math.min(x + 1, w - 1) do s = s + img[yy * w + xx]; c = c + 1 end\n"
            "  end\n"
            "  assert(blur[y * w + x] == gpu.round_f32(s / c), 'mean at ' .. y .. ',' .. x)\n"
            "end end\n"
            "local n = 50\n"
            "local x = gpu.array('f32', n):random{ lo = -5, hi = 5, seed = 2 }\n"
            "x[7] = x[8]\n"
            "local med = ref.window(x, 2, 'median', { boundary = 'clamp' })\n"
            "for i = 0, n - 1 do\n"
            "  local v = {}\n"
            "  for d = -2, 2 do v[#v + 1] = x[math.min(math.max(i + d, 0), n - 1)] end\n"
            "  table.sort(v)\n"
            "  assert(med[i] == v[3], 'median at ' .. i)\n"
            "end\n"
            "local st = ref.window(x, 3, { 1, 2, 3, 4, 3, 2, 1 }, { scale = 1 / 16 })\n"
            "for i = 0, n - 1 do\n"
            "  local s = 0.0\n"
            "  for j = -3, 3 do if i + j >= 0 and i + j < n then s = s + (4 - math.abs(j)) * x[i + j] end end\n"
            "  assert(st[i] == gpu.round_f32(s / 16), 'weighted at ' .. i)\n"
            "end\n"
            "assert(ref.window(x, 1, 'max')[0] == math.max(x[0], x[1]), 'max of the two there are at the edge')\n"
            "assert(not pcall(ref.window, x, 1, { 1, 1 }), 'weights must match the window')\n"
            "assert(not pcall(ref.window, x, 1, 'sum', { bondary = 'clamp' }), 'unknown option')\n"
            "local ints = gpu.array('i32', 4):set{ 1, -2, 3, 16777217 }\n"
            "local f = ref.cast(ints, 'f32')\n"
            "assert(f.dtype == 'f32' and f[1] == -2 and f[3] == 16777216, 'cast rounds once to f32')\n"
            "assert(ref.cast(gpu.array('i64', 1):set{ 300 }, 'u8')[0] == 44, 'integer casts wrap')\n"
            "local m = gpu.array('f32', 1000):random{ lo = -1, hi = 1, seed = 9 }\n"
            "local g = ref.block_sums(m, 16, { groups = 5, dtype = 'f64' })\n"
            "local a = ref.block_sums(m, 16, { groups = 5, abs = true, dtype = 'f64' })\n"
            "local want, size = { 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 }\n"
            "for i = 0, 999 do local b = (i % 80) // 16 + 1; want[b] = want[b] + m[i]; size[b] = size[b] + math.abs(m[i]) end\n"
            "for b = 1, 5 do assert(g[b - 1] == want[b] and a[b - 1] == size[b], 'group ' .. b) end\n");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ref__add_axpy_scale),
        cmocka_unit_test(ref__sum_dot_exact_enough),
        cmocka_unit_test(ref__matmul_row_major),
        cmocka_unit_test(ref__transpose),
        cmocka_unit_test(ref__histogram),
        cmocka_unit_test(ref__scan_inclusive_exclusive),
        cmocka_unit_test(ref__scan_restarts_at_every_segment),
        cmocka_unit_test(ref__reverse_whole_and_by_segment),
        cmocka_unit_test(ref__sort),
        cmocka_unit_test(ref__map_block_sums_minmax),
        cmocka_unit_test(ref__large_arrays_on_every_core_give_what_one_loop_gives),
        cmocka_unit_test(ref__window_cast_grouped_block_sums),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
