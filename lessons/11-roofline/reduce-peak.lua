-- reduce-peak: the sum of a float array at the speed of memory. Emulator:
-- n = 90515 integers 1..8 stored as floats (every partial sum is exact, so
-- the check is exact and a missing tail element shows; n / 4 - 3 * 2048 is
-- 100 past a multiple of 4 * 2048, so the four-load loop's bound is met
-- exactly by thread 100), 8 blocks of 256;
-- targets: about n / 128 global requests (16-byte loads) and one atomic per
-- block. GPU: the exact check on n = 1000003, then n = 2^29 floats (2 GiB), 8 blocks
-- of 256 per SM; target 95% of the device-to-device copy bandwidth (bytes read
-- per second against the copy's bytes read + written per second).
return {
  id = "reduce-peak",
  title = "Reduction at the speed of memory",
  title_zh = "以内存的速度做归约",
  source = "reduce-peak.cu",
  solution = "solutions/reduce-peak.cu",
  wrong = {
    "solutions/wrong/reduce-peak-no-tail.cu",
    "solutions/wrong/reduce-peak-float4-index.cu",
    "solutions/wrong/reduce-peak-no-sync.cu",
  },
  timeout = 60,
  hints = {
    "const float4 *x4 = reinterpret_cast<const float4 *>(x); int n4 = n / 4; the grid-stride "
      .. "loop runs over i < n4 and adds p.x + p.y + p.z + p.w; afterwards the threads with "
      .. "4 * n4 + global index < n add one of the last floats.",
    "Unroll: for (; i + 3 * stride < n4; i += 4 * stride) { float4 p = x4[i], q = x4[i + stride], "
      .. "r = x4[i + 2 * stride], s = x4[i + 3 * stride]; ... four accumulators ... } and a "
      .. "plain loop for what is left.",
    "One atomic per block: __shared__ float warp_totals[32]; if (lane == 0) warp_totals[warp] = v; "
      .. "__syncthreads(); if (warp == 0) { v = lane < blockDim.x / 32 ? warp_totals[lane] : 0; "
      .. "v = warp_sum(v); if (lane == 0) atomicAdd(sum, v); }",
  },
  hints_zh = {
    "const float4 *x4 = reinterpret_cast<const float4 *>(x); int n4 = n / 4; 网格跨步循环遍历 i < n4，"
      .. "累加 p.x + p.y + p.z + p.w；之后，满足 4 * n4 + 全局索引 < n 的线程各加一个剩下的 float。",
    "展开：for (; i + 3 * stride < n4; i += 4 * stride) { float4 p = x4[i], q = x4[i + stride], "
      .. "r = x4[i + 2 * stride], s = x4[i + 3 * stride]; ……四个累加器…… } 剩下的部分用普通循环。",
    "每个线程块一次原子操作：__shared__ float warp_totals[32]; if (lane == 0) warp_totals[warp] = v; "
      .. "__syncthreads(); if (warp == 0) { v = lane < blockDim.x / 32 ? warp_totals[lane] : 0; "
      .. "v = warp_sum(v); if (lane == 0) atomicAdd(sum, v); }",
  },
  run = function(t)
    local dev = t:device()
    local on_gpu = dev.backend ~= "emu"
    local block = 256
    local blocks = on_gpu and (dev.sm_count or 100) * 8 or 8
    local k = t:kernel("reduce_sum")

    -- Exact check: integers 1..8 as floats; every partial sum stays below 2^24.
    local n = on_gpu and 1000003 or t:param("n", 90515)
    local ints = gpu.array("i32", n, "ints"):random{ lo = 1, hi = 8, seed = 161 }
    local x = ref.cast(ints, "f32"):named("x")
    local want = ref.sum(ints)
    local sum = gpu.array("f32", 1, "sum")
    local launch = { grid = blocks, block = block, args = { x, sum, gpu.i32(n) } }
    k:launch(launch)
    t:log("n = %d: sum = %.1f, CPU: %d", n, sum[0], want)
    if sum[0] == want then
      t:expect(true, string.format("sum of %d elements: %d, exactly the CPU's", n, want))
    else
      t:fail(string.format("sum of %d elements: got %.1f, want %d (off by %.1f: look for "
        .. "elements added twice or never)", n, sum[0], want, sum[0] - want))
      return
    end

    local m = t:emu_metrics()
    if m then
      local warps = blocks * block // 32
      local limit = (n + 127) // 128 + 4 * warps
      t:log("%d global requests (16-byte loads would need about %d); %d atomics for %d blocks",
            m.global_requests, (n + 127) // 128, m.atomics, blocks)
      t:expect(m.global_requests <= limit, string.format("%d global memory requests; the target "
        .. "is at most %d: load float4s, 16 bytes per thread and request", m.global_requests, limit))
      t:expect(m.atomics <= blocks, string.format("%d atomic operations for %d blocks; the target "
        .. "is one per block: combine the warps in shared memory first", m.atomics, blocks))
      return
    end

    -- The measured run.
    local big = t:param("n", 1 << 29)
    local xb = gpu.array("f32", big, "x"):random{ lo = 0, hi = 1, seed = 162 }
    local sb = gpu.array("f32", 1, "sum")
    local lb = { grid = blocks, block = block, args = { xb, sb, gpu.i32(big) } }
    local wb = ref.sum(xb)   -- before the launch: 2 GiB never read back from the device
    k:launch(lb)
    t:expect(math.abs(sb[0] - wb) <= 1e-5 * wb, string.format("sum of %d elements: got %.1f, "
      .. "want %.1f", big, sb[0], wb))
    local ms = k:time(lb)
    local gbs, fraction = t:report_bandwidth{ bytes = 4 * big, ms = ms }
    if fraction then
      t:log("%d floats in %.3f ms: %.0f GB/s read = %.1f%% of the device-to-device copy "
            .. "bandwidth (target: 95%%)", big, ms, gbs, 100 * fraction)
      t:expect(fraction >= 0.95, string.format("%.1f%% of the copy bandwidth; the target is 95%%",
        100 * fraction))
      t:stretch(fraction >= 1.10, string.format("stretch goal: 110%% of the copy bandwidth "
        .. "(you have %.1f%%): a reduction only reads, so it can beat a copy", 100 * fraction))
    end
  end,
}
