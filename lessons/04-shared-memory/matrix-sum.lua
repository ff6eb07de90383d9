-- matrix-sum: sum a 517 x 389 matrix of values in [-1, 1) with a block-level
-- tree reduction, twice (blocks -> partial sums -> one total). Each block's
-- partial sum is checked first, so a broken tree is reported per block.
return {
  id = "matrix-sum",
  title = "Sum a matrix: tree reduction in shared memory",
  title_zh = "矩阵求和：共享内存中的树形归约",
  source = "matrix-sum.cu",
  solution = "solutions/matrix-sum.cu",
  wrong = {
    "solutions/wrong/matrix-sum-no-sync.cu",
    "solutions/wrong/matrix-sum-one-pass.cu",
  },
  hints = {
    "Halve the number of active threads each step: with stride = 128, 64, ..., 1 the "
      .. "threads t < stride do s[t] += s[t + stride]; after the last step s[0] holds the "
      .. "block's sum.",
    "Each step reads what other threads (other warps) wrote in the step before, so a "
      .. "__syncthreads() must separate the steps, and it must be reached by ALL threads: "
      .. "for (int stride = BLOCK / 2; stride > 0; stride /= 2) { __syncthreads(); "
      .. "if (t < stride) s[t] += s[t + stride]; }",
  },
  hints_zh = {
    "每一步让活跃线程数减半：stride = 128, 64, ..., 1 时，t < stride 的线程执行 s[t] += s[t + stride]；最后一步之后 s[0] 就是本线程块之和。",
    "每一步都要读其他线程（其他 warp）在上一步写的值，所以步与步之间要有 __syncthreads()，而且所有线程都必须到达它：for (int stride = BLOCK / 2; stride > 0; stride /= 2) { __syncthreads(); if (t < stride) s[t] += s[t + stride]; }",
  },
  timeout = 30,
  run = function(t)
    local dev = t:device()
    local on_gpu = dev.backend ~= "emu"
    local rows = t:param("rows", on_gpu and 1025 or 517)
    local cols = t:param("cols", on_gpu and 2051 or 389)
    local n = rows * cols
    local block = 256
    -- Fewer threads than elements, so every thread sums many elements first.
    local blocks = t:param("blocks", on_gpu and (dev.sm_count or 100) * 8 or 48)

    local m = gpu.array("f32", { rows, cols }, "matrix"):random{ lo = -1, hi = 1, seed = 9 }
    local partial = gpu.array("f32", blocks, "partial")
    local total = gpu.array("f32", 1, "total")
    local k = t:kernel("block_sum")
    t:log("%d x %d = %d elements, %d blocks of %d threads (%d elements per thread)",
          rows, cols, n, blocks, block, (n + blocks * block - 1) // (blocks * block))
    k:launch{ grid = blocks, block = block, args = { m, partial, gpu.i32(n) } }

    -- Block b's threads take the elements i with (i mod blocks*256) // 256 == b.
    local want = ref.block_sums(m, block, { groups = blocks, dtype = "f64" })
    local size = ref.block_sums(m, block, { groups = blocks, abs = true, dtype = "f64" })   -- for the tolerance
    local bad = 0
    local first
    for b = 0, blocks - 1 do
      if not (math.abs(partial[b] - want[b]) <= 1e-5 * size[b] + 1e-6) then
        bad = bad + 1
        first = first or b
      end
    end
    if bad > 0 then
      t:fail(string.format("%d of %d block sums are wrong; the first is block %d: got %.6g, "
        .. "want %.6g", bad, blocks, first, partial[first], want[first]))
      return
    end

    -- Second step: one block sums the partial sums.
    k:launch{ grid = 1, block = block, args = { partial, total, gpu.i32(blocks) } }
    local sum = ref.sum(m)
    local abs = 0.0
    for b = 0, blocks - 1 do abs = abs + size[b] end
    t:log("sum = %.6f (CPU, in double precision: %.6f)", total[0], sum)
    t:expect(math.abs(total[0] - sum) <= 1e-5 * abs + 1e-5,
             string.format("total: got %.6f, want %.6f", total[0], sum))
  end,
}
