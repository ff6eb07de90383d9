-- block-size: one grid-stride kernel launched with eight block sizes (including
-- 96 and 1000, which are not powers of two, and 1000, which is not a multiple of
-- 32) on a grid sized for the device. The update is in place and not
-- idempotent, so an element visited twice or never is caught. On a GPU each
-- block size is timed, to show how little the choice matters past a point.
return {
  id = "block-size",
  title = "Any block size: grid-stride loops",
  title_zh = "任意线程块大小：网格跨步循环",
  source = "block-size.cu",
  solution = "solutions/block-size.cu",
  wrong = {
    "solutions/wrong/block-size-block-stride.cu",
    "solutions/wrong/block-size-one-pass.cu",
  },
  hints = {
    "The kernel must not assume a block size: the launch tells every thread how big "
      .. "a block is (blockDim.x) and how many blocks there are (gridDim.x).",
    "int start = blockIdx.x * blockDim.x + threadIdx.x; int stride = blockDim.x * gridDim.x; "
      .. "The stride is the number of threads in the whole grid, so that no two threads "
      .. "ever visit the same element.",
  },
  hints_zh = {
    "核函数不能假设线程块大小：启动配置会告诉每个线程一个线程块有多大（blockDim.x）、一共有多少个线程块（gridDim.x）。",
    "int start = blockIdx.x * blockDim.x + threadIdx.x; int stride = blockDim.x * gridDim.x; 步长是整个网格的线程数，这样两个线程永远不会访问同一个元素。",
  },
  timeout = 30,
  run = function(t)
    local dev = t:device()
    local on_gpu = dev.backend ~= "emu"
    local n = t:param("n", on_gpu and (1 << 24) + 3 or 50001)
    local a, b = 0.5, 1.0
    local sizes = { 32, 64, 96, 128, 256, 512, 1000, 1024 }
    local sms = dev.sm_count or 4

    local k = t:kernel("affine")
    local bs = gpu.array("f32", n, "b"):fill(b)
    local best_ms, best_block
    for _, block in ipairs(sizes) do
      -- A device-sized grid: enough blocks to fill every SM (at most 2048
      -- threads per SM) on a GPU; on the emulator a small fixed grid, far
      -- fewer threads than elements, so each thread loops.
      local grid
      if on_gpu then
        grid = sms * math.max(1, 2048 // block)
      else
        grid = 6
      end
      local y = gpu.array("f32", n, "y"):random{ lo = -8, hi = 8, seed = block }
      local want = ref.axpy(a, y, bs)   -- a * y + b, computed before the kernel changes y
      k:launch{ grid = grid, block = block, args = { y, gpu.f32(a), gpu.f32(b), gpu.i32(n) } }
      t:expect_close(y, want, { rel = 1e-6, abs = 1e-6,
                                name = string.format("y (blocks of %d, grid of %d)", block, grid) })

      local ms = k:time{ grid = grid, block = block, args = { y, gpu.f32(a), gpu.f32(b), gpu.i32(n) } }
      if ms then
        local gbs = 2.0 * 4 * n / (ms * 1e6)
        t:log("blocks of %4d x %4d: %.3f ms, %.0f GB/s", block, grid, ms, gbs)
        if not best_ms or ms < best_ms then best_ms, best_block = ms, block end
      end
    end
    if best_ms then
      t:log("fastest: blocks of %d threads", best_block)
      t:report_bandwidth{ bytes = 2 * 4 * n, ms = best_ms }
    else
      t:log("(timings are shown only on a GPU; the emulator checks correctness)")
    end
  end,
}
