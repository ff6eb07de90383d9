-- philox: Philox-4x32-10 in a device function, checked bit for bit against a
-- Lua implementation (64-bit integer arithmetic) on 4099 random counter/key
-- pairs, and against the three known-answer vectors of the Random123
-- reference implementation (counter and key all 0, all 1s, and digits of pi).
-- 4099 threads: the last block is partial.

local MASK = 0xFFFFFFFF
local M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85

-- Lua 5.4 integers are 64-bit: M0 * c0 < 2^64 keeps all the bits we need
-- (the product wraps into the sign bit, but >> and & work on the raw bits).
local function philox(c0, c1, c2, c3, k0, k1)
  for _ = 1, 10 do
    local p0, p1 = M0 * c0, M1 * c2
    c0, c1, c2, c3 = ((p1 >> 32) & MASK) ~ c1 ~ k0, p1 & MASK, ((p0 >> 32) & MASK) ~ c3 ~ k1, p0 & MASK
    k0, k1 = (k0 + W0) & MASK, (k1 + W1) & MASK
  end
  return c0, c1, c2, c3
end

local KAT = {
  { { 0, 0, 0, 0, 0, 0 }, { 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 } },
  { { MASK, MASK, MASK, MASK, MASK, MASK }, { 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd } },
  { { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0 },
    { 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 } },
}

return {
  id = "philox",
  title = "A counter-based RNG: Philox-4x32-10",
  title_zh = "基于计数器的随机数生成器：Philox-4x32-10",
  source = "philox.cu",
  solution = "solutions/philox.cu",
  wrong = {
    "solutions/wrong/philox-halves-swapped.cu",
    "solutions/wrong/philox-key-early.cu",
  },
  hints = {
    "A round: unsigned int hi0 = __umulhi(PHILOX_M0, c.x), lo0 = PHILOX_M0 * c.x; the same "
      .. "with PHILOX_M1 and c.z; then return make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);",
    "Ten rounds: for (int r = 0; r < 10; r++) { c = philox_round(c, k); k.x += PHILOX_W0; "
      .. "k.y += PHILOX_W1; } return c;  The first round uses the key as given.",
  },
  hints_zh = {
    "一轮：unsigned int hi0 = __umulhi(PHILOX_M0, c.x), lo0 = PHILOX_M0 * c.x; 对 PHILOX_M1 和 c.z "
      .. "同样处理；然后 return make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);",
    "十轮：for (int r = 0; r < 10; r++) { c = philox_round(c, k); k.x += PHILOX_W0; "
      .. "k.y += PHILOX_W1; } return c;  第一轮用的就是传进来的密钥本身。",
  },
  run = function(t)
    local m = t:param("m", 4099)
    local input = gpu.array("u32", 6 * m, "in"):random{ lo = 0, hi = MASK, seed = 221 }
    for j, kat in ipairs(KAT) do
      for w = 1, 6 do input[(w - 1) * m + j - 1] = kat[1][w] end
    end
    local out = gpu.array("u32", 4 * m, "out")
    t:kernel("philox_blocks"):launch{ grid = (m + 255) // 256, block = 256,
                                      args = { input, out, gpu.i32(m) } }

    for j, kat in ipairs(KAT) do
      local got = { out[j - 1], out[m + j - 1], out[2 * m + j - 1], out[3 * m + j - 1] }
      local ok = got[1] == kat[2][1] and got[2] == kat[2][2] and got[3] == kat[2][3] and got[4] == kat[2][4]
      local msg = string.format("known-answer vector %d (counter %08x..., key %08x %08x): got "
        .. "%08x %08x %08x %08x, want %08x %08x %08x %08x", j, kat[1][1], kat[1][5], kat[1][6],
        got[1], got[2], got[3], got[4], kat[2][1], kat[2][2], kat[2][3], kat[2][4])
      if not t:expect(ok, msg) then return end
    end

    local want = gpu.array("u32", 4 * m, "want")
    for j = 0, m - 1 do
      local r0, r1, r2, r3 = philox(input[j], input[m + j], input[2 * m + j], input[3 * m + j],
                                    input[4 * m + j], input[5 * m + j])
      want[j], want[m + j], want[2 * m + j], want[3 * m + j] = r0, r1, r2, r3
    end
    t:expect_equal(out, want, { name = "out" })
  end,
}
