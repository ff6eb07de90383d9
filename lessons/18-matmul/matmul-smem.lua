-- matmul-smem: the coalesced kernel with 32 x 32 tiles of A and B staged in
-- shared memory (chapter 4's tiled multiply, at the size of a warp). Same
-- launch. Emulator: correctness on 67 x 45 x 29 and 200 x 196 x 44, then at
-- most 2 global requests per warp and step of 32 (plus the store; the
-- coalesced kernel: 2 per k) and no bank conflicts. GPU: 4096^3 against an
-- H200 TFLOP/s target.

local matmul = require("matmul_common")   -- the sizes, the CPU check and the timing of every step

-- This step, for matmul.run_sizes.
local STEP = {
  launch = matmul.launch_32x32,    -- C = A (M x K) * B (K x N)
  emu_size = { 67, 45, 29 },      -- the emulator's first size (then 200 x 196 x 44)
  -- GPU target at 4096^3 (FP32 TFLOP/s on an H200): above the last step's rate,
  -- 10-15% below this one's. H200 2026-12-01 (bench/anchors, median of 30, L2
  -- flushed, one run): 8.9 TFLOP/s, cuBLAS 51.4; matmul-coalesced 6.1.
  target = 7.6,
  reps = 10,                      -- timed launches at 4096^3
}

return {
  id = "matmul-smem",
  title = "Shared-memory tiles",
  title_zh = "共享内存分块",
  source = "matmul-smem.cu",
  solution = "solutions/matmul-smem.cu",
  wrong = {
    "solutions/wrong/matmul-smem-no-k-guard.cu",
    "solutions/wrong/matmul-smem-one-sync.cu",
  },
  timeout = 60,
  hints = {
    "In the coalesced kernel every multiply-add costs 2 global loads: 2 K requests per warp "
      .. "(the log counts them). Yet the 32 warps of a block read the same 32 columns of B, and "
      .. "the 32 lanes of a warp the same row of A. Load each 32 x 32 tile once, one element per "
      .. "thread, into __shared__ arrays, and take the 32 multiply-adds from there: 2 requests "
      .. "per 32 k.",
    "Per step k0: As[ty][tx] = A at row row, column k0 + tx; Bs[ty][tx] = B at row k0 + ty, "
      .. "column col; 0 for anything outside the matrices (K = 29 and 44 are not multiples of "
      .. "32), so the inner loop needs no test. A barrier after the loads, and another after the "
      .. "inner loop before the next step overwrites the tiles.",
    "As[ty][k] is one word for the whole warp (a broadcast) and Bs[k][tx] 32 consecutive "
      .. "words, one per bank: no bank conflicts. The emulator counts the extra wavefronts a "
      .. "conflict costs.",
  },
  hints_zh = {
    "在合并访问的版本里，每次乘加要两次全局内存读取：每个线程束 2 K 次请求（日志里数过）。可是一个线程块的 32 个线程束读的是 B 的同样 32 列，一个线程束的 32 个 lane 读的是 A 的同一行。把每个 32 × 32 的分块只装一次，每个线程一个元素，放进 __shared__ 数组，再从那里做 32 次乘加：每 32 个 k 只要 2 次请求。",
    "第 k0 步：As[ty][tx] = A 第 row 行、第 k0 + tx 列；Bs[ty][tx] = B 第 k0 + ty 行、第 col 列；矩阵之外一律为 0（K = 29 和 44 都不是 32 的倍数），这样内层循环不需要判断。装入之后一道屏障，内层循环之后、下一步覆盖分块之前再一道。",
    "As[ty][k] 对整个线程束是同一个字（广播），Bs[k][tx] 是 32 个连续的字，每个 bank 一个：没有 bank 冲突。模拟器会数出冲突多花的 wavefront。",
  },
  hint_for = { race = 2, ["wrong-result"] = 2 },

  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "loop bound < to <=", line = "for (int k0 = 0; k0 < K; k0 += TILE) {",
      why = "the extra tile starts at or past K: its loads are guarded, all zeros, so it adds nothing" },
  },
  run = function(t)
    local m, M, N, K = matmul.run_sizes(t, t:kernel("sgemm"), STEP)
    if not M then return end   -- a GPU (checked and timed), or a size failed
    local warps = ((M + 31) // 32) * ((N + 31) // 32) * 32
    local steps = (K + 31) // 32
    local per_warp = m.global_requests / warps
    t:log("%.1f global requests per warp (target: at most %d = 2 per step x %d steps + 1 store; "
          .. "the coalesced kernel: %d); %d shared-memory requests, %d extra wavefronts from bank "
          .. "conflicts", per_warp, 2 * steps + 1, steps, 2 * K + 1, m.shared_requests,
          m.bank_conflicts)
    t:expect(m.global_requests <= warps * (2 * steps + 1), string.format("%.1f global requests "
      .. "per warp; the target is at most %d: load each tile element once into shared memory "
      .. "and reuse it 32 times", per_warp, 2 * steps + 1))
    t:expect(m.shared_requests > 0 and m.bank_conflicts == 0, string.format("%d extra "
      .. "shared-memory wavefronts from bank conflicts (%d shared requests); the target is a "
      .. "conflict-free tile in shared memory", m.bank_conflicts, m.shared_requests))
  end,
}
