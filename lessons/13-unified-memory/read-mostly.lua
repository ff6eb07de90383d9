-- read-mostly: a managed table read by a kernel and by the host in turn,
-- ITERS times; the learner advises cudaMemAdviseSetReadMostly before the
-- loop. Checks (r.um): after the first kernel, no kernel takes GPU page
-- faults, the host's reads take no CPU page faults and nothing migrates
-- (a prefetch every iteration avoids the faults but still moves the table:
-- it fails on the bytes); the values.

local function tolerance(bytes) return math.max(2, bytes // (64 * 1024) // 100) end

return {
  id = "read-mostly",
  kind = "program",
  timed = false,   -- no check reads a time: when grading on a GPU it runs beside other untimed work
  title = "Read-mostly: a copy on each side",
  title_zh = "以读为主：两边各留一份副本",
  source = "read-mostly.cu",
  solution = "solutions/read-mostly.cu",
  wrong = {
    "solutions/wrong/read-mostly-late.cu",
    "solutions/wrong/read-mostly-prefetch.cu",
  },
  timeout = 60,
  hints = {
    "A managed page lives in one place at a time, unless the driver is told that nobody writes it: "
      .. "then the GPU's first read makes a read-only copy and both sides keep one. That is the "
      .. "advice cudaMemAdviseSetReadMostly, given once, before the loop.",
    "cudaMemLocation gpu = {cudaMemLocationTypeDevice, dev}; cudaCheck(cudaMemAdvise(table, bytes, "
      .. "cudaMemAdviseSetReadMostly, gpu)); after the table is filled and before the first kernel "
      .. "(the location is ignored for this advice).",
  },
  hints_zh = {
    "托管内存的一页同一时刻只在一个地方，除非告诉驱动没有人写它：这时 GPU 第一次读取会建立一份只读副本，"
      .. "两边各留一份。这就是 cudaMemAdviseSetReadMostly 这条建议，在循环之前给一次即可。",
    "cudaMemLocation gpu = {cudaMemLocationTypeDevice, dev}; cudaCheck(cudaMemAdvise(table, bytes, "
      .. "cudaMemAdviseSetReadMostly, gpu)); 放在填好表之后、第一个核函数之前（这条建议忽略位置参数）。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "weaken guard < to <=", line = "if (i < n) out[i] = 2.0f * table[i];",
      why = "the program fixes its own size, N = 262144 on the emulator (2^24 on a GPU), a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "if (i < n) out[i] = 2.0f * table[i];",
      why = "the program fixes its own size, N = 262144 on the emulator (2^24 on a GPU), a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
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
    if hostcheck.count(r, "cudaMemAdvise") == 0 then
      t:fail("the program gives no cudaMemAdvise: the table's pages move to the GPU for every kernel "
        .. "and back for every host read. Advise cudaMemAdviseSetReadMostly on it before the loop")
      return
    end
    local um = r.um
    if not um.available then
      t:log("no page-fault counts on this machine (%s): only the calls and the values are checked", um.why or "?")
      return hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) })
    end
    local tol = tolerance(bytes)
    for i = 2, #um.kernels do
      local k = um.kernels[i]
      if k.gpu_page_faults > tol then
        t:fail(string.format("kernel %d took %d GPU page faults%s (%.1f MB moved to the GPU again): the "
          .. "host's read of the table after kernel %d had pulled it back. The advice must come before "
          .. "the first kernel, so that its first read leaves a copy on both sides", i,
          k.gpu_page_faults, unit, k.h2d_bytes / 1e6, i - 1))
        return
      end
    end
    local moved, faults = 0, 0
    for i = 2, #um.host do
      faults = faults + um.host[i].cpu_page_faults
      moved = moved + um.host[i].h2d_bytes + um.host[i].d2h_bytes
    end
    if faults > tol * (#um.host - 1) then
      t:fail(string.format("the host's reads of the table after the first kernel took %d CPU page "
        .. "faults%s: each read pulled the pages back from the GPU%s. With read-mostly advice the host "
        .. "reads its own copy", faults, unit, um.prefetch_h2d_bytes > 0 and " (a prefetch moves "
        .. "the pages, it does not copy them)" or ""))
      return
    end
    if moved > tol * 64 * 1024 * (#um.host - 1) then
      t:fail(string.format("after the first kernel the table still moved %.1f MB between the host and "
        .. "the GPU%s (prefetches every iteration): nothing needs to move for data that nobody writes. "
        .. "Advise read-mostly once instead", moved / 1e6, unit))
      return
    end
    t:log("first kernel: %d GPU page faults (it made the GPU's copy); later kernels and host reads: "
      .. "none%s", um.kernels[1] and um.kernels[1].gpu_page_faults or 0, unit)
    hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) })
  end,
}
