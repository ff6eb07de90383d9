-- scan-array: the inclusive scan of a whole int array in three passes (tile
-- sums, exclusive scan of the sums in one block, scan of each tile from its
-- offset). Emulator: ROUNDS = 2 (tiles of 2048), n = 100003, 6144 (whole tiles)
-- and 5 (one partial tile), pass 2 with blocks of 32 so it needs several chunks.
-- GPU: ROUNDS = 16 (tiles of 16384), n = 2^28; target: the three passes move
-- 2 x 4 bytes per element (read + write) at >= 2400 GB/s on an H200 (what a
-- vendor framework's cumulative sum reached there), elsewhere >= 55% of the
-- device-to-device copy bandwidth.
return {
  id = "scan-array",
  title = "Scan a whole array: reduce, then scan",
  title_zh = "整个数组的扫描：先归约，再扫描",
  source = "scan-array.cu",
  solution = "solutions/scan-array.cu",
  wrong = {
    "solutions/wrong/scan-array-inclusive-offsets.cu",
    "solutions/wrong/scan-array-no-round-carry.cu",
  },
  timeout = 60,
  hints = {
    "Two carries, the same idea twice: scan_sums walks over the tile sums in chunks of "
      .. "blockDim.x and must add the total of the earlier chunks; tile_scan walks over its tile "
      .. "in rounds and must add the total of the earlier rounds, starting from offsets[blockIdx.x].",
    "Exclusive from inclusive: the sum of everything BEFORE element i is incl - v. In scan_sums: "
      .. "offsets[i] = carry + incl - v; then carry += total; after each chunk.",
    "In tile_scan: int carry = offsets[blockIdx.x]; in each round int before = carry + incl - q.w; "
      .. "add it to q.x .. q.w, store, then carry += total;",
  },
  hints_zh = {
    "两个“进位”，同一个思路用两次：scan_sums 按 blockDim.x 一块一块地扫过各分块之和，要加上前面各块的总和；"
      .. "tile_scan 在自己的分块里一轮一轮地走，要加上前面各轮的总和，起点是 offsets[blockIdx.x]。",
    "从包含扫描得到不包含扫描：元素 i 之前所有元素的和是 incl - v。在 scan_sums 里："
      .. "offsets[i] = carry + incl - v; 每块之后 carry += total;",
    "在 tile_scan 里：int carry = offsets[blockIdx.x]; 每一轮 int before = carry + incl - q.w; "
      .. "把它加到 q.x .. q.w 上，写回，然后 carry += total;",
  },
  run = function(t)
    local dev = t:device()
    local on_gpu = dev.backend ~= "emu"
    local rounds = on_gpu and 16 or 2
    local block = 256
    local sums_block = on_gpu and 1024 or 32
    local tile = block * 4 * rounds
    local opts = { defines = { ROUNDS = rounds } }
    local k1 = t:kernel("tile_sums", opts)
    local k2 = t:kernel("scan_sums", opts)
    local k3 = t:kernel("tile_scan", opts)

    local function run_one(n, seed)
      local x = gpu.array("i32", n, "in"):random{ lo = -50, hi = 50, seed = seed }
      -- The reference before the launches: x is never read back from the device.
      local want = ref.scan(x)
      local out = gpu.array("i32", n, "out")
      local tiles = (n + tile - 1) // tile
      local sums = gpu.array("i32", tiles, "sums")
      local offsets = gpu.array("i32", tiles, "offsets")
      local l1 = { grid = tiles, block = block, args = { x, sums, gpu.i32(n) } }
      local l2 = { grid = 1, block = sums_block, args = { sums, offsets, gpu.i32(tiles) } }
      local l3 = { grid = tiles, block = block, args = { x, out, offsets, gpu.i32(n) } }
      k1:launch(l1)
      k2:launch(l2)
      k3:launch(l3)
      t:log("n = %d: %d tiles of %d ints", n, tiles, tile)
      -- Check the offsets first: a wrong pass 2 is easier to see there.
      local want_off = ref.scan(sums, { exclusive = true })
      local ok = t:expect_equal(offsets, want_off, { name = string.format("offsets (n = %d)", n) })
        and t:expect_equal(out, want, { name = string.format("out (n = %d)", n) })
      return ok, n, l1, l2, l3
    end

    if on_gpu then
      local ok, n, l1, l2, l3 = run_one(t:param("n", 1 << 28), 111)
      if not ok then return end
      local ms1, ms2, ms3 = k1:time(l1), k2:time(l2), k3:time(l3)
      if not (ms1 and ms2 and ms3) then return end
      local ms = ms1 + ms2 + ms3
      local gbs, fraction = t:report_bandwidth{ bytes = 2 * 4 * n, ms = ms }
      local target = 0.55 * gbs / fraction
      if tostring(dev.name):find("H200") then target = 2400 end
      t:log("tile_sums %.3f ms + scan_sums %.3f ms + tile_scan %.3f ms = %.3f ms", ms1, ms2, ms3, ms)
      t:log("%.0f GB/s (2 x 4 bytes per element) = %.0f%% of the device-to-device copy bandwidth; "
            .. "target: %.0f GB/s", gbs, 100 * fraction, target)
      t:expect(gbs >= target, string.format("the scan moved %.0f GB/s; the target is %.0f GB/s",
        gbs, target))
    else
      for _, c in ipairs{ { t:param("n", 100003), 111 }, { 3 * tile, 112 }, { 5, 113 } } do
        if not run_one(c[1], c[2]) then return end
      end
    end
  end,
}
