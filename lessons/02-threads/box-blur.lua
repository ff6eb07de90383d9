-- box-blur: a 3 x 3 box blur with edge handling on a 301 x 203 image of
-- values in [-1, 1). The CPU reference averages only the neighbours inside
-- the image, so both a missing edge test and a fixed divisor of 9 fail at the
-- borders while the interior still matches.
return {
  id = "box-blur",
  title = "A 2-D stencil: box blur with edges",
  title_zh = "二维模板计算：带边界处理的均值模糊",
  source = "box-blur.cu",
  solution = "solutions/box-blur.cu",
  wrong = {
    "solutions/wrong/box-blur-no-edges.cu",
    "solutions/wrong/box-blur-divide-by-nine.cu",
  },
  hints = {
    "Two nested loops, dy and dx from -1 to 1, visit the 9 neighbours (xx, yy) = "
      .. "(x + dx, y + dy). A neighbour counts only if 0 <= xx < width and 0 <= yy < height; "
      .. "check that before you read it.",
    "Keep a float sum and an int count: if (xx >= 0 && xx < width && yy >= 0 && yy < height) "
      .. "{ sum += in[yy * width + xx]; count++; } and write out[y * width + x] = sum / count;",
  },
  hints_zh = {
    "两层循环，dy 和 dx 都从 -1 到 1，遍历 9 个邻居 (xx, yy) = (x + dx, y + dy)。只有 0 <= xx < width 且 0 <= yy < height 的邻居才算数；读之前先检查。",
    "用一个 float sum 和一个 int count：if (xx >= 0 && xx < width && yy >= 0 && yy < height) { sum += in[yy * width + xx]; count++; } 最后 out[y * width + x] = sum / count;",
  },
  run = function(t)
    local w = t:param("width", 301)
    local h = t:param("height", 203)

    local img = gpu.array("f32", { h, w }, "img"):random{ lo = -1, hi = 1, seed = 11 }
    local out = gpu.array("f32", { h, w }, "out")
    local grid = { (w + 15) // 16, (h + 15) // 16 }
    t:kernel("box_blur"):launch{ grid = grid, block = { 16, 16 },
                                 args = { img, out, gpu.i32(w), gpu.i32(h) } }

    -- The mean of the 3x3 neighbourhood, of the pixels inside the image.
    local want = ref.window(img, { 1, 1 }, "mean")
    t:expect_close(out, want, { rel = 1e-5, abs = 1e-5, name = "out" })
  end,
}
