-- reduce-steps: the classic reduction sequence, steps 1-3 (add during the
-- load, sequential addressing, last warp with shuffles). Blocks of 256 sum
-- 512 elements each; n = 100003 on the emulator (a partial last block),
-- after n = 1000 (the last block's second loads meet n exactly),
-- 2^26 on a GPU; values in [-1, 1). Targets (emulator): <= 2 divergent
-- branches per block, no bank conflicts, <= 4 barriers per block. On a GPU the
-- bandwidth is shown (>= 25% of the copy bandwidth; reduce-peak goes to 95%).
return {
  id = "reduce-steps",
  title = "Reduction, step by step: divergence, bank conflicts, the last warp",
  title_zh = "一步一步优化归约：分歧、bank 冲突、最后一个 warp",
  source = "reduce-steps.cu",
  solution = "solutions/reduce-steps.cu",
  wrong = {
    "solutions/wrong/reduce-steps-strided-index.cu",
    "solutions/wrong/reduce-steps-modulo.cu",
    "solutions/wrong/reduce-steps-no-syncwarp.cu",
  },
  hints = {
    "Step 1 first (the sums are wrong until then): int i = blockIdx.x * 2 * blockDim.x + t; "
      .. "float v = (i < n) ? x[i] : 0.0f; if (i + blockDim.x < n) v += x[i + blockDim.x]; "
      .. "s_data[t] = v;",
    "Step 2: for (int s = blockDim.x / 2; s > 32; s /= 2) { if (t < s) s_data[t] += "
      .. "s_data[t + s]; __syncthreads(); }  The active threads are 0..s-1: whole warps.",
    "Step 3: if (t < 32) { v = s_data[t] + s_data[t + 32]; for (int offset = 16; offset > 0; "
      .. "offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset); if (t == 0) "
      .. "partial[blockIdx.x] = v; }",
  },
  hints_zh = {
    "先做第 1 步（不做的话和是错的）：int i = blockIdx.x * 2 * blockDim.x + t; "
      .. "float v = (i < n) ? x[i] : 0.0f; if (i + blockDim.x < n) v += x[i + blockDim.x]; s_data[t] = v;",
    "第 2 步：for (int s = blockDim.x / 2; s > 32; s /= 2) { if (t < s) s_data[t] += "
      .. "s_data[t + s]; __syncthreads(); }  活跃线程是 0..s-1：整个 warp 一起行动。",
    "第 3 步：if (t < 32) { v = s_data[t] + s_data[t + 32]; for (int offset = 16; offset > 0; "
      .. "offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset); if (t == 0) "
      .. "partial[blockIdx.x] = v; }",
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local n = t:param("n", on_gpu and (1 << 26) or 100003)
    local block = 256
    local blocks = (n + 2 * block - 1) // (2 * block)
    local x = gpu.array("f32", n, "x"):random{ lo = -1, hi = 1, seed = 151 }
    local partial = gpu.array("f32", blocks, "partial")
    local k = t:kernel("reduce_block")
    if not on_gpu then
      -- 1000 = 512 + 488: a thread of the last block has its second element at n.
      local x2 = gpu.array("f32", 1000, "x"):random{ lo = -1, hi = 1, seed = 152 }
      local p2 = gpu.array("f32", 2, "partial")
      k:launch{ grid = 2, block = block, args = { x2, p2, gpu.i32(1000) } }
      if not t:expect_close(p2, ref.block_sums(x2, 2 * block), { rel = 1e-5, abs = 1e-4,
                            name = "partial (n = 1000)" }) then
        return
      end
    end
    local launch = { grid = blocks, block = block, args = { x, partial, gpu.i32(n) } }
    k:launch(launch)
    if not t:expect_close(partial, ref.block_sums(x, 2 * block), { rel = 1e-5, abs = 1e-4,
                          name = "partial" }) then
      return
    end

    local m = t:emu_metrics()
    if m then
      local div = m.divergent_branches / m.blocks
      local bars = m.barriers / m.blocks
      local conflicts = m.bank_conflicts
        or (m.bank_conflict_wavefronts - m.shared_ideal_wavefronts)
      t:log("per block: %.1f divergent branches, %.1f barriers; %d extra shared-memory "
            .. "wavefronts from bank conflicts", div, bars, conflicts)
      t:expect(div <= 2, string.format("%.1f divergent branches per block; the target is at "
        .. "most 2: choose the active threads as t < s, so whole warps work or rest together", div))
      t:expect(conflicts == 0, string.format("%d extra shared-memory wavefronts from bank "
        .. "conflicts; the target is 0: thread t should add s_data[t + s] into s_data[t]", conflicts))
      t:expect(bars <= 4, string.format("%.1f barriers per block; the target is at most 4: "
        .. "stop the shared-memory tree at s = 64 and let warp 0 finish with shuffles", bars))
    else
      local ms = k:time(launch)
      local gbs, fraction = t:report_bandwidth{ bytes = 4 * n, ms = ms }
      if fraction then
        t:log("%.3f ms, %.0f GB/s read = %.0f%% of the device-to-device copy bandwidth "
              .. "(reduce-peak's target: 95%%)", ms, gbs, 100 * fraction)
        t:expect(fraction >= 0.25, string.format("%.0f%% of the copy bandwidth; the target "
          .. "here is 25%%", 100 * fraction))
      end
    end
  end,
}
