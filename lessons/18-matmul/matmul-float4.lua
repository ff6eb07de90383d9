-- matmul-float4: the 128 x 128 kernel with 16-byte loads and stores: one
-- float4 of A's tile and one of B's per thread and step, A's tile transposed
-- in shared memory, the fragments read as float4. N and K must be multiples of
-- 4 from here on (16-byte aligned rows). Same launch as matmul-regs-2d.
-- Emulator: correctness on 67 x 52 x 20 and 200 x 196 x 44 (no dimension a
-- multiple of the tile), then at most 2 global requests per warp and step
-- plus 16 for the stores (scalar: 8 and 64) and at most 0.08 shared-memory requests per warp multiply-add
-- (scalar: 0.27); bank conflicts are logged (the next step removes them).
-- GPU: 4096^3 against an H200 TFLOP/s target.

-- GPU target at 4096^3 (FP32 TFLOP/s on an H200): above the last step's rate,
-- 10-15% below this one's. H200 2026-12-01 (bench/anchors, median of 30, L2
-- flushed, one run): 36.5 TFLOP/s, cuBLAS 51.4; matmul-regs-2d 21.4.
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
