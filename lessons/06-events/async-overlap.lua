-- async-overlap: cuda-samples' asyncAPI. Copies in, kernel, copy out and an
-- event are queued on the default stream without waiting (page-locked host
-- memory + cudaMemcpyAsync), then the CPU polls the event and counts. The
-- check: the CPU counted at least once, its counting overlaps the kernel on
-- the timeline, and the result is right.

-- The host replay of chapters 06 and 07 is built into cudojo
-- (lua/prelude/host_replay.lua; see lua/API.md, `host`).
local replay, entry, check_outputs = host.replay, host.entry, host.check_outputs

return {
  id = "async-overlap",
  title = "Keep the CPU busy while the GPU works",
  title_zh = "GPU 干活时，让 CPU 也别闲着",
  source = "async-overlap.cu",
  solution = "solutions/async-overlap.cu",
  wrong = {
    "solutions/wrong/async-overlap-pageable.cu",
    "solutions/wrong/async-overlap-sync-first.cu",
  },
  timeout = 30,
  hints = {
    "Two things make the host wait: a synchronous call (cudaMemcpy waits until its copy is done) "
      .. "and pageable host memory (even cudaMemcpyAsync waits then, because the driver must "
      .. "stage the data through a page-locked buffer with the CPU).",
    "cudaMallocHost(&h_x, BYTES); cudaMallocHost(&h_y, BYTES); then "
      .. "cudaMemcpyAsync(d_x, h_x, BYTES, cudaMemcpyHostToDevice, 0); launch_busy(d_x, d_y, 0); "
      .. "cudaMemcpyAsync(h_y, d_y, BYTES, cudaMemcpyDeviceToHost, 0); cudaEventRecord(stop, 0);",
  },
  hints_zh = {
    "有两样东西会让主机干等：同步调用（cudaMemcpy 要等拷贝做完才返回），以及可分页的主机内存"
      .. "（这时连 cudaMemcpyAsync 也要等，因为驱动得靠 CPU 把数据倒进一块锁页缓冲区）。",
    "cudaMallocHost(&h_x, BYTES); cudaMallocHost(&h_y, BYTES); 然后 "
      .. "cudaMemcpyAsync(d_x, h_x, BYTES, cudaMemcpyHostToDevice, 0); launch_busy(d_x, d_y, 0); "
      .. "cudaMemcpyAsync(h_y, d_y, BYTES, cudaMemcpyDeviceToHost, 0); cudaEventRecord(stop, 0);",
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    local n = t:param("n", on_gpu and (1 << 22) or 1000)
    local iters = t:param("iters", on_gpu and 4000 or 20000)
    local spec = { defines = { N = n }, kernels = {
      [20] = { name = "busy", block = 256, args = function(m) return { gpu.i32(m), gpu.i32(iters) } end } } }
    local H, why = replay(t, spec)
    if not H then t:fail(why) return end
    if not check_outputs(t, H, function(x) return ref.scale(x, 2) end) then return end
    if #H.polls == 0 then
      t:fail("host_main never lets the CPU work: count_while_busy(stop);")
      return
    end
    local polls = H.polls[#H.polls]
    t:metric("cpu_count", polls)
    if polls == 0 then
      local why0
      if #H.sync_copies > 0 then
        why0 = string.format("cudaMemcpy (the copy of %s) returns only when its copy is done: "
          .. "queue copies with cudaMemcpyAsync", H.sync_copies[#H.sync_copies])
        if #H.pageable_copies > 0 then
          why0 = why0 .. ", from and to host memory allocated with cudaMallocHost"
        end
      elseif #H.pageable_copies > 0 then
        why0 = string.format("The copy of %s uses pageable host memory (malloc): such a copy "
          .. "returns only when it is done, even with cudaMemcpyAsync. Allocate the host buffers "
          .. "with cudaMallocHost", H.pageable_copies[#H.pageable_copies])
      else
        why0 = "Something made the host wait for the GPU before counting (a synchronize): queue "
          .. "everything and let count_while_busy do the waiting"
      end
      t:fail("the CPU counted 0 times: when it started, the GPU had already finished. " .. why0)
      return
    end
    local tl = t:timeline()
    local ok = t:expect_overlap(entry(tl, H.count_entry), entry(tl, H.launches[#H.launches].entry),
      "the CPU's counting overlaps the kernel")
    if ok then
      t:log("the CPU counted %d times while the GPU worked%s", polls, on_gpu and ""
        or " (modeled: each cudaEventQuery costs the host 1 us)")
    end
  end,
}
