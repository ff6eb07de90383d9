return {
  id = "ex", title = "Kernels", source = "ex.cu", hints = { "a", "b" }, timeout = 5,
  run = function(t)
    local n = t:param("n", 200)
    local x = gpu.array("i32", n):iota(0, 1)
    local k = t:kernel("add_one")
    k:launch{ grid = (n + 63) // 64, block = 64, args = { x, gpu.i32(n) } }
    t:expect_equal(x, ref.add(gpu.array("i32", n):iota(0, 1), gpu.array("i32", n):fill(1)))
    local f = gpu.array("f32", 64):fill(1)
    t:kernel("racy"):launch{ grid = 1, block = 64, args = { f, gpu.i32(64) } }
    t:kernel("say"):launch{ grid = 1, block = 4, args = { gpu.i32(2) } }
    local ax = t:kernel("axpy", { fast_math = true, defines = { N = 4 } })
    local y = gpu.array("f32", n)
    local ms = ax:time{ grid = 2, block = 32, args = { gpu.f32(2), gpu.array("f32", n):fill(1), y, gpu.i32(n) }, reps = 2 }
    local occ = k:occupancy{ block = 256 }
    t:expect_occupancy(k, { block = 128, min = 0.1 })
    local m = t:emu_metrics()
    t:log("ms %s, occupancy %s, registers %s", tostring(ms), tostring(occ and occ.occupancy), tostring(k.registers))
    t:stretch(m ~= nil, "metrics")
    local d = t:device()
    t:expect(d.backend == "emu", "backend")
  end,
}
