-- dominant-kernel: read a timeline. Three kernels: prepare (once), smooth
-- (once, a loop of work per element) and finish (cheap, FRAMES launches).
-- The learner runs the program, reads the timeline (cudojo's: the TUI's
-- timeline screen or cudojo run --trace; nsys where installed) and writes
-- the kernel with the largest total time into PREDICT. Checks: the values
-- (CPU reference: x + FRAMES), then the prediction against the timeline's
-- totals per kernel (sum of durations over launches; modeled on the
-- emulator, CUPTI's on a GPU; on a GPU with Nsight Systems installed the
-- program runs again under nsys and its cuda_gpu_kern_sum totals are used).

local function short(name) return (name or ""):match("^([%w_]+)") or name end

return {
  id = "dominant-kernel",
  kind = "program",
  title = "Which kernel dominates? Read the timeline",
  title_zh = "哪个核函数占大头？读时间线",
  source = "dominant-kernel.cu",
  solution = "solutions/dominant-kernel.cu",
  wrong = {
    "solutions/wrong/dominant-kernel-smooth.cu",
    "solutions/wrong/dominant-kernel-prepare.cu",
  },
  timeout = 120,
  hints = {
    "Open the timeline (cudojo run --trace, or the TUI's timeline) and add up each kernel's "
      .. "bars. A kernel that is short but launched many times can cost more than one long kernel.",
    "Total time = launches x time per launch: finish runs FRAMES = 200 times. Compare "
      .. "200 x finish with 1 x smooth on your timeline, then set #define PREDICT to the larger.",
  },
  hints_zh = {
    "打开时间线（cudojo run --trace，或 TUI 的时间线界面），把每个核函数的条块加起来。一个很短但被启动"
      .. "很多次的核函数，花的时间可能比一个很长的核函数还多。",
    "总时间 = 启动次数 × 每次的时间：finish 运行了 FRAMES = 200 次。在你的时间线上比较 200 × finish 和 "
      .. "1 × smooth，然后把 #define PREDICT 设成较大的那个。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "weaken guard < to <=", line = "if (i < n) y[i] = x[i];",
      why = "the program fixes its own size, N = 2048 on the emulator (2^22 on a GPU), a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "if (i < n) y[i] = x[i];",
      why = "the program fixes its own size, N = 2048 on the emulator (2^22 on a GPU), a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "weaken guard < to <=", line = "if (i < n) y[i] += 1.0f;",
      why = "the program fixes its own size, N = 2048 on the emulator (2^22 on a GPU), a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "if (i < n) y[i] += 1.0f;",
      why = "the program fixes its own size, N = 2048 on the emulator (2^22 on a GPU), a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "weaken guard >= to >", line = "if (i >= n) return;",
      why = "the program fixes its own size, N = 2048 on the emulator (2^22 on a GPU), a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop early-exit guard", line = "if (i >= n) return;",
      why = "the program fixes its own size, N = 2048 on the emulator (2^22 on a GPU), a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "loop bound < to <=", line = "v = fmaf(v, 0.5f, half);",
      why = "every step leaves the value where it was (x/2 + x/2 is exact): one more step changes only the time the kernel takes" },
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    local unit = on_gpu and "" or " (modeled)"
    -- 8 blocks on the emulator: a kernel's modeled time is its work per SM, so
    -- 8 blocks model the same times as 64 (smooth 9.6 us, finish 1 us) for an
    -- eighth of the emulation
    local n = t:param("n", on_gpu and (1 << 22) or (1 << 11))
    -- smooth is much longer than one finish, but shorter than all 200 of them, on both
    local iters = t:param("smooth_iters", on_gpu and 1000 or 8000)
    -- on a GPU with Nsight Systems, a second run under nsys gives its kernel summary
    local r = t:program{ defines = { N = n, SMOOTH_ITERS = iters }, profile = on_gpu and "nsys" or nil }
    if not hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) / 2 + 200 * n }) then return end
    local total, count = {}, {}
    local prof = rawget(r, "profile")
    if prof and prof.available and #prof.kernels > 0 then
      unit = " (nsys)"
      for _, k in ipairs(prof.kernels) do
        total[short(k.name)] = k.total_ns / 1000
        count[short(k.name)] = k.count
      end
    else
      if on_gpu then
        t:log("nsys is not available here (%s): the totals are cudojo's timeline (CUPTI)", prof and prof.reason or "?")
      end
      for _, e in ipairs(t:timeline().events) do
        if e.kind == "kernel" then
          local k = short(e.name)
          total[k] = (total[k] or 0) + e.dur_us
          count[k] = (count[k] or 0) + 1
        end
      end
    end
    local top, parts = nil, {}
    for _, k in ipairs{ "prepare", "smooth", "finish" } do
      if total[k] then
        parts[#parts + 1] = string.format("%s %d x %.1f us = %.1f us", k, count[k], total[k] / count[k], total[k])
        if not top or total[k] > total[top] then top = k end
      end
    end
    local table_line = table.concat(parts, ", ") .. unit
    local predicted = r.stdout:match("PREDICT: dominant=([^\n]*)")
    if not predicted or predicted == "?" then
      t:fail("PREDICT is not set: run the program, read its timeline and write the kernel with the "
        .. "largest total time into #define PREDICT")
      return
    end
    if predicted ~= top then
      t:fail(string.format("you predicted %s, but the timeline says %s: %s. What a kernel costs in "
        .. "all is its launches times its time per launch", predicted, top, table_line))
      return
    end
    t:expect(true, string.format("%s dominates, as you predicted: %s", top, table_line))
  end,
}
