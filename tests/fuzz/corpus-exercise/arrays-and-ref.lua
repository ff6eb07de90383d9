return {
  id = "ex", title = "Arrays and ref", source = "ex.cu", hints = { "a", "b" },
  run = function(t)
    local n = t:param("n", 100)
    local x = gpu.array("f32", n):iota(1, 0.5)
    local y = gpu.array("f32", n):random{ lo = -1, hi = 1, seed = 3 }
    local m = gpu.array("f64", { 4, 5 }):fill(2)
    local b = gpu.array("u8", 16):set{ 1, 2, 3 }
    local s = ref.add(x, y)
    t:expect_close(ref.axpy(2, x, y), ref.add(ref.scale(x, 2), y), { rel = 1e-6 })
    t:expect_equal(ref.transpose(ref.transpose(m)), m, { name = "tt" })
    t:expect(ref.sum(b) == 6, "sum")
    t:expect(#ref.histogram(b, 4, 0, 4) == 4, "bins")
    t:expect_equal(ref.sort(ref.map(b, function(v, i) return 16 - i end)), ref.map(b, function(v, i) return i + 1 end))
    t:expect_equal(ref.scan(b, { inclusive = false }), ref.scan(b, { exclusive = true }))
    t:expect(#ref.block_sums(x, 10) == 10, "blocks")
    t:expect(ref.dot(x, x) > 0 and ref.max(x) >= ref.min(x), "dot")
    t:log("x[3] = %g, #s = %d, shape = %d", x[3], #s, m.shape[2])
    t:metric("first", s[0], "units")
    local c = x:copy():named("c")
    c[0] = 7
    t:expect(c:to_table()[1] == 7, "copy")
  end,
}
