-- wmma-gemm: a whole GEMM with wmma, one warp per 16 x 16 tile of C.
-- M, N, K multiples of 16, N != K (so a wrong leading dimension shows);
-- inputs are multiples of 1/4, exact in half, so C must equal the CPU's
-- product exactly. Emulator 48 x 64 x 80; GPU 1024 x 768 x 512.
-- to_half runs in blocks of 224 (wmma.BLOCK, 7 warps): M * K and K * N are
-- multiples of 256, so blocks of 256 would never meet its guard; 224 leaves
-- a partial last block whose threads past n must not touch x or y.
local wmma = require("wmma_common")   -- inputs exact in half precision, their half copies

return {
  id = "wmma-gemm",
  title = "A whole GEMM with wmma",
  title_zh = "用 wmma 做完整的 GEMM",
  source = "wmma-gemm.cu",
  solution = "solutions/wmma-gemm.cu",
  wrong = {
    "solutions/wrong/wmma-gemm-short-loop.cu",
    "solutions/wrong/wmma-gemm-lda-n.cu",
  },
  hints = {
    "Each step along K multiplies the next 16 columns of the warp's rows of A by the next 16 "
      .. "rows of B's columns and adds into the same accumulator: a loop around the load, load, mma.",
    "for (int k0 = 0; k0 < K; k0 += 16) { load A + row0 * K + k0 (leading dimension K), "
      .. "load B + k0 * N + col0 (leading dimension N), mma_sync(acc, fa, fb, acc); }",
  },
  hints_zh = {
    "沿 K 每走一步，就把这个线程束负责的 A 的行的下 16 列，乘以 B 对应列的下 16 行，"
      .. "累加到同一个 accumulator：在两次 load 和一次 mma 外面套一个循环。",
    "for (int k0 = 0; k0 < K; k0 += 16) { 读取 A + row0 * K + k0（leading dimension 为 K），"
      .. "读取 B + k0 * N + col0（leading dimension 为 N），mma_sync(acc, fa, fb, acc); }",
  },
  hint_for = { ["wrong-result"] = 1 },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local M, N, K = 48, 64, 80
    if on_gpu then M, N, K = 1024, 768, 512 end
    local A = gpu.array("f32", { M, K }, "A"):random{ lo = -2, hi = 2, step = 0.25, seed = t:seed(193) }
    local B = gpu.array("f32", { K, N }, "B"):random{ lo = -2, hi = 2, step = 0.25, seed = t:seed(194) }
    local C = gpu.array("f32", { M, N }, "C")
    local Ah, Bh = wmma.halves(t, A, B)
    t:kernel("wmma_gemm"):launch{ grid = { N // 16, M // 16 }, block = 32,
                                   args = { Ah, Bh, C, gpu.i32(M), gpu.i32(N), gpu.i32(K) } }
    t:expect_equal(C, ref.matmul(A, B), { name = string.format("C (%d x %d, K = %d)", M, N, K) })
  end,
}
