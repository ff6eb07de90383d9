-- stencil-1d: a radius-3 weighted stencil with a shared-memory halo. Run for
-- n = 100003 (a last block of 35 elements) and for n = 2 (smaller than the
-- radius), values in [-2, 2); zero outside the array.
return {
  id = "stencil-1d",
  title = "1-D stencil with a halo",
  title_zh = "带光环（halo）的一维模板计算",
  source = "stencil-1d.cu",
  solution = "solutions/stencil-1d.cu",
  wrong = {
    "solutions/wrong/stencil-1d-no-halo.cu",
    "solutions/wrong/stencil-1d-no-sync.cu",
  },
  hints = {
    "The tile is s[BLOCK + 2R]: element g of the block goes to s[t + R]. The R elements "
      .. "before the block go to s[0..R-1] and the R after it to s[R + BLOCK ..]; let the "
      .. "threads t < R load one of each. Outside 0 .. n-1 store 0.",
    "if (t < R) { s[t] = g - R >= 0 ? in[g - R] : 0.0f; s[t + BLOCK + R] = g + BLOCK < n ? "
      .. "in[g + BLOCK] : 0.0f; } then __syncthreads(); before anyone reads s.",
  },
  hints_zh = {
    "分块是 s[BLOCK + 2R]：本线程块的元素 g 放在 s[t + R]。线程块前面的 R 个元素放在 s[0..R-1]，后面的 R 个放在 s[R + BLOCK ..]；让 t < R 的线程各装一个。0 .. n-1 之外存 0。",
    "if (t < R) { s[t] = g - R >= 0 ? in[g - R] : 0.0f; s[t + BLOCK + R] = g + BLOCK < n ? in[g + BLOCK] : 0.0f; } 然后在任何线程读 s 之前 __syncthreads();",
  },
  -- verify --mutants: a mutant of the solution that is still correct.
  mutants_equivalent = {
    { mutation = "weaken guard >= to >", line = "s[t] = left >= 0 ? in[left] : 0.0f;",
      why = "left = g - R is 0 only for thread R of block 0, which loads no halo (t < R)" },
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local R, block = 3, 128
    local k = t:kernel("stencil")
    -- 257 = two blocks and one: a block's right halo starts exactly at n, so
    -- a halo guard that lets right == n through reads past the end.
    local sizes = { 2, 257, t:param("n", on_gpu and (1 << 20) + 35 or 100003) }
    for _, n in ipairs(sizes) do
      local x = gpu.array("f32", n, "in"):random{ lo = -2, hi = 2, seed = n }
      local out = gpu.array("f32", n, "out")
      k:launch{ grid = (n + block - 1) // block, block = block, args = { x, out, gpu.i32(n) } }
      -- sum over j = -R..R of (R + 1 - |j|) * x[i + j], 0 outside the array, / 16
      local weights = {}
      for j = -R, R do weights[#weights + 1] = R + 1 - math.abs(j) end
      local want = ref.window(x, R, weights, { scale = 1 / 16 })
      t:expect_close(out, want, { rel = 1e-5, abs = 1e-5, name = string.format("out (n = %d)", n) })
    end
  end,
}
