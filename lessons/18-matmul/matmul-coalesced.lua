-- matmul-coalesced: the naive kernel with threadIdx.x moved to the column, so
-- that a warp reads one row of A (a broadcast) and 32 neighbouring floats of
-- B. Same launch as matmul-naive. Emulator: correctness on 67 x 45 x 29 and
-- 200 x 196 x 44, then at most 3 sectors per global request (the naive
-- mapping: about 16). GPU: 4096^3 against an H200 TFLOP/s target.

local matmul = require("matmul_common")   -- the sizes, the CPU check and the timing of every step

-- This step, for matmul.run_sizes.
local STEP = {
  launch = matmul.launch_32x32,    -- C = A (M x K) * B (K x N)
  emu_size = { 67, 45, 29 },      -- the emulator's first size (then 200 x 196 x 44)
  -- GPU target at 4096^3 (FP32 TFLOP/s on an H200): above the last step's rate,
  -- 10-15% below this one's. H200 2026-12-01 (bench/anchors, median of 30, L2
  -- flushed, one run): 6.1 TFLOP/s, cuBLAS 51.4; matmul-naive 0.5.
  target = 5.2,
  reps = 5,                       -- timed launches at 4096^3
}

return {
  id = "matmul-coalesced",
  title = "Coalesced SGEMM: a warp along a row of C",
  title_zh = "合并访问的 SGEMM：线程束沿 C 的一行",
  source = "matmul-coalesced.cu",
  solution = "solutions/matmul-coalesced.cu",
  wrong = {
    "solutions/wrong/matmul-coalesced-blocks-swapped.cu",
    "solutions/wrong/matmul-coalesced-no-guard.cu",
  },
  timeout = 60,
  hints = {
    "Look at the emulator's sectors per request in the log: a warp's request is served in "
      .. "sectors of 32 bytes. When its 32 lanes read 32 floats from 32 different rows, that is "
      .. "32 sectors; 32 neighbouring floats fit in 4. Make the lanes of a warp (consecutive "
      .. "threadIdx.x) walk along a row of C.",
    "Keep the launch (blockIdx.x still picks the block's 32 rows): the row becomes "
      .. "blockIdx.x * blockDim.y + threadIdx.y and the column blockIdx.y * blockDim.x + "
      .. "threadIdx.x. Then A[row * K + k] is one address for the whole warp (a broadcast: 1 "
      .. "sector) and B[k * N + col] 32 neighbours.",
  },
  hints_zh = {
    "看日志里模拟器给出的每次请求的扇区数：线程束的一次请求按 32 字节的扇区来取。32 个 lane 从 32 个不同的行读 32 个 float，就是 32 个扇区；32 个相邻的 float 装在 4 个扇区里。让一个线程束的各 lane（相邻的 threadIdx.x）沿 C 的一行走。",
    "启动配置不变（blockIdx.x 仍然选线程块的 32 行）：行变成 blockIdx.x * blockDim.y + threadIdx.y，列变成 blockIdx.y * blockDim.x + threadIdx.x。这样 A[row * K + k] 对整个线程束是同一个地址（广播：1 个扇区），B[k * N + col] 是 32 个相邻的数。",
  },

  run = function(t)
    local m, M, N, K = matmul.run_sizes(t, t:kernel("sgemm"), STEP)
    if not M then return end   -- a GPU (checked and timed), or a size failed
    local spr = m.sectors_per_request or 0
    t:log("%.2f sectors per global request (%.2f ideal; the naive mapping: about 16); %.2f warp "
          .. "instructions per warp multiply-add", spr, m.ideal_sectors_per_request or 0,
          m.warp_instructions / ((M * N * K + 31) // 32))
    t:expect(spr <= 3.0, string.format("%.1f sectors per global request; the target is at most 3: "
      .. "the 32 lanes of a warp should share a row and read 32 neighbouring columns", spr))
  end,
}
