-- predict-occupancy: the learner predicts the theoretical occupancy of three
-- launches of one kernel on sm_90 (limited by blocks, by warps, by shared
-- memory); the exercise reads the predictions through the kernel
-- `predictions`, compares them with the Occupancy Calculator (k:occupancy,
-- registers from a cubin built for sm_90) and checks the kernel's values
-- for each launch (n = 5003: no launch divides it). On a GPU it also shows
-- the occupancy of the same launches on the local GPU and their times.
local LAUNCHES = {
  { name = "A", block = 32, shared = 32 * 4 },
  { name = "B", block = 640, shared = 640 * 4 },
  { name = "C", block = 256, shared = 40 * 1024 },
}

return {
  id = "predict-occupancy",
  title = "Predict the occupancy, then measure it",
  title_zh = "先预测占用率，再测量",
  source = "predict-occupancy.cu",
  solution = "solutions/predict-occupancy.cu",
  wrong = {
    "solutions/wrong/predict-occupancy-no-block-limit.cu",
    "solutions/wrong/predict-occupancy-rounded-up.cu",
  },
  timeout = 30,
  hints = {
    "For each launch count how many blocks each limit allows, and take the smallest: "
      .. "warps (64 / warps per block), blocks (32), shared memory (228 KiB / (shared "
      .. "per block + 1 KiB)). Occupancy = blocks x warps per block / 64.",
    "A: 1 warp per block, but at most 32 blocks: 32 / 64 = 50%. B: 20 warps per block, "
      .. "3 blocks fit (4 would be 80 warps): 60 / 64. C: 41 KiB per block, 5 blocks fit "
      .. "in 228 KiB: 5 x 8 = 40 warps of 64.",
  },
  hints_zh = {
    "对每次启动，分别按每一种限制算出能放下几个线程块，取最小值：线程束（64 / 每块线程束数）、"
      .. "线程块（32）、共享内存（228 KiB / (每块共享内存 + 1 KiB)）。占用率 = 线程块数 × 每块线程束数 / 64。",
    "A：每块 1 个线程束，但最多 32 个线程块：32 / 64 = 50%。B：每块 20 个线程束，放得下 3 块"
      .. "（4 块就是 80 个线程束）：60 / 64。C：每块 41 KiB，228 KiB 里放得下 5 块：5 × 8 = 40 个线程束，共 64 个。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "drop __syncthreads()", line = "__syncthreads();",
      why = "stage_double's threads each read back only their own stage slot, so the barrier orders nothing" },
  },
  run = function(t)
    local dev = t:device()
    local on_gpu = dev.backend == "cuda"

    local p = gpu.array("f32", 3, "predictions")
    t:kernel("predictions"):launch{ grid = 1, block = 1, args = { p } }

    local k = t:kernel("stage_double")
    local n = t:param("n", on_gpu and (1 << 24) + 3 or 5003)
    local x = gpu.array("f32", n, "x"):random{ lo = -10, hi = 10, seed = 8 }
    local want = ref.scale(x, 2)
    local all_right = true
    for i, l in ipairs(LAUNCHES) do
      local guess = p[i - 1]
      if not (guess >= 0 and guess <= 100) then
        t:fail(string.format("PREDICT_%s is %g: write a percentage between 0 and 100", l.name, guess))
        return
      end
      local ok, o = t:expect_occupancy(k, { block = l.block, shared = l.shared, arch = "sm_90",
                                            predicted = guess / 100 })
      if ok then
        t:log("launch %s (%d threads, %d B dynamic shared): you said %.2f%%, right: %d blocks, "
              .. "%d of 64 warps, limited by %s", l.name, l.block, l.shared, guess, o.blocks_per_sm,
              o.warps_per_sm, o.limiter)
      end
      all_right = all_right and ok

      local y = gpu.array("f32", n, "y")
      local launch = { grid = (n + l.block - 1) // l.block, block = l.block, shared = l.shared,
                       args = { x, y, gpu.i32(n) } }
      k:launch(launch)
      t:expect_equal(y, want, { name = string.format("y (launch %s)", l.name) })
      if on_gpu then
        local here = k:occupancy{ block = l.block, shared = l.shared }
        local ms = k:time(launch)
        t:log("  on this %s: %.1f%% (%s-limited), %.3f ms", dev.name or "GPU", 100 * here.occupancy,
              here.limiter, ms)
      end
    end
    if all_right and not on_gpu then
      t:log("all three right; on a GPU the run also times each launch")
    end
  end,
}
