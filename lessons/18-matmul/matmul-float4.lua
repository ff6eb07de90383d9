-- matmul-float4: the 128 x 128 kernel with 16-byte loads and stores: one
-- float4 of A's tile and one of B's per thread and step, A's tile transposed
-- in shared memory, the fragments read as float4. N and K must be multiples of
-- 4 from here on (16-byte aligned rows). Same launch as matmul-regs-2d.
-- Emulator: correctness on 67 x 52 x 20 and 200 x 196 x 44 (no dimension a
-- multiple of the tile), then at most 2 global requests per warp and step
-- plus 16 for the stores (scalar: 8 and 64) and at most 0.08 shared-memory requests per warp multiply-add
-- (scalar: 0.27); bank conflicts are logged (the next step removes them).
-- GPU: 4096^3 against an H200 TFLOP/s target.

local matmul = require("matmul_common")   -- the sizes, the CPU check and the timing of every step

-- This step, for matmul.run_sizes.
local STEP = {
  launch = matmul.launch_128x128,  -- C = A (M x K) * B (K x N)
  emu_size = { 67, 52, 20 },      -- the emulator's first size (then 200 x 196 x 44)
  -- GPU target at 4096^3 (FP32 TFLOP/s on an H200): above the last step's rate,
  -- 10-15% below this one's. H200 2026-12-01 (bench/anchors, median of 30, L2
  -- flushed, one run): 36.5 TFLOP/s, cuBLAS 51.4; matmul-regs-2d 21.4.
  target = 31.0,
  reps = 20,                      -- timed launches at 4096^3
}

return {
  id = "matmul-float4",
  title = "Vectorised loads: float4",
  title_zh = "向量化访存：float4",
  source = "matmul-float4.cu",
  solution = "solutions/matmul-float4.cu",
  wrong = {
    "solutions/wrong/matmul-float4-no-k-guard.cu",
    "solutions/wrong/matmul-float4-no-row-guard.cu",
  },
  timeout = 60,
  hints = {
    "Every load instruction costs issue slots and a request, whatever its width. A float4 "
      .. "moves 16 bytes in one: the tile loads drop from 8 requests per warp and step to 2 (the "
      .. "log counts them), and 2 float4 of A plus 2 of B per k feed 64 multiply-adds: 4 shared "
      .. "requests instead of 16. Fewer instructions per multiply-add leave the FP32 units less "
      .. "to wait for.",
    "A float4 needs 4 adjacent floats. B's row k already has them (Bs[k][8 tx .. 8 tx + 7] "
      .. "is two float4). A's column does not: store A's tile transposed, As[k][m], with the 4 "
      .. "floats of each global float4 going to As[ac + 0..3][ar]. Pad its rows to BM + 4 floats "
      .. "so that the transposed stores of a warp hit 32 different banks.",
    "Thread t loads A's float4 at row t / 2, column 4 (t % 2) of the tile and B's at row t "
      .. "/ 32, column 4 (t % 32). K and N are multiples of 4, so a float4 is wholly inside or "
      .. "wholly outside the matrix: one guard per float4, zeros outside. Store C as float4 too.",
  },
  hints_zh = {
    "每条访存指令都要占发射槽、发一次请求，不论宽度。一个 float4 一次搬 16 字节：装分块的请求从每个线程束每步 8 次降到 2 次（日志里数着），每个 k 读 A 的 2 个 float4 和 B 的 2 个 float4，够 64 次乘加：4 次共享内存请求，而不是 16 次。每次乘加的指令越少，FP32 单元要等的就越少。",
    "float4 需要 4 个相邻的 float。B 的第 k 行本来就相邻（Bs[k][8 tx .. 8 tx + 7] 是两个 float4）。A 的一列不是：把 A 的分块转置存放，As[k][m]，每个全局 float4 的 4 个数存到 As[ac + 0..3][ar]。把它的行补齐到 BM + 4 个 float，让一个线程束的转置写入落在 32 个不同的 bank。",
    "线程 t 装 A 的分块中第 t / 2 行、第 4 (t % 2) 列的 float4，B 的分块中第 t / 32 行、第 4 (t % 32) 列的 float4。K 和 N 都是 4 的倍数，所以一个 float4 要么整个在矩阵里，要么整个在外面：每个 float4 一个判断，外面补 0。C 也按 float4 写。",
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
    local blocks, steps, shared, per_warp, max_per_warp = matmul.tile128_counts(t, m, M, N, K)
    t:expect(per_warp <= max_per_warp, string.format("%.1f global requests per warp; the target "
      .. "is at most %d: one float4 of A and one of B per thread and step (2 x %d), 16 float4 "
      .. "stores (scalar loads and stores: %d)", per_warp, max_per_warp, steps, 8 * steps + 64))
    t:expect(shared <= 0.08, string.format("%.3f shared-memory requests per multiply-add; the "
      .. "target is at most 0.08: read each thread's 8 values of A and of B as two float4 each",
      shared))
    if m.bank_conflicts > 0 then
      t:log("the %d extra wavefronts: each quarter-warp's float4 reads of Bs[k][8 tx] hit every "
            .. "bank twice; the next exercise (warp tiles) removes them", m.bank_conflicts)
    end
  end,
}
