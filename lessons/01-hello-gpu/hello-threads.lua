-- hello-threads: the first kernel. Shows which device runs it, then checks that
-- every thread wrote its block, thread and warp number at its global index.
return {
  id = "hello-threads",
  title = "Hello, threads: who am I?",
  title_zh = "你好，线程：我是谁？",
  source = "hello-threads.cu",
  solution = "solutions/hello-threads.cu",
  wrong = {
    "solutions/wrong/hello-threads-fixed-block.cu",
    "solutions/wrong/hello-threads-sum.cu",
  },
  hints = {
    "Each block has blockDim.x threads, and the blocks are laid out one after another: "
      .. "block 0 owns the first blockDim.x places, block 1 the next blockDim.x, and so on.",
    "The global index is i = blockIdx.x * blockDim.x + threadIdx.x. Do not write 256 or 96 "
      .. "for the block size: read it from blockDim.x so the kernel works for any launch.",
    "A warp is 32 consecutive threads of a block, so the warp number is threadIdx.x / 32.",
  },
  hints_zh = {
    "每个线程块有 blockDim.x 个线程，线程块一个接一个排列：0 号块占前 blockDim.x 个位置，"
      .. "1 号块占接下来的 blockDim.x 个，依此类推。",
    "全局索引是 i = blockIdx.x * blockDim.x + threadIdx.x。不要把线程块大小写成 256 或 96，"
      .. "要从 blockDim.x 读取，这样核函数对任何启动配置都正确。",
    "一个 warp 是线程块中连续的 32 个线程，所以 warp 编号是 threadIdx.x / 32。",
  },
  run = function(t)
    -- Meet the hardware first: the same kernel runs on a GPU or on the emulator.
    local d = t:device()
    local cc = d.cc
    if type(cc) == "number" then cc = string.format("%d.%d", cc // 10, cc % 10) end
    t:log("device: %s, %s backend, compute capability %s, %s SMs",
          tostring(d.name), tostring(d.backend), tostring(cc), tostring(d.sm_count))
    if d.sm_count and d.max_threads_per_sm then
      t:log("it can keep %d threads in flight at once (%d per SM)",
            d.sm_count * d.max_threads_per_sm, d.max_threads_per_sm)
    end

    -- A block of 96 threads (3 warps) on purpose: a kernel that assumes 256 breaks.
    local blocks = t:param("blocks", 10)
    local threads = t:param("threads", 96)
    local n = blocks * threads
    t:log("launching %d blocks of %d threads = %d threads", blocks, threads, n)

    local block = gpu.array("i32", n, "block")
    local thread = gpu.array("i32", n, "thread")
    local warp = gpu.array("i32", n, "warp")
    -- -1 marks "never written", so a thread that writes nothing cannot pass by luck.
    block:fill(-1)
    thread:fill(-1)
    warp:fill(-1)

    t:kernel("hello_threads"):launch{ grid = blocks, block = threads, args = { block, thread, warp } }

    -- The CPU's answer: element i belongs to block i // threads, thread i % threads.
    local want_block = gpu.array("i32", n, "want_block")
    local want_thread = gpu.array("i32", n, "want_thread")
    local want_warp = gpu.array("i32", n, "want_warp")
    for i = 0, n - 1 do
      local tid = i % threads
      want_block[i] = i // threads
      want_thread[i] = tid
      want_warp[i] = tid // 32
    end
    t:expect_equal(block, want_block, { name = "block" })
    t:expect_equal(thread, want_thread, { name = "thread" })
    t:expect_equal(warp, want_warp, { name = "warp" })
  end,
}
