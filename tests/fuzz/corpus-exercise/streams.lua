return {
  id = "ex", title = "Streams", source = "ex.cu", hints = { "a", "b" },
  run = function(t)
    local n = 128
    local s1, s2 = gpu.stream{ name = "s1" }, gpu.stream{ priority = -1, name = "s2" }
    local a = gpu.array("i32", n, { pinned = true }):fill(3)
    local b = gpu.array("i32", n):fill(4)
    a:upload{ stream = s1 }
    local k = t:kernel("add_one")
    k:launch{ grid = 2, block = 64, args = { a, gpu.i32(n) }, stream = s1 }
    local e0 = s1:record()
    b:memset(0, { stream = s2 })
    k:launch{ grid = 2, block = 64, args = { b, gpu.i32(n) }, stream = s2 }
    local e1 = s2:record(t:event())
    a:download{ stream = s1 }
    s1:synchronize()
    t:synchronize()
    local ms = t:elapsed_ms(e0, e1)
    t:expect_overlap(s1, s2, "overlap")
    t:expect_no_default_stream_work()
    t:expect(#t:timeline() >= 0, "timeline")
    t:expect(a[0] == 4 and b[0] == 1, "values")
    t:log("elapsed %s", tostring(ms))
  end,
}
