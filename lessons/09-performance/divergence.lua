-- divergence: two compute-heavy paths chosen by element parity, given as a
-- divergent kernel; the learner hands out elements so warps stay uniform.
-- Emulator: n = 4099 (odd: one more even element than odd), ITERS = 64;
-- target at most 4 divergent branches in all (the warp at the boundary, the
-- last one, and a little slack). GPU: n = 2^24 + 1, ITERS = 512; target at least 1.5x as fast
-- as the divergent kernel.
return {
  id = "divergence",
  title = "Divergence inside a warp, and how to avoid it",
  title_zh = "warp 内的分歧，以及如何避免",
  source = "divergence.cu",
  solution = "solutions/divergence.cu",
  wrong = {
    "solutions/wrong/divergence-thread-parity.cu",
    "solutions/wrong/divergence-odd-offset.cu",
  },
  timeout = 30,
  hints = {
    "A warp is 32 consecutive threads. If the branch depends on something that is the same "
      .. "for 32 consecutive threads (like t < half), the warp takes one side only.",
    "int half = (n + 1) / 2; if (t < half) { int i = 2 * t; y[i] = path_even(x[i]); } "
      .. "else { int i = 2 * (t - half) + 1; if (i < n) y[i] = path_odd(x[i]); }",
  },
  hints_zh = {
    "一个 warp 是连续的 32 个线程。如果分支条件对连续 32 个线程都相同（比如 t < half），整个 warp 就只走一边。",
    "int half = (n + 1) / 2; if (t < half) { int i = 2 * t; y[i] = path_even(x[i]); } "
      .. "else { int i = 2 * (t - half) + 1; if (i < n) y[i] = path_odd(x[i]); }",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "loop bound < to <=", line = "for (int k = 0; k < ITERS; k++)",
      why = "path_odd's v = v*v/2 - 1/4 has reached its fixed point in float after ITERS steps: one more changes nothing" },
  },
  run = function(t)
    local on_gpu = t:device().backend ~= "emu"
    local n = t:param("n", on_gpu and (1 << 24) + 1 or 4099)
    local iters = on_gpu and 512 or 64
    local opts = { defines = { ITERS = iters } }
    local x = gpu.array("f32", n, "x"):random{ lo = -1, hi = 1, seed = 211 }
    local y_div = gpu.array("f32", n, "y_divergent")
    local y = gpu.array("f32", n, "y")
    local grid = (n + 255) // 256
    local kd, ku = t:kernel("eval_divergent", opts), t:kernel("eval_uniform", opts)
    local ld = { grid = grid, block = 256, args = { x, y_div, gpu.i32(n) } }
    local lu = { grid = grid, block = 256, args = { x, y, gpu.i32(n) } }
    kd:launch(ld)
    local md = t:emu_metrics()
    ku:launch(lu)
    local mu = t:emu_metrics()

    -- The CPU reference, in double: every element on the emulator, a sample on a GPU.
    local function want_at(i)
      local v = x[i]
      if i % 2 == 0 then
        for _ = 1, iters do v = v * 0.99 + 0.01 end
      else
        for _ = 1, iters do v = v * v * 0.5 - 0.25 end
      end
      return v
    end
    local step = on_gpu and 4099 or 1
    local bad, first, count = 0, nil, 0
    for i = 0, n - 1, step do
      count = count + 1
      if not (math.abs(y[i] - want_at(i)) <= 1e-5) then
        bad = bad + 1
        first = first or i
      end
    end
    if bad > 0 then
      t:fail(string.format("y: %d of %d checked elements wrong; first y[%d] = %.7g, want %.7g "
        .. "(an %s element)", bad, count, first, y[first], want_at(first),
        first % 2 == 0 and "even" or "odd"))
      return
    end
    t:expect(true, string.format("y: %d checked elements match the CPU", count))
    if not t:expect_close(y, y_div, { rel = 1e-6, abs = 1e-6, name = "y (same as eval_divergent)" }) then
      return
    end

    if mu then
      t:log("divergent branches: %d in eval_divergent, %d in eval_uniform (target: at most 4); "
            .. "active lanes per instruction: %.1f vs %.1f of 32", md.divergent_branches,
            mu.divergent_branches, md.active_lanes_avg, mu.active_lanes_avg)
      t:log("(eval_uniform reads and writes with a stride of 2, so the emulator warns about "
            .. "uncoalesced access: here a good trade, the loops cost far more than the loads)")
      t:expect(mu.divergent_branches <= 4, string.format("eval_uniform has %d divergent branches; "
        .. "the target is at most 4: make the branch the same for all 32 lanes of a warp",
        mu.divergent_branches))
    else
      local ms_d, ms_u = kd:time(ld), ku:time(lu)
      if ms_d and ms_u then
        t:log("eval_divergent %.3f ms, eval_uniform %.3f ms: %.2fx as fast (target: 1.5x)",
              ms_d, ms_u, ms_d / ms_u)
        t:metric("speedup_uniform", ms_d / ms_u, "x")
        t:expect(ms_d / ms_u >= 1.5, string.format("eval_uniform is %.2fx as fast as "
          .. "eval_divergent; the target is 1.5x", ms_d / ms_u))
      end
    end
  end,
}
