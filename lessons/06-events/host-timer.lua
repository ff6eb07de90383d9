-- host-timer: a CPU clock around an asynchronous launch measures the
-- launch, not the kernel. The learner adds cudaDeviceSynchronize() before
-- the second reading (wait for the kernel) and before the first (the
-- warm-up launch is still running). The host timer (first to last
-- host_clock_now(), host entries on the timeline: measured on a GPU,
-- modeled on the emulator) must match the timed kernel's span within 10%.

-- The host replay of chapters 06 and 07 is built into cudojo
-- (lua/prelude/host_replay.lua; see lua/API.md, `host`).
local replay, entry, check_outputs = host.replay, host.entry, host.check_outputs

return {
  id = "host-timer",
  title = "Why host timers lie",
  title_zh = "为什么主机计时器会骗人",
  source = "host-timer.cu",
  solution = "solutions/host-timer.cu",
  wrong = {
    "solutions/wrong/host-timer-end-only.cu",
    "solutions/wrong/host-timer-start-only.cu",
  },
  timeout = 30,
  hints = {
    "The CPU clock only knows what the CPU did. Between the two readings the CPU queued a "
      .. "kernel, nothing more; and when it read t0, the warm-up kernel was perhaps still running.",
    "cudaDeviceSynchronize() right before HostTime t0 = ... (so the warm-up is over), and "
      .. "again right before HostTime t1 = ... (so the timed kernel is over).",
  },
  hints_zh = {
    "CPU 的时钟只知道 CPU 做了什么。两次读数之间，CPU 只是把一个核函数放进了队列；而它读 t0 的时候，"
      .. "预热的那个核函数可能还在跑。",
    "在 HostTime t0 = ... 之前调用 cudaDeviceSynchronize()（让预热先结束），在 HostTime t1 = ... "
      .. "之前再调用一次（让被计时的核函数结束）。",
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
    if #H.clocks < 2 then
      t:fail("read the host clock twice: HostTime t0 = host_clock_now(); ... HostTime t1 = host_clock_now();")
      return
    end
    local c0, c1 = H.clocks[1], H.clocks[#H.clocks]
    local timed = {}
    for _, l in ipairs(H.launches) do
      if l.pos > c0.pos and l.pos < c1.pos then timed[#timed + 1] = l end
    end
    if #timed == 0 then
      t:fail("no kernel is launched between your two clock readings")
      return
    end
    local tl = t:timeline()
    local h0, h1 = entry(tl, c0.entry), entry(tl, c1.entry)
    local host_ms = (h1.start_us - h0.start_us) / 1000
    local k0, k1 = entry(tl, timed[1].entry), entry(tl, timed[#timed].entry)
    local span_ms = (k1.start_us + k1.dur_us - k0.start_us) / 1000
    local unit = on_gpu and "" or " (modeled)"
    local slack_ms = 0.1 * span_ms + (on_gpu and 0.05 or 0.01)
    if host_ms < 0.9 * span_ms then
      t:fail(string.format("your host timer read %.4f ms%s, the kernel ran %.4f ms%s: the launch "
        .. "returned as soon as the kernel was queued, and the clock stopped while the GPU was "
        .. "still working. Wait for the GPU before the second reading", host_ms, unit, span_ms, unit))
      return
    end
    if host_ms > span_ms + slack_ms then
      t:fail(string.format("your host timer read %.4f ms%s, but the timed kernel ran only %.4f ms%s: "
        .. "the clock also counted work queued before t0 (the warm-up was still running). Wait "
        .. "for the GPU before the first reading too", host_ms, unit, span_ms, unit))
      return
    end
    t:expect(true, string.format("your host timer read %.4f ms%s; the kernel ran %.4f ms%s",
      host_ms, unit, span_ms, unit))
    t:log("a host timer is honest only between two waits; events need no wait to be right")
  end,
}
