-- past-the-end: one element-wise kernel launched for many sizes (1, 2, 3, 31,
-- 33, 1000, 65539) with blocks of 64, so almost every last block is partly
-- empty; only a kernel that guards every access with i < n passes them all.
return {
  id = "past-the-end",
  title = "Every size, every tail",
  title_zh = "任意大小，处理好每个尾部",
  source = "past-the-end.cu",
  solution = "solutions/past-the-end.cu",
  wrong = {
    "solutions/wrong/past-the-end-off-by-one.cu",
    "solutions/wrong/past-the-end-no-guard.cu",
  },
  hints = {
    "Valid indices are 0 .. n-1. A thread whose global index i is n or more has no "
      .. "element and must not touch x or y at all, not even to read.",
    "Put the whole body inside the guard: if (i < n) { float v = x[i]; y[i] = ...; } "
      .. "The comparison is <, not <=.",
  },
  hints_zh = {
    "合法的下标是 0 .. n-1。全局索引 i 大于等于 n 的线程没有对应的元素，不能碰 x 和 y，连读都不行。",
    "把整个函数体放进检查里：if (i < n) { float v = x[i]; y[i] = ...; } 比较用 <，不是 <=。",
  },
  run = function(t)
    local block = t:param("block", 64)
    local sizes = { 1, 2, 3, 31, 33, 1000, 65539 }
    local only = t:param("n", 0)
    if only > 0 then sizes = { only } end

    -- The emulator checks every access against the array's size. A GPU does not,
    -- so there x and y get a guard zone past n, y's filled with a sentinel that
    -- a correct kernel never overwrites.
    local guard = 0
    if t:device().backend ~= "emu" then guard = 256 end
    local SENTINEL = -777.0

    local k = t:kernel("leaky_relu")
    for _, n in ipairs(sizes) do
      local x = gpu.array("f32", n + guard, "x"):random{ lo = -4, hi = 4, seed = n }
      local y = gpu.array("f32", n + guard, "y")
      for i = n, n + guard - 1 do y[i] = SENTINEL end
      local grid = (n + block - 1) // block
      k:launch{ grid = grid, block = block, args = { x, y, gpu.i32(n) } }

      if guard > 0 then
        local past = 0
        for i = n, n + guard - 1 do
          if y[i] ~= SENTINEL then past = past + 1 end
        end
        if past > 0 then
          t:fail(string.format("n = %d: the kernel wrote %d element(s) past the end of y "
            .. "(y[%d] and after); threads with i >= n must do nothing", n, past, n))
          return
        end
      end

      local want = ref.map(x, function(v) if v > 0 then return v end return 0.1 * v end, "f32")
      for i = n, n + guard - 1 do want[i] = SENTINEL end
      t:expect_close(y, want, { rel = 1e-6, abs = 1e-7, name = string.format("y (n = %d)", n) })
    end
    t:log("sizes %s with blocks of %d: the last block had %s threads with no element",
          table.concat(sizes, ", "), block, (function()
            local s = {}
            for _, n in ipairs(sizes) do s[#s + 1] = tostring((block - n % block) % block) end
            return table.concat(s, ", ")
          end)())
  end,
}
