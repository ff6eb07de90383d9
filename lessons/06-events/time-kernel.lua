-- time-kernel: time a kernel with CUDA events. The learner's program
-- validates busy once (its warm-up), then times REPS launches between two
-- events. Checks, from what the program did: the host waited for stop
-- before cudaEventElapsedTime (from the calls; cudaErrorNotReady is its
-- symptom, seen only when the GPU was still busy); the results (sums printed
-- against the CPU's); a launch came before cudaEventRecord(start) (warm-up);
-- the launches are between the two records; the printed time per launch
-- is the timed launches' span on the timeline / REPS, within 10% (modeled
-- on the emulator, CUPTI on a GPU).

local WAITS = { cudaEventSynchronize = true, cudaDeviceSynchronize = true, cudaStreamSynchronize = true }

return {
  id = "time-kernel",
  kind = "program",
  title = "Time a kernel with events",
  title_zh = "用事件为核函数计时",
  source = "time-kernel.cu",
  solution = "solutions/time-kernel.cu",
  wrong = {
    "solutions/wrong/time-kernel-no-sync.cu",
    "solutions/wrong/time-kernel-stop-first.cu",
    "solutions/wrong/time-kernel-no-warmup.cu",
  },
  timeout = 60,
  hints = {
    "Read the program as a queue: cudaEventRecord puts a marker into the stream, it does not "
      .. "read a clock. The time between two markers is what ran between them in the stream. "
      .. "And the host runs ahead of the GPU: it must wait before it asks for the time.",
    "cudaCheck(cudaEventRecord(start)); for (...) { busy<<<grid, block>>>(...); "
      .. "cudaCheck(cudaGetLastError()); } cudaCheck(cudaEventRecord(stop)); "
      .. "cudaCheck(cudaEventSynchronize(stop)); cudaCheck(cudaEventElapsedTime(&ms, start, stop));",
  },
  hints_zh = {
    "把程序看成一个队列：cudaEventRecord 是往流里放一个标记，而不是读时钟。两个标记之间的时间，"
      .. "就是流里夹在它们中间的工作所花的时间。主机跑在 GPU 前面，要先等一等，才能问时间。",
    "cudaCheck(cudaEventRecord(start)); for (...) { busy<<<grid, block>>>(...); "
      .. "cudaCheck(cudaGetLastError()); } cudaCheck(cudaEventRecord(stop)); "
      .. "cudaCheck(cudaEventSynchronize(stop)); cudaCheck(cudaEventElapsedTime(&ms, start, stop));",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "loop bound < to <=", line = "acc = fmaf(acc, 0.5f, half)",
      why = "every step leaves acc equal to x[i] (x/2 + x/2 is exact): one more step changes only the time the kernel takes" },
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    local n = t:param("n", on_gpu and (1 << 22) or 1000)
    local iters = t:param("iters", on_gpu and 4000 or 20000)
    local reps = t:param("reps", on_gpu and 10 or 3)
    local r = t:program{ defines = { N = n, ITERS = iters, REPS = reps } }
    local calls = hostcheck.calls(r)
    local unit = on_gpu and "" or " (modeled)"

    -- where the events were recorded, among the launches
    local records = {}
    for i, c in ipairs(calls) do
      if c.fn == "cudaEventRecord" and c.rc == 0 then records[#records + 1] = i end
    end
    if #records < 2 or hostcheck.count(r, "cudaEventElapsedTime") == 0 then
      t:fail("time the launches with two events: cudaEventRecord(start), the launches, "
        .. "cudaEventRecord(stop), then cudaEventElapsedTime(&ms, start, stop)")
      return
    end
    local at0, at1 = records[1], records[#records]
    local launches = hostcheck.launches(r, "busy")
    local timed = {}
    for _, l in ipairs(launches) do
      if l.call > at0 and l.call < at1 then timed[#timed + 1] = l end
    end
    local ms = hostcheck.number(r, "busy: ([%d%.]+) ms per launch")
    if #timed == 0 then
      t:fail(string.format("no kernel is launched between cudaEventRecord(start) and "
        .. "cudaEventRecord(stop), so the events %s: record stop after the launches",
        ms and string.format("measured %.4f ms%s of nothing", ms, unit) or "bracket nothing"))
      return
    end
    -- Did the host wait for stop before asking for the time? Read from the
    -- calls, not only from cudaErrorNotReady, which depends on how far the
    -- GPU happened to be.
    local last_record, asked
    for i, c in ipairs(calls) do
      if c.fn == "cudaEventRecord" then last_record = i end
      if c.fn == "cudaEventElapsedTime" then asked = i break end
    end
    if asked and last_record and last_record < asked then
      local waited = false
      for i = last_record + 1, asked - 1 do
        local c = calls[i]
        if (WAITS[c.fn] or c.fn == "cudaMemcpy" or (c.fn == "cudaEventQuery" and c.rc == 0)) and c.rc == 0 then
          waited = true
        end
      end
      local not_ready = calls[asked].rc == 600 or calls[asked].error == "cudaErrorNotReady"
      if not waited or not_ready then
        t:fail(string.format("the host asks for the elapsed time without waiting for the stop event%s. "
          .. "The stop event happens only when the GPU gets there: wait for it first "
          .. "(cudaEventSynchronize(stop))", not_ready
            and " (cudaEventElapsedTime returned cudaErrorNotReady)"
            or ": cudaEventElapsedTime fails with cudaErrorNotReady whenever the GPU is still working"))
        return
      end
    end
    if not hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) }) then return end

    if launches[1].call > at0 then
      t:fail("the timed launches include the kernel's first: it pays one-time costs (loading the "
        .. "module onto the GPU, cold caches) that later launches do not. Run (and validate) it "
        .. "once before cudaEventRecord(start)")
      return
    end
    if not ms then
      t:fail("the program did not print its time: keep the line printf(\"busy: %.4f ms per launch "
        .. "(%d launches)\\n\", ms / REPS, REPS)")
      return
    end
    -- the events' span: from the first timed kernel's start to the last one's end
    local at = hostcheck.entry_of(r, t:timeline())
    local k0, k1 = at[timed[1].call], at[timed[#timed].call]
    if not k0 or not k1 then
      t:fail("the timed kernels are not on the program's timeline, so cudojo cannot compare your "
        .. "time with theirs")
      return
    end
    local span_ms = (k1.start_us + k1.dur_us - k0.start_us) / 1000 / #timed
    local slack_ms = 0.1 * span_ms + (on_gpu and 0.01 or 0.003)
    local by = t:timeline().source == "cupti" and " (CUPTI)" or unit
    local ok = t:expect(math.abs(ms - span_ms) <= slack_ms, string.format(
      "your events measured %.4f ms%s per launch; the timed kernels ran %.4f ms%s per launch on "
      .. "the timeline", ms, unit, span_ms, by))
    if ok then t:log("the host did not wait for the kernels: it waited for the stop event") end
  end,
}
