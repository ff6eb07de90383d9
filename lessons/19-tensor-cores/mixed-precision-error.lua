-- mixed-precision-error: the learner measures a tensor-core GEMM's error
-- against FP32 and names its source. Checks: round_to_half equals rounding
-- to the nearest half (ties to even) for every input, and answer() names
-- source 1 (the inputs' rounding). Logged: the three errors that show it.
-- Emulator 64^3, GPU 512^3. Also checked: the given wmma_gemm's C is within
-- float rounding of the FP32 product of the rounded inputs (a broken given
-- kernel would make the logged errors meaningless), and the element-wise
-- kernels run in blocks of 224, so their last block is partial (S * S is a
-- multiple of 256) and the guard `i < n` is met.
local wmma = require("wmma_common")   -- the half-precision copies, wmma.BLOCK
local BLOCK = wmma.BLOCK

-- x rounded to the nearest half-precision number (ties to even), as a Lua number.
local function to_half(x)
  if x == 0 then return x end
  local a = math.abs(x)
  local e = math.floor(math.log(a, 2))
  if 2.0 ^ e > a then e = e - 1 elseif 2.0 ^ (e + 1) <= a then e = e + 1 end
  if e < -14 then e = -14 end
  local q = 2.0 ^ (e - 10)
  local m = a / q
  local r = math.floor(m + 0.5)
  if r - m == 0.5 and r % 2 == 1 then r = r - 1 end
  return (x < 0 and -1 or 1) * r * q
end

local function max_abs_diff(x, y)
  local d = 0
  for i = 0, #x - 1 do d = math.max(d, math.abs(x[i] - y[i])) end
  return d
end

return {
  id = "mixed-precision-error",
  title = "Mixed precision: measure the error",
  title_zh = "混合精度：测量误差",
  source = "mixed-precision-error.cu",
  solution = "solutions/mixed-precision-error.cu",
  wrong = {
    "solutions/wrong/mixed-precision-error-truncate.cu",
    "solutions/wrong/mixed-precision-error-blames-adds.cu",
  },
  hints = {
    "Rounding a float to half and back is two conversions: __float2half rounds to the nearest "
      .. "half, __half2float widens it again exactly. Run it and read the three errors the test logs.",
    "y[i] = __half2float(__float2half(x[i])); the product of the rounded inputs in FP32 is about "
      .. "as far from the FP32 answer as the tensor cores' result is, and the tensor cores' result "
      .. "is much closer to it: the rounding of the inputs is the error (answer 1).",
  },
  hints_zh = {
    "把 float 舍入成 half 再转回来，就是两次转换：__float2half 舍入到最近的 half，"
      .. "__half2float 再精确地转回 float。运行一次，看测试输出的三个误差。",
    "y[i] = __half2float(__float2half(x[i]))；用舍入后的输入做 FP32 乘法，离 FP32 的答案"
      .. "和张量核心的结果一样远，而张量核心的结果离它近得多：误差来自输入的舍入（答案 1）。",
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local S = on_gpu and 512 or 64
    local A = gpu.array("f32", { S, S }, "A"):random{ lo = -1, hi = 1, seed = t:seed(195) }
    local B = gpu.array("f32", { S, S }, "B"):random{ lo = -1, hi = 1, seed = t:seed(196) }
    local n = S * S
    local RA, RB = gpu.array("f32", { S, S }, "A_rounded"), gpu.array("f32", { S, S }, "B_rounded")
    local grid = (n + BLOCK - 1) // BLOCK
    local rk = t:kernel("round_to_half")
    rk:launch{ grid = grid, block = BLOCK, args = { A, RA, gpu.i32(n) } }
    rk:launch{ grid = grid, block = BLOCK, args = { B, RB, gpu.i32(n) } }
    if not t:expect_equal(RA, ref.map(A, function(x) return to_half(x) end),
                          { name = "round_to_half(A)" }) then
      return
    end

    local Ah, Bh = wmma.halves(t, A, B)
    local Ctc = gpu.array("f32", { S, S }, "C_tensor")
    t:kernel("wmma_gemm"):launch{ grid = { S // 16, S // 16 }, block = 32,
                                   args = { Ah, Bh, Ctc, gpu.i32(S), gpu.i32(S), gpu.i32(S) } }
    local C32 = ref.matmul(A, B)
    local Crd = ref.matmul(RA, RB)
    local e_tc, e_round, e_adds = max_abs_diff(Ctc, C32), max_abs_diff(Crd, C32), max_abs_diff(Ctc, Crd)
    t:metric("error_tensor_vs_fp32", e_tc)
    t:metric("error_rounded_inputs_vs_fp32", e_round)
    t:metric("error_tensor_vs_rounded_inputs", e_adds)
    t:log("largest |difference| over %d x %d outputs (values up to about %.0f):", S, S, math.sqrt(S))
    t:log("  tensor cores   vs FP32:                    %.3g", e_tc)
    t:log("  FP32 of inputs rounded to half vs FP32:    %.3g", e_round)
    t:log("  tensor cores   vs FP32 of rounded inputs:  %.3g", e_adds)
    -- The given wmma_gemm adds exact products in float: only float rounding
    -- (about 2e-6 at 64^3) separates it from the FP32 product of the rounded inputs.
    if not t:expect_close(Ctc, Crd, { rel = 1e-5, abs = 1e-6 * S,
                          name = "C_tensor against the FP32 product of the rounded inputs" }) then
      return
    end

    local out = gpu.array("i32", 1, "answer")
    t:kernel("answer"):launch{ grid = 1, block = 1, args = { out } }
    t:expect(out[0] == 1, string.format("answer() says %d; compare the three errors above: which "
      .. "step makes the tensor cores' result differ from FP32? (1: rounding A and B to half, "
      .. "2: the additions)", out[0]))
  end,
}
