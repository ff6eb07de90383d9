-- bench/arrays/latency-hiding.lua: latency-hiding's host work on a GPU
-- (lessons/08-occupancy/latency-hiding.lua, n = 2^26 floats): x made once, y cleared, uploaded,
-- downloaded and sampled for each of five ITEMS rows.
n = n > 0 and n or (1 << 26)
local x = gpu.array("f32", n, "x"):random{ lo = -4, hi = 4, seed = 7 }
local y = gpu.array("f32", n, "y")
if device then x:upload() end
for _ = 1, 5 do
  y:fill(0)
  if device then
    y:upload()
    y:download()
  end
  for i = 0, n - 1, 65537 do assert(y[i] == 0) end
end
