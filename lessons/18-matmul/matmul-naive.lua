-- matmul-naive: the first of eight steps from the naive SGEMM to near-cuBLAS.
-- C = A * B (row-major, A M x K, B K x N, FP32); one thread per element of C,
-- blocks of 32 x 32 with threadIdx.x along the rows (as the launch gives it).
-- Emulator: 67 x 45 x 29 and 200 x 196 x 44 checked in full (no dimension a
-- multiple of 32); the log shows the sectors per request the next step
-- improves. GPU: 517 x 388 x 300 in full, then 2048^3 timed (the other steps
-- time 4096^3: this kernel is slow) against a TFLOP/s target set on an H200.

local matmul = require("matmul_common")   -- the sizes, the CPU check and the timing of every step

-- This step, for matmul.run_sizes.
local STEP = {
  launch = matmul.launch_32x32,    -- C = A (M x K) * B (K x N)
  emu_size = { 67, 45, 29 },      -- the emulator's first size (then 200 x 196 x 44)
  -- GPU target (FP32 TFLOP/s on an H200): about 15% below this step's rate.
  -- H200 2026-12-01 (bench/anchors, 4096^3, median of 30, L2 flushed, one run):
  -- 0.5 TFLOP/s, cuBLAS 51.4. The same rate at 2048^3 (session 15, cudojo run of the
  -- solution on the H200: 35.31 ms = 0.49 TFLOP/s in 3 runs, 4096^3 275.8 ms = 0.50)
  target = 0.42,
  -- timed at 2048^3, k:time's budget (no reps =): two ~35 ms launches. At 4096^3 two
  -- ~276 ms launches held the GPU alone 0.83 s per graded run, the most of any kernel
  -- exercise (session 14); each of the other steps takes 3-30 ms at 4096^3
  size = 2048,
}

return {
  id = "matmul-naive",
  title = "Naive SGEMM: one thread per output",
  title_zh = "朴素 SGEMM：每个线程一个输出",
  source = "matmul-naive.cu",
  solution = "solutions/matmul-naive.cu",
  wrong = {
    "solutions/wrong/matmul-naive-no-guard.cu",
    "solutions/wrong/matmul-naive-b-transposed.cu",
  },
  timeout = 60,
  hints = {
    "Thread (row, col) computes one dot product: the sum over k of A[row][k] * B[k][col]. "
      .. "Row-major means A[row][k] is A[row * K + k] and B[k][col] is B[k * N + col]. "
      .. "Accumulate in a float register and store once at the end.",
    "The grid is rounded up to whole 32 x 32 blocks, so the last blocks have threads "
      .. "outside C (M = 67 is not a multiple of 32): only threads with row < M and col < N may "
      .. "read and write. The emulator reports an out-of-bounds access with the line and thread "
      .. "otherwise.",
    "Why this is slow (see the log): threadIdx.x picks the row, so the 32 lanes of a warp "
      .. "read A[row * K + k] from 32 different rows, 32 sectors of 32 bytes for 128 useful "
      .. "bytes. The next exercise fixes just that.",
  },
  hints_zh = {
    "线程 (row, col) 计算一个点积：对 k 求和 A[row][k] * B[k][col]。行主序下 A[row][k] 是 A[row * K + k]，B[k][col] 是 B[k * N + col]。在一个 float 寄存器里累加，最后只写一次。",
    "网格向上取整到完整的 32 × 32 线程块，所以最后的线程块里有落在 C 之外的线程（M = 67 不是 32 的倍数）：只有 row < M 且 col < N 的线程可以读写。否则模拟器会报告越界访问，并给出行号和线程。",
    "为什么慢（看日志）：threadIdx.x 选的是行，于是一个线程束的 32 个 lane 从 32 个不同的行读 A[row * K + k]，为 128 个有用字节动用 32 个 32 字节的扇区。下一个练习只修这一点。",
  },
  hint_for = { ["out-of-bounds"] = 2 },

  run = function(t)
    local m, M, N, K = matmul.run_sizes(t, t:kernel("sgemm"), STEP)
    if not M then return end   -- a GPU (checked and timed), or a size failed
    t:log("%.1f sectors per global request (%.1f ideal); %.2f warp instructions per warp "
          .. "multiply-add", m.sectors_per_request or 0, m.ideal_sectors_per_request or 0,
          m.warp_instructions / ((M * N * K + 31) // 32))
    t:log("the lanes of a warp take 32 different rows of A: the next exercise gives them one "
          .. "row and 32 neighbouring columns")
  end,
}
