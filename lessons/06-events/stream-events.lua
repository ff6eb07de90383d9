-- stream-events: two kernels on two streams, each timed with its own
-- events. Events recorded without a stream go to the legacy default stream,
-- which serialises the two streams (or, with non-blocking streams, times
-- nothing). Checks: values; the events of each kernel on the kernel's
-- stream; the kernels overlap on the timeline; each elapsed time within 10%
-- of its kernel's duration. Small grids (4 blocks) so the two kernels fit
-- side by side on the emulator's model and on a GPU.

-- The host replay of chapters 06 and 07 is built into cudojo
-- (lua/prelude/host_replay.lua; see lua/API.md, `host`).
local replay, entry, check_outputs = host.replay, host.entry, host.check_outputs

return {
  id = "stream-events",
  title = "An event belongs to a stream",
  title_zh = "事件属于某一个流",
  source = "stream-events.cu",
  solution = "solutions/stream-events.cu",
  wrong = {
    "solutions/wrong/stream-events-nonblocking.cu",
    "solutions/wrong/stream-events-one-stream.cu",
  },
  timeout = 30,
  hints = {
    "cudaEventRecord takes a second argument, the stream, and it defaults to 0. An event "
      .. "measures the queue it is in: put each pair where its kernel is.",
    "cudaEventRecord(start[k], s[k]); launch_busy(d_x[k], d_y[k], s[k]); cudaEventRecord(stop[k], s[k]);",
  },
  hints_zh = {
    "cudaEventRecord 的第二个参数是流，默认是 0。事件量的是它所在的那个队列：每一对事件都要放在"
      .. "它们的核函数所在的流里。",
    "cudaEventRecord(start[k], s[k]); launch_busy(d_x[k], d_y[k], s[k]); cudaEventRecord(stop[k], s[k]);",
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    local n = t:param("n", on_gpu and 1024 or 1000)
    local iters = t:param("iters", on_gpu and 1000000 or 20000)
    local spec = { defines = { N = n }, kernels = {
      [20] = { name = "busy", block = 256, args = function(m) return { gpu.i32(m), gpu.i32(iters) } end } } }
    local H, why = replay(t, spec)
    if not H then t:fail(why) return end
    if not check_outputs(t, H, function(x) return ref.scale(x, 2) end) then return end
    if #H.launches ~= 2 then
      t:fail(string.format("host_main launches busy %d times; this exercise runs it twice, once "
        .. "per stream", #H.launches))
      return
    end
    local unit = on_gpu and "" or " (modeled)"
    local tl = t:timeline()
    -- the measurement of each kernel: the elapsed pair whose records bracket it
    local timed = {}
    for k, l in ipairs(H.launches) do
      for _, e in ipairs(H.elapsed) do
        if H.record_at[e.start] < l.pos and H.record_at[e.stop] > l.pos then timed[k] = e end
      end
      local e = timed[k]
      if not e then
        t:fail(string.format("kernel %d is not between the start and stop events of any "
          .. "cudaEventElapsedTime", k - 1))
        return
      end
      local s0, s1 = H.record_stream[e.start], H.record_stream[e.stop]
      if s0 ~= l.stream or s1 ~= l.stream then
        local where = (s0 == 0 or s1 == 0) and "the default stream (cudaEventRecord(e) without a "
          .. "stream means stream 0)" or "another stream"
        t:fail(string.format("the events that time kernel %d are recorded on %s, but the kernel "
          .. "runs on its own stream. An event marks a point in its own stream: on the legacy "
          .. "default stream it waits for the other streams and they wait for it (no overlap); "
          .. "beside non-blocking streams it waits for nothing (it times nothing). Record them on the kernel's stream", k - 1, where))
        return
      end
    end
    local a, b = entry(tl, H.launches[1].entry), entry(tl, H.launches[2].entry)
    local ok = t:expect_overlap(a, b, "the two kernels run at the same time")
    for k, l in ipairs(H.launches) do
      local kd = entry(tl, l.entry).dur_us / 1000
      local e = timed[k]
      ok = t:expect(math.abs(e.ms - kd) <= 0.1 * kd + (on_gpu and 0.03 or 0.008), string.format(
        "the events of kernel %d measured %.4f ms%s; it ran %.4f ms%s", k - 1, e.ms, unit,
        kd, unit)) and ok
    end
  end,
}
