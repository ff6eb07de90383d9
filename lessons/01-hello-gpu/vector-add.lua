-- vector-add: one thread per element, with a size that is not a multiple of the
-- block, so a kernel without the bounds guard touches memory past the end.
return {
  id = "vector-add",
  title = "Add two vectors (and guard the tail)",
  title_zh = "向量加法（别忘了末尾的边界检查）",
  source = "vector-add.cu",
  solution = "solutions/vector-add.cu",
  wrong = {
    "solutions/wrong/vector-add-no-guard.cu",
    "solutions/wrong/vector-add-no-blockidx.cu",
  },
  hints = {
    "Every thread adds exactly one pair of elements: the one at its global index.",
    "int i = blockIdx.x * blockDim.x + threadIdx.x; gives the global index. The grid has "
      .. "more threads than elements (it is rounded up to whole blocks of 256).",
    "Wrap the addition in a guard: if (i < n) c[i] = a[i] + b[i]; without it the last "
      .. "block reads and writes past the end of the vectors.",
  },
  hints_zh = {
    "每个线程只加一对元素：就是它的全局索引处的那一对。",
    "int i = blockIdx.x * blockDim.x + threadIdx.x; 得到全局索引。网格的线程数比元素多"
      .. "（向上取整到 256 的整数倍）。",
    "用边界检查把加法包起来：if (i < n) c[i] = a[i] + b[i]; 没有它，最后一个线程块会越过数组末尾读写。",
  },
  run = function(t)
    local n = t:param("n", 1000003)
    local block = t:param("block", 256)

    -- The emulator knows the size of every array and reports a thread that
    -- steps past one (with its line, block and thread). A real GPU does not check:
    -- there c (and a, b, so the reference has the same length) get a guard zone
    -- of extra elements, c's set to a sentinel the kernel must leave alone.
    local guard = 0
    if t:device().backend ~= "emu" then guard = 1024 end
    local SENTINEL = -12345.0

    local a = gpu.array("f32", n + guard, "a"):random{ lo = -1, hi = 1, seed = 1 }
    local b = gpu.array("f32", n + guard, "b"):random{ lo = -1, hi = 1, seed = 2 }
    local c = gpu.array("f32", n + guard, "c")   -- zero-filled
    for i = n, n + guard - 1 do c[i] = SENTINEL end

    local grid = (n + block - 1) // block
    t:log("n = %d elements, %d blocks of %d threads = %d threads (%d with nothing to do)",
          n, grid, block, grid * block, grid * block - n)
    if guard > 0 then
      t:log("a GPU does not check bounds, so c has %d extra guard elements after c[%d] "
              .. "that the kernel must leave alone", guard, n - 1)
    end
    t:kernel("vector_add"):launch{ grid = grid, block = block, args = { a, b, c, gpu.i32(n) } }

    if guard > 0 then
      local past = 0
      for i = n, n + guard - 1 do
        if c[i] ~= SENTINEL then past = past + 1 end
      end
      t:expect(past == 0, string.format(
        "the kernel wrote %d elements past the end of c (from c[%d] on): "
          .. "threads with i >= n must not touch memory, guard with if (i < n)", past, n))
    end

    local want = ref.add(a, b)
    for i = n, n + guard - 1 do want[i] = SENTINEL end
    t:expect_close(c, want, { rel = 1e-6, abs = 1e-7, name = "c" })

    -- Hidden checks when grading: sizes the learner never ran (one element,
    -- just under and just over one block), so a kernel that guards with the
    -- default n instead of its argument, or assumes whole blocks, fails.
    if t:grading() then
      for _, m in ipairs{ 1, 255, 257 } do
        local x = gpu.array("f32", m, "x"):random{ lo = -1, hi = 1, seed = t:seed(10 + m) }
        local y = gpu.array("f32", m, "y"):random{ lo = -1, hi = 1, seed = t:seed(20 + m) }
        local z = gpu.array("f32", m, "z")
        t:kernel("vector_add"):launch{ grid = (m + block - 1) // block, block = block,
                                       args = { x, y, z, gpu.i32(m) } }
        t:expect_close(z, ref.add(x, y), { rel = 1e-6, abs = 1e-7, name = string.format("hidden n = %d", m) })
      end
    end
  end,
}
