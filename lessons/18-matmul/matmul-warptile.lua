-- matmul-warptile: the float4 kernel with its threads arranged by warp: 8
-- warps in a 2 x 4 grid of 64 x 32 warp tiles, lane (lane / 4, lane % 4) of a
-- warp computing four 4 x 4 sub-tiles 32 rows and 16 columns apart. Same
-- launch. Emulator: correctness on 67 x 52 x 20 and 200 x 196 x 44, then no
-- bank conflicts (the float4 kernel has them), still at most 0.08 shared
-- requests per warp multiply-add and 2 global requests per warp and step (+16).
-- GPU: 4096^3 against an H200 TFLOP/s target.

local matmul = require("matmul_common")   -- the sizes, the CPU check and the timing of every step

-- This step, for matmul.run_sizes.
local STEP = {
  launch = matmul.launch_128x128,  -- C = A (M x K) * B (K x N)
  emu_size = { 67, 52, 20 },      -- the emulator's first size (then 200 x 196 x 44)
  -- GPU target at 4096^3 (FP32 TFLOP/s on an H200): above the last step's rate,
  -- 10-15% below this one's. H200 2026-12-01 (bench/anchors, median of 30, L2
  -- flushed, one run): 36.2 TFLOP/s, cuBLAS 51.4; matmul-float4 36.5.
  -- NOT above the float4 step's rate: on the H200 warp tiling alone buys
  -- no time (both run at ~71% of cuBLAS). The starter fails because it stores
  -- nothing; the emulator's bank-conflict check is what tells the layouts apart.
  target = 31.0,
  reps = 20,                      -- timed launches at 4096^3
}

return {
  id = "matmul-warptile",
  title = "Warp tiling",
  title_zh = "线程束分块",
  source = "matmul-warptile.cu",
  solution = "solutions/matmul-warptile.cu",
  wrong = {
    "solutions/wrong/matmul-warptile-no-row-guard.cu",
    "solutions/wrong/matmul-warptile-one-sync.cu",
  },
  timeout = 60,
  hints = {
    "The float4 kernel's warp covers 2 rows x 128 columns of the block's tile: per k it "
      .. "reads 16 different float4 of Bs, and each quarter-warp's reads hit every bank twice "
      .. "(the log counts the extra wavefronts). Give each warp a compact 64 x 32 tile of C "
      .. "instead: per k it then reads only 8 float4 of As and 4 of Bs, fewer bytes through "
      .. "shared memory for the same 64 multiply-adds, and a quarter-warp reads 16 consecutive "
      .. "words of Bs: no conflicts.",
    "warp = t / 32 and lane = t % 32; the warp's tile starts at row wm = 64 (warp / 4) and "
      .. "column wn = 32 (warp % 4) of the block's tile; lane (ly, lx) = (lane / 4, lane % 4). "
      .. "Read a as As[k][wm + 4 ly] and As[k][wm + 32 + 4 ly], b as Bs[k][wn + 4 lx] and "
      .. "Bs[k][wn + 16 + 4 lx].",
    "The thread's output acc[i][j] is now row wm + 32 (i / 4) + 4 ly + i % 4 and column wn "
      .. "+ 16 (j / 4) + 4 lx + j % 4 of the block's tile. The starter stores nothing (every "
      .. "element of C is wrong until you do): write the store as float4 of acc[i][j..j+3] for "
      .. "j = 0 and 4, with a guard (M = 200 is not a multiple of 128).",
  },
  hints_zh = {
    "float4 版本里，一个线程束覆盖线程块分块的 2 行 × 128 列：每个 k 读 Bs 的 16 个不同的 float4，每四分之一个线程束的读取把每个 bank 碰两次（日志数出了多出的 wavefront）。改为让每个线程束负责 C 中紧凑的 64 × 32 分块：每个 k 只读 As 的 8 个 float4 和 Bs 的 4 个，同样 64 次乘加，经过共享内存的字节更少；四分之一个线程束读 Bs 的 16 个连续的字：没有冲突。",
    "warp = t / 32，lane = t % 32；线程束的分块从线程块分块的第 wm = 64 (warp / 4) 行、第 wn = 32 (warp % 4) 列开始；lane (ly, lx) = (lane / 4, lane % 4)。a 读 As[k][wm + 4 ly] 和 As[k][wm + 32 + 4 ly]，b 读 Bs[k][wn + 4 lx] 和 Bs[k][wn + 16 + 4 lx]。",
    "线程的输出 acc[i][j] 现在是线程块分块的第 wm + 32 (i / 4) + 4 ly + i % 4 行、第 wn + 16 (j / 4) + 4 lx + j % 4 列：起始代码什么都不写回（在你写好之前 C 的每个元素都是错的）：对 j = 0 和 4，把 acc[i][j..j+3] 作为一个 float4 写回，并加上判断（M = 200 不是 128 的倍数）。",
  },
  hint_for = { ["out-of-bounds"] = 3 },

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
    t:expect(m.bank_conflicts == 0, string.format("%d extra shared-memory wavefronts from bank "
      .. "conflicts; the target is 0: a quarter-warp should read 16 consecutive words of Bs",
      m.bank_conflicts))
    t:expect(shared <= 0.08 and per_warp <= max_per_warp, string.format("%.3f shared-memory "
      .. "requests per multiply-add (target: at most 0.08) and %.1f global requests per warp (at "
      .. "most %d): keep the float4 loads and stores", shared, per_warp, max_per_warp))
  end,
}
