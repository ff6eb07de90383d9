-- async-overlap: cuda-samples' asyncAPI. The copy in, the kernel, the copy
-- out and an event are queued on the default stream without waiting
-- (page-locked host memory + cudaMemcpyAsync), then the CPU counts while
-- cudaEventQuery(stop) says cudaErrorNotReady. Checks: the results; no
-- cudaMemcpy, no pageable copy (the timeline's pinned flag) and no
-- synchronize before the counting; and the CPU really counted while the
-- GPU worked: cudaEventQuery returned cudaErrorNotReady in the call trace
-- (not only in the program's own printout).

local WAITS = { cudaDeviceSynchronize = true, cudaStreamSynchronize = true, cudaEventSynchronize = true }

return {
  id = "async-overlap",
  kind = "program",
  title = "Keep the CPU busy while the GPU works",
  title_zh = "GPU 干活时，让 CPU 也别闲着",
  source = "async-overlap.cu",
  solution = "solutions/async-overlap.cu",
  wrong = {
    "solutions/wrong/async-overlap-pageable.cu",
    "solutions/wrong/async-overlap-sync-first.cu",
  },
  timeout = 60,
  hints = {
    "Two things make the host wait: a synchronous call (cudaMemcpy waits until its copy is done) "
      .. "and pageable host memory (even cudaMemcpyAsync waits then, because the driver must "
      .. "stage the data through a page-locked buffer with the CPU).",
    "cudaCheck(cudaMallocHost(&h_x, bytes)); (and h_y, freed with cudaFreeHost), then "
      .. "cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice, 0); busy<<<grid, block, 0, 0>>>(...); "
      .. "cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, 0); cudaEventRecord(stop, 0);",
  },
  hints_zh = {
    "有两样东西会让主机干等：同步调用（cudaMemcpy 要等拷贝做完才返回），以及可分页的主机内存"
      .. "（这时连 cudaMemcpyAsync 也要等，因为驱动得靠 CPU 把数据倒进一块锁页缓冲区）。",
    "cudaCheck(cudaMallocHost(&h_x, bytes));（h_y 也一样，用 cudaFreeHost 释放），然后 "
      .. "cudaMemcpyAsync(d_x, h_x, bytes, cudaMemcpyHostToDevice, 0); busy<<<grid, block, 0, 0>>>(...); "
      .. "cudaMemcpyAsync(h_y, d_y, bytes, cudaMemcpyDeviceToHost, 0); cudaEventRecord(stop, 0);",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "loop bound < to <=", line = "acc = fmaf(acc, 0.5f, half)",
      why = "every step leaves acc equal to x[i] (x/2 + x/2 is exact): one more step changes only the time the kernel takes" },
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    -- on the emulator one partial block whose kernel runs about 0.09 ms
    -- (modeled): the CPU counts some 90 times (each query costs it 1 us)
    local n = t:param("n", on_gpu and (1 << 22) or 200)
    local iters = t:param("iters", on_gpu and 4000 or 50000)
    local r = t:program{ defines = { N = n, ITERS = iters } }
    local calls = hostcheck.calls(r)
    if not hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) }) then return end
    local counter = hostcheck.number(r, "CPU executed (%d+) iterations")
    if not counter then
      t:fail("the program did not print its count: keep the line printf(\"CPU executed %lu "
        .. "iterations while waiting for GPU to finish\\n\", counter)")
      return
    end
    t:metric("cpu_count", counter)

    -- what made the host wait before it started counting
    local first_query
    for i, c in ipairs(calls) do
      if c.fn == "cudaEventQuery" then first_query = i break end
    end
    if not first_query then
      t:fail("the CPU never asks the GPU how far it is: while (cudaEventQuery(stop) == "
        .. "cudaErrorNotReady) counter++;")
      return
    end
    local sync_copies = 0
    for i = 1, first_query - 1 do
      local c = calls[i]
      if c.fn == "cudaMemcpy" then sync_copies = sync_copies + 1 end
      if WAITS[c.fn] then
        t:fail(string.format("the CPU counted %d times: %s made the host wait for the GPU before "
          .. "it started counting. Queue everything and let the counting loop do the waiting",
          counter, c.fn))
        return
      end
    end
    if sync_copies > 0 then
      t:fail(string.format("the CPU counted %d times: cudaMemcpy returns only when its copy is "
        .. "done, and the copy of the result waits for the kernel. Queue the copies with "
        .. "cudaMemcpyAsync(..., 0), from and to host memory allocated with cudaMallocHost", counter))
      return
    end
    for _, e in ipairs(t:timeline().events) do
      if (e.kind == "h2d" or e.kind == "d2h") and e.pinned == false then
        t:fail(string.format("the CPU counted %d times: the copy %s uses pageable host memory "
          .. "(malloc), and such a copy returns only when it is done, even with cudaMemcpyAsync (the "
          .. "copy of the result waits for the kernel). Allocate the host buffers with cudaMallocHost "
          .. "(free them with cudaFreeHost)", counter, e.kind == "h2d" and "to the device" or "to the host"))
        return
      end
    end
    -- the CPU's work overlapped the GPU's: the trace's own count, not only the program's
    local busy = 0
    for _, c in ipairs(hostcheck.calls_of(r, "cudaEventQuery")) do
      if c.rc == 600 or c.error == "cudaErrorNotReady" then busy = busy + 1 end
    end
    local ok = t:expect(counter > 0 and busy > 0, string.format("the CPU counted %d times while the "
      .. "GPU worked (cudaEventQuery said cudaErrorNotReady %d times)", counter, busy))
    if ok then
      t:log("the CPU counted %d times while the GPU worked%s", counter, on_gpu and ""
        or " (modeled: each cudaEventQuery costs the host 1 us)")
    end
  end,
}
