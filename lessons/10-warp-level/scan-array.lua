-- scan-array: the inclusive scan of a whole int array in ONE pass with
-- decoupled look-back: each block takes a ticket (its tile), scans the tile in
-- registers, publishes the tile's total and looks back over the statuses of
-- the tiles before it. Emulator: ROUNDS = 2 (tiles of 2048), n = 100003,
-- 6144 (whole tiles), 5 (one partial tile), 1000 and 1002, blocks of 256 and
-- one run with blocks of 96; the same status array twice in a row (the epoch
-- must make the first run's statuses read as old). GPU: ROUNDS = 8 (tiles of
-- 8192), n = 2^28; target: 2 x 4 bytes per element (read + write) at
-- H200_TARGET_GBS on an H200, elsewhere a fraction of the device-to-device
-- copy bandwidth.

-- Set from measurement (bench/anchors on the H200, issue 15 item 3): the
-- reference solution's GB/s there, and the learner's target (about 90% of it).
-- H200 2026-12-01, one run: ROUNDS=8 2851 GB/s (ROUNDS=4 2421, ROUNDS=2 1832,
-- 128 x ROUNDS=16 2857), cub::DeviceScan::InclusiveSum 3089 (92% of it).
-- H200 2026-12-02 (session9/call5), one run, the solution now sleeping while
-- it looks back as CUB does: ROUNDS=8 3237 GB/s = 103.0% of CUB's 3143
-- (without the sleeps 2902 = 92.3%, double sleeps 106.2%). The target stays
-- 2550, about 88% of the solution without sleeps: the sleeps are a refinement
-- the README shows, not a step the exercise asks for.
local H200_SOLUTION_GBS = 3237
local H200_TARGET_GBS = 2550
local OTHER_TARGET_FRACTION = 0.6       -- of the copy bandwidth, on other GPUs (H200: 2850 / 4239 = 67%)

return {
  id = "scan-array",
  title = "Scan a whole array in one pass: decoupled look-back",
  title_zh = "一趟扫描整个数组：解耦回溯",
  source = "scan-array.cu",
  solution = "solutions/scan-array.cu",
  wrong = {
    "solutions/wrong/scan-array-prefix-not-inclusive.cu",
    "solutions/wrong/scan-array-stops-at-aggregate.cu",
  },
  timeout = 60,
  hints = {
    "look_back: each pass reads 32 statuses, lane k the tile tile - 1 - k. Spin while any is "
      .. "0 (not ready): do { ... } while (__any_sync(FULL_MASK, flag == 0)); then "
      .. "__ballot_sync(FULL_MASK, flag == FLAG_PREFIX) says which lanes saw a PREFIX.",
    "The nearest PREFIX is the lowest set bit: int nearest = prefixes ? __ffs(prefixes) - 1 : 31; "
      .. "add the values of lanes 0..nearest with warp_sum(lane <= nearest ? value : 0). "
      .. "A PREFIX already contains everything before it: stop there; otherwise go 32 tiles back.",
    "In scan, after the look-back lane 0 publishes FLAG_PREFIX with prefix + aggregate (its own "
      .. "tile included: later tiles stop at it) and stores prefix into tile_prefix.",
  },
  hints_zh = {
    "look_back：每一轮读 32 个状态，lane k 读分块 tile - 1 - k。只要有一个是 0（未就绪）就继续等："
      .. "do { ... } while (__any_sync(FULL_MASK, flag == 0)); 然后 "
      .. "__ballot_sync(FULL_MASK, flag == FLAG_PREFIX) 告诉你哪些 lane 看到了 PREFIX。",
    "最近的 PREFIX 是最低的那个置位：int nearest = prefixes ? __ffs(prefixes) - 1 : 31; "
      .. "用 warp_sum(lane <= nearest ? value : 0) 把 lane 0..nearest 的值加起来。"
      .. "PREFIX 已经包含它之前的一切：到此为止；否则再往前看 32 个分块。",
    "在 scan 里，回溯之后 lane 0 用 prefix + aggregate 发布 FLAG_PREFIX（包含自己的分块："
      .. "后面的分块会停在这里），并把 prefix 存进 tile_prefix。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "loop bound < to <=", line = "for (int d = 1; d < 32; d *= 2) {",
      why = "shfl_up by 32 happens only for lane >= 32, which no lane is: the extra step adds nothing" },
    { mutation = "loop bound < to <=", line = "// back into warp_totals, exclusive",
      why = "lane L's extra step writes slot (L + 1) * per, the next lane's first, with L's running total, which is exactly the exclusive value the next lane wrote there" },
    { mutation = "drop guard", line = "if (tile > 0) {",
      why = "tile 0's look-back finds no earlier tile and returns 0, and the aggregate it would publish first is replaced by its prefix right after" },
  },
  -- verify --mutants: wrong mutants the emulator cannot catch (its blind spots)
  mutants_undetected = {
    { mutation = "loop bound < to <=", line = "for (int r = 0; r < ROUNDS; r++)",
      why = "an index one past a local array (q, incl) in a loop #pragma unroll unrolls: the compiler sees the out-of-range step at compile time and, as undefined behaviour, drops it, so no wrong access is left in the PTX for the emulator to catch" },
  },
  run = function(t)
    local dev = t:device()
    local on_gpu = dev.backend ~= "emu"
    local rounds = t:param("rounds", on_gpu and 8 or 2)
    local opts = { defines = { ROUNDS = rounds } }
    local k = t:kernel("scan", opts)

    local function run_one(n, seed, block, times)
      local tile = block * 4 * rounds
      local x = gpu.array("i32", n, "in"):random{ lo = -50, hi = 50, seed = seed }
      -- The reference before the launches: x is never read back from the device.
      local want = ref.scan(x)
      local out = gpu.array("i32", n, "out")
      local tiles = (n + tile - 1) // tile
      -- One status per tile, then the ticket counter; zero once, never reset.
      local status = gpu.array("u64", tiles + 1, "status")
      local l = { grid = tiles, block = block, args = { x, out, status, gpu.i32(n) } }
      local ok = true
      for i = 1, times or 1 do
        k:launch(l)
        t:log("n = %d: %d tiles of %d ints, blocks of %d%s", n, tiles, tile, block,
              i > 1 and string.format(" (launch %d on the same statuses)", i) or "")
        ok = t:expect_equal(out, want, { name = string.format("out (n = %d, blocks of %d%s)", n, block,
          i > 1 and string.format(", launch %d", i) or "") })
        if not ok then break end
        out:fill(0)
      end
      return ok, n, l
    end

    -- Blocks that finished their look-back long ago leave PREFIX statuses, so
    -- a block in order after them stops at its neighbour. To walk back over
    -- AGGREGATEs (more than one window of 32), this run starts as if tiles
    -- 0 .. seeded - 1 had been taken by blocks that published only their
    -- aggregates (tile 0 its prefix): the counter says seeded tickets are
    -- gone, and the launch's blocks take the tiles after them.
    local function run_after_aggregates(n, seed, seeded)
      local block = 256
      local tile = block * 4 * rounds
      local x = gpu.array("i32", n, "in"):random{ lo = -50, hi = 50, seed = seed }
      local want = ref.scan(x)
      local tiles = (n + tile - 1) // tile
      local status = gpu.array("u64", tiles + 1, "status")
      local out = gpu.array("i32", n, "out")
      for p = 0, seeded - 1 do
        local sum = 0
        for i = p * tile, math.min(n, (p + 1) * tile) - 1 do sum = sum + x[i] end
        local flag = p == 0 and 2 or 1               -- FLAG_PREFIX for tile 0, else FLAG_AGGREGATE
        status[p] = ((4 | flag) << 32) | (sum & 0xffffffff)   -- epoch 1
        for i = p * tile, math.min(n, (p + 1) * tile) - 1 do out[i] = want[i] end
      end
      status[tiles] = seeded
      k:launch{ grid = tiles - seeded, block = block, args = { x, out, status, gpu.i32(n) } }
      t:log("n = %d: tiles 0 .. %d published aggregates only; %d blocks scan the rest", n,
            seeded - 1, tiles - seeded)
      return t:expect_equal(out, want, { name = string.format(
        "out (n = %d, after %d tiles that published aggregates only)", n, seeded) })
    end

    if on_gpu then
      local ok, n, l = run_one(t:param("n", 1 << 28), 111, 256)
      if not ok then return end
      local ms = k:time(l)
      if not ms then return end
      local gbs, fraction = t:report_bandwidth{ bytes = 2 * 4 * n, ms = ms }
      local target = OTHER_TARGET_FRACTION * gbs / fraction
      local where = string.format("%.0f%% of this GPU's device-to-device copy bandwidth",
                                  100 * OTHER_TARGET_FRACTION)
      if tostring(dev.name):find("H200") then
        target = H200_TARGET_GBS
        where = string.format("the reference solution moved %.0f GB/s on an H200", H200_SOLUTION_GBS)
      end
      t:log("%.3f ms: %.0f GB/s (2 x 4 bytes per element) = %.0f%% of the device-to-device copy "
            .. "bandwidth; target: %.0f GB/s (%s)", ms, gbs, 100 * fraction, target, where)
      t:expect(gbs >= target, string.format("the scan moved %.0f GB/s; the target is %.0f GB/s (%s)",
        gbs, target, where))
    else
      -- 1000 and 1002 end inside a group of four (n mod 4 = 0 and 2, partial
      -- last tile): load4's and store4's element-by-element tails meet i = n.
      local tile = 256 * 4 * rounds
      for _, c in ipairs{ { t:param("n", 100003), 111, 256, 2 }, { 3 * tile, 112, 256 }, { 5, 113, 256 },
                          { 1000, 114, 256 }, { 1002, 115, 256 }, { 20000, 116, 96 } } do
        if not run_one(c[1], c[2], c[3], c[4]) then return end
      end
      run_after_aggregates(100003, 117, 40)
    end
  end,
}
