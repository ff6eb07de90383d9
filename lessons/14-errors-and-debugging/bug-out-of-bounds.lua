-- bug-out-of-bounds (bug hunt): the grid is rounded up to whole blocks,
-- so the last block has threads past the end of the arrays and nothing
-- stops them. The emulator's out-of-bounds finding (line, thread, block)
-- fails the starter; on a GPU a one-element overrun often lands in memory
-- the allocator owns and passes, so compute-sanitizer's memcheck runs too.
-- Checks: no finding, and the sum of y against the CPU's.
return {
  id = "bug-out-of-bounds",
  kind = "program",
  timed = false,   -- no check reads a time: when grading on a GPU it runs beside other untimed work
  bug_hunt = true,
  bug = "out-of-bounds",                 -- what the starter shows on the emulator (verify checks it)
  title = "Bug hunt: out of bounds",
  title_zh = "找虫：越界访问",
  source = "bug-out-of-bounds.cu",
  solution = "solutions/bug-out-of-bounds.cu",
  wrong = {
    "solutions/wrong/bug-out-of-bounds-off-by-one.cu",
  },
  timeout = 60,
  hints = {
    "Read the finding: which thread wrote where, and how many elements does y have? Count the threads the launch starts.",
    "(N + 255) / 256 blocks of 256 threads is more threads than N elements: each thread must check its index, if (i < n), before it touches x[i] or y[i].",
  },
  hints_zh = {
    "读一读发现的问题：哪个线程写到了哪里？y 有多少个元素？数一数这次启动了多少个线程。",
    "(N + 255) / 256 个块、每块 256 个线程，线程数多于 N 个元素：每个线程在访问 x[i] 或 y[i] 之前都必须检查下标，if (i < n)。",
  },
  run = function(t)
    local n = 1000
    local r = t:program{ defines = { N = n }, sanitizer = "memcheck" }
    hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) })
  end,
}
