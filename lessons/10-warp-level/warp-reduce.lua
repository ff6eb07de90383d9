-- warp-reduce: per-block sums with warp shuffles. Two launches: blocks of 256
-- and of 96 threads (3 warps: catches a hard-coded 8 warps), n = 100003 on the
-- emulator and 2^24 + 3 on a GPU (the last block is partial, values in
-- [-1, 1)). Target on the emulator: at most one __syncthreads per block (the
-- shuffles replace the shared-memory tree and its barriers).
return {
  id = "warp-reduce",
  title = "Warp-shuffle reduction",
  title_zh = "warp 洗牌（shuffle）归约",
  source = "warp-reduce.cu",
  solution = "solutions/warp-reduce.cu",
  wrong = {
    "solutions/wrong/warp-reduce-no-sync.cu",
    "solutions/wrong/warp-reduce-shfl-up.cu",
    "solutions/wrong/warp-reduce-guarded-shuffle.cu",
  },
  hints = {
    "A shuffle lets a lane read another lane's register without shared memory. Halving the "
      .. "distance (16, 8, 4, 2, 1) adds all 32 values into lane 0 in five steps.",
    "for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset); "
      .. "Then if (lane == 0) warp_totals[warp] = v; __syncthreads();",
    "if (warp == 0) { v = (lane < warps) ? warp_totals[lane] : 0.0f; v = warp_sum(v); "
      .. "if (lane == 0) out[blockIdx.x] = v; }  All 32 lanes of warp 0 must call warp_sum.",
  },
  hints_zh = {
    "shuffle 让一个 lane 直接读另一个 lane 的寄存器，不经过共享内存。距离依次减半（16、8、4、2、1），"
      .. "五步就把 32 个值加到 lane 0 上。",
    "for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset); "
      .. "然后 if (lane == 0) warp_totals[warp] = v; __syncthreads();",
    "if (warp == 0) { v = (lane < warps) ? warp_totals[lane] : 0.0f; v = warp_sum(v); "
      .. "if (lane == 0) out[blockIdx.x] = v; }  warp 0 的 32 个 lane 都必须调用 warp_sum。",
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local n = t:param("n", on_gpu and (1 << 24) + 3 or 100003)
    local x = gpu.array("f32", n, "x"):random{ lo = -1, hi = 1, seed = 81 }
    local k = t:kernel("block_sums")
    for _, block in ipairs{ 256, 96 } do
      local blocks = (n + block - 1) // block
      local out = gpu.array("f32", blocks, "out")
      k:launch{ grid = blocks, block = block, args = { x, out, gpu.i32(n) } }
      -- A block of 256 values in [-1, 1): float rounding stays far below 1e-4.
      local ok = t:expect_close(out, ref.block_sums(x, block), { rel = 1e-5, abs = 1e-4,
        name = string.format("out (blocks of %d)", block) })
      if not ok then return end
      local m = t:emu_metrics()
      if m and block == 256 then
        local per_block = m.barriers / math.max(1, m.blocks)
        t:log("blocks of 256: %.1f barriers per block, %d shared-memory requests for %d blocks",
              per_block, m.shared_requests, m.blocks)
        t:expect(per_block <= 1.0, string.format("%.1f __syncthreads per block; the target is "
          .. "1: reduce inside each warp with shuffles, then once across warps", per_block))
      end
    end
  end,
}
