-- bug-use-after-free (bug hunt): d_x is freed between the two kernels, and
-- the second reads it. On a GPU the freed memory is often still mapped and
-- the numbers come out right; the emulator removes the allocation at
-- cudaFree, so the read is out of bounds of every allocation (a finding
-- with the line, thread and block); compute-sanitizer's memcheck runs on a
-- GPU. A second cudaFree of the same pointer returns cudaErrorInvalidValue
-- (the wrong variant frees it twice). Checks: no finding, exit status 0
-- and the sum of y against the CPU's.
return {
  id = "bug-use-after-free",
  kind = "program",
  timed = false,   -- no check reads a time: when grading on a GPU it runs beside other untimed work
  bug_hunt = true,
  bug = "out-of-bounds",                 -- what the starter shows on the emulator (verify checks it)
  title = "Bug hunt: use after free",
  title_zh = "找虫：释放后又使用",
  source = "bug-use-after-free.cu",
  solution = "solutions/bug-use-after-free.cu",
  wrong = {
    "solutions/wrong/bug-use-after-free-double-free.cu",
  },
  timeout = 60,
  hints = {
    "Which pointer does the second kernel read, and what happened to it just before the launch?",
    "Free d_x after its last use, once the add kernel is launched (the free waits for the kernel), and only once.",
  },
  hints_zh = {
    "第二个核函数读的是哪个指针？就在启动之前，它发生了什么？",
    "在 d_x 最后一次使用之后（add 核函数启动之后；cudaFree 会等核函数结束）再释放它，而且只释放一次。",
  },
  run = function(t)
    local n = 1000
    local r = t:program{ defines = { N = n }, sanitizer = "memcheck" }
    hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) })
  end,
}
