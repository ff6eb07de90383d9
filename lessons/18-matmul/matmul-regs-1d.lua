-- matmul-regs-1d: a block of 64 x 8 threads computes a 64 x 64 tile of C with
-- BK = 8, each thread 8 outputs of one column kept in registers. The launch
-- changes: grid (N / 64, M / 64) rounded up, blockIdx.x along the columns.
-- Emulator: correctness on 67 x 45 x 29 and 200 x 196 x 44, then at most 1.25
-- shared-memory requests per warp multiply-add (one output per thread: 2)
-- and no bank conflicts. GPU: 4096^3 against an H200 TFLOP/s target.

local matmul = require("matmul_common")   -- the sizes, the CPU check and the timing of every step

-- This step's launch for C = A (M x K) * B (K x N).
local function launch_for(A, B, C, M, N, K)
  return { grid = { (N + 63) // 64, (M + 63) // 64 }, block = { 64, 8 },
           args = { A, B, C, gpu.i32(M), gpu.i32(N), gpu.i32(K) } }
end

-- This step, for matmul.run_sizes.
local STEP = {
  launch = launch_for,
  emu_size = { 67, 45, 29 },      -- the emulator's first size (then 200 x 196 x 44)
  -- GPU target at 4096^3 (FP32 TFLOP/s on an H200): above the last step's rate,
  -- 10-15% below this one's. H200 2026-12-01 (bench/anchors, median of 30, L2
  -- flushed, one run): 16.3 TFLOP/s, cuBLAS 51.4; matmul-smem 8.9.
  target = 14.0,
  reps = 20,                      -- timed launches at 4096^3
}

return {
  id = "matmul-regs-1d",
  title = "1D register tiling: 8 outputs per thread",
  title_zh = "一维寄存器分块：每个线程 8 个输出",
  source = "matmul-regs-1d.cu",
  solution = "solutions/matmul-regs-1d.cu",
  wrong = {
    "solutions/wrong/matmul-regs-1d-no-row-guard.cu",
    "solutions/wrong/matmul-regs-1d-no-k-guard.cu",
  },
  timeout = 60,
  hints = {
    "With one output per thread every multiply-add reads 2 floats from shared memory: "
      .. "shared memory, not arithmetic, sets the speed (the log shows the requests per "
      .. "multiply-add). Give each thread TM = 8 outputs of one column: for each k it reads B's "
      .. "value once into a register and uses it 8 times, 9 loads for 8 multiply-adds.",
    "The starter already loads the new tiles (64 x 8 of A, 8 x 64 of B, one element of each "
      .. "per thread) but computes one output per thread, row row0 + ty: only 8 of the 64 rows "
      .. "of each tile of C are written (the check counts the wrong elements). Thread (tx, ty) "
      .. "owns column col0 + tx and rows row0 + 8 ty + i, i = 0..7: acc[i] += As[8 ty + i][k] * "
      .. "b, and store all 8 inside C.",
    "Keep float acc[TM] in registers: #pragma unroll every loop over i, so that each index "
      .. "is a constant; an array indexed by a run-time value lives in local memory (the "
      .. "emulator counts local requests). As[8 ty + i][k] is one word for the whole warp: a "
      .. "broadcast.",
  },
  hints_zh = {
    "每个线程一个输出时，每次乘加要从共享内存读 2 个 float：决定速度的是共享内存，不是运算（日志给出每次乘加的请求数）。让每个线程算同一列的 TM = 8 个输出：对每个 k，它把 B 的值读进寄存器一次，用 8 次，9 次读取换 8 次乘加。",
    "起始代码已经装入新的分块（A 的 64 × 8，B 的 8 × 64，每个线程各一个元素），但每个线程只算一个输出，第 row0 + ty 行：C 的每个分块 64 行里只写了 8 行（检查会数出错误的元素）。线程 (tx, ty) 负责第 col0 + tx 列和第 row0 + 8 ty + i 行，i = 0..7：acc[i] += As[8 ty + i][k] * b，再把 8 个输出中落在 C 之内的都写回。",
    "让 float acc[TM] 留在寄存器里：对 i 的每个循环都加 #pragma unroll，使每个下标都是常量；用运行时的值做下标的数组会放到本地内存（模拟器会数本地内存请求）。As[8 ty + i][k] 对整个线程束是同一个字：广播。",
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
  },
  run = function(t)
    local m, M, N, K = matmul.run_sizes(t, t:kernel("sgemm"), STEP)
    if not M then return end   -- a GPU (checked and timed), or a size failed
    local blocks = ((N + 63) // 64) * ((M + 63) // 64)
    local steps = (K + 7) // 8
    local fma = blocks * 16 * 8 * steps * 8           -- 16 warps, 8 outputs per thread, per k
    local shared = m.shared_requests / fma
    t:log("%d warp multiply-adds; %.3f shared-memory requests per multiply-add (one output per "
          .. "thread: about 2); %.2f warp instructions per multiply-add; %d local-memory "
          .. "requests; %d extra wavefronts from bank conflicts", fma, shared,
          m.warp_instructions / fma, m.local_requests, m.bank_conflicts)
    t:expect(shared <= 1.25, string.format("%.2f shared-memory requests per multiply-add; the "
      .. "target is at most 1.25: read B's value once per k and use it for all 8 outputs", shared))
    t:expect(m.bank_conflicts == 0, string.format("%d extra shared-memory wavefronts from bank "
      .. "conflicts; the target is 0", m.bank_conflicts))
  end,
}
