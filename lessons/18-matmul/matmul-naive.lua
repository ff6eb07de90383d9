-- matmul-naive: the first of eight steps from the naive SGEMM to near-cuBLAS.
-- C = A * B (row-major, A M x K, B K x N, FP32); one thread per element of C,
-- blocks of 32 x 32 with threadIdx.x along the rows (as the launch gives it).
-- Emulator: 67 x 45 x 29 and 200 x 196 x 44 checked in full (no dimension a
-- multiple of 32); the log shows the sectors per request the next step
-- improves. GPU: 517 x 388 x 300 in full, then 4096^3 timed (3 launches:
-- this kernel is slow) against a TFLOP/s target set on an H200.

-- GPU target at 4096^3 (FP32 TFLOP/s on an H200): about 15% below this step's
-- rate. H200 2026-12-01 (bench/anchors, median of 30, L2 flushed, one run):
-- 0.5 TFLOP/s, cuBLAS 51.4.
local H200_TARGET_TFLOPS = 0.42
-- cublasSgemm there (FP32, no TF32, 4096^3): H200 2026-12-01, 51.4 TFLOP/s.
local H200_CUBLAS_TFLOPS = 51.4
-- Stretch goal (TFLOP/s on an H200; nil: none).
local H200_STRETCH_TFLOPS = nil
local REPS = 3                -- timed launches at 4096^3

-- This step's launch for C = A (M x K) * B (K x N).
local function launch_for(A, B, C, M, N, K)
  return { grid = { (M + 31) // 32, (N + 31) // 32 }, block = { 32, 32 },
           args = { A, B, C, gpu.i32(M), gpu.i32(N), gpu.i32(K) } }
end

-- Multiplies an M x K by a K x N matrix with this step's launch and checks
-- every element of C against the CPU reference (ref.matmul, in double).
local function check_size(t, k, M, N, K, seed)
  local A = gpu.array("f32", { M, K }, "A"):random{ lo = -1, hi = 1, seed = seed }
  local B = gpu.array("f32", { K, N }, "B"):random{ lo = -1, hi = 1, seed = seed + 1 }
  local C = gpu.array("f32", { M, N }, "C")
  k:launch(launch_for(A, B, C, M, N, K))
  return t:expect_close(C, ref.matmul(A, B), { rel = 1e-4, abs = 1e-4,
                        name = string.format("C (%d x %d, K = %d)", M, N, K) })
end

-- FP32 lanes of the GPU relative to an H200's (132 SMs x 128): the targets
-- below were set on an H200 and scale with this elsewhere (an estimate).
local function lanes_vs_h200(dev)
  local cc = dev.cc or 90
  local per_sm = (cc < 86) and 64 or 128             -- up to sm_80: 64 FP32 lanes per SM
  return (dev.sm_count or 132) * per_sm / (132 * 128)
end

-- S x S x S on the GPU: 32 entries spot-checked against dot products on the
-- CPU (the whole product would take the CPU minutes), then timed.
local function time_square(t, k, reps)
  local dev = t:device()
  local S = t:param("size", 4096)
  local A = gpu.array("f32", { S, S }, "A"):random{ lo = -1, hi = 1, seed = 183 }
  local B = gpu.array("f32", { S, S }, "B"):random{ lo = -1, hi = 1, seed = 184 }
  local C = gpu.array("f32", { S, S }, "C")
  local l = launch_for(A, B, C, S, S, S)
  l.reps = reps
  local ms = k:time(l)
  if not ms then return end
  local bad = 0
  for s = 0, 31 do
    local r, c = (s * 977) % S, (s * 613 + 5) % S
    local want = 0.0
    for q = 0, S - 1 do want = want + A[r * S + q] * B[q * S + c] end
    if math.abs(C[r * S + c] - want) > 1e-3 * math.sqrt(S) then bad = bad + 1 end
  end
  if not t:expect(bad == 0, string.format("%d of 32 spot-checked entries of the %d^3 product "
                  .. "are wrong", bad, S)) then
    return
  end
  local tflops = 2.0 * S * S * S / (ms * 1e9)
  local on_h200 = tostring(dev.name):find("H200") ~= nil
  local scale = on_h200 and 1.0 or lanes_vs_h200(dev)
  local target, cublas = H200_TARGET_TFLOPS * scale, H200_CUBLAS_TFLOPS * scale
  t:metric("tflops", tflops, "TFLOP/s")
  t:metric("fraction_of_cublas", tflops / cublas)
  t:log("%d^3: %.3f ms, %.2f TFLOP/s = %.0f%% of cuBLAS%s (%.1f TFLOP/s); target %.2f TFLOP/s "
        .. "(%.0f%%)", S, ms, tflops, 100 * tflops / cublas, on_h200 and " on an H200" or
        " (estimated from an H200's, scaled by FP32 lanes)", cublas, target,
        100 * target / cublas)
  t:expect(tflops >= target, string.format("%.2f TFLOP/s at %d^3; the target is %.2f TFLOP/s "
    .. "(%.0f%% of cuBLAS)", tflops, S, target, 100 * target / cublas))
  if H200_STRETCH_TFLOPS then
    local stretch = H200_STRETCH_TFLOPS * scale
    t:stretch(tflops >= stretch, string.format("stretch goal: %.2f TFLOP/s (%.0f%% of cuBLAS; you "
      .. "have %.0f%%)", stretch, 100 * stretch / cublas, 100 * tflops / cublas))
  end
  return tflops, cublas
end

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
    local k = t:kernel("sgemm")
    if t:device().backend ~= "emu" then
      if check_size(t, k, 517, 388, 300, 181) then time_square(t, k, REPS) end
      return
    end
    if not check_size(t, k, 67, 45, 29, 181) then return end
    local M, N, K = 200, 196, 44
    if not check_size(t, k, M, N, K, 185) then return end
    local m = t:emu_metrics()
    t:log("%.1f sectors per global request (%.1f ideal); %.2f warp instructions per warp "
          .. "multiply-add", m.sectors_per_request or 0, m.ideal_sectors_per_request or 0,
          m.warp_instructions / ((M * N * K + 31) // 32))
    t:log("the lanes of a warp take 32 different rows of A: the next exercise gives them one "
          .. "row and 32 neighbouring columns")
  end,
}
