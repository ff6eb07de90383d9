-- bench/arrays/scan-array.lua: scan-array's host work on a GPU (lessons/10-warp-level/scan-array.lua,
-- n = 2^28 ints): the input made, the reference, the output through the device and checked, cleared.
n = n > 0 and n or (1 << 28)
local x = gpu.array("i32", n, "in"):random{ lo = -50, hi = 50, seed = 111 }
local want = ref.scan(x)
local out = gpu.array("i32", n, "out")
if device then
  x:upload()
  out:upload()
  out:download()
end
for i = 0, n - 1, 65537 do assert(out[i] == 0) end
out:fill(0)
