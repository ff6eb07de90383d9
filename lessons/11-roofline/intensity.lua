-- intensity: arithmetic intensity and the roofline with one kernel whose
-- intensity is a compile-time knob (Horner's rule of degree D: 2D flops per
-- 8 bytes). Checks the learner's flops and bytes per element, then the values
-- (n = 4099 on the emulator for D = 1, 16, 200; a sample of 2^26 on a GPU).
-- On a GPU: a roofline table for D = 1 .. 1024 and the target that D = 1 (a
-- SAXPY-like, memory-bound kernel) reaches 75% of the copy bandwidth.
return {
  id = "intensity",
  title = "Arithmetic intensity: memory-bound or compute-bound?",
  title_zh = "算术强度：受限于内存还是受限于计算？",
  source = "intensity.cu",
  solution = "solutions/intensity.cu",
  wrong = {
    "solutions/wrong/intensity-bytes-read-only.cu",
    "solutions/wrong/intensity-one-flop.cu",
  },
  timeout = 60,
  hints = {
    "Per element the kernel reads one float (x[i]) and writes one float (y[i]); every step "
      .. "of the loop is one multiply and one add.",
    "#define FLOPS_PER_ELEMENT (2 * DEGREE) and #define BYTES_PER_ELEMENT 8; the loop is "
      .. "for (int k = 0; k < DEGREE; k++) p = p * v + 0.5f; and then y[i] = p;",
  },
  hints_zh = {
    "每个元素，核函数读一个 float（x[i]），写一个 float（y[i]）；循环的每一步是一次乘法加一次加法。",
    "#define FLOPS_PER_ELEMENT (2 * DEGREE) 和 #define BYTES_PER_ELEMENT 8；循环是 "
      .. "for (int k = 0; k < DEGREE; k++) p = p * v + 0.5f; 最后 y[i] = p;",
  },
  run = function(t)
    local dev = t:device()
    local on_gpu = dev.backend ~= "emu"
    local n = t:param("n", on_gpu and (1 << 26) or 4099)
    local block = 256
    local blocks = on_gpu and (dev.sm_count or 100) * 16 or 8
    local x = gpu.array("f32", n, "x"):random{ lo = -0.9, hi = 0.9, seed = 131 }

    -- The learner's numbers, for two degrees (so a constant does not pass).
    for _, d in ipairs{ 4, 7 } do
      local nums = gpu.array("f32", 2, "numbers")
      t:kernel("roofline_numbers", { defines = { DEGREE = d } }):launch{ grid = 1, block = 1, args = { nums } }
      local ok = nums[0] == 2 * d and nums[1] == 8
      if ok then
        t:expect(true, string.format("DEGREE = %d: %g flops and %g bytes per element, an "
          .. "arithmetic intensity of %.2f flop/byte", d, nums[0], nums[1], nums[0] / nums[1]))
      else
        t:fail(string.format("for DEGREE = %d you say %g flops and %g bytes per element; count "
          .. "again: how many multiply-adds, and which floats travel to and from global memory?",
          d, nums[0], nums[1]))
        return
      end
    end

    -- Horner in double on the CPU, for the elements we check.
    local function want_at(i, d)
      local v, p = x[i], 1.0
      for _ = 1, d do p = p * v + 0.5 end
      return p
    end
    local function check_values(y, d)
      local step = on_gpu and (n // 4096) or 1
      local bad, first = 0, nil
      local count = 0
      for i = 0, n - 1, step do
        local w = want_at(i, d)
        count = count + 1
        if not (math.abs(y[i] - w) <= 1e-5 + 1e-5 * math.abs(w)) then
          bad = bad + 1
          first = first or i
        end
      end
      if bad > 0 then
        t:fail(string.format("DEGREE = %d: %d of %d checked elements wrong; first y[%d] = %.7g, "
          .. "want %.7g", d, bad, count, first, y[first], want_at(first, d)))
        return false
      end
      return true
    end

    local degrees = on_gpu and { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024 } or { 1, 16, 200 }
    local rows = {}
    local y = gpu.array("f32", n, "y")
    for _, d in ipairs(degrees) do
      y:fill(0)
      local k = t:kernel("poly", { defines = { DEGREE = d } })
      local launch = { grid = blocks, block = block, args = { x, y, gpu.i32(n) } }
      k:launch(launch)
      if not check_values(y, d) then return end
      t:expect(true, string.format("poly with DEGREE = %d: values match the CPU", d))
      local ms = k:time(launch)
      if ms then rows[#rows + 1] = { d = d, ms = ms } end
    end
    if #rows == 0 then
      t:log("values correct for DEGREE = 1, 16, 200; run on a GPU to see the roofline table")
      return
    end

    -- The roofline table. The highest FLOP rate measured stands in for the peak.
    local peak_flops = 0
    for _, r in ipairs(rows) do
      r.gflops = 2 * r.d * n / (r.ms * 1e6)
      r.gbs = 8 * n / (r.ms * 1e6)
      if r.gflops > peak_flops then peak_flops = r.gflops end
    end
    local gbs1, fraction1 = t:report_bandwidth{ bytes = 8 * n, ms = rows[1].ms }
    local peak_gbs = gbs1 / fraction1
    t:log("degree  flop/byte     ms    GB/s   GFLOP/s  bound")
    for _, r in ipairs(rows) do
      local ai = 2 * r.d / 8
      local bound = (ai * peak_gbs < peak_flops) and "memory" or "compute"
      t:log("%6d  %9.2f  %6.3f  %6.0f  %8.0f  %s", r.d, ai, r.ms, r.gbs, r.gflops, bound)
    end
    t:log("copy bandwidth %.0f GB/s, highest FP32 rate measured %.0f GFLOP/s: ridge point "
          .. "%.1f flop/byte (DEGREE about %.0f)", peak_gbs, peak_flops, peak_flops / peak_gbs,
          4 * peak_flops / peak_gbs)
    t:metric("peak_gflops_measured", peak_flops, "GFLOP/s")
    t:expect(fraction1 >= 0.65, string.format("DEGREE = 1 (memory-bound) reached %.0f%% of the "
      .. "copy bandwidth; the target is 65%%", 100 * fraction1))
  end,
}
