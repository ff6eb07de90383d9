-- matmul-tiled: C = A * B with 16 x 16 shared-memory tiles on non-square
-- sizes that are not multiples of 16 (75 x 61 times 61 x 93 on the emulator),
-- values in [-1, 1). On the emulator the global requests per warp must show
-- the reuse that tiling buys; on a GPU the log shows GFLOP/s.
return {
  id = "matmul-tiled",
  title = "Tiled matrix multiply",
  title_zh = "分块矩阵乘法",
  source = "matmul-tiled.cu",
  solution = "solutions/matmul-tiled.cu",
  wrong = {
    "solutions/wrong/matmul-tiled-one-sync.cu",
    "solutions/wrong/matmul-tiled-early-return.cu",
    "solutions/wrong/matmul-tiled-swapped-b.cu",
  },
  hints = {
    "In step k0 the block needs A's rows blockIdx.y*16.. at columns k0..k0+15 and B's "
      .. "rows k0..k0+15 at columns blockIdx.x*16..; thread (tx, ty) loads one element of "
      .. "each: As[ty][tx] = A[row * K + k0 + tx]; Bs[ty][tx] = B[(k0 + ty) * N + col];",
    "Guard each load with a ternary that stores 0 outside the matrix: "
      .. "(row < M && k0 + tx < K) ? A[...] : 0.0f and (k0 + ty < K && col < N) ? B[...] : 0.0f. "
      .. "Zeros add nothing to the sum, so the inner loop needs no test.",
    "Two barriers per step: __syncthreads() after the loads (the tiles are complete) and "
      .. "another after the inner loop (everyone is done reading before the next loads). "
      .. "Never return early: every thread must reach every barrier.",
  },
  hints_zh = {
    "第 k0 步，线程块需要 A 中第 blockIdx.y*16.. 行、第 k0..k0+15 列，以及 B 中第 k0..k0+15 行、第 blockIdx.x*16.. 列；线程 (tx, ty) 各装一个：As[ty][tx] = A[row * K + k0 + tx]; Bs[ty][tx] = B[(k0 + ty) * N + col];",
    "每次装入都用三元表达式处理越界，矩阵之外存 0：(row < M && k0 + tx < K) ? A[...] : 0.0f 和 (k0 + ty < K && col < N) ? B[...] : 0.0f。0 对求和没有影响，所以内层循环不需要判断。",
    "每步两道屏障：装入之后一个 __syncthreads()（分块已完整），内层循环之后再一个（大家都读完了，才能装下一块）。不要提前 return：每个线程都必须到达每一道屏障。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "loop bound < to <=", line = "for (int k0 = 0; k0 < K; k0 += TILE) {",
      why = "the extra tile starts at or past K: its guarded loads are all zeros, so it adds nothing" },
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local M = t:param("M", on_gpu and 1021 or 75)
    local K = t:param("K", on_gpu and 1027 or 61)
    local N = t:param("N", on_gpu and 1031 or 93)
    local TILE = 16

    local A = gpu.array("f32", { M, K }, "A"):random{ lo = -1, hi = 1, seed = 31 }
    local B = gpu.array("f32", { K, N }, "B"):random{ lo = -1, hi = 1, seed = 32 }
    local C = gpu.array("f32", { M, N }, "C")
    local grid = { (N + TILE - 1) // TILE, (M + TILE - 1) // TILE }
    local launch = { grid = grid, block = { TILE, TILE },
                     args = { A, B, C, gpu.i32(M), gpu.i32(N), gpu.i32(K) } }
    local k = t:kernel("matmul")
    k:launch(launch)
    t:expect_close(C, ref.matmul(A, B, M, N, K), { rel = 1e-4, abs = 1e-4, name = "C" })

    local m = t:emu_metrics()
    if m then
      local warps = grid[1] * grid[2] * (TILE * TILE // 32)
      local steps = (K + TILE - 1) // TILE
      local limit = warps * (2 * steps + 1)
      local per_warp = m.global_requests / warps
      t:log("%.1f global requests per warp (target: at most %d = 2 per step x %d steps + 1 "
            .. "store; one thread per output without tiles needs %d)",
            per_warp, 2 * steps + 1, steps, 2 * K + 1)
      t:expect(m.global_requests <= limit, string.format("%.1f global requests per warp; the "
        .. "target is at most %d: load each tile element once into shared memory and reuse it",
        per_warp, 2 * steps + 1))
    else
      local ms = k:time(launch)
      if ms then
        t:log("%.3f ms, %.0f GFLOP/s", ms, 2.0 * M * N * K / (ms * 1e6))
        t:metric("gflops", 2.0 * M * N * K / (ms * 1e6), "GFLOP/s")
      end
    end
  end,
}
