-- sticky-error: a refused launch (job 2) is reported and stepped over; a
-- fault (job 4, a NULL input) is sticky: the program must report it, run
-- no more jobs, and exit non-zero. Checks: jobs 1 and 3 print the right
-- sums (j times the sum of the input ramp, computed here), job 2 is
-- reported and job 3 still runs, job 4 is reported with the fault's
-- message and no job 5 line follows, no kernel is launched after job 4's,
-- and the exit status is not 0.

return {
  id = "sticky-error",
  kind = "program",
  timed = false,   -- no check reads a time: when grading on a GPU it runs beside other untimed work
  title = "Sticky errors: when to stop",
  title_zh = "粘滞错误：何时该停下",
  source = "sticky-error.cu",
  solution = "solutions/sticky-error.cu",
  wrong = {
    "solutions/wrong/sticky-error-every-error.cu",
    "solutions/wrong/sticky-error-exit-zero.cu",
    "solutions/wrong/sticky-error-reset-and-go-on.cu",
  },
  timeout = 60,
  hints = {
    "An error in the last-error slot goes away when you read it with cudaGetLastError; a sticky "
      .. "error does not: the next call that touches the device fails with it again.",
    "static bool is_sticky(cudaError_t err) { cudaGetLastError(); return cudaDeviceSynchronize() "
      .. "!= cudaSuccess; } and, when it says so: printf(\"job %d: %s; the CUDA context is lost, "
      .. "stopping\\n\", j, cudaGetErrorString(err)); free the host buffers; return EXIT_FAILURE;",
  },
  hints_zh = {
    "“最后错误”槽里的错误，用 cudaGetLastError 读一次就消失了；粘滞错误不会：下一个碰到设备的调用"
      .. "还会以同样的错误失败。",
    "static bool is_sticky(cudaError_t err) { cudaGetLastError(); return cudaDeviceSynchronize() "
      .. "!= cudaSuccess; }；确认是粘滞错误时：printf(\"job %d: %s; the CUDA context is lost, "
      .. "stopping\\n\", j, cudaGetErrorString(err)); 释放主机缓冲区；return EXIT_FAILURE;",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "drop guard", line = "if (i < n) y[i] = s * x[i];",
      why = "the program fixes its own size, N = 8192, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "weaken guard < to <=", line = "if (i < n) y[i] = s * x[i];",
      why = "the program fixes its own size, N = 8192, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
  },
  run = function(t)
    local n = 8192
    local r = t:program{ defines = { N = n }, expect_errors = true }
    local out = r.stdout
    local ramp = hostcheck.ramp_sum(n) / 2      -- the sum of the input
    for _, j in ipairs({ 1, 3 }) do
      local got = tonumber(out:match("job " .. j .. ": sum = ([%d%.%-]+)"))
      if not got then
        t:fail(string.format("job %d printed no sum%s", j, j == 3 and ": job 2's refused launch is "
          .. "not sticky (nothing ran, nothing broke), so job 3 must still run" or ""))
        return
      end
      if math.abs(got - j * ramp) > 1e-3 * j * ramp then
        t:fail(string.format("job %d: the program printed sum %s, the CPU says %.4f", j, got, j * ramp))
        return
      end
    end
    if not out:find("job 2: [^\n]*invalid argument") then
      t:fail("job 2's refused launch is not reported: print \"job 2: skipped (invalid argument)\"")
      return
    end
    local j4 = out:match("job 4: ([^\n]*)")
    if not j4 or not j4:find("illegal memory access", 1, true) then
      t:fail("job 4's fault is not reported with its message (cudaGetErrorString: \"an illegal "
        .. "memory access was encountered\")")
      return
    end
    if out:find("job 5:", 1, true) then
      t:fail("after job 4's fault the program went on to job 5: a fault is sticky, every later call "
        .. "fails with it, so there is nothing left to run (and a cudaDeviceReset frees every "
        .. "allocation too). Tell it apart from job 2's error (clear the last error, then wait for "
        .. "the device: does it still fail?) and stop")
      return
    end
    local launches = 0
    for _, c in ipairs(hostcheck.calls(r)) do
      if c.fn:find("^cudaLaunch") then launches = launches + 1 end
    end
    t:expect(launches == 4, string.format("the program launches the kernels of jobs 1 to 4 and no "
      .. "more (it launched %d)", launches))
    t:expect(r.exit_code ~= 0, string.format("after the fault the program exits non-zero, so whoever "
      .. "ran it knows (it exited with status %d)", r.exit_code))
  end,
}
