-- tensor-vs-simt: wmma_gemm_32 (a 32 x 32 tile per warp) must be right
-- (exact: inputs multiples of 1/4) and faster than chapter 11's SIMT SGEMM.
-- GPU: both timed on S^3 (default 4096); target: the tensor cores at least
-- `speedup` (default 2) times faster, stretch 4x. Emulator (no times): the
-- proxy is warp instructions for the same product (64^3), target at least
-- 8x fewer than the SIMT kernel's. The given kernels are checked too: the
-- SIMT sgemm's C against the CPU (exact) on 64^3 and, on the emulator, on
-- 40 x 136 x 24, where M, N and K all leave partial tiles and the grid is not
-- square, so its guards are met; to_half runs in blocks of 224, so its last
-- block is partial (S * S is a multiple of 256).
local wmma = require("wmma_common")   -- inputs exact in half precision, their half copies

-- How many of 32 entries of the S x S product C are not A * B's exact dot
-- products (inputs are quarters: exact sums); for the GPU's 4096^3, where the
-- whole product would take the CPU minutes.
local function spot_errors(A, B, C, S)
  local bad = 0
  for s = 0, 31 do
    local r, c = (s * 977) % S, (s * 613 + 5) % S
    local want = 0.0
    for q = 0, S - 1 do want = want + A[r * S + q] * B[q * S + c] end
    if C[r * S + c] ~= want then bad = bad + 1 end
  end
  return bad
end

-- The given sgemm on M x K times K x N with partial tiles everywhere.
local function check_sgemm_tails(t, sk, M, N, K)
  local A = gpu.array("f32", { M, K }, "A"):random{ lo = -2, hi = 2, step = 0.25, seed = t:seed(199) }
  local B = gpu.array("f32", { K, N }, "B"):random{ lo = -2, hi = 2, step = 0.25, seed = t:seed(200) }
  local C = gpu.array("f32", { M, N }, "C_simt")
  sk:launch{ grid = { (N + 63) // 64, (M + 63) // 64 }, block = { 16, 16 },
             args = { A, B, C, gpu.i32(M), gpu.i32(N), gpu.i32(K) } }
  return t:expect_equal(C, ref.matmul(A, B), { name = string.format("C_simt (%d x %d, K = %d)", M, N, K) })
end

return {
  id = "tensor-vs-simt",
  title = "Tensor cores against the SIMT SGEMM",
  title_zh = "张量核心对比 SIMT 的 SGEMM",
  source = "tensor-vs-simt.cu",
  solution = "solutions/tensor-vs-simt.cu",
  wrong = {
    "solutions/wrong/tensor-vs-simt-one-acc.cu",
    "solutions/wrong/tensor-vs-simt-b-rows.cu",
  },
  timeout = 60,
  hints = {
    "Think of the 32 x 32 tile as 2 x 2 tiles of 16 x 16: acc[i][j] is the tile at rows "
      .. "row0 + 16 i and columns col0 + 16 j, and it needs A's rows row0 + 16 i and B's columns col0 + 16 j.",
    "Per k0: for i: load_matrix_sync(a[i], A + (row0 + 16 * i) * K + k0, K); for j: "
      .. "load_matrix_sync(b[j], B + k0 * N + col0 + 16 * j, N); then for i, j: "
      .. "mma_sync(acc[i][j], a[i], b[j], acc[i][j]); store each acc[i][j] at its corner.",
  },
  hints_zh = {
    "把 32 x 32 的分块看成 2 x 2 个 16 x 16 的分块：acc[i][j] 是第 row0 + 16 i 行、第 col0 + 16 j 列"
      .. "起的分块，它需要 A 的 row0 + 16 i 开始的行和 B 的 col0 + 16 j 开始的列。",
    "每个 k0：对 i：load_matrix_sync(a[i], A + (row0 + 16 * i) * K + k0, K)；对 j："
      .. "load_matrix_sync(b[j], B + k0 * N + col0 + 16 * j, N)；再对每个 i、j："
      .. "mma_sync(acc[i][j], a[i], b[j], acc[i][j])；把每个 acc[i][j] 存到它的左上角。",
  },
  hint_for = { ["wrong-result"] = 1, ["out-of-bounds"] = 2 },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "loop bound < to <=", line = "for (int k0 = 0; k0 < K; k0 += BK) {",
      why = "sgemm: the extra tile starts at or past K: its loads are guarded, all zeros, so it adds nothing" },
  },
  -- verify --mutants: wrong mutants the emulator cannot catch (its blind spots)
  mutants_undetected = {
    { mutation = "loop bound < to <=", line = "for (int i = 0; i < 2; i++) // acc[i][j] = 0",
      why = "an index one past the fragment array acc in a loop the compiler unrolls: it sees the "
        .. "out-of-range step at compile time and, as undefined behaviour, drops it (the PTX is the "
        .. "solution's but for register names), so no wrong access is left for the emulator to catch" },
    { mutation = "loop bound < to <=", line = "for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.0f);",
      why = "an index one past the fragment array acc in a loop the compiler unrolls: it sees the "
        .. "out-of-range step at compile time and, as undefined behaviour, drops it (the PTX is the "
        .. "solution's but for register names), so no wrong access is left for the emulator to catch" },
    { mutation = "loop bound < to <=", line = "for (int i = 0; i < 2; i++) // acc[i][j] += a[i] * b[j]",
      why = "an index one past the fragment arrays (a, acc) in a loop the compiler unrolls: the extra "
        .. "mma_sync gets registers of its own (a fragment that was never loaded, an accumulator that "
        .. "is never stored), so nothing reaches C; registers have no bounds for the emulator to check" },
    { mutation = "loop bound < to <=", line = "for (int j = 0; j < 2; j++) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);",
      why = "an index one past the fragment arrays (b, acc) in a loop the compiler unrolls: the extra "
        .. "mma_sync gets registers of its own (a fragment that was never loaded, an accumulator that "
        .. "is never stored), so nothing reaches C; registers have no bounds for the emulator to check" },
    { mutation = "loop bound < to <=", line = "for (int i = 0; i < TM; i++)",
      why = "sgemm: an index one past a register array (acc, a) in a loop the compiler unrolls: it sees "
        .. "the out-of-range step at compile time and, as undefined behaviour, drops it, so no wrong "
        .. "access is left in the PTX for the emulator to catch" },
    { mutation = "loop bound < to <=", line = "for (int j = 0; j < TN; j++) b[j] = Bs[k][tx + 16 * j];",
      why = "sgemm: an index one past a register array (b) in a loop the compiler unrolls: it sees the "
        .. "out-of-range step at compile time and, as undefined behaviour, drops it, so no wrong "
        .. "access is left in the PTX for the emulator to catch" },
    { mutation = "loop bound < to <=", line = "for (int l = t; l < BM * BK; l += 256) {",
      why = "sgemm: thread 0's extra step (l = 1024) writes As[64][0], one past As, which is Bs[0][0] "
        .. "in the block's shared memory, and thread 0 itself writes Bs[0][0] next, in the B loop, "
        .. "before the barrier; the emulator checks a shared access against the block's shared "
        .. "memory, not against each array" },
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local S = on_gpu and t:param("size", 4096) or 64
    local A = gpu.array("f32", { S, S }, "A"):random{ lo = -2, hi = 2, step = 0.25, seed = t:seed(197) }
    local B = gpu.array("f32", { S, S }, "B"):random{ lo = -2, hi = 2, step = 0.25, seed = t:seed(198) }
    local Ah, Bh = wmma.halves(t, A, B)
    local Ct, Cs = gpu.array("f32", { S, S }, "C_tensor"), gpu.array("f32", { S, S }, "C_simt")
    local tk, sk = t:kernel("wmma_gemm_32"), t:kernel("sgemm")
    local lt = { grid = { S // 32, S // 32 }, block = 32, args = { Ah, Bh, Ct, gpu.i32(S), gpu.i32(S), gpu.i32(S) } }
    local ls = { grid = { S // 64, S // 64 }, block = { 16, 16 }, args = { A, B, Cs, gpu.i32(S), gpu.i32(S), gpu.i32(S) } }
    tk:launch(lt)
    local m_t = t:emu_metrics()
    if not on_gpu then
      if not t:expect_equal(Ct, ref.matmul(A, B), { name = string.format("C (%d^3)", S) }) then return end
    else
      local bad = spot_errors(A, B, Ct, S)
      if not t:expect(bad == 0, string.format("%d of 32 spot-checked entries of C are wrong", bad)) then return end
    end
    sk:launch(ls)
    local m_s = t:emu_metrics()
    if not on_gpu then
      if not t:expect_equal(Cs, ref.matmul(A, B), { name = string.format("C_simt (%d^3)", S) }) then return end
      if not check_sgemm_tails(t, sk, 40, 136, 24) then return end
    else
      local bad = spot_errors(A, B, Cs, S)
      if not t:expect(bad == 0, string.format("%d of 32 spot-checked entries of the SIMT sgemm's C "
        .. "are wrong", bad)) then return end
    end
    if m_t and m_s then
      local ratio = m_s.warp_instructions / m_t.warp_instructions
      t:metric("warp_instruction_ratio", ratio)
      t:log("warp instructions for C = A * B (%d^3): SIMT sgemm %d, tensor cores %d: %.1fx fewer "
            .. "(one mma_sync does 16 x 16 x 16 multiply-adds; an FFMA does 32)", S,
            m_s.warp_instructions, m_t.warp_instructions, ratio)
      t:expect(ratio >= 8, string.format("the tensor-core kernel issues %.1fx fewer warp "
        .. "instructions than the SIMT one (target: at least 8x; 4 loads for 4 mma_sync per step)", ratio))
      return
    end
    local ms_t, ms_s = tk:time(lt), sk:time(ls)
    local tf_t, tf_s = 2.0 * S * S * S / (ms_t * 1e9), 2.0 * S * S * S / (ms_s * 1e9)
    local speedup = ms_s / ms_t
    t:metric("tflops_tensor", tf_t, "TFLOP/s")
    t:metric("tflops_simt", tf_s, "TFLOP/s")
    t:metric("speedup", speedup)
    t:log("%d^3: tensor cores %.3f ms (%.1f TFLOP/s), SIMT sgemm %.3f ms (%.1f TFLOP/s): %.1fx",
          S, ms_t, tf_t, ms_s, tf_s, speedup)
    local want = t:param("speedup", 2.0)
    t:expect(speedup >= want, string.format("the tensor cores are %.1fx as fast as the SIMT "
      .. "SGEMM; the target is %.1fx", speedup, want))
    t:stretch(speedup >= 4.0, string.format("%.1fx; the stretch goal is 4x (shared-memory "
      .. "staging of the tiles, several warps per block)", speedup))
  end,
}
