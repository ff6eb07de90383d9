-- bug-missing-sync (bug hunt): cudaMemcpyAsync returns before the bytes
-- arrive, and the host validates h_y right away. On the emulator every
-- operation runs at once, so the numbers come out right anyway: the check
-- is the program's order of calls (hostcheck.unwaited: the host went on to
-- read its results while the stream still had work queued, by CUDA's
-- rules), the same on a GPU, where the numbers are often wrong.
-- Checks: the host waited for the stream, and the sum of y.
return {
  id = "bug-missing-sync",
  kind = "program",
  timed = false,   -- no check reads a time: when grading on a GPU it runs beside other untimed work
  bug_hunt = true,
  bug = "wrong-result",                 -- what the starter shows on the emulator (verify checks it)
  title = "Bug hunt: reading before the copy lands",
  title_zh = "找虫：数据还没到就去读",
  source = "bug-missing-sync.cu",
  solution = "solutions/bug-missing-sync.cu",
  wrong = {
    "solutions/wrong/bug-missing-sync-too-early.cu",
    "solutions/wrong/bug-missing-sync-legacy-stream.cu",
  },
  timeout = 60,
  hints = {
    "cudaMemcpyAsync only queues the copy. When does h_y hold the results? What tells the host that moment has come?",
    "After the last cudaMemcpyAsync on s and before validate: cudaStreamSynchronize(s). Waiting on the default stream does not wait for a non-blocking stream.",
  },
  hints_zh = {
    "cudaMemcpyAsync 只是把拷贝放进队列。h_y 什么时候才有结果？什么东西告诉主机这一刻到了？",
    "在 s 上最后一个 cudaMemcpyAsync 之后、validate 之前：cudaStreamSynchronize(s)。等待默认流并不会等待非阻塞流。",
  },
  run = function(t)
    local n = 1000
    local r = t:program{ defines = { N = n } }
    if not hostcheck.expect_waited(t, r, "its results (h_y)") then return end
    hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) })
  end,
}
