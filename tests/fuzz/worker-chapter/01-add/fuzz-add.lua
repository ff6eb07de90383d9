return {
  id = "fuzz-add",
  title = "Add one",
  source = "fuzz-add.cu",
  hints = { "one", "two" },
  run = function(t)
    local n = t:param("n", 64)
    local x = gpu.array("i32", n):iota(0, 1)
    t:kernel("add_one"):launch{ grid = (n + 63) // 64, block = 64, args = { x, gpu.i32(n) } }
    t:log("n = " .. n)
    t:expect(x[1] == 1, "x[1] is 1")
  end,
}
