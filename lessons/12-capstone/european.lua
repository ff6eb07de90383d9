-- european: Monte Carlo price of a European call (S0 = 100, K = 105, r = 5%,
-- sigma = 20%, T = 1 year), one path per thread, per-block sums of the payoffs
-- and their squares. Emulator: 16378 paths (2^14 - 6: a partial last
-- block, and path 16378, one past the end, ends in the money, so a guard
-- that lets it through changes the last block's sums), every block checked against the CPU reference (the same Philox
-- numbers, in Lua, in double precision). GPU: 2^24 paths, the first 64
-- blocks checked, and the speed-up over the CPU reference is reported (its
-- time per path measured on those 16384 paths).
-- The price must lie within 4 standard errors of the Black-Scholes formula.

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

return {
  id = "european",
  title = "Price a European option by Monte Carlo",
  title_zh = "用蒙特卡洛方法为欧式期权定价",
  source = "european.cu",
  solution = "solutions/european.cu",
  wrong = {
    "solutions/wrong/european-no-ito.cu",
    "solutions/wrong/european-no-sync.cu",
  },
  timeout = 60,
  hints = {
    "float drift = (rate - 0.5f * sigma * sigma) * maturity; float st = s0 * expf(drift + "
      .. "sigma * sqrtf(maturity) * z); payoff = fmaxf(st - strike, 0.0f);",
    "Two sums at once: float s = warp_sum(payoff), q = warp_sum(payoff * payoff); lane 0 "
      .. "stores them in sums[warp] and sumsqs[warp]; __syncthreads();",
    "if (warp == 0) { s = warp_sum(lane < blockDim.x / 32 ? sums[lane] : 0.0f); the same for "
      .. "q; if (lane == 0) { block_sum[blockIdx.x] = s; block_sumsq[blockIdx.x] = q; } }",
  },
  hints_zh = {
    "float drift = (rate - 0.5f * sigma * sigma) * maturity; float st = s0 * expf(drift + "
      .. "sigma * sqrtf(maturity) * z); payoff = fmaxf(st - strike, 0.0f);",
    "一次求两个和：float s = warp_sum(payoff), q = warp_sum(payoff * payoff); lane 0 把它们存进 "
      .. "sums[warp] 和 sumsqs[warp]；__syncthreads();",
    "if (warp == 0) { s = warp_sum(lane < blockDim.x / 32 ? sums[lane] : 0.0f); q 也一样；"
      .. "if (lane == 0) { block_sum[blockIdx.x] = s; block_sumsq[blockIdx.x] = q; } }",
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local S0, K, R, SIGMA, T = 100.0, 105.0, 0.05, 0.2, 1.0
    local key0, key1 = 0x2545F491, 0x4F6CDD1D
    local block = 256
    local paths = t:param("paths", on_gpu and (1 << 24) or (1 << 14) - 6)
    local blocks = (paths + block - 1) // block
    local sum = gpu.array("f32", blocks, "block_sum")
    local sumsq = gpu.array("f32", blocks, "block_sumsq")
    local k = t:kernel("european_call")
    local launch = { grid = blocks, block = block,
                     args = { gpu.f32(S0), gpu.f32(K), gpu.f32(R), gpu.f32(SIGMA), gpu.f32(T),
                              gpu.u32(key0), gpu.u32(key1), gpu.i32(paths), sum, sumsq } }
    k:launch(launch)

    -- The CPU reference for the first blocks: the same random numbers, in double.
    local cpu_blocks = math.min(blocks, 64)
    local cpu_paths = math.min(paths, cpu_blocks * block)
    local drift = (R - 0.5 * SIGMA * SIGMA) * T
    local vol = SIGMA * math.sqrt(T)
    local want_s, want_q = {}, {}
    local t0 = os.clock()
    for b = 0, cpu_blocks - 1 do
      local s, q = 0.0, 0.0
      for i = b * block, math.min((b + 1) * block, paths) - 1 do
        local r0, r1 = philox(i, 0, 0, 0, key0, key1)
        local z = box_muller(uniform01(r0), uniform01(r1))
        local payoff = math.max(S0 * math.exp(drift + vol * z) - K, 0.0)
        s, q = s + payoff, q + payoff * payoff
      end
      want_s[b], want_q[b] = s, q
    end
    local cpu_seconds = os.clock() - t0

    for b = 0, cpu_blocks - 1 do
      local ok_s = math.abs(sum[b] - want_s[b]) <= 1e-4 * want_s[b] + 1e-3
      local ok_q = math.abs(sumsq[b] - want_q[b]) <= 1e-4 * want_q[b] + 1e-2
      if not (ok_s and ok_q) then
        t:fail(string.format("block %d: sum of payoffs %.6g (CPU %.6g), sum of squares %.6g "
          .. "(CPU %.6g)", b, sum[b], want_s[b], sumsq[b], want_q[b]))
        return
      end
    end
    t:expect(true, string.format("the first %d blocks (%d paths) match the CPU reference",
      cpu_blocks, cpu_paths))

    local disc = math.exp(-R * T)
    local mean = ref.sum(sum) / paths
    local var = math.max(ref.sum(sumsq) / paths - mean * mean, 0.0)
    local price, se = disc * mean, disc * math.sqrt(var / paths)
    local bs = black_scholes_call(S0, K, R, SIGMA, T)
    t:log("%d paths: price %.4f +- %.4f (one standard error); Black-Scholes: %.4f "
          .. "(%.1f standard errors away)", paths, price, se, bs, math.abs(price - bs) / se)
    t:metric("price", price)
    t:metric("standard_error", se)
    t:expect(math.abs(price - bs) <= 4 * se, string.format("the Monte Carlo price %.4f is "
      .. "%.1f standard errors from the Black-Scholes price %.4f; it should be within 4",
      price, math.abs(price - bs) / se, bs))

    local ms = k:time(launch)
    if ms then
      local cpu_ms = 1000 * cpu_seconds / cpu_paths * paths
      t:log("GPU: %.3f ms for %d paths (%.2f ns per path); the CPU reference: %.0f ns per path "
            .. "(Lua, one core, measured on %d paths) -> %.0f ms: speed-up %.0fx", ms, paths,
            1e6 * ms / paths, 1e9 * cpu_seconds / cpu_paths, cpu_paths, cpu_ms, cpu_ms / ms)
      t:metric("speedup_vs_cpu", cpu_ms / ms, "x")
    else
      t:log("the CPU reference took %.0f ns per path (Lua, one core); run on a GPU for the "
            .. "speed-up", 1e9 * cpu_seconds / cpu_paths)
    end
  end,
}
