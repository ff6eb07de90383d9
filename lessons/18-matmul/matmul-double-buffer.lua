-- matmul-double-buffer: the warp-tiled kernel with two buffers of each shared
-- tile: the next tile's float4s are loaded into registers before the
-- multiply-adds of the current one and stored into the other buffer after
-- them, with ONE barrier per step. Same launch. Emulator: correctness on
-- 67 x 52 x 20 and 200 x 196 x 44 (no races: the emulator checks every shared
-- access), then at most one barrier per step (+1) per block, no bank
-- conflicts, at most 0.08 shared requests per warp multiply-add. GPU: 4096^3
-- against an H200 TFLOP/s target (80% of cuBLAS; stretch goal 90%).

local matmul = require("matmul_common")   -- the sizes, the CPU check and the timing of every step

-- This step, for matmul.run_sizes.
local STEP = {
  launch = matmul.launch_128x128,  -- C = A (M x K) * B (K x N)
  emu_size = { 67, 52, 20 },      -- the emulator's first size (then 200 x 196 x 44)
  -- GPU target at 4096^3 (FP32 TFLOP/s on an H200): above the last step's rate,
  -- 10-15% below this one's. H200 2026-12-01 (bench/anchors, median of 30, L2
  -- flushed, one run): 44.8 TFLOP/s, cuBLAS 51.4; matmul-warptile 36.2.
  -- 80% of cuBLAS, the chapter's goal; the stretch goal 90%.
  target = 41.1,
  stretch = 46.3,                 -- stretch goal (TFLOP/s on an H200)
  reps = 20,                      -- timed launches at 4096^3
}

return {
  id = "matmul-double-buffer",
  title = "Double buffering: load the next tile while computing",
  title_zh = "双缓冲：计算当前分块时装入下一块",
  source = "matmul-double-buffer.cu",
  solution = "solutions/matmul-double-buffer.cu",
  wrong = {
    "solutions/wrong/matmul-double-buffer-same-buffer.cu",
    "solutions/wrong/matmul-double-buffer-no-k-guard.cu",
    "solutions/wrong/matmul-double-buffer-no-sync.cu",
  },
  timeout = 60,
  hints = {
    "In the warp-tiled kernel each step waits twice: at the first barrier until the tile's "
      .. "global loads have arrived (hundreds of cycles with no multiply-add to do in that "
      .. "block), and at the second until everyone has finished reading. Issue the loads of tile "
      .. "k0 + BK into registers BEFORE the multiply-adds of tile k0: they travel while the FP32 "
      .. "units work.",
    "Two buffers, As[2][BK][BM + PAD] and Bs[2][BK][BN], and an index cur. Before the loop "
      .. "load tile 0 into buffer 0 and wait at a barrier. In the loop: if there is a next tile, "
      .. "load its float4s into registers; multiply out buffer cur; store the registers into "
      .. "buffer cur ^ 1; one __syncthreads(); cur ^= 1.",
    "Why one barrier is enough: during a step nobody reads buffer cur ^ 1 (it was last read "
      .. "in the previous step, which ended with a barrier), and the barrier at the end of the "
      .. "step makes its new contents visible before anyone reads them. Storing into buffer cur "
      .. "instead is a race the emulator reports (a thread overwrites what another is still "
      .. "reading).",
  },
  hints_zh = {
    "线程束分块的版本里每一步要等两次：在第一道屏障处等分块的全局内存读取到达（几百个周期，这个线程块没有乘加可做），在第二道屏障处等所有人读完。在分块 k0 的乘加之前，就把分块 k0 + BK 的读取发出去，读进寄存器：FP32 单元工作的同时，数据在路上。",
    "两个缓冲区 As[2][BK][BM + PAD] 和 Bs[2][BK][BN]，加一个下标 cur。循环之前把分块 0 装进缓冲区 0，在屏障处等待。循环里：如果还有下一块，把它的 float4 读进寄存器；用缓冲区 cur 做乘加；把寄存器存进缓冲区 cur ^ 1；一次 __syncthreads()；cur ^= 1。",
    "为什么一道屏障就够：一步之内没有人读缓冲区 cur ^ 1（它上一次被读是在上一步，上一步以屏障结束），而这一步末尾的屏障保证大家读它之前新内容已经写好。如果存进缓冲区 cur，就是模拟器会报告的竞争条件（一个线程覆盖了另一个线程还在读的数据）。",
  },
  hint_for = { race = 3, barrier = 3 },

  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "loop bound < to <=", line = "for (int k0 = 0; k0 < K; k0 += BK) {",
      why = "the extra tile starts at or past K: its loads are guarded, all zeros, so it adds nothing" },
  },
  -- verify --mutants: wrong mutants the emulator cannot catch (its blind spots)
  mutants_undetected = {
    { mutation = "loop bound < to <=", line = "for (int i = 0; i < TM; i++)",
      why = "an index one past a register array (acc, a, b) in a loop the compiler unrolls: it sees the out-of-range step at compile time and, as undefined behaviour, drops it, so no wrong access is left in the PTX for the emulator to catch" },
  },
  run = function(t)
    local m, M, N, K = matmul.run_sizes(t, t:kernel("sgemm"), STEP)
    if not M then return end   -- a GPU (checked and timed), or a size failed
    local blocks, steps, shared, per_warp, max_per_warp = matmul.tile128_counts(t, m, M, N, K)
    t:expect(m.barriers <= blocks * (steps + 1), string.format("%d barriers for %d blocks and "
      .. "%d steps; the target is at most %d, one per step and block (+1 for the first tile): "
      .. "store the next tile into the other buffer", m.barriers, blocks, steps,
      blocks * (steps + 1)))
    t:expect(m.bank_conflicts == 0 and shared <= 0.08, string.format("%d extra wavefronts from "
      .. "bank conflicts (target 0) and %.3f shared-memory requests per multiply-add (target: at "
      .. "most 0.08): keep the warp tiles and float4 reads", m.bank_conflicts, shared))
  end,
}
