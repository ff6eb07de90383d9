-- normals: uniforms and Box-Muller normals from Philox bits. n = 100003 normals
-- on the emulator (25001 threads; the last writes 3), 2^24 + 3 on a GPU.
-- Checks: every value (a sample on a GPU) against the same computation in
-- double precision in Lua, then mean and variance within 4 standard errors of
-- 0 and 1.

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

return {
  id = "normals",
  title = "From random bits to normal variates",
  title_zh = "从随机比特到正态分布随机数",
  source = "normals.cu",
  solution = "solutions/normals.cu",
  wrong = {
    "solutions/wrong/normals-no-two-pi.cu",
    "solutions/wrong/normals-half-variance.cu",
  },
  hints = {
    "uniform01: return ((x >> 9) + 0.5f) * (1.0f / 8388608.0f);  8388608 = 2^23.",
    "box_muller: float radius = sqrtf(-2.0f * logf(u1)); float s, c; sincosf(6.2831853f * u2, "
      .. "&s, &c); return make_float2(radius * c, radius * s);",
  },
  hints_zh = {
    "uniform01：return ((x >> 9) + 0.5f) * (1.0f / 8388608.0f);  8388608 = 2^23。",
    "box_muller：float radius = sqrtf(-2.0f * logf(u1)); float s, c; sincosf(6.2831853f * u2, "
      .. "&s, &c); return make_float2(radius * c, radius * s);",
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local n = t:param("n", on_gpu and (1 << 24) + 3 or 100003)
    local key0, key1 = 0x12345678, 0x9abcdef0
    if not on_gpu then
      -- The tail each way it can end (n mod 4 = 0, 1, 2): the emulator reports
      -- a store past the end, or a thread whose first element is n.
      for _, m in ipairs{ 1000, 1001, 1002 } do
        t:kernel("normals"):launch{ grid = ((m + 3) // 4 + 255) // 256, block = 256,
                                    args = { gpu.array("f32", m, "z"), gpu.i32(m), gpu.u32(key0), gpu.u32(key1) } }
      end
    end
    local threads = (n + 3) // 4
    local z = gpu.array("f32", n, "z")
    t:kernel("normals"):launch{ grid = (threads + 255) // 256, block = 256,
                                args = { z, gpu.i32(n), gpu.u32(key0), gpu.u32(key1) } }

    local step = on_gpu and 997 or 1
    local bad, first, firstw, count = 0, nil, nil, 0
    for i = 0, threads - 1, step do
      local r0, r1, r2, r3 = philox(i, 0, 0, 0, key0, key1)
      local a1, a2 = box_muller(uniform01(r0), uniform01(r1))
      local b1, b2 = box_muller(uniform01(r2), uniform01(r3))
      local w = { a1, a2, b1, b2 }
      for q = 0, 3 do
        local e = 4 * i + q
        if e < n then
          count = count + 1
          if not (math.abs(z[e] - w[q + 1]) <= 2e-5 + 2e-5 * math.abs(w[q + 1])) then
            bad = bad + 1
            first, firstw = first or e, firstw or w[q + 1]
          end
        end
      end
    end
    if bad > 0 then
      t:fail(string.format("z: %d of %d checked values wrong; first z[%d] = %.7g, want %.7g",
        bad, count, first, z[first], firstw))
      return
    end
    t:expect(true, string.format("z: %d checked values match the CPU", count))

    local mean = ref.sum(z) / n
    local var = ref.dot(z, z) / n - mean * mean
    t:log("mean %.5f (want 0 +- %.5f), variance %.5f (want 1 +- %.5f)", mean, 4 / math.sqrt(n),
          var, 4 * math.sqrt(2 / n))
    t:expect(math.abs(mean) <= 4 / math.sqrt(n) and math.abs(var - 1) <= 4 * math.sqrt(2 / n),
      string.format("the sample has mean %.5f and variance %.5f; a standard normal sample of %d "
        .. "should be within %.4f of 0 and %.4f of 1", mean, var, n, 4 / math.sqrt(n),
        4 * math.sqrt(2 / n)))
  end,
}
