-- matmul-regs-2d: a block of 16 x 16 threads computes a 128 x 128 tile of C
-- with BK = 8, each thread 8 x 8 outputs in registers. The launch changes:
-- grid (N / 128, M / 128) rounded up, blocks of 16 x 16. Emulator: correctness
-- on 67 x 45 x 29 and 200 x 196 x 44, then at most 0.3 shared-memory requests
-- per warp multiply-add (1D tiling: 1.13) and no bank conflicts. GPU: 4096^3
-- against an H200 TFLOP/s target.

local matmul = require("matmul_common")   -- the sizes, the CPU check and the timing of every step

-- This step, for matmul.run_sizes.
local STEP = {
  launch = matmul.launch_128x128,  -- C = A (M x K) * B (K x N)
  emu_size = { 67, 45, 29 },      -- the emulator's first size (then 200 x 196 x 44)
  -- GPU target at 4096^3 (FP32 TFLOP/s on an H200): above the last step's rate,
  -- 10-15% below this one's. H200 2026-12-01 (bench/anchors, median of 30, L2
  -- flushed, one run): 21.4 TFLOP/s, cuBLAS 51.4; matmul-regs-1d 16.3.
  target = 18.5,
  reps = 20,                      -- timed launches at 4096^3
}

return {
  id = "matmul-regs-2d",
  title = "2D register tiling: 8 x 8 outputs per thread",
  title_zh = "二维寄存器分块：每个线程 8 × 8 个输出",
  source = "matmul-regs-2d.cu",
  solution = "solutions/matmul-regs-2d.cu",
  wrong = {
    "solutions/wrong/matmul-regs-2d-adjacent-outputs.cu",
    "solutions/wrong/matmul-regs-2d-no-k-guard.cu",
  },
  timeout = 60,
  hints = {
    "1D tiling reuses B's value 8 times but still reads A once per multiply-add (the log: "
      .. "about 1.1 shared requests per multiply-add). With an 8 x 8 block of outputs per "
      .. "thread, 8 values of A's column and 8 of B's row make 64 products: 16 loads for 64 "
      .. "multiply-adds, 0.25 each. The arithmetic intensity of the block grows too: a 128 x 128 "
      .. "tile loads 2 x 128 floats per k for 16384 multiply-adds.",
    "The starter already loads the new tiles (128 x 8 of A, 8 x 128 of B, 4 elements of each "
      .. "per thread) but each thread computes one column, col0 + tx: only 16 of the 128 columns "
      .. "of each tile of C are written. For each k load a[i] = As[ty + 16 i][k] and b[j] = "
      .. "Bs[k][tx + 16 j] into registers, then all 64 acc[i][j] += a[i] * b[j]; store "
      .. "acc[i][j] at row row0 + ty + 16 i, column col0 + tx + 16 j, inside C.",
    "Why rows ty + 16 i and columns tx + 16 j rather than 8 ty + i and 8 tx + j: with the "
      .. "adjacent layout the 16 lanes of a half-warp read Bs[k][8 tx + j], words 8 apart, 4 to "
      .. "a bank: a 4-way bank conflict the emulator counts. Strided, they read 16 consecutive "
      .. "words.",
  },
  hints_zh = {
    "一维分块把 B 的值复用了 8 次，但每次乘加仍要读一次 A（日志：每次乘加约 1.1 次共享内存请求）。每个线程算 8 × 8 的输出块时，A 的一列里 8 个值和 B 的一行里 8 个值构成 64 个乘积：16 次读取换 64 次乘加，每次 0.25。线程块的算术强度也提高了：128 × 128 的分块每个 k 读 2 × 128 个 float，做 16384 次乘加。",
    "起始代码已经装入新的分块（A 的 128 × 8，B 的 8 × 128，每个线程各 4 个元素），但每个线程只算一列，第 col0 + tx 列：C 的每个分块 128 列里只写了 16 列。对每个 k，把 a[i] = As[ty + 16 i][k] 和 b[j] = Bs[k][tx + 16 j] 读进寄存器，然后做全部 64 个 acc[i][j] += a[i] * b[j]；把 acc[i][j] 写回第 row0 + ty + 16 i 行、第 col0 + tx + 16 j 列，只写 C 之内的。",
    "为什么是第 ty + 16 i 行、第 tx + 16 j 列，而不是 8 ty + i 和 8 tx + j：相邻的布局下，半个线程束的 16 个 lane 读 Bs[k][8 tx + j]，相隔 8 个字，每个 bank 4 个：模拟器会数出 4 路 bank 冲突。跨步布局下它们读 16 个连续的字。",
  },

  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "loop bound < to <=", line = "for (int k0 = 0; k0 < K; k0 += BK) {",
      why = "the extra tile starts at or past K: its loads are guarded, all zeros, so it adds nothing" },
  },
  -- verify --mutants: wrong mutants the emulator cannot catch (its blind spots)
  mutants_undetected = {
    { mutation = "loop bound < to <=", line = "for (int i = 0; i < TM; i++)",
      why = "an index one past a register array (acc, a, b) in a loop the compiler unrolls: it sees the out-of-range step at compile time and, as undefined behaviour, drops it, so no wrong access is left in the PTX for the emulator to catch" },
    { mutation = "loop bound < to <=", line = "for (int j = 0; j < TN; j++) b[j] = Bs[k][tx + 16 * j];",
      why = "an index one past a register array (acc, a, b) in a loop the compiler unrolls: it sees the out-of-range step at compile time and, as undefined behaviour, drops it, so no wrong access is left in the PTX for the emulator to catch" },
  },
  run = function(t)
    local m, M, N, K = matmul.run_sizes(t, t:kernel("sgemm"), STEP)
    if not M then return end   -- a GPU (checked and timed), or a size failed
    local blocks, steps, shared, per_warp, max_per_warp = matmul.tile128_counts(t, m, M, N, K)
    t:expect(shared <= 0.3, string.format("%.3f shared-memory requests per multiply-add; the "
      .. "target is at most 0.3: load 8 values of A and 8 of B per k and use each 8 times", shared))
    t:expect(m.bank_conflicts == 0, string.format("%d extra shared-memory wavefronts from bank "
      .. "conflicts; the target is 0: give thread (tx, ty) rows ty + 16 i and columns tx + 16 j",
      m.bank_conflicts))
  end,
}
