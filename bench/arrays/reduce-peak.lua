-- bench/arrays/reduce-peak.lua: reduce-peak's host work on a GPU (lessons/11-roofline/reduce-peak.lua,
-- 2^29 floats): the big input made, its CPU sum, uploaded once.
n = n > 0 and n or (1 << 29)
local ints = gpu.array("i32", 1000003, "ints"):random{ lo = 1, hi = 8, seed = 161 }
local x = ref.cast(ints, "f32"):named("x")
assert(ref.sum(ints) > 0 and #x == #ints)
local xb = gpu.array("f32", n, "x"):random{ lo = 0, hi = 1, seed = 162 }
assert(ref.sum(xb) > 0)
if device then xb:upload() end
