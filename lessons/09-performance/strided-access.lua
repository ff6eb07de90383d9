-- strided-access: a correct kernel whose element numbering is column-major on
-- row-major data. 300 x 257 on the emulator, 8192 x 8191 on a GPU (neither a
-- multiple of 32; rows != cols). Targets: <= 4.5 sectors per request (32
-- consecutive floats = 4 sectors, plus bias wrapping at row ends) on the
-- emulator, 75% of the device-to-device copy bandwidth on a GPU.
return {
  id = "strided-access",
  title = "Fix a strided access",
  title_zh = "修正跨步访问",
  source = "strided-access.cu",
  solution = "solutions/strided-access.cu",
  wrong = {
    "solutions/wrong/strided-access-bias-row.cu",
    "solutions/wrong/strided-access-rows-for-cols.cu",
  },
  hints = {
    "In memory, (r, c) and (r, c + 1) are neighbours; (r, c) and (r + 1, c) are cols floats "
      .. "apart. Thread i + 1 should get the element right after thread i's.",
    "int r = i / cols; int c = i % cols; then r * cols + c is just i.",
  },
  hints_zh = {
    "在内存里，(r, c) 和 (r, c + 1) 是邻居；(r, c) 和 (r + 1, c) 相隔 cols 个 float。"
      .. "线程 i + 1 应该拿到紧挨着线程 i 的那个元素。",
    "int r = i / cols; int c = i % cols; 这样 r * cols + c 就是 i 本身。",
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local k = t:kernel("add_bias")

    -- Every element is checked on a small matrix; the big one (GPU) is sampled.
    local function run_one(rows, cols, seed, sample)
      local n = rows * cols
      local a = gpu.array("f32", { rows, cols }, "in"):random{ lo = -10, hi = 10, seed = seed }
      local bias = gpu.array("f32", cols, "bias"):random{ lo = -1, hi = 1, seed = seed + 1 }
      local out = gpu.array("f32", { rows, cols }, "out")
      local launch = { grid = (n + 255) // 256, block = 256,
                       args = { a, bias, out, gpu.i32(rows), gpu.i32(cols) } }
      k:launch(launch)
      local name = string.format("out (%d x %d)", rows, cols)
      if not sample then
        local want = ref.map(a, function(v, i) return v + bias[i % cols] end)
        return t:expect_close(out, want, { rel = 1e-6, abs = 1e-6, name = name }), launch, n
      end
      local bad, first = 0, nil
      for i = 0, n - 1, sample do
        local w = a[i] + bias[i % cols]
        if math.abs(out[i] - w) > 1e-5 then
          bad = bad + 1
          first = first or i
        end
      end
      if bad > 0 then
        t:fail(string.format("%s: %d sampled elements wrong; first at flat index %d: got %.7g, "
          .. "want %.7g", name, bad, first, out[first], a[first] + bias[first % cols]))
      end
      return bad == 0, launch, n
    end

    local ok, launch, n = run_one(on_gpu and 517 or t:param("rows", 300),
                                  on_gpu and 389 or t:param("cols", 257), 171)
    if not ok then return end

    local m = t:emu_metrics()
    if m then
      local spr = m.global_sectors / math.max(1, m.global_requests)
      t:log("%.2f sectors per request (target: at most 4.5)", spr)
      t:expect(spr <= 4.5, string.format("each warp-wide load or store touches %.1f sectors on "
        .. "average; the target is at most 4.5: neighbouring threads must take neighbouring "
        .. "elements", spr))
      return
    end

    local rows, cols = t:param("rows", 8192), t:param("cols", 8191)
    ok, launch, n = run_one(rows, cols, 173, 9973)
    if not ok then return end
    local ms = k:time(launch)
    local gbs, fraction = t:report_bandwidth{ bytes = 4 * (2 * n + cols), ms = ms }
    if fraction then
      t:log("%d x %d: %.3f ms, %.0f GB/s = %.0f%% of the device-to-device copy bandwidth "
            .. "(target: 50%%)", rows, cols, ms, gbs, 100 * fraction)
      t:expect(fraction >= 0.50, string.format("%.0f%% of the copy bandwidth; the target is 50%%",
        100 * fraction))
    end
  end,
}
