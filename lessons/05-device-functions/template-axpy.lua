-- template-axpy: one template kernel instantiated for float, double and int.
-- The double check is tight (1e-13) and the ints reach 2^28 and are negative
-- too, so computing in float fails both; 10007 elements (a partial last block).
return {
  id = "template-axpy",
  title = "Templates over the element type",
  title_zh = "按元素类型写模板",
  source = "template-axpy.cu",
  solution = "solutions/template-axpy.cu",
  wrong = {
    "solutions/wrong/template-axpy-float-literal.cu",
    "solutions/wrong/template-axpy-no-guard.cu",
  },
  hints = {
    "Inside a template, write the arithmetic with T only: a * x[i] + y[i] is already of "
      .. "type T when a, x[i] and y[i] are. Any float in the expression drags the other "
      .. "types through float.",
    "The whole body is: if (i < n) y[i] = a * x[i] + y[i]; No casts are needed.",
  },
  hints_zh = {
    "模板里的运算只用 T：a、x[i]、y[i] 都是 T 类型时，a * x[i] + y[i] 本身就是 T 类型。表达式里出现任何 float，都会把其他类型拖进 float 计算。",
    "整个函数体就是：if (i < n) y[i] = a * x[i] + y[i]; 不需要任何类型转换。",
  },
  run = function(t)
    local n = t:param("n", 10007)
    local grid, block = (n + 255) // 256, 256

    -- float. On a GPU (no bounds checks) x and y get a guard zone past n, y's
    -- filled with a sentinel that a guarded kernel leaves alone.
    local guard = 0
    if t:device().backend ~= "emu" then guard = 256 end
    local xf = gpu.array("f32", n + guard, "x"):random{ lo = -4, hi = 4, seed = 101 }
    local yf = gpu.array("f32", n + guard, "y"):random{ lo = -4, hi = 4, seed = 102 }
    for i = n, n + guard - 1 do yf[i] = -999.0 end
    local want = ref.axpy(1.5, xf, yf)
    for i = n, n + guard - 1 do want[i] = -999.0 end
    t:kernel("axpy", { template = "axpy<float>" }):launch{
      grid = grid, block = block, args = { gpu.f32(1.5), xf, yf, gpu.i32(n) } }
    t:expect_close(yf, want, { rel = 1e-6, abs = 1e-6, name = "y (axpy<float>)" })

    -- double: an a that float cannot hold exactly
    local a = 1.0 / 3.0
    local xd = gpu.array("f64", n, "x"):random{ lo = -4, hi = 4, seed = 103 }
    local yd = gpu.array("f64", n, "y"):random{ lo = -4, hi = 4, seed = 104 }
    want = ref.axpy(a, xd, yd)
    t:kernel("axpy", { template = "axpy<double>" }):launch{
      grid = grid, block = block, args = { gpu.f64(a), xd, yd, gpu.i32(n) } }
    t:expect_close(yd, want, { rel = 1e-13, abs = 1e-13, name = "y (axpy<double>)" })

    -- int: values far beyond float's 24-bit mantissa, negative too
    local xi = gpu.array("i32", n, "x"):random{ lo = -(1 << 26), hi = 1 << 26, seed = 105 }
    local yi = gpu.array("i32", n, "y"):random{ lo = -(1 << 28), hi = 1 << 28, seed = 106 }
    want = ref.map(xi, function(v, i) return 3 * v + yi[i] end, "i32")
    t:kernel("axpy", { template = "axpy<int>" }):launch{
      grid = grid, block = block, args = { gpu.i32(3), xi, yi, gpu.i32(n) } }
    t:expect_equal(yi, want, { name = "y (axpy<int>)" })
  end,
}
