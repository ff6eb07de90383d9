-- pick-block-size: the block size as the occupancy limiter, at both ends. A
-- privatised histogram pays 16 KiB of shared memory per block, so small
-- blocks run out of shared memory (and blocks) before warps, and 1024-thread
-- blocks leave a 48-warp SM (sm_86) a third empty. The learner picks
-- BLOCK_SIZE (read through the kernel `block_size`) for >= 75% on sm_80,
-- sm_86 and sm_90 (256, 384, 512, 640 or 768 pass). The run then launches a
-- grid of one full wave (blocks per SM on this device x SMs; on the
-- emulator, which checks counts and not times, the wave of 16 SMs) and
-- checks the histogram on 100003 values in [-3, 4100] (out-of-range values
-- ignored) and on 3 values; on a GPU (2^26 + 7 values) it also times the
-- kernel for several block sizes, each with its own full-wave grid.
local ARCHS = { "sm_80", "sm_86", "sm_90" }
local BINS = 4096

return {
  id = "pick-block-size",
  title = "Choosing the block size: too small and too big",
  title_zh = "选择线程块大小：太小和太大都不行",
  source = "pick-block-size.cu",
  solution = "solutions/pick-block-size.cu",
  wrong = {
    "solutions/wrong/pick-block-size-1024.cu",
    "solutions/wrong/pick-block-size-128.cu",
  },
  timeout = 60,
  hints = {
    "Every block takes 17 KiB of shared memory (16 for the histogram, 1 reserved), however "
      .. "many threads it has. Count, for each GPU, how many blocks fit by shared memory and by "
      .. "warps; the smaller number times the warps per block is the occupancy.",
    "sm_86 is the hard one: 100 / 17 = 5 blocks by shared memory and 48 warps in all. 5 blocks "
      .. "must bring at least 36 warps (8 per block), and the block must still let 36 warps "
      .. "fit in 48: 1024 threads (32 warps) does not. Try 256.",
  },
  hints_zh = {
    "不管线程块有多少线程，每个线程块都占 17 KiB 共享内存（直方图 16 KiB，系统保留 1 KiB）。"
      .. "对每种 GPU 分别算出按共享内存和按线程束各能放下几个线程块，取较小者乘以每块线程束数，就是占用率。",
    "最难的是 sm_86：按共享内存 100 / 17 = 5 个线程块，总共 48 个线程束。5 个线程块至少要带来 "
      .. "36 个线程束（每块 8 个），而且一个线程块的线程束数要能塞进 48 里凑够 36：1024 线程（32 个线程束）"
      .. "做不到。试试 256。",
  },
  run = function(t)
    local dev = t:device()
    local on_gpu = dev.backend == "cuda"

    local got = gpu.array("i32", 1, "block")
    t:kernel("block_size"):launch{ grid = 1, block = 1, args = { got } }
    local block = got[0]
    if block < 32 or block > 1024 or block % 32 ~= 0 then
      t:fail(string.format("BLOCK_SIZE is %d: choose a multiple of 32 from 32 to 1024", block))
      return
    end

    local k = t:kernel("histogram")
    local all = true
    for _, arch in ipairs(ARCHS) do
      local ok, o = t:expect_occupancy(k, { block = block, arch = arch, min = 0.75 })
      if ok then
        t:log("%s: %d blocks of %d threads per SM, %d of %d warps (%.0f%%)", arch, o.blocks_per_sm,
              block, o.warps_per_sm, o.max_warps_per_sm, 100 * o.occupancy)
      end
      all = all and ok
    end
    if not all then
      t:log("the histogram's 16 KiB per block are fixed: what BLOCK_SIZE decides is how many "
            .. "warps each block brings with it, and how evenly they fill the SM's warp slots")
      return
    end

    local sms = dev.sm_count or 132
    -- the emulator checks the counts, not the time: one wave of 16 SMs (each
    -- block zeroes and flushes its 16 KiB, the cost of a launch there)
    local wave_sms = on_gpu and sms or math.min(sms, 16)
    local function full_wave(b)
      local o = k:occupancy{ block = b }
      return math.max(1, o.blocks_per_sm) * wave_sms, o
    end
    local function count(n, seed, b, data)
      data = data or gpu.array("i32", n, "data"):random{ lo = -3, hi = BINS + 4, seed = seed }
      local hist = gpu.array("u32", BINS, "hist")
      local grid, o = full_wave(b)
      local launch = { grid = grid, block = b, args = { data, gpu.i32(n), hist } }
      k:launch(launch)
      local ok = t:expect_equal(hist, ref.histogram(data, BINS, 0, BINS),
                                { name = string.format("hist (n = %d, blocks of %d)", n, b) })
      return ok, launch, grid, o
    end
    local ok, _, grid, o = count(100003, 1, block)
    if not ok then return end
    t:log("one full wave: %d blocks per SM x %d SMs = %d blocks (%.0f%% occupancy here)%s",
          o.blocks_per_sm, wave_sms, grid, 100 * o.occupancy, wave_sms < sms and string.format(
          "; the emulator runs the wave of %d of this device's %d SMs (%d blocks would fill them all)",
          wave_sms, sms, math.max(1, o.blocks_per_sm) * sms) or "")
    if not count(3, 2, block) then return end

    if on_gpu then
      local n = t:param("n", (1 << 26) + 7)
      local data = gpu.array("i32", n, "data"):random{ lo = -3, hi = BINS + 4, seed = 3 }
      t:log("block  blocks/SM  occupancy     ms")
      local sizes = { 64, 128, 256, 512, 768, 1024 }
      local listed = false
      for _, b in ipairs(sizes) do listed = listed or b == block end
      if not listed then sizes[#sizes + 1] = block end
      for _, b in ipairs(sizes) do
        local good, launch, _, ob = count(n, 3, b, data)
        if not good then return end
        local ms = k:time(launch)
        t:log("%5d  %9d  %8.0f%%  %6.3f%s", b, ob.blocks_per_sm, 100 * ob.occupancy, ms,
              b == block and "  <- yours" or "")
        if b == block then t:report_bandwidth{ bytes = 4 * n, ms = ms } end
      end
    end
  end,
}
