-- cg-scan: the block scan and block sum with cooperative groups
-- (cg::inclusive_scan, cg::reduce, block.sync()). Integers in [-50, 50];
-- n = 100003 on the emulator, 2^20 + 3 on a GPU; blocks of 256 and 96.
return {
  id = "cg-scan",
  title = "The same with cooperative groups",
  title_zh = "用协作组（cooperative groups）再写一遍",
  source = "cg-scan.cu",
  solution = "solutions/cg-scan.cu",
  wrong = {
    "solutions/wrong/cg-scan-exclusive.cu",
    "solutions/wrong/cg-scan-sync-in-warp0.cu",
  },
  hints = {
    "The structure is block-scan's; only the words change: v = cg::inclusive_scan(warp, v); "
      .. "the last lane (lane == 31) stores warp_sums[w]; block.sync();",
    "if (w == 0) { int s = (lane < warps) ? warp_sums[lane] : 0; int sum = cg::reduce(warp, s, "
      .. "cg::plus<int>()); s = cg::inclusive_scan(warp, s); if (lane < warps) warp_sums[lane] = s; "
      .. "if (lane == 0) totals[blockIdx.x] = sum; }  then block.sync() for EVERY thread, and "
      .. "if (w > 0) v += warp_sums[w - 1];",
  },
  hints_zh = {
    "结构和 block-scan 一样，只是换了说法：v = cg::inclusive_scan(warp, v); 最后一个 lane（lane == 31）"
      .. "存 warp_sums[w]；block.sync();",
    "if (w == 0) { int s = (lane < warps) ? warp_sums[lane] : 0; int sum = cg::reduce(warp, s, "
      .. "cg::plus<int>()); s = cg::inclusive_scan(warp, s); if (lane < warps) warp_sums[lane] = s; "
      .. "if (lane == 0) totals[blockIdx.x] = sum; }  然后让所有线程都执行 block.sync()，再 "
      .. "if (w > 0) v += warp_sums[w - 1];",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "weaken guard < to <=", line = "if (lane < warps)",
      why = "lanes at or past warps scan zeros, so they would store the block total into warp_sums slots nobody reads" },
    { mutation = "drop guard", line = "if (lane < warps)",
      why = "lanes at or past warps scan zeros, so they would store the block total into warp_sums slots nobody reads" },
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local n = t:param("n", on_gpu and (1 << 20) + 3 or 100003)
    local x = gpu.array("i32", n, "in"):random{ lo = -50, hi = 50, seed = 121 }
    local k = t:kernel("block_scan_cg")
    for _, block in ipairs{ 256, 96 } do
      local blocks = (n + block - 1) // block
      -- the references before the launch (x is not read back): a running sum
      -- that restarts at every block, and each block's total
      local want, want_totals = ref.scan(x, { segment = block }), ref.block_sums(x, block)
      local out = gpu.array("i32", n, "out")
      local totals = gpu.array("i32", blocks, "totals")
      k:launch{ grid = blocks, block = block, args = { x, out, totals, gpu.i32(n) } }
      local ok = t:expect_equal(out, want, { name = string.format("out (blocks of %d)", block) })
        and t:expect_equal(totals, want_totals,
                           { name = string.format("totals (blocks of %d)", block) })
      if not ok then return end
    end
  end,
}
