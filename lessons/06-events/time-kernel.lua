-- time-kernel: time one kernel with CUDA events: a warm-up launch first,
-- cudaEventRecord(stop) after the launch, cudaEventSynchronize(stop) before
-- cudaEventElapsedTime. The learner writes the host calls in host_main()
-- (recorded on the device, replayed here with the exercise API); the check
-- compares the learner's elapsed time with the timed kernel's span on the
-- timeline (modeled on the emulator; on a GPU CUPTI's activity records, or
-- events around each operation where CUPTI is missing), within 10%.

-- The host replay of chapters 06 and 07 is built into cudojo
-- (lua/prelude/host_replay.lua; see lua/API.md, `host`).
local replay, entry, check_outputs = host.replay, host.entry, host.check_outputs

return {
  id = "time-kernel",
  title = "Time a kernel with events",
  title_zh = "用事件为核函数计时",
  source = "time-kernel.cu",
  solution = "solutions/time-kernel.cu",
  wrong = {
    "solutions/wrong/time-kernel-no-sync.cu",
    "solutions/wrong/time-kernel-stop-first.cu",
    "solutions/wrong/time-kernel-no-warmup.cu",
  },
  timeout = 30,
  hints = {
    "Read host_main as a queue: cudaEventRecord puts a marker into the stream, it does not "
      .. "read a clock. The time between two markers is what ran between them in the stream. "
      .. "And the host runs ahead of the GPU: it must wait before it asks for the time.",
    "launch_busy(d_x, d_y); cudaEventRecord(start); launch_busy(d_x, d_y); "
      .. "cudaEventRecord(stop); cudaEventSynchronize(stop); cudaEventElapsedTime(&ms, start, stop);",
  },
  hints_zh = {
    "把 host_main 看成一个队列：cudaEventRecord 是往流里放一个标记，而不是读时钟。两个标记之间的时间，"
      .. "就是流里夹在它们中间的工作所花的时间。主机跑在 GPU 前面，要先等一等，才能问时间。",
    "launch_busy(d_x, d_y); cudaEventRecord(start); launch_busy(d_x, d_y); "
      .. "cudaEventRecord(stop); cudaEventSynchronize(stop); cudaEventElapsedTime(&ms, start, stop);",
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

    if #H.elapsed == 0 then
      t:fail("host_main never reads the time: float ms; cudaEventElapsedTime(&ms, start, stop);")
      return
    end
    local e = H.elapsed[#H.elapsed]
    local at0, at1 = H.record_at[e.start], H.record_at[e.stop]
    if at1 < at0 then
      t:fail("stop is recorded before start: cudaEventElapsedTime(&ms, start, stop) wants start first")
      return
    end
    local timed, first = {}, nil
    for _, l in ipairs(H.launches) do
      first = first or l.pos
      if l.pos > at0 and l.pos < at1 then timed[#timed + 1] = l end
    end
    local unit = on_gpu and "" or " (modeled)"
    if #timed == 0 then
      t:fail(string.format("no kernel is launched between cudaEventRecord(start) and "
        .. "cudaEventRecord(stop), so the events measured %.4f ms%s of nothing: record stop "
        .. "after the launch", e.ms, unit))
      return
    end
    if first == timed[1].pos then
      t:fail("the timed launch is the kernel's first: it pays one-time costs (loading the module, "
        .. "cold caches) that later launches do not. Launch it once before cudaEventRecord(start)")
      return
    end
    local tl = t:timeline()
    local k0, k1 = entry(tl, timed[1].entry), entry(tl, timed[#timed].entry)
    local span_ms = (k1.start_us + k1.dur_us - k0.start_us) / 1000
    local slack_ms = 0.1 * span_ms + (on_gpu and 0.03 or 0.008)
    local by = tl.source == "cupti" and " (CUPTI)" or unit
    local ok = t:expect(math.abs(e.ms - span_ms) <= slack_ms, string.format(
      "your events measured %.4f ms%s; the timed kernel ran %.4f ms%s on the timeline",
      e.ms, unit, span_ms, by))
    if ok then t:log("the host did not wait for the kernel: it waited for the stop event") end
  end,
}
