-- host-timer: a CPU clock around an asynchronous launch measures the
-- launch, not the kernel. The learner adds cudaDeviceSynchronize() before
-- the first clock reading (the warm-up is still running) and before the
-- second (wait for the timed kernel). The clock readings are not CUDA
-- calls, so the checks read the waits around the timed launch in the call
-- trace: a synchronize between the warm-up and the timed launch, and one
-- right after the timed launch. On a GPU the printed host time must also
-- match the timed kernel's duration (CUPTI) within 10%; on the emulator the
-- program's clock also counts the emulator's own work, so its value means
-- nothing there.

local WAITS = { cudaDeviceSynchronize = true, cudaStreamSynchronize = true, cudaEventSynchronize = true }
local QUIET = { cudaGetLastError = true, cudaPeekAtLastError = true }

return {
  id = "host-timer",
  kind = "program",
  title = "Why host timers lie",
  title_zh = "为什么主机计时器会骗人",
  source = "host-timer.cu",
  solution = "solutions/host-timer.cu",
  wrong = {
    "solutions/wrong/host-timer-end-only.cu",
    "solutions/wrong/host-timer-start-only.cu",
  },
  timeout = 60,
  hints = {
    "The CPU clock only knows what the CPU did. Between the two readings the CPU queued a "
      .. "kernel, nothing more; and when it read t0, the warm-up kernel was perhaps still running.",
    "cudaCheck(cudaDeviceSynchronize()); right before double t0 = now_ms(); (so the warm-up is "
      .. "over), and again right before double t1 = now_ms(); (so the timed kernel is over).",
  },
  hints_zh = {
    "CPU 的时钟只知道 CPU 做了什么。两次读数之间，CPU 只是把一个核函数放进了队列；而它读 t0 的时候，"
      .. "预热的那个核函数可能还在跑。",
    "在 double t0 = now_ms(); 之前调用 cudaCheck(cudaDeviceSynchronize());（让预热先结束），"
      .. "在 double t1 = now_ms(); 之前再调用一次（让被计时的核函数结束）。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "loop bound < to <=", line = "acc = fmaf(acc, 0.5f, half)",
      why = "every step leaves acc equal to x[i] (x/2 + x/2 is exact): one more step changes only the time the kernel takes" },
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    local n = t:param("n", on_gpu and (1 << 22) or 1000)
    -- on a GPU a kernel of ~24 ms: 10% of it (2.4 ms) covers a host thread that loses its core for a
    -- scheduler tick on a loaded machine (grading 16 at once on the H200, a 0.61 ms kernel read 2.71 ms)
    local iters = t:param("iters", on_gpu and 160000 or 20000)
    local r = t:program{ defines = { N = n, ITERS = iters } }
    local calls = hostcheck.calls(r)
    if not hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) }) then return end
    local launches = hostcheck.launches(r, "busy")
    if #launches < 2 then
      t:fail("launch busy twice: once to warm up, once to time it")
      return
    end
    local host_ms = hostcheck.number(r, "host timer: ([%d%.]+) ms")
    if not host_ms then
      t:fail("the program did not print its time: keep the line printf(\"host timer: %.4f ms\\n\", t1 - t0)")
      return
    end
    -- the waits around the timed (last) launch
    local warm, timed = launches[#launches - 1], launches[#launches]
    local before = false
    for i = warm.call + 1, timed.call - 1 do
      if WAITS[calls[i].fn] then before = true end
    end
    local i = timed.call + 1
    while calls[i] and QUIET[calls[i].fn] do i = i + 1 end
    local after = calls[i]
    -- on the emulator the clock's value counts the emulator's work: not shown as a measurement
    local read = on_gpu and string.format("your host timer read %.4f ms, but ", host_ms) or ""
    if not after or not WAITS[after.fn] then
      t:fail(string.format("%snothing waits for the timed kernel before t1%s: the launch returned "
        .. "as soon as the kernel was queued, and the clock stopped while the GPU was still "
        .. "working. Wait for the GPU (cudaDeviceSynchronize) right before the second reading",
        read, after and " (the next call is " .. after.fn .. ")" or ""))
      return
    end
    if not before then
      t:fail(string.format("%snothing waits for the warm-up launch before t0: it was still running "
        .. "when the clock started, and the clock counts it too. Wait for the GPU before the first "
        .. "reading too", read))
      return
    end
    if not on_gpu then
      t:expect(true, "the host waits for the warm-up before t0 and for the timed kernel before t1")
      t:log("your host timer read %.4f ms: on the emulator the program's clock also counts the "
        .. "emulator's own work, so only the waits are checked here; on a GPU the time must match "
        .. "the kernel's", host_ms)
      return
    end
    local k = hostcheck.entry_of(r, t:timeline())[timed.call]
    if not k then
      t:fail("the timed kernel is not on the program's timeline, so cudojo cannot compare your "
        .. "host timer with it")
      return
    end
    local span_ms = k.dur_us / 1000
    t:expect(host_ms >= 0.9 * span_ms and host_ms <= 1.1 * span_ms + 0.05, string.format(
      "your host timer read %.4f ms; the kernel ran %.4f ms", host_ms, span_ms))
    t:log("a host timer is honest only between two waits; events need no wait to be right")
  end,
}
