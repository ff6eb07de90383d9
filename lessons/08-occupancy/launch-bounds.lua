-- launch-bounds: registers as the occupancy limiter. A register-tiled matrix
-- multiply (6 x 6 outputs per thread) needs about 80 registers on sm_90,
-- which leaves room for 3 blocks of 256 (37.5%); __launch_bounds__(256, 4)
-- makes ptxas fit it in 64 (50%). Registers come from a cubin built for
-- sm_90, so the check is the same on the emulator and on any GPU. Values are
-- checked on shapes that are not multiples of 6 (37 x 53 x 29, 131 x 70 x 17;
-- 1541 x 1539 x 256 on a GPU, where the run also times the kernel and checks
-- that the local GPU's build does not spill).
return {
  id = "launch-bounds",
  title = "Registers as the limiter: __launch_bounds__",
  title_zh = "寄存器成为瓶颈：__launch_bounds__",
  source = "launch-bounds.cu",
  solution = "solutions/launch-bounds.cu",
  wrong = {
    "solutions/wrong/launch-bounds-two-blocks.cu",
    "solutions/wrong/launch-bounds-small-block.cu",
  },
  timeout = 60,
  hints = {
    "Registers are the limit: 4 blocks of 256 threads are 1024 threads, and 65536 / 1024 "
      .. "= 64 registers each. The compiler cannot know how you launch the kernel unless you "
      .. "say so, between __global__ and the kernel's name.",
    "extern \"C\" __global__ void __launch_bounds__(256, 4) matmul_tile(...): at most 256 "
      .. "threads per block, and room for at least 4 such blocks per SM.",
  },
  hints_zh = {
    "限制来自寄存器：4 个 256 线程的线程块共 1024 个线程，65536 / 1024 = 每个线程 64 个寄存器。"
      .. "你不告诉编译器核函数怎么启动，它就无从得知；要写在 __global__ 和核函数名之间。",
    "extern \"C\" __global__ void __launch_bounds__(256, 4) matmul_tile(...)：每个线程块最多 "
      .. "256 个线程，并且每个 SM 至少要能同时放下 4 个这样的线程块。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "weaken guard >= to >", line = "if (r0 >= M) return;",
      why = "every load and store below is guarded by r0 + i < M, so a thread past the last row computes zeros and stores nothing" },
    { mutation = "drop early-exit guard", line = "if (r0 >= M) return;",
      why = "every load and store below is guarded by r0 + i < M, so a thread past the last row computes zeros and stores nothing" },
  },
  -- verify --mutants: wrong mutants the emulator cannot catch (its blind spots)
  mutants_undetected = {
    { mutation = "loop bound < to <=", line = "for (int i = 0; i < TM; i++)",
      why = "an index one past a local array in a loop #pragma unroll unrolls: the compiler sees the out-of-range step at compile time and, as undefined behaviour, drops it, so no wrong access is left in the PTX for the emulator to catch" },
    { mutation = "loop bound < to <=", line = "for (int j = 0; j < TN; j++)",
      why = "an index one past a local array in a loop #pragma unroll unrolls: the compiler sees the out-of-range step at compile time and, as undefined behaviour, drops it, so no wrong access is left in the PTX for the emulator to catch" },
  },
  run = function(t)
    local dev = t:device()
    local on_gpu = dev.backend == "cuda"
    local TM, TN, BLOCK = 6, 6, 256
    local k = t:kernel("matmul_tile", { defines = { TM = TM, TN = TN } })

    local function multiply(M, N, K, seed)
      local A = gpu.array("f32", { M, K }, "A"):random{ lo = -1, hi = 1, seed = seed }
      local B = gpu.array("f32", { K, N }, "B"):random{ lo = -1, hi = 1, seed = seed + 1 }
      local C = gpu.array("f32", { M, N }, "C")
      local threads = ((M + TM - 1) // TM) * ((N + TN - 1) // TN)
      local launch = { grid = (threads + BLOCK - 1) // BLOCK, block = BLOCK,
                       args = { A, B, C, gpu.i32(M), gpu.i32(N), gpu.i32(K) } }
      k:launch(launch)
      local ok = t:expect_close(C, ref.matmul(A, B), { rel = 1e-4, abs = 1e-4,
                                name = string.format("C (%d x %d, K = %d)", M, N, K) })
      return ok, launch
    end

    if not multiply(37, 53, 29, 1) then return end
    if not multiply(131, 70, 17, 3) then return end

    local ok, o = t:expect_occupancy(k, { block = BLOCK, arch = "sm_90", min = 0.5 })
    t:log("sm_90, blocks of %d: %d registers per thread, %d blocks per SM, %.1f%% occupancy "
          .. "(limited by %s)", BLOCK, o.registers, o.blocks_per_sm, 100 * o.occupancy, o.limiter)
    if not ok then return end

    if on_gpu then
      -- The run's module was built for this GPU: ptxas's spill count, or the
      -- local memory the loaded function reports (no local arrays here).
      local spill = k.spill_bytes or k.local_bytes
      if spill and spill > 0 then
        t:fail(string.format("on this GPU the kernel spills to local memory (%d bytes): the "
          .. "bound squeezes it too hard", spill))
        return
      end
      local M, N, K = 1541, 1539, 256
      local good, launch = multiply(M, N, K, 5)
      if good then
        local ms = k:time(launch)
        local here = k:occupancy{ block = BLOCK }
        t:log("%d x %d x %d on this GPU: %.3f ms, %.0f GFLOP/s, %d registers, %.1f%% occupancy",
              M, N, K, ms, 2.0 * M * N * K / (ms * 1e6), here.registers, 100 * here.occupancy)
      end
    end
  end,
}
