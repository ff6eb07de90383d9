-- tile-size: shared memory as the occupancy limiter. The learner picks the
-- tile (ITEMS_PER_THREAD floats per thread, blocks of 256, tile in dynamic
-- shared memory): the largest one that keeps 75% occupancy on sm_80 and on
-- sm_90, 26 (6 x (26 + 1) KiB <= 164 KiB). The exercise reads the choice
-- through the kernel `tile_items`, checks the occupancy on both profiles and
-- that one float more per thread would drop below 75% on one of them, and
-- checks the values on 3 tiles + 5 elements and on 2 elements (one short
-- tile). On a GPU it also times a 2^26-element run.
return {
  id = "tile-size",
  title = "Shared memory as the limiter: how big a tile?",
  title_zh = "共享内存成为瓶颈：分块该多大？",
  source = "tile-size.cu",
  solution = "solutions/tile-size.cu",
  wrong = {
    "solutions/wrong/tile-size-no-reserve.cu",
    "solutions/wrong/tile-size-only-sm90.cu",
    "solutions/wrong/tile-size-too-small.cu",
  },
  timeout = 30,
  hints = {
    "A tile of 256 threads x ITEMS floats x 4 bytes is exactly ITEMS KiB. Each block takes "
      .. "its tile plus 1 KiB reserved; 75% occupancy is 6 blocks of 8 warps per SM.",
    "6 x (ITEMS + 1) KiB must fit in 164 KiB (sm_80) and in 228 KiB (sm_90). The A100 is the "
      .. "tighter one: ITEMS + 1 <= 27.3.",
  },
  hints_zh = {
    "256 个线程 × ITEMS 个 float × 4 字节，一个分块正好是 ITEMS KiB。每个线程块占用它的分块再加上"
      .. "系统保留的 1 KiB；75% 的占用率就是每个 SM 放下 6 个各含 8 个线程束的线程块。",
    "6 × (ITEMS + 1) KiB 既要放进 164 KiB（sm_80），也要放进 228 KiB（sm_90）。A100 更紧：ITEMS + 1 <= 27.3。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "weaken guard < to <=", line = "int len = n - start < size ?",
      why = "when n - start == size both arms give size" },
  },
  run = function(t)
    local dev = t:device()
    local on_gpu = dev.backend == "cuda"
    local BLOCK = 256

    local got = gpu.array("i32", 1, "items")
    t:kernel("tile_items"):launch{ grid = 1, block = 1, args = { got } }
    local items = got[0]
    if items < 1 or items > 200 then
      t:fail(string.format("ITEMS_PER_THREAD is %d: choose a number of floats per thread "
        .. "between 1 and 200", items))
      return
    end
    local size = BLOCK * items
    local shared = size * 4
    local k = t:kernel("reverse_tiles")

    -- Occupancy first: it is the point of the exercise.
    local all = true
    for _, arch in ipairs{ "sm_80", "sm_90" } do
      local ok, o = t:expect_occupancy(k, { block = BLOCK, shared = shared, arch = arch, min = 0.75 })
      if ok then
        t:log("%s: tiles of %d KiB, %d blocks per SM, %.1f%% occupancy", arch, items,
              o.blocks_per_sm, 100 * o.occupancy)
      end
      all = all and ok
    end
    if not all then return end
    local blocked = nil
    for _, arch in ipairs{ "sm_80", "sm_90" } do
      local o = k:occupancy{ block = BLOCK, shared = shared + BLOCK * 4, arch = arch }
      if o.occupancy < 0.75 then blocked = blocked or arch end
    end
    if not blocked then
      t:fail(string.format("ITEMS_PER_THREAD = %d keeps 75%% on both, and so would %d: "
        .. "find the largest tile that still does", items, items + 1))
      return
    end
    t:expect(true, string.format("ITEMS_PER_THREAD = %d is the largest: %d would drop %s below 75%%",
      items, items + 1, blocked))

    local function reverse(n, seed)
      local x = gpu.array("f32", n, "in"):random{ lo = -50, hi = 50, seed = seed }
      local y = gpu.array("f32", n, "out")
      local launch = { grid = (n + size - 1) // size, block = BLOCK, shared = shared,
                       args = { x, y, gpu.i32(n) } }
      k:launch(launch)
      if not on_gpu or n < (1 << 20) then
        local want = ref.map(x, function(_, i)
          local s = (i // size) * size
          local len = math.min(size, n - s)
          return x[s + len - 1 - (i - s)]
        end)
        t:expect_equal(y, want, { name = string.format("out (n = %d)", n) })
      end
      return launch, x, y
    end
    reverse(3 * size + 5, 1)
    reverse(2, 2)

    if on_gpu then
      local n = t:param("n", 1 << 26)
      local launch, x, y = reverse(n, 3)
      -- Spot checks: the first and last element of the first and last tile.
      local last = ((n - 1) // size) * size
      local ok = y[0] == x[size - 1] and y[size - 1] == x[0] and y[n - 1] == x[last]
      t:expect(ok, string.format("out (n = %d): the first and last tiles are reversed", n))
      local ms = k:time(launch)
      local gbs, fraction = t:report_bandwidth{ bytes = 8 * n, ms = ms }
      local here = k:occupancy{ block = BLOCK, shared = shared }
      t:log("n = %d on this GPU: %.3f ms, %.0f GB/s (%.0f%% of the copy bandwidth), %.1f%% "
            .. "occupancy", n, ms, gbs, 100 * (fraction or 0), 100 * here.occupancy)
    end
  end,
}
