-- latency-hiding: occupancy vs performance. The learner writes the ILP form
-- of y = a*x + b (all ITEMS loads of a thread first) and chooses ITEMS so the
-- kernel is fast even when only 2 blocks of 256 fit per SM (25% occupancy,
-- imposed with unused dynamic shared memory, the usual trick for measuring
-- a kernel at a given occupancy).
-- On the emulator (no timing): values for the chosen ITEMS and for ITEMS = 4
-- (n = 3 chunks + 3 and n = 5), and Little's law as the occupancy rule: at
-- 25% on sm_90 the loads in flight per SM must reach 128 KiB (measured on
-- the H200: 32 floats per thread, 64 KiB, ran 12% behind the best cell; 64
-- floats, 128 KiB, 3%).
-- On a GPU: a table of ITEMS {1, 4, 16, 64, chosen} x {25, 50, 100%
-- occupancy caps}, and the chosen ITEMS at 25% must be within 10% of the
-- fastest cell of the table.
local BLOCK = 256
local LITTLE_BYTES = 128 * 1024
local TOLERANCE = 0.10

return {
  id = "latency-hiding",
  title = "Higher occupancy is not always faster",
  title_zh = "占用率越高不一定越快",
  source = "latency-hiding.cu",
  solution = "solutions/latency-hiding.cu",
  wrong = {
    "solutions/wrong/latency-hiding-too-few.cu",
    "solutions/wrong/latency-hiding-no-tail-guard.cu",
  },
  timeout = 60,
  hints = {
    "TODO 1: float v[ITEMS]; one unrolled loop loads v[j] from x[base + j * blockDim.x] "
      .. "(0 past n), a second loop stores y[...] = a * v[j] + b where the index is < n. "
      .. "Loads that do not wait for each other are all in flight at once.",
    "TODO 2, Little's law: bytes in flight per SM = resident threads x ITEMS x 4 bytes must "
      .. "cover bandwidth x latency under load (about 128 KiB per SM on an H200). At 25% occupancy "
      .. "an SM has 2 x 256 = 512 threads: 128 KiB needs 64 floats per thread.",
  },
  hints_zh = {
    "TODO 1：float v[ITEMS]; 第一个展开的循环从 x[base + j * blockDim.x] 读入 v[j]（越过 n 的取 0），"
      .. "第二个循环在下标 < n 时写 y[...] = a * v[j] + b。互不等待的读操作可以同时在途。",
    "TODO 2，利特尔定律：每个 SM 在途的字节数 = 驻留线程数 × ITEMS × 4 字节，必须覆盖"
      .. "满负载时的带宽 × 延迟（H200 上每个 SM 约 128 KiB）。25% 占用率时一个 SM 只有 2 × 256 = 512 个线程："
      .. "要 128 KiB 就得每个线程 64 个 float。",
  },
  -- verify --mutants: wrong mutants the emulator cannot catch (its blind spots)
  mutants_undetected = {
    { mutation = "loop bound < to <=", line = "for (int j = 0; j < ITEMS; j++) {",
      why = "an index one past a local array in a loop #pragma unroll unrolls: the compiler sees the out-of-range step at compile time and, as undefined behaviour, drops it, so no wrong access is left in the PTX for the emulator to catch" },
  },
  run = function(t)
    local dev = t:device()
    local on_gpu = dev.backend == "cuda"
    local A, B = 1.5, -0.25

    local got = gpu.array("i32", 1, "items")
    t:kernel("chosen_items"):launch{ grid = 1, block = 1, args = { got } }
    local chosen = got[0]
    if chosen < 1 or chosen > 128 then
      t:fail(string.format("ITEMS_PER_THREAD is %d: choose between 1 and 128", chosen))
      return
    end

    local kernels = {}
    local function kernel(items)
      kernels[items] = kernels[items] or t:kernel("affine_items", { defines = { ITEMS = items } })
      return kernels[items]
    end
    local function grid(n, items) return (n + BLOCK * items - 1) // (BLOCK * items) end

    -- Values: every element on small sizes, a sample on a GPU-sized one.
    local function check(items, n, seed, step, x, y)
      x = x or gpu.array("f32", n, "x"):random{ lo = -4, hi = 4, seed = seed }
      y = y or gpu.array("f32", n, "y")
      y:fill(0)
      local k = kernel(items)
      k:launch{ grid = grid(n, items), block = BLOCK, args = { x, y, gpu.f32(A), gpu.f32(B), gpu.i32(n) } }
      local name = string.format("y (ITEMS = %d, n = %d)", items, n)
      if not step then
        return t:expect_close(y, ref.map(x, function(v) return A * v + B end),
                              { rel = 1e-6, abs = 1e-6, name = name }), x, y
      end
      local bad, first = 0, nil
      local function at(i)
        local w = A * x[i] + B
        if math.abs(y[i] - w) > 1e-6 + 1e-6 * math.abs(w) then
          bad = bad + 1
          first = first or i
        end
      end
      for i = 0, n - 1, step do at(i) end
      for i = n - 3, n - 1 do at(i) end
      if bad > 0 then
        t:fail(string.format("%s: %d sampled elements wrong; first y[%d] = %.7g, want %.7g",
          name, bad, first, y[first], A * x[first] + B))
        return false
      end
      return true, x, y
    end
    local sizes = { 3 * BLOCK * math.max(chosen, 4) + 3, 5 }
    for _, items in ipairs(chosen == 4 and { 4 } or { chosen, 4 }) do
      for s, n in ipairs(sizes) do
        if not check(items, n, 10 * items + s) then return end
      end
    end

    -- Little's law at 25% occupancy on sm_90: 2 blocks of 256 per SM.
    local k = kernel(chosen)
    local pad90 = 90 * 1024
    local o = k:occupancy{ block = BLOCK, shared = pad90, arch = "sm_90" }
    local inflight = o.blocks_per_sm * BLOCK * chosen * 4
    local little = string.format("at %.0f%% occupancy on sm_90 (%d blocks of %d per SM) an SM has "
      .. "%d threads x %d floats = %.0f KiB of loads in flight", 100 * o.occupancy, o.blocks_per_sm,
      BLOCK, o.blocks_per_sm * BLOCK, chosen, inflight / 1024)
    if not on_gpu then
      t:expect(inflight >= LITTLE_BYTES, inflight >= LITTLE_BYTES
        and (little .. string.format(" (the target is at least %d KiB)", LITTLE_BYTES // 1024))
        or (little .. string.format("; the target is %d KiB per SM (Little's law, with margin): "
                                    .. "more ITEMS per thread", LITTLE_BYTES // 1024)))
      t:log("timings need a GPU: there the exercise measures ITEMS x occupancy and checks yours")
      return
    end
    t:log("%s", little)

    -- The GPU table. Caps: dynamic shared memory that lets `cap` blocks in
    -- and not cap + 1 (1 KiB reserved per block), sized halfway between the
    -- two so no rounding of the driver's can tip it (90 KiB for 2 blocks on
    -- sm_90, as on the emulator); each cell shows k:occupancy's figure.
    local n = t:param("n", 1 << 26)
    local per_sm = dev.shared_per_sm or (228 * 1024)
    local function pad_for(cap)
      if cap >= 8 then return 0 end
      return (per_sm * 2 // (2 * cap + 1)) // 1024 * 1024 - 1024
    end
    local caps = { 2, 4, 8 }
    local rows = { 1, 4, 16, 64 }
    local seen = {}
    for _, r in ipairs(rows) do seen[r] = true end
    if not seen[chosen] then rows[#rows + 1] = chosen end
    table.sort(rows)

    local best, best_at, mine = nil, nil, nil
    local x = gpu.array("f32", n, "x"):random{ lo = -4, hi = 4, seed = 7 }
    local y = gpu.array("f32", n, "y")
    t:log("ITEMS  | %-22s | %-22s | %-22s", "cap 2 blocks/SM", "cap 4 blocks/SM", "no cap (8)")
    for _, items in ipairs(rows) do
      if not check(items, n, 0, 65537, x, y) then return end
      local kk = kernel(items)
      local cells = {}
      for _, cap in ipairs(caps) do
        local pad = pad_for(cap)
        local oc = kk:occupancy{ block = BLOCK, shared = pad }
        local ms = kk:time{ grid = grid(n, items), block = BLOCK, shared = pad,
                            args = { x, y, gpu.f32(A), gpu.f32(B), gpu.i32(n) } }
        local gbs = 8.0 * n / (ms * 1e6)
        cells[#cells + 1] = string.format("%7.3f ms %4.0f GB/s %3.0f%%", ms, gbs, 100 * oc.occupancy)
        if not best or ms < best then best, best_at = ms, { items, oc.occupancy } end
        if items == chosen and cap == 2 then mine = { ms = ms, occ = oc.occupancy } end
      end
      t:log("%5d  | %s | %s | %s%s", items, cells[1], cells[2], cells[3], items == chosen and "  <- yours" or "")
    end
    t:log("(each cell: median time, bandwidth, occupancy on this GPU)")
    t:report_bandwidth{ bytes = 8 * n, ms = mine.ms }
    local slower = mine.ms / best - 1
    t:expect(slower <= TOLERANCE, string.format("ITEMS = %d at %.0f%% occupancy: %.3f ms, %.0f%% "
      .. "slower than the fastest cell (%.3f ms, ITEMS = %d at %.0f%% occupancy); the target is "
      .. "within %.0f%%", chosen, 100 * mine.occ, mine.ms, 100 * math.max(0, slower), best,
      best_at[1], 100 * best_at[2], 100 * TOLERANCE))
  end,
}
