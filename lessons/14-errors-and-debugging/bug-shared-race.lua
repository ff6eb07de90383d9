-- bug-shared-race (bug hunt): threads read the tile elements other
-- threads wrote, with no barrier between the writes and the reads. On a
-- GPU it often works (warps run close together); the emulator runs the
-- warps in an adversarial order and reports the race in shared memory
-- with both lines. On a GPU the emulator's run goes beside the GPU's
-- (emulator = true) and its finding is the verdict there too;
-- compute-sanitizer's racecheck, whose own start takes ~1 s on an H200,
-- reports after the verdict (after = ...). A __syncwarp orders one warp's
-- lanes only: threads of other warps still race. Checks: no finding, and
-- the sum of y against the CPU's.
return {
  id = "bug-shared-race",
  kind = "program",
  timed = false,   -- no check reads a time: when grading on a GPU it runs beside other untimed work
  bug_hunt = true,
  bug = "race",                 -- what the starter shows on the emulator (verify checks it)
  title = "Bug hunt: a race in shared memory",
  title_zh = "找虫：共享内存里的竞争",
  source = "bug-shared-race.cu",
  solution = "solutions/bug-shared-race.cu",
  wrong = {
    "solutions/wrong/bug-shared-race-sync-first.cu",
    "solutions/wrong/bug-shared-race-syncwarp.cu",
  },
  timeout = 60,
  hints = {
    "Thread t reads tile[BLOCK - 1 - t], which another thread wrote, often one in another warp. What guarantees that write has happened?",
    "__syncthreads() after tile[t] = ... and before the read of tile[from]: every thread of the block waits there until all have written.",
  },
  hints_zh = {
    "线程 t 读的是 tile[BLOCK - 1 - t]，那是另一个线程写的，往往还在另一个 warp 里。什么能保证那次写已经完成？",
    "在 tile[t] = ... 之后、读 tile[from] 之前加 __syncthreads()：块里的每个线程都在那里等，直到所有线程都写完。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "weaken guard < to <=", line = "tile[t] = base + t < n ? x[base + t] : 0.0f;",
      why = "the program fixes its own size, N = 4096, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "weaken guard < to <=", line = "if (base + t < n) y[base + t] = 2.0f * tile[from];",
      why = "the program fixes its own size, N = 4096, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "if (base + t < n) y[base + t] = 2.0f * tile[from];",
      why = "the program fixes its own size, N = 4096, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
  },
  run = function(t)
    local n = 4096
    local r = t:program{ defines = { N = n }, sanitizer = "racecheck", emulator = true,
      after = function(san)
        if san.available then
          t:log("compute-sanitizer racecheck, after the verdict: %d error%s", #san.errors, #san.errors == 1 and "" or "s")
        else
          t:log("compute-sanitizer racecheck did not run: %s", san.reason)
        end
      end }
    hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) })
  end,
}
