-- compact-ballot: per-block stream compaction of the positive elements with
-- __ballot_sync and __popc. n = 100003 on the emulator, 2^20 + 3 on a GPU
-- (partial last block and last warp), values in [-1, 1); blocks of 256 and of
-- 160 threads (5 warps). The CPU reference packs each block's positives in order.
return {
  id = "compact-ballot",
  title = "Stream compaction with __ballot_sync and __popc",
  title_zh = "用 __ballot_sync 和 __popc 做流压缩",
  source = "compact-ballot.cu",
  solution = "solutions/compact-ballot.cu",
  wrong = {
    "solutions/wrong/compact-ballot-rank-all.cu",
    "solutions/wrong/compact-ballot-vote-in-if.cu",
  },
  hints = {
    "__ballot_sync(FULL_MASK, keep) returns the same 32-bit mask to every lane: bit k is set "
      .. "when lane k keeps its element. A keeper's place in the warp is the number of keepers "
      .. "in the lanes below it.",
    "int rank = __popc(ballot & ((1u << lane) - 1)); and lane 0 stores __popc(ballot) in "
      .. "warp_counts[warp]; __syncthreads(); then offset = warp_counts[0] + ... + "
      .. "warp_counts[warp - 1].",
    "The ballot must be reached by all 32 lanes (the full mask says so): compute keep as "
      .. "(i < n) && x[i] > 0.0f and vote outside any if.",
  },
  hints_zh = {
    "__ballot_sync(FULL_MASK, keep) 给每个 lane 返回同一个 32 位掩码：lane k 保留元素时第 k 位为 1。"
      .. "一个保留者在 warp 里的位置，就是比它编号小的 lane 中保留者的个数。",
    "int rank = __popc(ballot & ((1u << lane) - 1)); lane 0 把 __popc(ballot) 存进 "
      .. "warp_counts[warp]；__syncthreads()；然后 offset = warp_counts[0] + ... + warp_counts[warp - 1]。",
    "投票必须由全部 32 个 lane 到达（掩码写的是全部）：把 keep 算成 (i < n) && x[i] > 0.0f，"
      .. "投票放在任何 if 之外。",
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local n = t:param("n", on_gpu and (1 << 20) + 3 or 100003)
    local x = gpu.array("f32", n, "x"):random{ lo = -1, hi = 1, seed = 91 }
    local k = t:kernel("compact_positive")
    for _, block in ipairs{ 256, 160 } do
      local blocks = (n + block - 1) // block
      local out = gpu.array("f32", blocks * block, "out")
      local counts = gpu.array("i32", blocks, "counts")
      k:launch{ grid = blocks, block = block, args = { x, out, counts, gpu.i32(n) } }

      local want = gpu.array("f32", blocks * block, "want")
      local want_counts = gpu.array("i32", blocks, "want_counts")
      for b = 0, blocks - 1 do
        local base = b * block
        local kept = 0
        for i = base, math.min(base + block, n) - 1 do
          local v = x[i]
          if v > 0 then
            want[base + kept] = v
            kept = kept + 1
          end
        end
        want_counts[b] = kept
      end
      local ok1 = t:expect_equal(counts, want_counts, { name = string.format("counts (blocks of %d)", block) })
      local ok2 = t:expect_equal(out, want, { name = string.format("out (blocks of %d)", block) })
      if not (ok1 and ok2) then return end
    end
  end,
}
