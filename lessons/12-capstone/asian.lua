-- asian: Monte Carlo price of an arithmetic-average Asian call (S0 = K = 100,
-- r = 5%, sigma = 20%, T = 1 year), monitored at STEPS dates: 32 on the
-- emulator (4085 paths, every block checked against the CPU: a partial last
-- block, and path 4085, one past the end, ends in the money, so a guard that
-- lets it through shows), 252 (trading days) on a GPU (2^22 paths, the first
-- 8 blocks checked, speed-up reported).
-- No closed form exists for the arithmetic average, but two bound it: the
-- geometric-average Asian call (closed form; AM >= GM on every path) from
-- below and the European call (Black-Scholes) from above. The price must lie
-- between them, within 4 standard errors.

local MASK = 0xFFFFFFFF
local M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85

-- Philox-4x32-10 in Lua 5.4 (64-bit integers; see the philox exercise).
local function philox(c0, c1, c2, c3, k0, k1)
  for _ = 1, 10 do
    local p0, p1 = M0 * c0, M1 * c2
    c0, c1, c2, c3 = ((p1 >> 32) & MASK) ~ c1 ~ k0, p1 & MASK, ((p0 >> 32) & MASK) ~ c3 ~ k1, p0 & MASK
    k0, k1 = (k0 + W0) & MASK, (k1 + W1) & MASK
  end
  return c0, c1, c2, c3
end

local function uniform01(x) return ((x >> 9) + 0.5) / 8388608.0 end

local function box_muller(u1, u2)
  local radius = math.sqrt(-2.0 * math.log(u1))
  local angle = 6.2831853 * u2
  return radius * math.cos(angle), radius * math.sin(angle)
end

-- The standard normal CDF (Abramowitz & Stegun 26.2.17, error < 7.5e-8).
local function norm_cdf(x)
  local a = math.abs(x)
  local k = 1.0 / (1.0 + 0.2316419 * a)
  local poly = k * (0.319381530 + k * (-0.356563782 + k * (1.781477937
    + k * (-1.821255978 + k * 1.330274429))))
  local tail = math.exp(-0.5 * a * a) / math.sqrt(2 * math.pi) * poly
  return x >= 0 and 1.0 - tail or tail
end

-- Black-Scholes price of a European call.
local function black_scholes_call(s0, k, r, sigma, t)
  local d1 = (math.log(s0 / k) + (r + 0.5 * sigma * sigma) * t) / (sigma * math.sqrt(t))
  local d2 = d1 - sigma * math.sqrt(t)
  return s0 * norm_cdf(d1) - k * math.exp(-r * t) * norm_cdf(d2)
end

-- Closed form of the geometric-average Asian call, discrete monitoring at
-- t_j = j T / m: ln G is normal with the mean and variance below.
local function geometric_asian_call(s0, k, r, sigma, t, m)
  local mu = math.log(s0) + (r - 0.5 * sigma * sigma) * t * (m + 1) / (2 * m)
  local v = sigma * sigma * t * (m + 1) * (2 * m + 1) / (6 * m * m)
  local d1 = (mu - math.log(k) + v) / math.sqrt(v)
  local d2 = d1 - math.sqrt(v)
  return math.exp(-r * t) * (math.exp(mu + 0.5 * v) * norm_cdf(d1) - k * norm_cdf(d2))
end

return {
  id = "asian",
  title = "An exotic option: the Asian call",
  title_zh = "奇异期权：亚式看涨期权",
  source = "asian.cu",
  solution = "solutions/asian.cu",
  wrong = {
    "solutions/wrong/asian-same-counter.cu",
    "solutions/wrong/asian-average-with-s0.cu",
  },
  timeout = 60,
  hints = {
    "for (int j = 0; j < STEPS / 4; j++) { uint4 r = philox4x32_10(make_uint4(i, j, 0, 0), "
      .. "make_uint2(key0, key1)); float2 a = box_muller(uniform01(r.x), uniform01(r.y)); "
      .. "float2 b = box_muller(uniform01(r.z), uniform01(r.w)); ... }",
    "Each of the four steps: s *= expf(drift + vol * a.x); total += s; (then a.y, b.x, b.y). "
      .. "After the loop: payoff = fmaxf(total / STEPS - strike, 0.0f);",
  },
  hints_zh = {
    "for (int j = 0; j < STEPS / 4; j++) { uint4 r = philox4x32_10(make_uint4(i, j, 0, 0), "
      .. "make_uint2(key0, key1)); float2 a = box_muller(uniform01(r.x), uniform01(r.y)); "
      .. "float2 b = box_muller(uniform01(r.z), uniform01(r.w)); ... }",
    "四步中的每一步：s *= expf(drift + vol * a.x); total += s;（接着是 a.y、b.x、b.y）。"
      .. "循环结束后：payoff = fmaxf(total / STEPS - strike, 0.0f);",
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local S0, K, R, SIGMA, T = 100.0, 100.0, 0.05, 0.2, 1.0
    local key0, key1 = 0x5851F42D, 0x14057B7E
    local steps = on_gpu and 252 or 32
    local block = 256
    local paths = t:param("paths", on_gpu and (1 << 22) or 4085)
    local blocks = (paths + block - 1) // block
    local sum = gpu.array("f32", blocks, "block_sum")
    local sumsq = gpu.array("f32", blocks, "block_sumsq")
    local k = t:kernel("asian_call", { defines = { STEPS = steps } })
    local launch = { grid = blocks, block = block,
                     args = { gpu.f32(S0), gpu.f32(K), gpu.f32(R), gpu.f32(SIGMA), gpu.f32(T),
                              gpu.u32(key0), gpu.u32(key1), gpu.i32(paths), sum, sumsq } }
    k:launch(launch)

    -- The CPU reference for the first blocks: the same normals, in double.
    local cpu_blocks = math.min(blocks, on_gpu and 8 or 16)
    local cpu_paths = math.min(paths, cpu_blocks * block)
    local dt = T / steps
    local drift, vol = (R - 0.5 * SIGMA * SIGMA) * dt, SIGMA * math.sqrt(dt)
    local want_s, want_q = {}, {}
    local t0 = os.clock()
    for b = 0, cpu_blocks - 1 do
      local bs, bq = 0.0, 0.0
      for i = b * block, math.min((b + 1) * block, paths) - 1 do
        local s, total = S0, 0.0
        for j = 0, steps // 4 - 1 do
          local r0, r1, r2, r3 = philox(i, j, 0, 0, key0, key1)
          local z1, z2 = box_muller(uniform01(r0), uniform01(r1))
          local z3, z4 = box_muller(uniform01(r2), uniform01(r3))
          s = s * math.exp(drift + vol * z1); total = total + s
          s = s * math.exp(drift + vol * z2); total = total + s
          s = s * math.exp(drift + vol * z3); total = total + s
          s = s * math.exp(drift + vol * z4); total = total + s
        end
        local payoff = math.max(total / steps - K, 0.0)
        bs, bq = bs + payoff, bq + payoff * payoff
      end
      want_s[b], want_q[b] = bs, bq
    end
    local cpu_seconds = os.clock() - t0

    for b = 0, cpu_blocks - 1 do
      local ok_s = math.abs(sum[b] - want_s[b]) <= 5e-4 * want_s[b] + 0.05
      local ok_q = math.abs(sumsq[b] - want_q[b]) <= 1e-3 * want_q[b] + 0.5
      if not (ok_s and ok_q) then
        t:fail(string.format("block %d: sum of payoffs %.6g (CPU %.6g), sum of squares %.6g "
          .. "(CPU %.6g)", b, sum[b], want_s[b], sumsq[b], want_q[b]))
        return
      end
    end
    t:expect(true, string.format("the first %d blocks (%d paths, %d steps each) match the CPU "
      .. "reference", cpu_blocks, cpu_paths, steps))

    local disc = math.exp(-R * T)
    local mean = ref.sum(sum) / paths
    local var = math.max(ref.sum(sumsq) / paths - mean * mean, 0.0)
    local price, se = disc * mean, disc * math.sqrt(var / paths)
    local geo = geometric_asian_call(S0, K, R, SIGMA, T, steps)
    local euro = black_scholes_call(S0, K, R, SIGMA, T)
    t:log("%d paths, %d dates: Asian call %.4f +- %.4f; bounds: geometric Asian %.4f "
          .. "(closed form) <= price <= European %.4f (Black-Scholes)", paths, steps, price, se,
          geo, euro)
    t:metric("price", price)
    t:metric("standard_error", se)
    local inside = price >= geo - 4 * se and price <= euro + 4 * se
    t:expect(inside, string.format("the price %.4f (+- %.4f) %s between the geometric Asian "
      .. "%.4f and the European %.4f (within 4 standard errors)", price, se,
      inside and "lies" or "does not lie", geo, euro))

    local ms = k:time(launch)
    if ms then
      local cpu_ms = 1000 * cpu_seconds / cpu_paths * paths
      t:log("GPU: %.3f ms for %d paths of %d steps; the CPU reference: %.1f us per path (Lua, "
            .. "one core, measured on %d paths) -> %.0f ms: speed-up %.0fx", ms, paths, steps,
            1e6 * cpu_seconds / cpu_paths, cpu_paths, cpu_ms, cpu_ms / ms)
      t:metric("speedup_vs_cpu", cpu_ms / ms, "x")
    else
      t:log("the CPU reference took %.1f us per path (Lua, one core); run on a GPU for the "
            .. "speed-up", 1e6 * cpu_seconds / cpu_paths)
    end
  end,
}
