-- lessons/18-matmul/lib/matmul_common.lua: what every step of chapter 18
-- checks and measures the same way, shared by its exercises through
-- `local matmul = require("matmul_common")`: a size checked in full against
-- the CPU reference, the S^3 timing (S = 4096 by default) against a TFLOP/s
-- target set on an H200 and scaled elsewhere, and the order of the sizes.
-- Each exercise keeps what is its own: its launch, its targets (with the
-- measurements they come from) and the emulator proxy it checks.
local matmul = {}

-- cublasSgemm on an H200 (FP32, no TF32, 4096^3): H200 2026-12-01, 51.4
-- TFLOP/s (bench/anchors, median of 30, L2 flushed).
matmul.H200_CUBLAS_TFLOPS = 51.4

-- The launches the steps share, for C = A (M x K) * B (K x N). One thread
-- per element of C in blocks of 32 x 32, blockIdx.x and threadIdx.x along
-- the rows of C (naive, coalesced, smem: the kernel decides what a lane
-- takes).
function matmul.launch_32x32(A, B, C, M, N, K)
  return { grid = { (M + 31) // 32, (N + 31) // 32 }, block = { 32, 32 },
           args = { A, B, C, gpu.i32(M), gpu.i32(N), gpu.i32(K) } }
end

-- A 128 x 128 tile of C per block of 16 x 16 threads, blockIdx.x along the
-- columns (regs-2d, float4, warptile, double-buffer).
function matmul.launch_128x128(A, B, C, M, N, K)
  return { grid = { (N + 127) // 128, (M + 127) // 128 }, block = { 16, 16 },
           args = { A, B, C, gpu.i32(M), gpu.i32(N), gpu.i32(K) } }
end

-- The fields a step gives run_sizes.
local STEP_FIELDS = { launch = true, emu_size = true, target = true, stretch = true, reps = true,
                      size = true }

-- Multiplies an M x K by a K x N matrix with the step's launch_for and
-- checks every element of C against the CPU reference (ref.matmul, in
-- double).
function matmul.check_size(t, k, launch_for, M, N, K, seed)
  local A = gpu.array("f32", { M, K }, "A"):random{ lo = -1, hi = 1, seed = seed }
  local B = gpu.array("f32", { K, N }, "B"):random{ lo = -1, hi = 1, seed = seed + 1 }
  local C = gpu.array("f32", { M, N }, "C")
  k:launch(launch_for(A, B, C, M, N, K))
  return t:expect_close(C, ref.matmul(A, B), { rel = 1e-4, abs = 1e-4,
                        name = string.format("C (%d x %d, K = %d)", M, N, K) })
end

-- FP32 lanes of the GPU relative to an H200's (132 SMs x 128): the targets
-- were set on an H200 and scale with this elsewhere (an estimate).
function matmul.lanes_vs_h200(dev)
  local cc = dev.cc or 90
  local per_sm = (cc < 86) and 64 or 128             -- up to sm_80: 64 FP32 lanes per SM
  return (dev.sm_count or 132) * per_sm / (132 * 128)
end

-- S x S x S on the GPU: 32 entries spot-checked against dot products on the
-- CPU (the whole product would take the CPU minutes), then timed (step.reps
-- launches) against step.target and step.stretch (TFLOP/s on an H200 at
-- this S; the stretch goal may be nil). S is step.size, else 4096 (the
-- "size" param overrides both). Returns the TFLOP/s and cuBLAS's (scaled;
-- cuBLAS's figure is at 4096^3).
function matmul.time_square(t, k, step)
  local dev = t:device()
  local S = t:param("size", step.size or 4096)
  local A = gpu.array("f32", { S, S }, "A"):random{ lo = -1, hi = 1, seed = 183 }
  local B = gpu.array("f32", { S, S }, "B"):random{ lo = -1, hi = 1, seed = 184 }
  local C = gpu.array("f32", { S, S }, "C")
  local l = step.launch(A, B, C, S, S, S)
  l.reps = step.reps
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
  local scale = on_h200 and 1.0 or matmul.lanes_vs_h200(dev)
  local target, cublas = step.target * scale, matmul.H200_CUBLAS_TFLOPS * scale
  t:metric("tflops", tflops, "TFLOP/s")
  t:metric("fraction_of_cublas", tflops / cublas)
  t:log("%d^3: %.3f ms, %.2f TFLOP/s = %.0f%% of cuBLAS%s (%.1f TFLOP/s); target %.2f TFLOP/s "
        .. "(%.0f%%)", S, ms, tflops, 100 * tflops / cublas, on_h200 and " on an H200" or
        " (estimated from an H200's, scaled by FP32 lanes)", cublas, target,
        100 * target / cublas)
  t:expect(tflops >= target, string.format("%.2f TFLOP/s at %d^3; the target is %.2f TFLOP/s "
    .. "(%.0f%% of cuBLAS)", tflops, S, target, 100 * target / cublas))
  if step.stretch then
    local stretch = step.stretch * scale
    t:stretch(tflops >= stretch, string.format("stretch goal: %.2f TFLOP/s (%.0f%% of cuBLAS; you "
      .. "have %.0f%%)", stretch, 100 * stretch / cublas, 100 * tflops / cublas))
  end
  return tflops, cublas
end

-- The sizes of every step, in order, with kernel k and the step's
--   { launch = launch_for, emu_size = { M, N, K }, target = TFLOP/s,
--     stretch = TFLOP/s or nil, reps = timed launches or nil (k:time's budget),
--     size = S of the timed S^3 on a GPU or nil (4096) }.
-- On a GPU: 517 x 388 x 300 checked in full, then S^3 timed; returns
-- nothing. On the emulator: emu_size, then 200 x 196 x 44, each checked in
-- full (no dimension a multiple of the tiles); when both pass, returns the
-- emulator's metrics of the last launch and 200, 196, 44 for the step's own
-- checks of its proxy.
function matmul.run_sizes(t, k, step)
  for key in pairs(step) do
    if not STEP_FIELDS[key] then error(string.format("matmul.run_sizes: unknown step field '%s'", key), 2) end
  end
  if t:device().backend ~= "emu" then
    if matmul.check_size(t, k, step.launch, 517, 388, 300, 181) then matmul.time_square(t, k, step) end
    return
  end
  local e = step.emu_size
  if not matmul.check_size(t, k, step.launch, e[1], e[2], e[3], 181) then return end
  local M, N, K = 200, 196, 44
  if not matmul.check_size(t, k, step.launch, M, N, K, 185) then return end
  return t:emu_metrics(), M, N, K
end

-- The counts of the steps with launch_128x128 (8 warps per block, 8 x 8
-- outputs per thread) and BK = 8, after the
-- emulator ran M x N x K (metrics m): logs them and returns the blocks, the
-- steps along K, the shared-memory requests per warp multiply-add, the
-- global requests per warp and their target (2 per step + 16 float4 stores).
function matmul.tile128_counts(t, m, M, N, K)
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
  return blocks, steps, shared, m.global_requests / warps, 2 * steps + 16
end

return matmul
