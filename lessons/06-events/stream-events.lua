-- stream-events: two kernels on two streams, each timed with its own
-- events. Events recorded without a stream go to the legacy default stream,
-- which serialises the two streams (or, beside non-blocking streams, times
-- nothing). Checks: the results; the events around each kernel are
-- recorded on the kernel's stream (the call trace); the two kernels overlap
-- on the timeline; each printed time within 10% of its kernel's duration.
-- On a GPU few elements (4 blocks) and many steps, so that the two kernels
-- fit side by side and run for milliseconds.

return {
  id = "stream-events",
  kind = "program",
  title = "An event belongs to a stream",
  title_zh = "事件属于某一个流",
  source = "stream-events.cu",
  solution = "solutions/stream-events.cu",
  wrong = {
    "solutions/wrong/stream-events-nonblocking.cu",
    "solutions/wrong/stream-events-one-stream.cu",
  },
  timeout = 60,
  hints = {
    "cudaEventRecord takes a second argument, the stream, and it defaults to 0. An event "
      .. "measures the queue it is in: put each pair where its kernel is.",
    "cudaCheck(cudaEventRecord(start[k], s[k])); busy<<<grid, block, 0, s[k]>>>(...); "
      .. "cudaCheck(cudaGetLastError()); cudaCheck(cudaEventRecord(stop[k], s[k]));",
  },
  hints_zh = {
    "cudaEventRecord 的第二个参数是流，默认是 0。事件量的是它所在的那个队列：每一对事件都要放在"
      .. "它们的核函数所在的流里。",
    "cudaCheck(cudaEventRecord(start[k], s[k])); busy<<<grid, block, 0, s[k]>>>(...); "
      .. "cudaCheck(cudaGetLastError()); cudaCheck(cudaEventRecord(stop[k], s[k]));",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "loop bound < to <=", line = "acc = fmaf(acc, 0.5f, half)",
      why = "every step leaves acc equal to x[i] (x/2 + x/2 is exact): one more step changes only the time the kernel takes" },
    { mutation = "drop cudaDeviceSynchronize()", line = "// the warm-up is done",
      why = "the warm-up launch computes nothing (n = 0) and its errors are checked at the next synchronising call; waiting for it changes no result the exercise checks" },
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    -- on the emulator one block (200 threads, a partial block) and kernels of
    -- about 0.18 ms (modeled), far longer than the few us the host takes
    -- between the two launches: a kernel's modeled time is its warp
    -- instructions per SM, so one block costs the emulator a quarter of four
    local n = t:param("n", on_gpu and 1024 or 200)
    local iters = t:param("iters", on_gpu and 1000000 or 100000)
    local r = t:program{ defines = { N = n, ITERS = iters } }
    local calls = hostcheck.calls(r)
    local unit = on_gpu and "" or " (modeled)"
    if not hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n), hostcheck.ramp_sum(n) }) then return end
    local launches = hostcheck.launches(r, "busy")
    if #launches < 2 then
      t:fail(string.format("the program launches busy %d times; this exercise runs it once per "
        .. "stream (after the warm-up)", #launches))
      return
    end
    local timed = { launches[#launches - 1], launches[#launches] }
    -- the records around each kernel: the closest before and after its launch
    for k, l in ipairs(timed) do
      local rec = {}
      for i = l.call - 1, 1, -1 do
        if calls[i].fn == "cudaEventRecord" then rec[1] = calls[i] break end
      end
      for i = l.call + 1, #calls do
        if calls[i].fn == "cudaEventRecord" then rec[2] = calls[i] break end
      end
      if not rec[1] or not rec[2] then
        t:fail(string.format("kernel %d is not between two cudaEventRecord calls: record start[%d] "
          .. "before its launch and stop[%d] after it", k - 1, k - 1, k - 1))
        return
      end
      for _, c in ipairs(rec) do
        if c.stream ~= l.stream then
          local where = c.stream == 0 and "the default stream (cudaEventRecord(e) without a stream "
            .. "means stream 0)" or "another stream"
          t:fail(string.format("the events that time kernel %d are recorded on %s, but the kernel "
            .. "runs on stream %d. An event marks a point in its own stream: on the legacy default "
            .. "stream it waits for the other streams and they wait for it (no overlap); beside "
            .. "non-blocking streams it waits for nothing (it times nothing). Record them on the "
            .. "kernel's stream", k - 1, where, l.stream))
          return
        end
      end
    end
    local at = hostcheck.entry_of(r, t:timeline())
    local a, b = at[timed[1].call], at[timed[2].call]
    local ok = t:expect_overlap(a, b, "the two kernels run at the same time")
    if not ok and timed[1].stream == timed[2].stream then
      t:log("both kernels are on stream %d, which runs them one after the other: give each its "
        .. "own stream", timed[1].stream)
    end
    for k, e in ipairs{ a, b } do
      local ms = hostcheck.number(r, "kernel " .. (k - 1) .. ": ([%d%.]+) ms")
      local kd = e.dur_us / 1000
      ok = t:expect(ms ~= nil and math.abs(ms - kd) <= 0.1 * kd + (on_gpu and 0.03 or 0.008), string.format(
        "the events of kernel %d measured %s ms%s; it ran %.4f ms%s", k - 1,
        ms and string.format("%.4f", ms) or "(nothing printed)", unit, kd, unit)) and ok
    end
  end,
}
