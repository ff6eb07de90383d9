-- managed-basics: the learner turns a cudaMalloc + cudaMemcpy program into
-- one with managed memory (cudaMallocManaged, no copies, a synchronize
-- before the host reads). Checks: x and y are managed, no cudaMemcpy of any
-- kind, the host waited for the kernel before reading y (from the call
-- trace: on the emulator the kernel has finished when the launch returns,
-- so early reads still print the right sum), the values; the page faults
-- the kernel took are logged (r.um: modeled on the emulator, CUPTI's on a GPU).

return {
  id = "managed-basics",
  kind = "program",
  timed = false,   -- no check reads a time: when grading on a GPU it runs beside other untimed work
  title = "One pointer for host and GPU: cudaMallocManaged",
  title_zh = "主机和 GPU 共用一个指针：cudaMallocManaged",
  source = "managed-basics.cu",
  solution = "solutions/managed-basics.cu",
  wrong = {
    "solutions/wrong/managed-basics-no-sync.cu",
    "solutions/wrong/managed-basics-copies.cu",
  },
  timeout = 60,
  hints = {
    "float *x, *y; cudaCheck(cudaMallocManaged(&x, bytes)); likewise y. Write x with make_input(x, N), "
      .. "launch scale on x and y themselves, validate(x, y, ...) and cudaFree both at the end: no "
      .. "malloc, no d_ arrays, no cudaMemcpy.",
    "A launch returns before the kernel has run. cudaMemcpy used to wait for it; without it, "
      .. "cudaCheck(cudaDeviceSynchronize()) after the launch is what makes y safe to read.",
  },
  hints_zh = {
    "float *x, *y; cudaCheck(cudaMallocManaged(&x, bytes)); y 也一样。用 make_input(x, N) 写 x，"
      .. "直接用 x 和 y 启动 scale，validate(x, y, ...)，最后 cudaFree 两者：不要 malloc，不要 d_ 数组，"
      .. "不要 cudaMemcpy。",
    "核函数启动后立即返回，核函数还没运行。以前是 cudaMemcpy 在等它；去掉之后，要在启动后调用 "
      .. "cudaCheck(cudaDeviceSynchronize())，y 才能安全读取。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "weaken guard < to <=", line = "if (i < n) y[i] = 2.0f * x[i];",
      why = "the program fixes its own size, N = 1048576, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "if (i < n) y[i] = 2.0f * x[i];",
      why = "the program fixes its own size, N = 1048576, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    local n = t:param("n", on_gpu and (1 << 24) or (1 << 20))
    local r = t:program{ defines = { N = n } }
    if r.exit_code ~= 0 then return hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) }) end
    local managed = hostcheck.count(r, "cudaMallocManaged")
    if managed < 2 then
      t:fail(string.format("the program made %d managed allocation%s: allocate both x and y with "
        .. "cudaMallocManaged, so that the host and the kernel use the same pointers", managed,
        managed == 1 and "" or "s"))
      return
    end
    local copies = 0
    for _, c in ipairs(hostcheck.calls(r)) do
      if c.fn:find("^cudaMemcpy") then copies = copies + 1 end
    end
    if copies > 0 then
      t:fail(string.format("the program still calls cudaMemcpy %d time%s: managed memory needs no "
        .. "copies (the pages move by themselves). Give the kernel the managed pointers and remove the "
        .. "device arrays and their copies", copies, copies == 1 and "" or "s"))
      return
    end
    if #hostcheck.unwaited(r) > 0 then
      t:fail("the host reads y without waiting for the kernel: a launch returns at once, and with no "
        .. "cudaMemcpy left nothing waits for the GPU. Call cudaDeviceSynchronize() after the launch, "
        .. "before the host touches y")
      return
    end
    if not hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) }) then return end
    local um = r.um
    local k = um.kernels[#um.kernels]
    if um.available and k then
      t:log("the kernel took %d GPU page faults and pulled %.1f MB to the GPU; reading y took %d CPU page "
        .. "faults%s", k.gpu_page_faults, k.h2d_bytes / 1e6, um.host[#um.host].cpu_page_faults,
        um.modeled and " (modeled)" or "")
    end
  end,
}
