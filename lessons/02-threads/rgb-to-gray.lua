-- rgb-to-gray: the per-pixel map in 2-D. A 333 x 197 image (not square, not a
-- multiple of the 16 x 16 block) catches swapped x/y and a missing guard on
-- either axis. Integer arithmetic, so the check is exact.
return {
  id = "rgb-to-gray",
  title = "A 2-D grid: colour to grey, pixel by pixel",
  title_zh = "二维网格：逐像素把彩色转成灰度",
  source = "rgb-to-gray.cu",
  solution = "solutions/rgb-to-gray.cu",
  wrong = {
    "solutions/wrong/rgb-to-gray-swapped.cu",
    "solutions/wrong/rgb-to-gray-one-guard.cu",
  },
  hints = {
    "A 2-D launch gives each thread two coordinates: x from the .x parts of blockIdx, "
      .. "blockDim and threadIdx, y from the .y parts. Compute them the same way as the "
      .. "1-D global index.",
    "int x = blockIdx.x * blockDim.x + threadIdx.x; int y = blockIdx.y * blockDim.y + "
      .. "threadIdx.y; then if (x >= width || y >= height) return; The image is stored row "
      .. "by row, so pixel (x, y) is at y * width + x (the row times the row length).",
  },
  hints_zh = {
    "二维启动让每个线程有两个坐标：x 由 blockIdx、blockDim、threadIdx 的 .x 分量算出，y 由 .y 分量算出，算法和一维全局索引相同。",
    "int x = blockIdx.x * blockDim.x + threadIdx.x; int y = blockIdx.y * blockDim.y + threadIdx.y; 然后 if (x >= width || y >= height) return; 图像按行存储，所以像素 (x, y) 在 y * width + x（行号乘以行长）。",
  },
  run = function(t)
    local w = t:param("width", 333)
    local h = t:param("height", 197)
    local bx, by = 16, 16

    -- On a GPU (no bounds checks) both images get 16 extra rows below the
    -- bottom; gray's are set to a sentinel that a correct kernel leaves alone.
    local extra = 0
    if t:device().backend ~= "emu" then extra = by end
    local SENTINEL = 171

    local rgb = gpu.array("u8", 3 * w * (h + extra), "rgb"):random{ lo = 0, hi = 255, seed = 7 }
    local gray = gpu.array("u8", { h + extra, w }, "gray")
    for i = w * h, w * (h + extra) - 1 do gray[i] = SENTINEL end

    local grid = { (w + bx - 1) // bx, (h + by - 1) // by }
    t:log("image %d x %d, blocks of %d x %d, grid of %d x %d blocks (%d x %d threads)",
          w, h, bx, by, grid[1], grid[2], grid[1] * bx, grid[2] * by)
    t:kernel("rgb_to_gray"):launch{ grid = grid, block = { bx, by },
                                    args = { rgb, gray, gpu.i32(w), gpu.i32(h) } }

    local want = gpu.array("u8", { h + extra, w }, "want")
    for p = 0, w * h - 1 do
      local r, g, b = rgb[3 * p], rgb[3 * p + 1], rgb[3 * p + 2]
      want[p] = (77 * r + 150 * g + 29 * b + 128) >> 8
    end
    for i = w * h, w * (h + extra) - 1 do want[i] = SENTINEL end
    if extra > 0 then
      local past = 0
      for i = w * h, w * (h + extra) - 1 do
        if gray[i] ~= SENTINEL then past = past + 1 end
      end
      t:expect(past == 0, string.format("the kernel wrote %d pixels below the last row of gray "
        .. "(rows %d and after): guard y as well as x", past, h))
    end
    t:expect_equal(gray, want, { name = "gray" })
  end,
}
