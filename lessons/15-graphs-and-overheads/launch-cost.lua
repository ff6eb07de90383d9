-- launch-cost: what a kernel launch costs the host. The learner's program
-- times LAUNCHES launches of a tiny kernel with a host clock and prints the
-- microseconds per launch; the starter waits for the GPU after every
-- launch, so it measures launch + kernel + wait. Checks: the values (every
-- element bumped LAUNCHES + 1 times), no wait between the first and the
-- last timed launch (call trace), the host waited before reading x, and the
-- printed figure against the call trace: the timed launches' calls were
-- T us apart (the trace's host timestamps, the same clock the program
-- reads on both backends), the figure must be within a factor 2 of that.
-- The timeline's part (the kernels start further apart than they last:
-- the GPU waited for the host) is logged, modeled on the emulator.

local WAITS = { cudaDeviceSynchronize = true, cudaStreamSynchronize = true, cudaEventSynchronize = true,
  cudaMemcpy = true, cudaStreamQuery = true, cudaEventQuery = true }

local function median(v)
  if #v == 0 then return 0 end
  table.sort(v)
  return v[(#v + 1) // 2]
end

return {
  id = "launch-cost",
  kind = "program",
  title = "What a launch costs the host",
  title_zh = "一次启动要花主机多少时间",
  source = "launch-cost.cu",
  solution = "solutions/launch-cost.cu",
  wrong = {
    "solutions/wrong/launch-cost-total.cu",
    "solutions/wrong/launch-cost-check-progress.cu",
  },
  timeout = 60,
  hints = {
    "A launch returns as soon as the kernel is queued. Anything in the loop that waits for the "
      .. "GPU (a synchronize, a cudaMemcpy) puts the kernel's run and the wait's round trip into "
      .. "your figure.",
    "Delete the cudaDeviceSynchronize() inside the loop and put one cudaCheck(cudaDeviceSynchronize()); "
      .. "right after double t1 = now_us();, where the TODO is.",
  },
  hints_zh = {
    "核函数一进队列，启动调用就返回了。循环里任何等待 GPU 的操作（同步、cudaMemcpy）都会把核函数的运行"
      .. "时间和这次等待的往返时间算进你的数字里。",
    "删掉循环里的 cudaDeviceSynchronize()，在 double t1 = now_us(); 之后、TODO 所在的位置放一个 "
      .. "cudaCheck(cudaDeviceSynchronize());。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "weaken guard < to <=", line = "if (i < n) x[i] += 1.0f;",
      why = "the program fixes its own size, N = 256 (one block), a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "if (i < n) x[i] += 1.0f;",
      why = "the program fixes its own size, N = 256 (one block), a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop cudaDeviceSynchronize()", line = "cudaCheck(cudaDeviceSynchronize());",
      why = "the warm-up only loads the kernel; the timed loop measures the host's launch calls, and the cudaMemcpy below waits for every kernel anyway" },
    { mutation = "drop cudaDeviceSynchronize()", line = "// now the GPU catches up",
      why = "the cudaMemcpy right below waits for every queued kernel anyway" },
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    local unit = on_gpu and "" or " (modeled)"
    local launches = t:param("launches", on_gpu and 2000 or 300)
    local r = t:program{ defines = { LAUNCHES = launches } }
    if not hostcheck.expect_values(t, r, { 256 * (launches + 1) }) then return end
    local calls = hostcheck.calls(r)
    local ks = hostcheck.launches(r, "bump")
    if #ks < launches + 1 then
      t:fail(string.format("the program launched bump %d times; it should launch it once to warm up "
        .. "and then %d times in the timed loop", #ks, launches))
      return
    end
    local first, last = ks[#ks - launches + 1], ks[#ks]
    for i = first.call + 1, last.call - 1 do
      if WAITS[calls[i].fn] and calls[i].rc == 0 then
        local k = 0
        for j, l in ipairs(ks) do if l.call < i then k = j end end
        t:fail(string.format("the timed loop waits for the GPU (%s after launch %d of %d): your "
          .. "figure then holds the launch, the kernel's run and the wait's round trip, not what a "
          .. "launch costs. Nothing in the loop may wait; wait once after the loop",
          calls[i].fn, k - (#ks - launches), launches))
        return
      end
    end
    if not hostcheck.expect_waited(t, r, "x") then return end
    local printed = hostcheck.number(r, "launch: ([%d%.]+) us per launch")
    if not printed then
      t:fail("the program did not print its figure: keep the line "
        .. "printf(\"launch: %.3f us per launch\\n\", ...)")
      return
    end
    -- the host timestamps of the timed launch calls (the trace's clock)
    local t0, t1 = r.calls[first.call].t_us, r.calls[last.call].t_us
    local apart = (t1 - t0) / (launches - 1)
    t:expect(printed >= 0.5 * apart - 0.5 and printed <= 2 * apart + 0.5, string.format(
      "you measured %.3f us per launch; the call trace has the %d launch calls %.3f us apart%s",
      printed, launches, apart, printed > 2 * apart + 0.5 and " (divide the loop's time by the number "
        .. "of launches)" or ""))
    -- the GPU's side: kernels start further apart than they last
    local at = hostcheck.entry_of(r, t:timeline())
    local durs, gaps = {}, {}
    local prev
    for i = #ks - launches + 1, #ks do
      local e = at[ks[i].call]
      if e then
        durs[#durs + 1] = e.dur_us
        if prev then gaps[#gaps + 1] = e.start_us - prev.start_us end
        prev = e
      end
    end
    if #gaps > 0 then
      t:log("on the GPU each bump ran %.2f us%s and they started %.2f us apart%s: %s", median(durs), unit,
        median(gaps), unit, median(gaps) > 1.2 * median(durs)
          and "the GPU spent most of the time waiting for the host's next launch"
          or "the kernels followed each other closely")
    end
    if not on_gpu then
      t:log("on the emulator your clock also counts the emulator running each kernel inside its "
        .. "launch call, so your figure is the emulator's, not a GPU's; the modeled timeline "
        .. "charges 2.5 us of host time per launch")
    end
  end,
}
