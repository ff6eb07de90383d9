-- aos-to-soa: convert 50003 particles from an array of structures (x, y, z,
-- mass) to four arrays. Correctness on every field, then on the emulator a
-- global-efficiency target that only 16-byte vector loads reach.
return {
  id = "aos-to-soa",
  title = "Structure of arrays and vector loads",
  title_zh = "数组的结构体（SoA）与向量化加载",
  source = "aos-to-soa.cu",
  solution = "solutions/aos-to-soa.cu",
  wrong = {
    "solutions/wrong/aos-to-soa-wrong-stride.cu",
  },
  hints = {
    "CUDA has a built-in 16-byte type, float4, with fields .x .y .z .w. A warp loading "
      .. "one float4 per thread reads 512 consecutive bytes, using every byte it fetches.",
    "float4 q = reinterpret_cast<const float4 *>(p)[i]; then x[i] = q.x; y[i] = q.y; "
      .. "z[i] = q.z; m[i] = q.w; (index the float4 pointer with i, not 4 * i).",
  },
  hints_zh = {
    "CUDA 有内置的 16 字节类型 float4，字段是 .x .y .z .w。一个 warp 每个线程读一个 float4，就是读 512 个连续字节，取来的每个字节都有用。",
    "float4 q = reinterpret_cast<const float4 *>(p)[i]; 然后 x[i] = q.x; y[i] = q.y; z[i] = q.z; m[i] = q.w;（float4 指针的下标是 i，不是 4 * i）。",
  },
  run = function(t)
    local n = t:param("n", 50003)
    local p = gpu.array("f32", 4 * n, "p"):random{ lo = -20, hi = 20, seed = 61 }
    local x = gpu.array("f32", n, "x")
    local y = gpu.array("f32", n, "y")
    local z = gpu.array("f32", n, "z")
    local m = gpu.array("f32", n, "m")
    t:kernel("aos_to_soa"):launch{ grid = (n + 255) // 256, block = 256,
                                   args = { p, x, y, z, m, gpu.i32(n) } }
    local fields = { { x, "x", 0 }, { y, "y", 1 }, { z, "z", 2 }, { m, "m", 3 } }
    for _, f in ipairs(fields) do
      local want = ref.map(f[1], function(_, i) return p[4 * i + f[3]] end, "f32")
      t:expect_equal(f[1], want, { name = f[2] })
    end

    local em = t:emu_metrics()
    if em then
      local eff = em.global_ideal_sectors / math.max(1, em.global_sectors)
      t:log("global efficiency: %.0f%% (sectors needed / sectors touched; target: 95%%)", 100 * eff)
      t:expect(eff >= 0.95, string.format("global efficiency is %.0f%%; the target is 95%%: "
        .. "four float loads 16 bytes apart each use a quarter of the sectors they touch, "
        .. "load the particle as one float4", 100 * eff))
    end
  end,
}
