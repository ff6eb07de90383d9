-- matmul-coalesced: the naive kernel with threadIdx.x moved to the column, so
-- that a warp reads one row of A (a broadcast) and 32 neighbouring floats of
-- B. Same launch as matmul-naive. Emulator: correctness on 67 x 45 x 29 and
-- 200 x 196 x 44, then at most 3 sectors per global request (the naive
-- mapping: about 16). GPU: 4096^3 against an H200 TFLOP/s target.

-- GPU target at 4096^3 (FP32 TFLOP/s on an H200): above the last step's rate,
-- 10-15% below this one's. H200 2026-12-01 (bench/anchors, median of 30, L2
-- flushed, one run): 6.1 TFLOP/s, cuBLAS 51.4; matmul-naive 0.5.
local H200_TARGET_TFLOPS = 5.2
-- cublasSgemm there (FP32, no TF32, 4096^3): H200 2026-12-01, 51.4 TFLOP/s.
local H200_CUBLAS_TFLOPS = 51.4
-- Stretch goal (TFLOP/s on an H200; nil: none).
local H200_STRETCH_TFLOPS = nil
local REPS = 5                -- timed launches at 4096^3

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
    local k = t:kernel("sgemm")
    if t:device().backend ~= "emu" then
      if check_size(t, k, 517, 388, 300, 181) then time_square(t, k, REPS) end
      return
    end
    if not check_size(t, k, 67, 45, 29, 181) then return end
    local M, N, K = 200, 196, 44
    if not check_size(t, k, M, N, K, 185) then return end
    local m = t:emu_metrics()
    local spr = m.sectors_per_request or 0
    t:log("%.2f sectors per global request (%.2f ideal; the naive mapping: about 16); %.2f warp "
          .. "instructions per warp multiply-add", spr, m.ideal_sectors_per_request or 0,
          m.warp_instructions / ((M * N * K + 31) // 32))
    t:expect(spr <= 3.0, string.format("%.1f sectors per global request; the target is at most 3: "
      .. "the 32 lanes of a warp should share a row and read 32 neighbouring columns", spr))
  end,
}
