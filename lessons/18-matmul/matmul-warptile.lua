-- matmul-warptile: the float4 kernel with its threads arranged by warp: 8
-- warps in a 2 x 4 grid of 64 x 32 warp tiles, lane (lane / 4, lane % 4) of a
-- warp computing four 4 x 4 sub-tiles 32 rows and 16 columns apart. Same
-- launch. Emulator: correctness on 67 x 52 x 20 and 200 x 196 x 44, then no
-- bank conflicts (the float4 kernel has them), still at most 0.08 shared
-- requests per warp multiply-add and 2 global requests per warp and step (+16).
-- GPU: 4096^3 against an H200 TFLOP/s target.

-- GPU target at 4096^3 (FP32 TFLOP/s on an H200): above the last step's rate,
-- 10-15% below this one's. H200 2026-12-01 (bench/anchors, median of 30, L2
-- flushed, one run): 36.2 TFLOP/s, cuBLAS 51.4; matmul-float4 36.5.
-- NOT above the float4 step's rate: on the H200 warp tiling alone buys
-- no time (both run at ~71% of cuBLAS). The starter fails because it stores
-- nothing; the emulator's bank-conflict check is what tells the layouts apart.
local H200_TARGET_TFLOPS = 31.0
-- cublasSgemm there (FP32, no TF32, 4096^3): H200 2026-12-01, 51.4 TFLOP/s.
local H200_CUBLAS_TFLOPS = 51.4
-- Stretch goal (TFLOP/s on an H200; nil: none).
local H200_STRETCH_TFLOPS = nil
local REPS = 20                -- timed launches at 4096^3

-- This step's launch for C = A (M x K) * B (K x N).
local function launch_for(A, B, C, M, N, K)
  return { grid = { (N + 127) // 128, (M + 127) // 128 }, block = { 16, 16 },
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
    local k = t:kernel("sgemm")
    if t:device().backend ~= "emu" then
      if check_size(t, k, 517, 388, 300, 181) then time_square(t, k, REPS) end
      return
    end
    if not check_size(t, k, 67, 52, 20, 181) then return end
    local M, N, K = 200, 196, 44
    if not check_size(t, k, M, N, K, 185) then return end
    local m = t:emu_metrics()
    local blocks = ((N + 127) // 128) * ((M + 127) // 128)
    local steps = (K + 7) // 8
    local warps = blocks * 8
    local fma = warps * 64 * steps * 8                -- warp multiply-adds: 64 per thread and k
    local shared = m.shared_requests / fma
    t:log("%d warp multiply-adds; %.3f shared-memory requests per multiply-add; %.2f warp "
          .. "instructions per multiply-add; %.1f global requests per warp (%d steps of BK = 8 "
          .. "and the stores); %d extra wavefronts from bank conflicts; %d barriers", fma, shared,
          m.warp_instructions / fma, m.global_requests / warps, steps, m.bank_conflicts,
          m.barriers)
    local per_warp, max_per_warp = m.global_requests / warps, 2 * steps + 16
    t:expect(m.bank_conflicts == 0, string.format("%d extra shared-memory wavefronts from bank "
      .. "conflicts; the target is 0: a quarter-warp should read 16 consecutive words of Bs",
      m.bank_conflicts))
    t:expect(shared <= 0.08 and per_warp <= max_per_warp, string.format("%.3f shared-memory "
      .. "requests per multiply-add (target: at most 0.08) and %.1f global requests per warp (at "
      .. "most %d): keep the float4 loads and stores", shared, per_warp, max_per_warp))
  end,
}
