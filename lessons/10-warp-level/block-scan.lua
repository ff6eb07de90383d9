-- block-scan: each block's inclusive scan, built from warp scans. Integers in
-- [-50, 50] (so sums are exact); n = 100003 on the emulator (partial last
-- block), 2^20 + 3 on a GPU; blocks of 256, 1024 (32 warps: warp 0 scans a
-- full warp of totals) and 96 threads.
return {
  id = "block-scan",
  title = "Block-wide inclusive scan from warp scans",
  title_zh = "由 warp 扫描搭出线程块级的包含扫描",
  source = "block-scan.cu",
  solution = "solutions/block-scan.cu",
  wrong = {
    "solutions/wrong/block-scan-no-lane-test.cu",
    "solutions/wrong/block-scan-no-second-sync.cu",
    "solutions/wrong/block-scan-own-total.cu",
  },
  hints = {
    "Warp level: for (int d = 1; d < 32; d *= 2) { int below = __shfl_up_sync(FULL_MASK, v, d); "
      .. "if (lane >= d) v += below; }  Call the shuffle in every lane, add only where lane >= d.",
    "Block level: if (lane == 31) warp_sums[warp] = v; __syncthreads(); warp 0 scans "
      .. "warp_sums[lane] (0 for lane >= warps) with warp_inclusive_scan and writes it back; "
      .. "__syncthreads(); then if (warp > 0) v += warp_sums[warp - 1];",
    "Both barriers are needed: the first so warp 0 sees every warp's total, the second so no "
      .. "warp reads warp_sums before warp 0 has finished rewriting it.",
  },
  hints_zh = {
    "warp 级：for (int d = 1; d < 32; d *= 2) { int below = __shfl_up_sync(FULL_MASK, v, d); "
      .. "if (lane >= d) v += below; }  每个 lane 都要调用 shuffle，只有 lane >= d 时才相加。",
    "线程块级：if (lane == 31) warp_sums[warp] = v; __syncthreads(); warp 0 用 warp_inclusive_scan "
      .. "扫描 warp_sums[lane]（lane >= warps 时取 0）并写回；__syncthreads(); 然后 "
      .. "if (warp > 0) v += warp_sums[warp - 1];",
    "两道屏障都不能少：第一道保证 warp 0 看到每个 warp 的总和，第二道保证 warp 0 改写完之前"
      .. "没有 warp 去读 warp_sums。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "loop bound < to <=", line = "for (int d = 1; d < 32; d *= 2) {",
      why = "shfl_up by 32 happens only for lane >= 32, which no lane is: the extra step adds nothing" },
    { mutation = "weaken guard < to <=", line = "if (lane < warps)",
      why = "lanes at or past warps scan zeros, so they would store the block total into warp_sums slots nobody reads" },
    { mutation = "drop guard", line = "if (lane < warps)",
      why = "lanes at or past warps scan zeros, so they would store the block total into warp_sums slots nobody reads" },
    { mutation = "drop __syncthreads()", line = "a previous call may still be reading warp_sums",
      why = "block_scan calls block_inclusive_scan once, so no earlier call can still be reading warp_sums (scan-array, which calls it in a loop, needs it)" },
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local n = t:param("n", on_gpu and (1 << 20) + 3 or 100003)
    local x = gpu.array("i32", n, "in"):random{ lo = -50, hi = 50, seed = 101 }
    local k = t:kernel("block_scan")
    for _, block in ipairs{ 256, 1024, 96 } do
      -- The CPU reference (before the launch: x is not read back): a running
      -- sum that restarts at every block.
      local want = ref.scan(x, { segment = block })
      local out = gpu.array("i32", n, "out")
      k:launch{ grid = (n + block - 1) // block, block = block, args = { x, out, gpu.i32(n) } }
      if not t:expect_equal(out, want, { name = string.format("out (blocks of %d)", block) }) then
        return
      end
    end
  end,
}
