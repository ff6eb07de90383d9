-- volume-3d: a 3-D launch over a 45 x 19 x 11 volume (no side a multiple of
-- the 8 x 8 x 4 block) that reverses the order of the axes, so every one of
-- x, y and z must be computed, guarded and placed right.
return {
  id = "volume-3d",
  title = "A 3-D grid: reverse the axes of a volume",
  title_zh = "三维网格：翻转体数据的各个轴",
  source = "volume-3d.cu",
  solution = "solutions/volume-3d.cu",
  wrong = {
    "solutions/wrong/volume-3d-no-z-guard.cu",
    "solutions/wrong/volume-3d-wrong-stride.cu",
  },
  hints = {
    "z comes from the .z parts, just as x and y do: blockIdx.z * blockDim.z + threadIdx.z. "
      .. "The grid is rounded up in every direction, so each of x, y and z needs a guard.",
    "if (x >= nx || y >= ny || z >= nz) return; then out[(x * ny + y) * nz + z] = "
      .. "in[(z * ny + y) * nx + x]; (read each formula as [slowest][middle][fastest]).",
  },
  hints_zh = {
    "z 来自 .z 分量，和 x、y 一样：blockIdx.z * blockDim.z + threadIdx.z。网格在每个方向上都向上取整，所以 x、y、z 都需要检查。",
    "if (x >= nx || y >= ny || z >= nz) return; 然后 out[(x * ny + y) * nz + z] = in[(z * ny + y) * nx + x];（把每个公式读作 [最慢][中间][最快]）。",
  },
  run = function(t)
    local nx = t:param("nx", 45)
    local ny = t:param("ny", 19)
    local nz = t:param("nz", 11)
    local b = { 8, 8, 4 }

    -- On a GPU out gets a guard zone with a sentinel (no bounds checks there).
    local guard = 0
    if t:device().backend ~= "emu" then guard = 4096 end
    local SENTINEL = -555.0

    local vin = gpu.array("f32", nx * ny * nz + guard, "in"):random{ lo = -10, hi = 10, seed = 5 }
    local out = gpu.array("f32", nx * ny * nz + guard, "out")
    for i = nx * ny * nz, nx * ny * nz + guard - 1 do out[i] = SENTINEL end

    local grid = { (nx + b[1] - 1) // b[1], (ny + b[2] - 1) // b[2], (nz + b[3] - 1) // b[3] }
    t:log("volume %d x %d x %d, blocks of %d x %d x %d, grid of %d x %d x %d blocks",
          nx, ny, nz, b[1], b[2], b[3], grid[1], grid[2], grid[3])
    t:kernel("reverse_axes"):launch{ grid = grid, block = b,
                                     args = { vin, out, gpu.i32(nx), gpu.i32(ny), gpu.i32(nz) } }

    local want = gpu.array("f32", nx * ny * nz + guard, "want")
    for z = 0, nz - 1 do
      for y = 0, ny - 1 do
        for x = 0, nx - 1 do
          want[(x * ny + y) * nz + z] = vin[(z * ny + y) * nx + x]
        end
      end
    end
    for i = nx * ny * nz, nx * ny * nz + guard - 1 do want[i] = SENTINEL end
    t:expect_equal(out, want, { name = "out" })
  end,
}
