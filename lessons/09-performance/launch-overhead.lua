-- launch-overhead: scale each row of a matrix by its own factor, once with one
-- launch per row (given kernel) and once with a single 2-D launch (learner's).
-- 37 x 1000 on the emulator (1000 is not a multiple of 256), 4096 x 2500 on a
-- GPU. Target (GPU): the single launch at least 10x as fast as the per-row
-- launches together. The emulator has no clock: it shows the launch counts.
return {
  id = "launch-overhead",
  title = "Launch overhead: many tiny kernels vs one",
  title_zh = "启动开销：许多小核函数与一个大核函数",
  source = "launch-overhead.cu",
  solution = "solutions/launch-overhead.cu",
  wrong = {
    "solutions/wrong/launch-overhead-swapped.cu",
    "solutions/wrong/launch-overhead-no-guard.cu",
  },
  timeout = 60,
  hints = {
    "scale_row gets its row as an argument; in scale_rows every block finds its row itself, "
      .. "from its place in the 2-D grid.",
    "int r = blockIdx.y; int c = blockIdx.x * blockDim.x + threadIdx.x; if (c < cols) "
      .. "m[r * cols + c] *= s[r];",
  },
  hints_zh = {
    "scale_row 的行号是作为参数传进来的；在 scale_rows 里，每个线程块要根据自己在二维网格中的位置自己算出行号。",
    "int r = blockIdx.y; int c = blockIdx.x * blockDim.x + threadIdx.x; if (c < cols) "
      .. "m[r * cols + c] *= s[r];",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "weaken guard < to <=", line = "if (r < rows && c < cols)",
      why = "the grid has exactly rows blocks in y, so r = blockIdx.y is never rows" },
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local rows = t:param("rows", on_gpu and 4096 or 37)
    local cols = t:param("cols", on_gpu and 2500 or 1000)
    local block = 256
    local per_row = (cols + block - 1) // block
    local m0 = gpu.array("f32", { rows, cols }, "m"):random{ lo = -1, hi = 1, seed = 201 }
    local s = gpu.array("f32", rows, "s"):random{ lo = 0.5, hi = 2, seed = 202 }

    -- The reference: one launch per row of the given kernel.
    local m1 = m0:copy():named("m_per_row")
    local k1 = t:kernel("scale_row")
    local function per_row_launch(r)
      return { grid = per_row, block = block, args = { m1, gpu.i32(r), gpu.i32(cols), gpu.f32(s[r]) } }
    end
    for r = 0, rows - 1 do k1:launch(per_row_launch(r)) end

    local m = m0:copy():named("m")
    local k = t:kernel("scale_rows")
    local launch = { grid = { per_row, rows }, block = block, args = { m, gpu.i32(rows), gpu.i32(cols), s } }
    k:launch(launch)
    if not t:expect_close(m, m1, { rel = 1e-6, abs = 1e-7, name = "m" }) then return end

    if not on_gpu then
      t:log("%d launches of %d blocks each, against 1 launch of %d blocks: on a GPU each launch "
            .. "costs a few microseconds whatever its size (run there to measure it)",
            rows, per_row, rows * per_row)
      return
    end
    -- One tiny launch, timed on the GPU, times the number of rows; and the one big launch.
    local ms_one = k1:time(per_row_launch(0))
    local ms_all = k:time(launch)
    if ms_one and ms_all then
      local ms_rows = rows * ms_one
      local gbs, fraction = t:report_bandwidth{ bytes = 8 * rows * cols, ms = ms_all }
      t:log("one row: %.4f ms per launch -> %d launches: %.2f ms (GPU time only; the CPU's "
            .. "share of each launch comes on top)", ms_one, rows, ms_rows)
      t:log("one launch for all rows: %.4f ms, %.0f GB/s (%.0f%% of the copy bandwidth): "
            .. "%.0fx as fast (target: 10x)", ms_all, gbs, 100 * (fraction or 0), ms_rows / ms_all)
      t:metric("speedup_one_launch", ms_rows / ms_all, "x")
      t:expect(ms_rows / ms_all >= 10, string.format("one launch is %.1fx as fast as %d launches; "
        .. "the target is 10x", ms_rows / ms_all, rows))
    end
  end,
}
