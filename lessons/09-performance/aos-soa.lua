-- aos-soa: kinetic energies from an array of 32-byte particle structures (given
-- kernel) and from a structure of arrays (the learner's). n = 20011 on the
-- emulator, 2^24 + 5 on a GPU (partial last block). Targets: the SoA kernel at
-- <= 4 sectors per request with every fetched byte used (emulator), and at
-- least 1.5x as fast as the AoS kernel (GPU); both are shown side by side.
return {
  id = "aos-soa",
  title = "Array of structures vs structure of arrays",
  title_zh = "结构体数组与数组结构体",
  source = "aos-soa.cu",
  solution = "solutions/aos-soa.cu",
  wrong = {
    "solutions/wrong/aos-soa-still-strided.cu",
    "solutions/wrong/aos-soa-no-guard.cu",
  },
  hints = {
    "In SoA, particle i's vx is vx[i]: the arrays hold one field each, so the index is just i.",
    "int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float v2 = vx[i] * vx[i] + "
      .. "vy[i] * vy[i] + vz[i] * vz[i]; e[i] = 0.5f * mass[i] * v2; }",
  },
  hints_zh = {
    "在 SoA 布局里，粒子 i 的 vx 就是 vx[i]：每个数组只放一个字段，下标就是 i。",
    "int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float v2 = vx[i] * vx[i] + "
      .. "vy[i] * vy[i] + vz[i] * vz[i]; e[i] = 0.5f * mass[i] * v2; }",
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local n = t:param("n", on_gpu and (1 << 24) + 5 or 20011)
    local grid = (n + 255) // 256

    -- The same particles in both layouts (fields: x y z vx vy vz mass charge);
    -- the SoA copy is made on the CPU (emulator) or by the given split_fields kernel (GPU).
    local aos = gpu.array("f32", 8 * n, "particles"):random{ lo = 0.1, hi = 2, seed = 181 }
    local vx, vy = gpu.array("f32", n, "vx"), gpu.array("f32", n, "vy")
    local vz, mass = gpu.array("f32", n, "vz"), gpu.array("f32", n, "mass")
    if on_gpu then
      t:kernel("split_fields"):launch{ grid = grid, block = 256,
                                       args = { aos, vx, vy, vz, mass, gpu.i32(n) } }
    else
      for i = 0, n - 1 do
        vx[i], vy[i], vz[i], mass[i] = aos[8 * i + 3], aos[8 * i + 4], aos[8 * i + 5], aos[8 * i + 6]
      end
    end
    if not on_gpu then
      -- The given split_fields is checked on the emulator too: 1000 particles
      -- (3 blocks and a tail of 232) against the copy made above.
      local m = 1000
      local sx, sy = gpu.array("f32", m, "vx"), gpu.array("f32", m, "vy")
      local sz, sm = gpu.array("f32", m, "vz"), gpu.array("f32", m, "mass")
      t:kernel("split_fields"):launch{ grid = (m + 255) // 256, block = 256,
                                       args = { aos, sx, sy, sz, sm, gpu.i32(m) } }
      local wrong = 0
      for i = 0, m - 1 do
        if sx[i] ~= vx[i] or sy[i] ~= vy[i] or sz[i] ~= vz[i] or sm[i] ~= mass[i] then wrong = wrong + 1 end
      end
      t:expect(wrong == 0, string.format("split_fields (given) copies %d of %d particles wrong", wrong, m))
    end

    local e_aos = gpu.array("f32", n, "e_aos")
    local e_soa = gpu.array("f32", n, "e")
    local ka, ks = t:kernel("energy_aos"), t:kernel("energy_soa")
    local la = { grid = grid, block = 256, args = { aos, e_aos, gpu.i32(n) } }
    local ls = { grid = grid, block = 256, args = { vx, vy, vz, mass, e_soa, gpu.i32(n) } }
    ka:launch(la)
    local ma = t:emu_metrics()
    ks:launch(ls)
    local ms_ = t:emu_metrics()
    -- The CPU reference: every particle on the emulator, a sample on a GPU.
    local step = on_gpu and 997 or 1
    local bad, first = 0, nil
    for i = 0, n - 1, step do
      local w = 0.5 * aos[8 * i + 6] * (aos[8 * i + 3] ^ 2 + aos[8 * i + 4] ^ 2 + aos[8 * i + 5] ^ 2)
      if not (math.abs(e_soa[i] - w) <= 1e-5 * math.abs(w) + 1e-6) then
        bad = bad + 1
        first = first or i
      end
    end
    if bad > 0 then
      local w = 0.5 * aos[8 * first + 6] * (aos[8 * first + 3] ^ 2 + aos[8 * first + 4] ^ 2
        + aos[8 * first + 5] ^ 2)
      t:fail(string.format("e: %d of %d checked energies wrong; first e[%d]: got %.7g, want %.7g",
        bad, (n + step - 1) // step, first, e_soa[first], w))
      return
    end
    t:expect(true, string.format("e: %d checked energies match the CPU", (n + step - 1) // step))
    if not t:expect_close(e_soa, e_aos, { rel = 1e-6, abs = 1e-7, name = "e (same as the AoS kernel)" }) then
      return
    end

    if ms_ then
      local function show(name, m)
        local spr = m.global_sectors / math.max(1, m.global_requests)
        local eff = m.global_ideal_sectors / math.max(1, m.global_sectors)
        t:log("%s: %.1f sectors per request, %.0f%% of the fetched bytes used", name, spr, 100 * eff)
        return spr, eff
      end
      show("AoS", ma)
      local spr, eff = show("SoA", ms_)
      t:expect(spr <= 4.0 and eff >= 0.99, string.format("energy_soa: %.1f sectors per request, "
        .. "%.0f%% of fetched bytes used; the target is at most 4 and 100%%: thread i reads "
        .. "element i of each array", spr, 100 * eff))
    else
      local t_aos, t_soa = ka:time(la), ks:time(ls)
      if t_aos and t_soa then
        local gbs, fraction = t:report_bandwidth{ bytes = 5 * 4 * n, ms = t_soa }
        t:log("AoS: %.3f ms (moves 32 + 4 bytes per particle); SoA: %.3f ms (16 + 4 bytes), "
              .. "%.0f GB/s = %.0f%% of the copy bandwidth; SoA is %.2fx as fast (target: 1.5x)",
              t_aos, t_soa, gbs, 100 * (fraction or 0), t_aos / t_soa)
        t:metric("speedup_soa_vs_aos", t_aos / t_soa, "x")
        t:expect(t_aos / t_soa >= 1.5, string.format("SoA is %.2fx as fast as AoS; the target is "
          .. "1.5x", t_aos / t_soa))
      end
    end
  end,
}
