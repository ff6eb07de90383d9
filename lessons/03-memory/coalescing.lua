-- coalescing: the same element-wise kernel with two assignments of elements
-- to threads. n = 100003 on the emulator (the last block is partial), 2^26 + 3
-- on a GPU; 8 elements per thread. Targets: <= 4 sectors per request (a warp
-- touching 32 consecutive floats) on the emulator, 65% of the device-to-device
-- copy bandwidth on a GPU. The copy bandwidth is cudaMemcpy's (4236 GB/s on
-- the H200): the solution measured 74% of it, the starter 21%, a float4
-- kernel 93% (the stretch goal is 85%).
return {
  id = "coalescing",
  title = "Coalesced access: who takes which element",
  title_zh = "合并访问：哪个线程取哪个元素",
  source = "coalescing.cu",
  solution = "solutions/coalescing.cu",
  wrong = {
    "solutions/wrong/coalescing-warp-stride.cu",
  },
  hints = {
    "Memory is fetched in 32-byte sectors. At one step of the loop, the 32 threads of a "
      .. "warp should touch 32 neighbouring floats (4 sectors), not 32 floats that are 8 "
      .. "apart (32 sectors).",
    "int first = blockIdx.x * blockDim.x * PER_THREAD + threadIdx.x; and in the loop "
      .. "i = first + k * blockDim.x; the block still covers its blockDim.x * 8 elements.",
  },
  hints_zh = {
    "内存以 32 字节的扇区为单位读取。循环的每一步，一个 warp 的 32 个线程应该访问 32 个相邻的 float（4 个扇区），而不是 32 个相隔 8 个元素的 float（32 个扇区）。",
    "int first = blockIdx.x * blockDim.x * PER_THREAD + threadIdx.x; 循环里 i = first + k * blockDim.x; 线程块仍然覆盖它的 blockDim.x * 8 个元素。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "loop bound < to <=", line = "for (int k = 0; k < PER_THREAD; k++) {",
      why = "the extra step's element, first + PER_THREAD * blockDim.x, belongs to the next block, whose thread writes the same value there (or it is past n, and guarded)" },
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local n = t:param("n", on_gpu and (1 << 26) + 3 or 100003)
    local per_thread, block = 8, 256
    local x = gpu.array("f32", n, "x"):random{ lo = -3, hi = 3, seed = 51 }
    local y = gpu.array("f32", n, "y")
    local s = -1.75
    local launch = { grid = (n + block * per_thread - 1) // (block * per_thread), block = block,
                     args = { x, y, gpu.f32(s), gpu.i32(n) } }
    local k = t:kernel("scale")
    k:launch(launch)
    t:expect_close(y, ref.scale(x, s), { rel = 1e-6, abs = 1e-7, name = "y" })

    local m = t:emu_metrics()
    if m then
      local spr = m.sectors_per_request or m.global_sectors / math.max(1, m.global_requests)
      t:log("%.2f sectors per request (target: at most 4, i.e. 32 consecutive floats per warp)", spr)
      t:expect(spr <= 4.0, string.format("each load or store of a warp touches %.1f sectors on "
        .. "average; the target is at most 4: neighbouring threads must take neighbouring "
        .. "elements", spr))
    else
      local ms = k:time(launch)
      local gbs, fraction = t:report_bandwidth{ bytes = 2 * 4 * n, ms = ms }
      if fraction then
        t:log("%.3f ms, %.0f GB/s = %.0f%% of the device-to-device copy bandwidth (target: 65%%)",
              ms, gbs, 100 * fraction)
        t:expect(fraction >= 0.65, string.format("%.0f%% of the copy bandwidth; the target "
          .. "is 65%%", 100 * fraction))
        t:stretch(fraction >= 0.85, string.format("stretch goal: 85%% of the copy bandwidth "
          .. "(you have %.0f%%); wider loads (float4) help", 100 * fraction))
      end
    end
  end,
}
