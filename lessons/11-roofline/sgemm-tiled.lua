-- sgemm-tiled: a compute-bound kernel. C = A * B with 64 x 64 tiles per block
-- and 4 x 4 outputs per thread in registers. Correctness on 100 x 72 x 50 (no
-- dimension a multiple of the tile; 517 x 389 x 300 on a GPU), then targets:
-- emulator, at most 0.6 shared-memory requests per warp multiply-add and no
-- bank conflicts; GPU, 4096^3 at >= 25% of the FP32 peak measured by the
-- given fma_peak kernel.
return {
  id = "sgemm-tiled",
  title = "Compute-bound: SGEMM with register tiles",
  title_zh = "受限于计算：寄存器分块的 SGEMM",
  source = "sgemm-tiled.cu",
  solution = "solutions/sgemm-tiled.cu",
  wrong = {
    "solutions/wrong/sgemm-tiled-swapped-rows.cu",
    "solutions/wrong/sgemm-tiled-one-sync.cu",
    "solutions/wrong/sgemm-tiled-no-k-guard.cu",
  },
  timeout = 60,
  hints = {
    "Registers are the only memory faster than shared memory. Load 4 values of A's column k "
      .. "and 4 of B's row k into float a[4], b[4], then every a[i] meets every b[j]: 16 "
      .. "multiply-adds for 8 loads.",
    "for (int i = 0; i < TM; i++) a[i] = As[ty + 16 * i][k]; for (int j = 0; j < TN; j++) "
      .. "b[j] = Bs[k][tx + 16 * j]; then two nested loops acc[i][j] += a[i] * b[j];",
    "Store: for each i, j: int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j; "
      .. "if (r < M && c < N) C[r * N + c] = acc[i][j];",
  },
  hints_zh = {
    "比共享内存更快的只有寄存器。把 A 第 k 列的 4 个值和 B 第 k 行的 4 个值读进 float a[4]、b[4]，"
      .. "然后让每个 a[i] 和每个 b[j] 都相乘：8 次读取换来 16 次乘加。",
    "for (int i = 0; i < TM; i++) a[i] = As[ty + 16 * i][k]; for (int j = 0; j < TN; j++) "
      .. "b[j] = Bs[k][tx + 16 * j]; 然后两层循环 acc[i][j] += a[i] * b[j];",
    "写回：对每个 i、j：int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j; "
      .. "if (r < M && c < N) C[r * N + c] = acc[i][j];",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "loop bound < to <=", line = "for (int k0 = 0; k0 < K; k0 += BK) {",
      why = "the extra tile starts at or past K: its guarded loads are all zeros, so it adds nothing" },
    { mutation = "loop bound < to <=", line = "for (int k = 0; k < iters; k++) {",
      why = "fma_peak (given) only measures the GPU's peak; its output just keeps the work from being optimised away, and nothing checks it" },
  },
  -- verify --mutants: wrong mutants the emulator cannot catch (its blind spots)
  mutants_undetected = {
    { mutation = "loop bound < to <=", line = "for (int l = t; l < BM * BK; l += 256) {",
      why = "thread 0's extra store As[BM][0] is one past As but inside the block's shared memory (it is Bs[0][0], which the next loop writes again before any read): the emulator bounds shared memory as a whole, not each array" },
    { mutation = "loop bound < to <=", line = "for (int i = 0; i < TM; i++)",
      why = "an index one past a local array in a loop the compiler unrolls: it sees the out-of-range step at compile time and, as undefined behaviour, drops it, so no wrong access is left in the PTX for the emulator to catch" },
    { mutation = "loop bound < to <=", line = "for (int j = 0; j < TN; j++) b[j] = Bs[k][tx + 16 * j];",
      why = "an index one past a local array in a loop the compiler unrolls: it sees the out-of-range step at compile time and, as undefined behaviour, drops it, so no wrong access is left in the PTX for the emulator to catch" },
  },
  run = function(t)
    local dev = t:device()
    local on_gpu = dev.backend ~= "emu"
    local k = t:kernel("sgemm")

    local function launch_for(A, B, C, M, N, K)
      return { grid = { (N + 63) // 64, (M + 63) // 64 }, block = { 16, 16 },
               args = { A, B, C, gpu.i32(M), gpu.i32(N), gpu.i32(K) } }
    end

    -- Correctness on awkward sizes.
    local M, N, K = 100, 72, 50
    if on_gpu then M, N, K = 517, 389, 300 end
    local A = gpu.array("f32", { M, K }, "A"):random{ lo = -1, hi = 1, seed = 141 }
    local B = gpu.array("f32", { K, N }, "B"):random{ lo = -1, hi = 1, seed = 142 }
    local C = gpu.array("f32", { M, N }, "C")
    local l = launch_for(A, B, C, M, N, K)
    k:launch(l)
    if not t:expect_close(C, ref.matmul(A, B), { rel = 1e-4, abs = 1e-4,
                          name = string.format("C (%d x %d, K = %d)", M, N, K) }) then
      return
    end

    local m = t:emu_metrics()
    if m then
      local gx, gy = (N + 63) // 64, (M + 63) // 64
      local fma_warp = gx * gy * 256 * 16 * (((K + 15) // 16) * 16) // 32
      local ratio = m.shared_requests / fma_warp
      local conflicts = m.bank_conflicts
        or (m.bank_conflict_wavefronts - m.shared_ideal_wavefronts)
      t:log("%d shared-memory requests for %d warp multiply-adds: %.2f per multiply-add "
            .. "(one output per thread: about 2); %d extra wavefronts from bank conflicts",
            m.shared_requests, fma_warp, ratio, conflicts)
      t:expect(ratio <= 0.6, string.format("%.2f shared-memory requests per multiply-add; the "
        .. "target is at most 0.6: keep 4 values of A and 4 of B in registers and reuse each "
        .. "one 4 times", ratio))
      t:expect(conflicts == 0, string.format("%d extra shared-memory "
        .. "wavefronts from bank conflicts; the target is 0: give thread (tx, ty) the rows "
        .. "ty + 16 i and columns tx + 16 j", conflicts))
      return
    end

    -- The GPU's FP32 peak, measured.
    local blocks, threads, iters = (dev.sm_count or 100) * 32, 256, 4096
    local sink = gpu.array("f32", blocks * threads, "sink")
    local peak_launch = { grid = blocks, block = threads, args = { sink, gpu.i32(iters) } }
    local ms_peak = t:kernel("fma_peak"):time(peak_launch)
    local peak = 16.0 * iters * blocks * threads / (ms_peak * 1e6)   -- GFLOP/s

    local S = t:param("size", 4096)
    local A2 = gpu.array("f32", { S, S }, "A"):random{ lo = -1, hi = 1, seed = 143 }
    local B2 = gpu.array("f32", { S, S }, "B"):random{ lo = -1, hi = 1, seed = 144 }
    local C2 = gpu.array("f32", { S, S }, "C")
    local l2 = launch_for(A2, B2, C2, S, S, S)
    k:launch(l2)
    -- Spot checks: 32 entries against dot products on the CPU.
    local bad = 0
    for s = 0, 31 do
      local r, c = (s * 977) % S, (s * 613 + 5) % S
      local want = 0.0
      for q = 0, S - 1 do want = want + A2[r * S + q] * B2[q * S + c] end
      if math.abs(C2[r * S + c] - want) > 1e-3 * math.sqrt(S) then bad = bad + 1 end
    end
    t:expect(bad == 0, string.format("%d of 32 spot-checked entries of the %d^3 product are "
      .. "wrong", bad, S))
    local ms = k:time(l2)
    local gflops = 2.0 * S * S * S / (ms * 1e6)
    local ai = 2.0 * S * S * S / (3.0 * 4 * S * S)
    t:metric("gflops", gflops, "GFLOP/s")
    t:metric("fraction_of_fp32_peak", gflops / peak)
    t:log("FP32 peak measured by fma_peak: %.0f GFLOP/s", peak)
    t:log("%d^3: %.3f ms, %.0f GFLOP/s = %.0f%% of the peak (target: 25%%); arithmetic "
          .. "intensity if A, B and C moved once: %.0f flop/byte", S, ms, gflops,
          100 * gflops / peak, ai)
    t:expect(gflops >= 0.25 * peak, string.format("%.0f GFLOP/s is %.0f%% of the measured FP32 "
      .. "peak; the target is 25%%", gflops, 100 * gflops / peak))
  end,
}
