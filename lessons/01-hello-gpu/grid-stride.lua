-- grid-stride: SAXPY with a grid that is deliberately much smaller than the
-- data, so only a correct grid-stride loop updates every element exactly once.
return {
  id = "grid-stride",
  title = "SAXPY with a grid-stride loop",
  title_zh = "用网格跨步循环实现 SAXPY",
  source = "grid-stride.cu",
  solution = "solutions/grid-stride.cu",
  wrong = {
    "solutions/wrong/grid-stride-block-stride.cu",
    "solutions/wrong/grid-stride-no-blockidx.cu",
  },
  hints = {
    "The grid has 8192 threads but there are 131075 elements: each thread must handle "
      .. "about 16 of them, spaced so that no two threads ever take the same element.",
    "The step between two elements of one thread is the number of threads in the whole "
      .. "grid: blockDim.x * gridDim.x (not blockDim.x, which is only one block).",
    "for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) "
      .. "y[i] = a * x[i] + y[i];",
  },
  hints_zh = {
    "网格只有 8192 个线程，却有 131075 个元素：每个线程要处理大约 16 个，"
      .. "而且间隔要安排好，保证任何两个线程都不会拿到同一个元素。",
    "同一个线程相邻两次处理的元素之间，相隔整个网格的线程总数：blockDim.x * gridDim.x"
      .. "（不是 blockDim.x，那只是一个线程块）。",
    "for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) "
      .. "y[i] = a * x[i] + y[i];",
  },
  run = function(t)
    local n = t:param("n", (1 << 17) + 3)
    local blocks = t:param("blocks", 32)
    local threads = t:param("threads", 256)
    local alpha = 2.5

    local x = gpu.array("f32", n, "x"):random{ lo = -1, hi = 1, seed = 3 }
    local y = gpu.array("f32", n, "y"):random{ lo = -1, hi = 1, seed = 4 }
    -- The reference reads y before the kernel changes it.
    local want = ref.axpy(alpha, x, y)

    t:log("n = %d elements, fixed grid of %d blocks x %d threads = %d threads (~%d elements each)",
          n, blocks, threads, blocks * threads, (n + blocks * threads - 1) // (blocks * threads))
    t:kernel("saxpy"):launch{ grid = blocks, block = threads,
                              args = { gpu.i32(n), gpu.f32(alpha), x, y } }

    -- abs covers a fused multiply-add (one rounding) against a*x then +y (two).
    t:expect_close(y, want, { rel = 1e-5, abs = 1e-6, name = "y" })

    -- Hidden checks when grading: fewer elements than threads, and a grid
    -- that is not the one the learner saw, so a loop that assumes either fails.
    if t:grading() then
      for _, c in ipairs{ { n = 5, blocks = 2 }, { n = 10007, blocks = 3 } } do
        local hx = gpu.array("f32", c.n, "x"):random{ lo = -1, hi = 1, seed = t:seed(30 + c.n) }
        local hy = gpu.array("f32", c.n, "y"):random{ lo = -1, hi = 1, seed = t:seed(40 + c.n) }
        local hwant = ref.axpy(alpha, hx, hy)
        t:kernel("saxpy"):launch{ grid = c.blocks, block = threads, args = { gpu.i32(c.n), gpu.f32(alpha), hx, hy } }
        t:expect_close(hy, hwant, { rel = 1e-5, abs = 1e-6,
                                    name = string.format("hidden n = %d on %d blocks", c.n, c.blocks) })
      end
    end
  end,
}
