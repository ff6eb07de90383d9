-- fuse: two memory-bound elementwise kernels (given) and their fusion (the
-- learner's). n = 100003 on the emulator, 2^26 + 1 on a GPU; x in [-2, 2), so
-- about half the outputs are clamped to 0. Targets: 2 global requests per
-- warp and element group instead of 4 (emulator); the fused kernel at least
-- 1.6x as fast as the two kernels together (GPU).
return {
  id = "fuse",
  title = "Fuse two elementwise kernels",
  title_zh = "把两个逐元素核函数融合成一个",
  source = "fuse.cu",
  solution = "solutions/fuse.cu",
  wrong = {
    "solutions/wrong/fuse-no-guard.cu",
    "solutions/wrong/fuse-wrong-order.cu",
  },
  hints = {
    "Do both steps in the same thread: the value a * x[i] + b that scale_shift stored in y[i] "
      .. "can stay in a local variable.",
    "int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float y = a * x[i] + b; "
      .. "z[i] = fmaxf(y, 0.0f); }  One load and one store per element.",
  },
  hints_zh = {
    "在同一个线程里做完两步：scale_shift 存进 y[i] 的那个值 a * x[i] + b，完全可以留在一个局部变量里。",
    "int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { float y = a * x[i] + b; "
      .. "z[i] = fmaxf(y, 0.0f); }  每个元素读一次、写一次。",
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local n = t:param("n", on_gpu and (1 << 26) + 1 or 100003)
    local a, b = 1.5, -0.25
    local x = gpu.array("f32", n, "x"):random{ lo = -2, hi = 2, seed = 191 }
    local y = gpu.array("f32", n, "y")
    local z2 = gpu.array("f32", n, "z_two_kernels")
    local z = gpu.array("f32", n, "z")
    local grid = (n + 255) // 256
    local k1, k2, kf = t:kernel("scale_shift"), t:kernel("relu"), t:kernel("scale_shift_relu")
    local l1 = { grid = grid, block = 256, args = { x, y, gpu.f32(a), gpu.f32(b), gpu.i32(n) } }
    local l2 = { grid = grid, block = 256, args = { y, z2, gpu.i32(n) } }
    local lf = { grid = grid, block = 256, args = { x, z, gpu.f32(a), gpu.f32(b), gpu.i32(n) } }
    k1:launch(l1)
    local m1 = t:emu_metrics()
    k2:launch(l2)
    local m2 = t:emu_metrics()
    kf:launch(lf)
    local mf = t:emu_metrics()
    -- z2 (the two given kernels) is the reference: the same float operations.
    if not t:expect_close(z, z2, { rel = 1e-6, abs = 1e-7, name = "z" }) then return end

    if mf then
      local two = m1.global_requests + m2.global_requests
      local per_group = mf.global_requests / ((n + 31) // 32)
      t:log("global requests: %d for the two kernels, %d fused (%.2f per 32 elements; target: 2)",
            two, mf.global_requests, per_group)
      t:expect(per_group <= 2.01, string.format("the fused kernel makes %.2f global requests per "
        .. "32 elements; the target is 2 (read x, write z): keep a * x + b in a register", per_group))
    else
      local ms1, ms2, msf = k1:time(l1), k2:time(l2), kf:time(lf)
      if ms1 and ms2 and msf then
        local gbs, fraction = t:report_bandwidth{ bytes = 8 * n, ms = msf }
        t:log("scale_shift %.3f ms + relu %.3f ms = %.3f ms; fused %.3f ms (%.0f GB/s, %.0f%% "
              .. "of the copy bandwidth): %.2fx as fast (target: 1.6x)", ms1, ms2, ms1 + ms2,
              msf, gbs, 100 * (fraction or 0), (ms1 + ms2) / msf)
        t:metric("speedup_fused", (ms1 + ms2) / msf, "x")
        t:expect((ms1 + ms2) / msf >= 1.6, string.format("the fused kernel is %.2fx as fast as "
          .. "the two; the target is 1.6x", (ms1 + ms2) / msf))
      end
    end
  end,
}
