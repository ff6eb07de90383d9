-- smoothstep: two __device__ helpers (clampf, smoothstep) called from a
-- given kernel, on 30011 values in [-3, 3) with edges e0 = -1.25, e1 = 1.5,
-- so that values below, inside and above the ramp all occur.
return {
  id = "smoothstep",
  title = "__device__ helpers: smoothstep",
  title_zh = "__device__ 辅助函数：smoothstep",
  source = "smoothstep.cu",
  solution = "solutions/smoothstep.cu",
  wrong = {
    "solutions/wrong/smoothstep-no-clamp.cu",
    "solutions/wrong/smoothstep-swapped-args.cu",
  },
  hints = {
    "clampf is one line with the built-in fminf and fmaxf: the larger of v and lo, then "
      .. "the smaller of that and hi.",
    "float t = clampf((x - e0) / (e1 - e0), 0.0f, 1.0f); return t * t * (3.0f - 2.0f * t); "
      .. "Without the clamp the cubic keeps going outside [e0, e1].",
  },
  hints_zh = {
    "clampf 用内置的 fminf 和 fmaxf 一行就能写完：先取 v 和 lo 中较大的，再取它和 hi 中较小的。",
    "float t = clampf((x - e0) / (e1 - e0), 0.0f, 1.0f); return t * t * (3.0f - 2.0f * t); 不截断的话，三次曲线在 [e0, e1] 之外会继续弯下去或翘上来。",
  },
  run = function(t)
    local n = t:param("n", 30011)
    local e0, e1 = -1.25, 1.5
    local x = gpu.array("f32", n, "in"):random{ lo = -3, hi = 3, seed = 81 }
    local out = gpu.array("f32", n, "out")
    t:kernel("tone_map"):launch{ grid = (n + 127) // 128, block = 128,
                                 args = { x, out, gpu.f32(e0), gpu.f32(e1), gpu.i32(n) } }
    local want = ref.map(x, function(v)
      local s = (v - e0) / (e1 - e0)
      s = math.min(math.max(s, 0.0), 1.0)
      return s * s * (3 - 2 * s)
    end, "f32")
    t:expect_close(out, want, { rel = 1e-5, abs = 1e-6, name = "out" })
  end,
}
