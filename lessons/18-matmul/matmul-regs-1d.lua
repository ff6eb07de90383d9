-- matmul-regs-1d: a block of 64 x 8 threads computes a 64 x 64 tile of C with
-- BK = 8, each thread 8 outputs of one column kept in registers. The launch
-- changes: grid (N / 64, M / 64) rounded up, blockIdx.x along the columns.
-- Emulator: correctness on 67 x 45 x 29 and 200 x 196 x 44, then at most 1.25
-- shared-memory requests per warp multiply-add (one output per thread: 2)
-- and no bank conflicts. GPU: 4096^3 against an H200 TFLOP/s target.

-- GPU target at 4096^3 (FP32 TFLOP/s on an H200): above the last step's rate,
-- 10-15% below this one's. H200 2026-12-01 (bench/anchors, median of 30, L2
-- flushed, one run): 16.3 TFLOP/s, cuBLAS 51.4; matmul-smem 8.9.
local H200_TARGET_TFLOPS = 14.0
-- cublasSgemm there (FP32, no TF32, 4096^3): H200 2026-12-01, 51.4 TFLOP/s.
local H200_CUBLAS_TFLOPS = 51.4
-- Stretch goal (TFLOP/s on an H200; nil: none).
local H200_STRETCH_TFLOPS = nil
local REPS = 20                -- timed launches at 4096^3

-- This step's launch for C = A (M x K) * B (K x N).
local function launch_for(A, B, C, M, N, K)
  return { grid = { (N + 63) // 64, (M + 63) // 64 }, block = { 64, 8 },
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
    local k = t:kernel("sgemm")
    if t:device().backend ~= "emu" then
      if check_size(t, k, 517, 388, 300, 181) then time_square(t, k, REPS) end
      return
    end
    if not check_size(t, k, 67, 45, 29, 181) then return end
    local M, N, K = 200, 196, 44
    if not check_size(t, k, M, N, K, 185) then return end
    local m = t:emu_metrics()
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
