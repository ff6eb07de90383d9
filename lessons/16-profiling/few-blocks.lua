-- few-blocks: achieved against theoretical occupancy. work's theoretical
-- occupancy is 100% (8 blocks of 256 threads per SM), but a 66-block grid
-- fills half the SMs with one block each. The learner predicts the cause
-- (PREDICT_GAP) and sizes the grid to the GPU (SMs x blocks per SM) in
-- grid_for_the_gpu(). Checks: the values (CPU reference), the prediction,
-- the share of the GPU's warp slots the new grid fills (grid x warps per
-- block against SMs x 64: at least one full wave, so achieved occupancy
-- can reach the theoretical one; the same rule on both backends), and the
-- measured speedup over the 66-block baseline (timeline durations;
-- modeled on the emulator, where a grid of fewer blocks than SMs issues
-- from fewer SMs). The verdict is those checks alone. After it (t:program's
-- after =; never when grading), on a GPU with Nsight Compute the program
-- runs again under ncu and achieved occupancy (sm__warps_active...) of both
-- grids is logged, saying plainly when ncu disagrees with the verdict (the
-- new grid should bring it to half the theoretical one and twice the
-- baseline's).

local function short(name) return (name or ""):match("^([%w_]+)") or name end

-- Nsight Compute's names for the two occupancies (percent of the SM's warp slots)
local ACHIEVED = "sm__warps_active.avg.pct_of_peak_sustained_active"
local THEORETICAL = "sm__maximum_warps_per_active_cycle_pct"

return {
  id = "few-blocks",
  kind = "program",
  title = "Achieved vs theoretical occupancy: a grid too small",
  title_zh = "实际占用率与理论占用率：网格太小",
  source = "few-blocks.cu",
  solution = "solutions/few-blocks.cu",
  wrong = {
    "solutions/wrong/few-blocks-one-per-sm.cu",
    "solutions/wrong/few-blocks-predicts-registers.cu",
  },
  timeout = 120,
  hints = {
    "Theoretical occupancy is per SM and assumes the SM has blocks to run. Count: how many SMs "
      .. "does the GPU have, how many blocks does the grid give them, and how many could each hold?",
    "Set PREDICT_GAP to \"few-blocks\"; in grid_for_the_gpu: cudaDeviceProp prop; "
      .. "cudaGetDeviceProperties(&prop, 0); int per_sm; cudaOccupancyMaxActiveBlocksPerMultiprocessor("
      .. "&per_sm, work, BLOCK, 0); return prop.multiProcessorCount * per_sm; (with cudaCheck).",
  },
  hints_zh = {
    "理论占用率是按单个 SM 算的，并且假定 SM 上有线程块可跑。数一数：GPU 有多少个 SM，网格给了它们多少个"
      .. "线程块，每个 SM 又能容纳多少个？",
    "把 PREDICT_GAP 设为 \"few-blocks\"；在 grid_for_the_gpu 里：cudaDeviceProp prop; "
      .. "cudaGetDeviceProperties(&prop, 0); int per_sm; cudaOccupancyMaxActiveBlocksPerMultiprocessor("
      .. "&per_sm, work, BLOCK, 0); return prop.multiProcessorCount * per_sm;（都用 cudaCheck 包起来）。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "loop bound < to <=", line = "acc = fmaf(acc, 0.5f, half);",
      why = "every step leaves the value where it was (x/2 + x/2 is exact): one more step changes only the time the kernel takes" },
  },
  run = function(t)
    local dev = t:device()
    local on_gpu = dev.backend == "cuda"
    local unit = on_gpu and "" or " (modeled)"
    -- the emulator's size: 3 * 2^18 models the same 1.6x as 2^20 (2^19: 1.5x) in ~60% of the
    -- emulation (save->verdict 427-530 ms at 2^20 on a 2-core machine, over its 500 ms goal)
    local n = t:param("n", on_gpu and (1 << 24) or (3 << 18))
    local speedup = t:param("speedup", 1.5)
    -- what the verdict found, for what ncu says after it (nil: not reached)
    local base_blocks, my_blocks, fast
    -- After the verdict (Nsight Compute's own start is ~2 s on the H200, and a class's grading
    -- runs none: one profiled process per GPU at a time), a second run under ncu measures achieved
    -- occupancy. On the emulator, or without ncu, prof.available is false.
    local function after(prof)
      if not prof.available then
        if on_gpu then t:log("ncu did not run (%s): achieved occupancy was not measured", prof.reason) end
        return
      end
      local runs = {}
      for _, k in ipairs(prof.kernels) do if k.name == "work" then runs[#runs + 1] = k end end
      local a0 = runs[1] and runs[1].metrics[ACHIEVED]
      local a1, th = runs[#runs] and runs[#runs].metrics[ACHIEVED], runs[#runs] and runs[#runs].metrics[THEORETICAL]
      if #runs < 2 or type(a0) ~= "number" or type(a1) ~= "number" or type(th) ~= "number" then
        t:log("ncu ran but did not report both launches of work")
        return
      end
      local ok = a1 >= 0.5 * th and a1 >= 2 * a0
      t:log("ncu: achieved occupancy %.1f%% with the baseline's %s blocks, %.1f%% with your %s (theoretical "
        .. "%.0f%%)%s", a0, base_blocks or "?", a1, my_blocks or "?", th,
        ok and fast == false and ": ncu sees the GPU filled, but the timeline's speedup fell short (the "
          .. "verdict's check)"
        or not ok and fast and ": ncu disagrees with the verdict: achieved occupancy should reach half the "
          .. "theoretical one and twice the baseline's; give every SM as many blocks as it can hold"
        or not ok and ": your grid should bring achieved occupancy to at least half the theoretical one and "
          .. "twice the baseline's; give every SM as many blocks as it can hold"
        or "")
    end
    local r = t:program{ defines = { N = n }, profile = "ncu", after = after }
    if on_gpu and t:grading() then
      t:log("graded without Nsight Compute (one profiled process per GPU at a time): the checks use the "
        .. "launch records and the timeline")
    end
    if not hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) }) then return end
    local predicted = r.stdout:match("PREDICT: gap=([^\n]*)")
    if not predicted or predicted == "?" then
      t:fail("PREDICT_GAP is not set: why does work hold far fewer warps than its theoretical "
        .. "occupancy allows? \"registers\", \"shared\" or \"few-blocks\"")
      return
    end
    local launches = {}
    for _, k in ipairs(r.kernels) do if short(k.name) == "work" then launches[#launches + 1] = k end end
    if #launches < 2 then t:fail("the program should launch work twice: the baseline, then your grid") return end
    local base, mine = launches[1], launches[#launches]
    base_blocks = base.grid[1] * base.grid[2] * base.grid[3]
    local sms = dev.sm_count or 132
    local wpb = math.ceil(mine.block[1] * mine.block[2] * mine.block[3] / 32)
    local blocks = mine.grid[1] * mine.grid[2] * mine.grid[3]
    my_blocks = blocks
    local fill = math.min(1, blocks * wpb / (sms * 64))
    if predicted ~= "few-blocks" then
      t:fail(string.format("you predicted %s, but work's registers and shared memory allow 8 blocks "
        .. "per SM (100%% theoretical): the baseline's %d blocks give %d SMs one block each and leave "
        .. "%d empty, so the GPU holds %.1f%% of the warps it could", predicted, base.grid[1],
        math.min(base.grid[1], sms), math.max(sms - base.grid[1], 0), 100 * base.grid[1] * wpb / (sms * 64)))
      return
    end
    if fill < 1 then
      t:fail(string.format("your grid of %d blocks of %d warps fills %.1f%% of the %d SMs' warp slots "
        .. "(%d x 64): achieved occupancy cannot get near the theoretical one. Give every SM as many "
        .. "blocks as it can hold: SMs x blocks per SM", blocks, wpb, 100 * fill, sms, sms))
      return
    end
    local d0, d1
    for _, e in ipairs(t:timeline().events) do
      if e.kind == "kernel" and short(e.name) == "work" then
        if not d0 then d0 = e.dur_us end
        d1 = e.dur_us
      end
    end
    fast = d0 ~= nil and d1 ~= nil and d0 >= speedup * d1
    t:expect(fast, string.format("work took %.1f us%s with %d blocks, %.1f us "
      .. "with %d: %.1fx (at least %gx wanted)", d0 or 0, unit, base.grid[1], d1 or 0, blocks,
      (d0 or 0) / math.max(d1 or 1, 1e-9), speedup))
  end,
}
