-- prefetch: a managed-memory program whose first kernel faults on every
-- page and whose host faults on every page of the result; the learner
-- prefetches x and y to the GPU before the first kernel and y back before
-- the host reads it. Checks (r.um: the emulator runtime's page model, or
-- CUPTI's unified-memory counters on a GPU): the first kernel takes
-- (almost) no GPU page faults, the host's reading of y (almost) no CPU page
-- faults, the values; the first kernel's time against a later one is logged.

-- faults allowed where none are expected: 1% of the pages (a GPU counts
-- fault groups, and may fault on a page or two of a prefetched range)
local function tolerance(bytes) return math.max(2, bytes // (64 * 1024) // 100) end

return {
  id = "prefetch",
  kind = "program",
  timed = false,   -- no check reads a time: when grading on a GPU it runs beside other untimed work
  title = "Prefetch: move the pages before anyone faults",
  title_zh = "预取：在缺页发生之前把页搬过去",
  source = "prefetch.cu",
  solution = "solutions/prefetch.cu",
  wrong = {
    "solutions/wrong/prefetch-device-only.cu",
    "solutions/wrong/prefetch-after-first.cu",
    "solutions/wrong/prefetch-x-only.cu",
  },
  timeout = 60,
  hints = {
    "A page fault stops the GPU's threads while the driver moves one page; a prefetch moves the "
      .. "whole range at once, before the kernel needs it. Prefetch every array the first kernel "
      .. "touches (the one it writes too: fresh managed pages fault as well).",
    "cudaMemLocation gpu = {cudaMemLocationTypeDevice, dev}; cudaCheck(cudaMemPrefetchAsync(x, bytes, "
      .. "gpu, 0, 0)); the same for y, before the loop. After the loop: cudaMemLocation cpu = "
      .. "{cudaMemLocationTypeHost, 0}; cudaCheck(cudaMemPrefetchAsync(y, bytes, cpu, 0, 0)); then "
      .. "cudaDeviceSynchronize().",
  },
  hints_zh = {
    "一次缺页会让 GPU 的线程停下来，等驱动搬完一页；预取则在核函数需要之前一次搬完整个范围。"
      .. "第一个核函数碰到的每个数组都要预取（包括它写的那个：新分配的托管页同样会缺页）。",
    "cudaMemLocation gpu = {cudaMemLocationTypeDevice, dev}; cudaCheck(cudaMemPrefetchAsync(x, bytes, "
      .. "gpu, 0, 0)); y 也一样，放在循环之前。循环之后：cudaMemLocation cpu = "
      .. "{cudaMemLocationTypeHost, 0}; cudaCheck(cudaMemPrefetchAsync(y, bytes, cpu, 0, 0)); 然后 "
      .. "cudaDeviceSynchronize()。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "weaken guard < to <=", line = "if (i < n) y[i] = 2.0f * x[i];",
      why = "the program fixes its own size, N = 262144 on the emulator (2^24 on a GPU), a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "if (i < n) y[i] = 2.0f * x[i];",
      why = "the program fixes its own size, N = 262144 on the emulator (2^24 on a GPU), a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
  },
  -- verify --mutants: wrong mutants the emulator cannot catch (its blind spots)
  mutants_undetected = {
    { mutation = "drop cudaDeviceSynchronize()", line = "cudaCheck(cudaDeviceSynchronize());",
      why = "the host then reads managed memory that a prefetch (and on a GPU the kernel) may still be using: the emulator runtime runs each call to completion and does not flag a host read of managed memory with device work queued" },
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    -- 2^18 floats on the emulator (1 MB, 16 managed pages: faults where none
    -- belong are far past the tolerance), fast enough for a save-to-verdict loop
    local n = t:param("n", on_gpu and (1 << 24) or (1 << 18))
    local r = t:program{ defines = { N = n } }
    if r.exit_code ~= 0 then return hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) }) end
    local bytes = 4 * n
    local unit = r.um.modeled and " (modeled)" or ""
    if hostcheck.count(r, "cudaMemPrefetchAsync") == 0 then
      t:fail("the program never calls cudaMemPrefetchAsync: every page still moves on demand, one "
        .. "page fault at a time. Prefetch x and y to the GPU before the first kernel, y back to the "
        .. "host before the host reads it")
      return
    end
    local um = r.um
    if not um.available then
      t:log("no page-fault counts on this machine (%s): only the calls and the values are checked", um.why or "?")
    else
      local k1 = um.kernels[1]
      if not k1 then
        t:fail("the program launched no kernel")
        return
      end
      local tol = tolerance(2 * bytes)
      if k1.gpu_page_faults > tol then
        t:fail(string.format("the first kernel took %d GPU page faults%s and pulled %.1f MB over on "
          .. "demand: some of what it touches was not on the GPU yet. Prefetch both x and y to the "
          .. "GPU before the first launch (the one it writes too)", k1.gpu_page_faults, unit,
          k1.h2d_bytes / 1e6))
        return
      end
      local last = um.host[#um.host]
      if last.cpu_page_faults > tolerance(bytes) then
        t:fail(string.format("reading y took the host %d CPU page faults%s (%.1f MB moved back on "
          .. "demand): y was still on the GPU. Prefetch y to the host (cudaMemLocationTypeHost) "
          .. "before the host reads it, then synchronize", last.cpu_page_faults, unit, last.d2h_bytes / 1e6))
        return
      end
      t:log("first kernel: %d GPU page faults; reading y: %d CPU page faults; prefetched %.1f MB to "
        .. "the GPU and %.1f MB back%s", k1.gpu_page_faults, last.cpu_page_faults,
        um.prefetch_h2d_bytes / 1e6, um.prefetch_d2h_bytes / 1e6, unit)
    end
    local ks = hostcheck.entries(t:timeline(), "kernel")
    if #ks >= 2 then
      t:log("the first kernel took %.1f us, the second %.1f us%s", ks[1].dur_us, ks[2].dur_us, unit)
    end
    hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) })
  end,
}
