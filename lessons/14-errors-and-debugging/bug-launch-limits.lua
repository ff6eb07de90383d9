-- bug-launch-limits (bug hunt): a 32 x 64 block is 2048 threads, over the
-- 1024 a block may have, so the launch is refused (cudaErrorInvalidValue on
-- CUDA 13, measured on the H200) and the kernel never runs; the program
-- checks cudaDeviceSynchronize, which returns cudaSuccess after a refused
-- launch. The emulator's launch finding fails the starter. Checks: every
-- launch succeeded, and the sum of y (every pixel) against the CPU's.
return {
  id = "bug-launch-limits",
  kind = "program",
  timed = false,   -- no check reads a time: when grading on a GPU it runs beside other untimed work
  bug_hunt = true,
  bug = "launch-error",                 -- what the starter shows on the emulator (verify checks it)
  title = "Bug hunt: a launch over the limits",
  title_zh = "找虫：超出限制的启动",
  source = "bug-launch-limits.cu",
  solution = "solutions/bug-launch-limits.cu",
  wrong = {
    "solutions/wrong/bug-launch-limits-grid.cu",
    "solutions/wrong/bug-launch-limits-1d.cu",
  },
  timeout = 60,
  hints = {
    "How many threads does dim3 block(32, 64) make? What does the launch return, and who asks?",
    "A block has at most 1024 threads (x * y * z): dim3 block(32, 16) or (16, 16), with the grid computed from the same block (it already is). Check the launch with cudaGetLastError().",
  },
  hints_zh = {
    "dim3 block(32, 64) 一共是多少个线程？这次启动返回了什么？又是谁去问的？",
    "一个块最多 1024 个线程（x * y * z）：用 dim3 block(32, 16) 或 (16, 16)，网格用同一个 block 来算（代码里已经是这样）。用 cudaGetLastError() 检查启动。",
  },
  run = function(t)
    local n = 200 * 150
    local r = t:program{}
    for _, c in ipairs(hostcheck.calls(r)) do
      if c.fn:find("^cudaLaunch") and c.rc ~= 0 then
        t:fail(string.format("the launch returned %s: the kernel never ran. A block has at most 1024 "
          .. "threads", c.error or tostring(c.rc)))
        return
      end
    end
    hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) })
  end,
}
