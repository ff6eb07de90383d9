-- which-kernel-faulted: a fault is reported by the next call that waits
-- for the GPU, not by the launch. The program is run twice, with the NULL
-- pointer handed to stage 1 (scale) and to stage 2 (offset). Checks, per
-- run: the program names the faulting kernel, says which call reported
-- the fault (cudaErrorIllegalAddress from the synchronize, or the launch
-- when the fault was already known there), exits non-zero, launches
-- nothing after the failed wait (sticky: everything after it fails too),
-- and the failed wait came before any later stage was launched.

local NAMES = { "scale", "offset", "square" }

return {
  id = "which-kernel-faulted",
  kind = "program",
  timed = false,   -- no check reads a time: when grading on a GPU it runs beside other untimed work
  title = "Which kernel faulted? Errors that come later",
  title_zh = "哪个核函数出了错？迟到的错误",
  source = "which-kernel-faulted.cu",
  solution = "solutions/which-kernel-faulted.cu",
  wrong = {
    "solutions/wrong/which-kernel-faulted-no-wait.cu",
    "solutions/wrong/which-kernel-faulted-keeps-going.cu",
  },
  timeout = 60,
  hints = {
    "The launch returns as soon as the kernel is queued; the fault happens later, on the GPU, and "
      .. "is reported by whichever call next waits for it. To pin a fault on a kernel, wait right "
      .. "after that kernel.",
    "In ran(name): cudaError_t launch = cudaGetLastError(); cudaError_t sync = "
      .. "cudaDeviceSynchronize(); if either is not cudaSuccess, printf(\"fault in kernel: %s "
      .. "(launch: %s, synchronize: %s)\\n\", name, cudaGetErrorName(launch), cudaGetErrorName(sync)) "
      .. "and return false.",
  },
  hints_zh = {
    "核函数一进入队列，启动调用就返回了；错误稍后才在 GPU 上发生，由下一个等待 GPU 的调用报告。"
      .. "要把错误归到某个核函数上，就在它之后立刻等待。",
    "在 ran(name) 中：cudaError_t launch = cudaGetLastError(); cudaError_t sync = "
      .. "cudaDeviceSynchronize(); 只要有一个不是 cudaSuccess，就 printf(\"fault in kernel: %s "
      .. "(launch: %s, synchronize: %s)\\n\", name, cudaGetErrorName(launch), cudaGetErrorName(sync)) "
      .. "并返回 false。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "weaken guard < to <=", line = "__global__ void scale(float *x, int n)",
      why = "the program fixes its own size, N = 4096, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "__global__ void scale(float *x, int n)",
      why = "the program fixes its own size, N = 4096, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "weaken guard < to <=", line = "__global__ void offset(float *x, int n)",
      why = "the program fixes its own size, N = 4096, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "__global__ void offset(float *x, int n)",
      why = "the program fixes its own size, N = 4096, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "weaken guard < to <=", line = "__global__ void square(float *x, int n)",
      why = "the program fixes its own size, N = 4096, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "__global__ void square(float *x, int n)",
      why = "the program fixes its own size, N = 4096, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop cudaDeviceSynchronize()", line = "cudaError_t err = cudaDeviceSynchronize();",
      why = "ran() has already synchronised after each kernel, so nothing is left to report here" },
  },
  run = function(t)
    for _, faulty in ipairs({ 1, 2 }) do
      local r = t:program{ args = { faulty }, expect_errors = true }
      local want = NAMES[faulty]
      local name, launch, sync = r.stdout:match("fault in kernel: (%S+) %(launch: (%S+), synchronize: (%S+)%)")
      if not name then
        t:fail(string.format("with the NULL pointer in stage %d (%s) the program printed no \"fault in "
          .. "kernel: NAME (launch: ..., synchronize: ...)\" line%s", faulty, want,
          r.stdout:find("no fault") and ": it says there was no fault, because no call waited for the kernels" or ""))
        return
      end
      if name ~= want then
        t:fail(string.format("the NULL pointer went to stage %d, %s, but the program blames %s: the "
          .. "fault was reported by a wait after more kernels had been queued (or after the fault had "
          .. "made every later call fail). Wait right after each kernel and stop at the first failure",
          faulty, want, name))
        return
      end
      if launch ~= "cudaErrorIllegalAddress" and sync ~= "cudaErrorIllegalAddress" then
        t:fail(string.format("the program names %s, but neither error it printed is "
          .. "cudaErrorIllegalAddress (launch: %s, synchronize: %s)", name, launch, sync))
        return
      end
      if not t:expect(r.exit_code ~= 0, string.format("stage %d: after the fault the program exits "
        .. "non-zero (it exited with status %d)", faulty, r.exit_code)) then return end
      -- nothing launched after the faulting kernel
      local launches = 0
      for _, c in ipairs(hostcheck.calls(r)) do
        if c.fn:find("^cudaLaunch") or c.fn:find("^__cudaLaunch") then launches = launches + 1 end
      end
      local _, lines = r.stdout:gsub("fault in kernel:", "")
      if not t:expect(launches <= faulty and lines == 1, string.format("the program launched %d "
        .. "kernel%s; the fault was in kernel %d (%s), and everything after a fault fails (the error "
        .. "is sticky): stop there", launches, launches == 1 and "" or "s", faulty, want)) then return end
      t:log(string.format("stage %d: %s, launch %s, synchronize %s", faulty, name, launch, sync))
    end
  end,
}
