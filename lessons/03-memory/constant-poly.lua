-- constant-poly: a polynomial whose coefficients reach the kernel as
-- compile-time definitions (-DNCOEF, -DCOEFFS) and must be kept in
-- __constant__ memory. Two polynomials (degree 5 and 8) on 40001 values in
-- [-1.5, 1.5), so copied numbers or a reversed Horner loop fail.
return {
  id = "constant-poly",
  title = "__constant__ coefficients: a polynomial",
  title_zh = "__constant__ 系数：多项式求值",
  source = "constant-poly.cu",
  solution = "solutions/constant-poly.cu",
  wrong = {
    "solutions/wrong/constant-poly-reversed.cu",
    "solutions/wrong/constant-poly-hardcoded.cu",
  },
  hints = {
    "At file scope (outside the kernel): __constant__ float coef[NCOEF] = { COEFFS }; "
      .. "NCOEF and COEFFS are macros the exercise defines when it compiles your file.",
    "Horner's rule: float acc = coef[NCOEF - 1]; for (int k = NCOEF - 2; k >= 0; k--) "
      .. "acc = acc * v + coef[k]; It needs no pow() and rounds less than summing powers.",
  },
  hints_zh = {
    "在文件作用域（核函数之外）写：__constant__ float coef[NCOEF] = { COEFFS }; NCOEF 和 COEFFS 是练习编译你的文件时定义的宏。",
    "霍纳法则：float acc = coef[NCOEF - 1]; for (int k = NCOEF - 2; k >= 0; k--) acc = acc * v + coef[k]; 不需要 pow()，舍入误差也比逐项求幂再相加小。",
  },
  run = function(t)
    local n = t:param("n", 40001)
    local polys = {
      { 0.5, -1.0, 0.25, 2.0, -0.75, 0.125 },
      { -2.0, 0.0, 1.5, -0.5, 0.0, 0.25, 1.0, -0.375, 0.0625 },
    }
    local x = gpu.array("f32", n, "x"):random{ lo = -1.5, hi = 1.5, seed = 71 }
    for pi, c in ipairs(polys) do
      local list = {}
      for j, v in ipairs(c) do list[j] = string.format("%.9ef", v) end
      local k = t:kernel("poly", { defines = { NCOEF = #c, COEFFS = table.concat(list, ",") } })
      local y = gpu.array("f32", n, "y")
      k:launch{ grid = (n + 255) // 256, block = 256, args = { x, y, gpu.i32(n) } }
      local want = ref.map(x, function(v)
        local acc = 0.0
        for j = #c, 1, -1 do acc = acc * v + c[j] end
        return acc
      end, "f32")
      t:expect_close(y, want, { rel = 1e-5, abs = 1e-5,
                                name = string.format("y (polynomial %d, degree %d)", pi, #c - 1) })
    end
  end,
}
