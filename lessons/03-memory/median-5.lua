-- median-5: a width-5 median filter (clamped ends) whose starter is correct
-- but keeps its window in local memory. Target: no local memory, read from
-- ptxas's figure (k.local_bytes) or, failing that, the emulator's count of
-- local-memory requests. n = 100003, values in [-50, 50) with repeats.
return {
  id = "median-5",
  title = "Registers, not local memory: a median filter",
  title_zh = "用寄存器而不是本地内存：中值滤波",
  source = "median-5.cu",
  solution = "solutions/median-5.cu",
  wrong = {
    "solutions/wrong/median-5-no-clamp.cu",
    "solutions/wrong/median-5-short-network.cu",
  },
  hints = {
    "A per-thread array stays in registers only if every index into it is known at "
      .. "compile time (after loops with constant bounds are unrolled). The while loop "
      .. "of the insertion sort moves by j, a run-time value.",
    "Use five variables a..e and a helper that orders two of them, e.g. "
      .. "__device__ void sort2(float &x, float &y) { float lo = fminf(x, y), hi = fmaxf(x, y); "
      .. "x = lo; y = hi; }, then the 9 steps (a,b) (d,e) (c,e) (c,d) (b,e) (a,d) (a,c) (b,d) "
      .. "(b,c): c is the median.",
  },
  hints_zh = {
    "线程内的数组只有在每个下标都是编译期已知（循环展开之后）时才能留在寄存器里。插入排序的 while 循环按运行时的 j 移动。",
    "用五个变量 a..e，再写一个把两个值排好序的辅助函数，例如 __device__ void sort2(float &x, float &y) { float lo = fminf(x, y), hi = fmaxf(x, y); x = lo; y = hi; }，然后依次对 (a,b) (d,e) (c,e) (c,d) (b,e) (a,d) (a,c) (b,d) (b,c) 做 9 次：c 就是中值。",
  },
  run = function(t)
    local n = t:param("n", 100003)
    local x = gpu.array("f32", n, "in"):random{ lo = -50, hi = 50, seed = 41 }
    -- Repeated values, so that ties are exercised too.
    for i = 0, n - 1, 7 do x[i] = math.floor(x[i]) end
    local out = gpu.array("f32", n, "out")
    local k = t:kernel("median5")
    k:launch{ grid = (n + 255) // 256, block = 256, args = { x, out, gpu.i32(n) } }

    -- The median of x[i-2 .. i+2], indices clamped to the array.
    local want = ref.window(x, 2, "median", { boundary = "clamp" })
    t:expect_equal(out, want, { name = "out" })

    local local_bytes = k.local_bytes
    if local_bytes then
      t:log("local memory per thread: %d bytes (target: 0); registers: %s",
            local_bytes, tostring(k.registers))
      t:expect(local_bytes == 0, string.format("the kernel uses %d bytes of local memory per "
        .. "thread: w[] is indexed with run-time values, so it cannot live in registers",
        local_bytes))
    else
      local m = t:emu_metrics()
      if m and m.local_requests then
        t:log("local-memory requests: %d (target: 0)", m.local_requests)
        t:expect(m.local_requests == 0, string.format("%d local-memory requests: w[] is "
          .. "indexed with run-time values, so it cannot live in registers", m.local_requests))
      else
        t:log("(local memory use is not known on this backend)")
      end
    end
  end,
}
