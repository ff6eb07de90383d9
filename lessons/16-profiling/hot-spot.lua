-- hot-spot: three passes over a W x W matrix, one of them (scale_cols)
-- walking down columns: neighbouring threads W floats apart, 32 sectors
-- per warp request instead of 4. The program runs the slow pass as it was
-- first (scale_cols_orig, the baseline the learner leaves alone), then the
-- three passes. The learner predicts the hot kernel (PREDICT_HOT) and
-- fixes scale_cols. Checks: the values (CPU reference: min(2(x + row),
-- 4096)), the prediction against the timeline (the original pass's time
-- against the other two), and the measured speedup of scale_cols over the
-- baseline (at least SPEEDUP; timeline durations, modeled on the emulator
-- from the sectors the emulator counted). The emulator's sectors per
-- request of both are shown. The verdict is those checks alone. After it
-- (t:program's after =; never when grading), on a GPU with Nsight Compute
-- the program runs again under ncu and its sectors per request of
-- scale_cols (l1tex__t_sectors / l1tex__t_requests of global loads; 4 is
-- ideal, the original takes 32, 8 at most is coalesced enough) are logged,
-- saying plainly when ncu disagrees with the verdict.

local function short(name) return (name or ""):match("^([%w_]+)") or name end

-- the sum the program must print
local function want_sum(w)
  local sx = function(n) return hostcheck.ramp_sum(n) / 2 end
  local total = 0
  for r = 0, w - 1 do
    if 2 * r >= 4096 then total = total + 4096 * w
    else total = total + 2 * (sx((r + 1) * w) - sx(r * w)) + 2 * r * w end
  end
  return total
end

local function spr(k)
  local tot = k and k.metrics and k.metrics.totals
  if not tot or not tot.global_requests or tot.global_requests == 0 then return nil end
  return tot.global_sectors / tot.global_requests
end

-- Nsight Compute's global-load sectors and requests (sectors / requests: 4 when a warp's 32 floats are adjacent)
local SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
local REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
local function ncu_spr(m)
  local s, q = m and m[SECTORS], m and m[REQUESTS]
  if type(s) ~= "number" or type(q) ~= "number" or q == 0 then return nil end
  return s / q
end

return {
  id = "hot-spot",
  kind = "program",
  title = "Hunt the hot spot: profile, predict, fix",
  title_zh = "找出热点：分析、预测、修正",
  source = "hot-spot.cu",
  solution = "solutions/hot-spot.cu",
  wrong = {
    "solutions/wrong/hot-spot-predicts-clamp.cu",
    "solutions/wrong/hot-spot-still-strided.cu",
  },
  timeout = 120,
  hints = {
    "On the timeline the three passes do the same amount of arithmetic on the same matrix, yet "
      .. "one takes several times longer. Look at which index each thread's x coordinate moves: "
      .. "for a warp's 32 threads to share memory sectors, neighbouring threads must touch "
      .. "neighbouring addresses.",
    "The hot spot is scale_cols: set #define PREDICT_HOT \"scale_cols\" and map threadIdx.x to "
      .. "the column, as offset_rows does: int c = blockIdx.x * blockDim.x + threadIdx.x, r = "
      .. "blockIdx.y; if (c < w) m[(size_t)r * w + c] *= 2.0f;",
  },
  hints_zh = {
    "时间线上，三个步骤在同一个矩阵上做同样多的运算，却有一个慢了好几倍。看看每个线程的 x 坐标移动的是"
      .. "哪个下标：要让一个线程束的 32 个线程共用内存扇区，相邻线程就必须访问相邻的地址。",
    "热点是 scale_cols：设 #define PREDICT_HOT \"scale_cols\"，并像 offset_rows 那样把 threadIdx.x "
      .. "映射到列：int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y; "
      .. "if (c < w) m[(size_t)r * w + c] *= 2.0f;",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "weaken guard < to <=", line = "if (c < w) m[(size_t)r * w + c] += (float)r;",
      why = "the program fixes its own size, W = 256 columns, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "weaken guard < to <=", line = "if (c < w) m[(size_t)r * w + c] = fminf(",
      why = "the program fixes its own size, W = 256 columns, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "if (c < w) m[(size_t)r * w + c] = fminf(",
      why = "the program fixes its own size, W = 256 columns, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "if (c < w) m[(size_t)r * w + c] += (float)r;",
      why = "the program fixes its own size, W = 256 columns, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "weaken guard < to <=", line = "if (r < w) m[(size_t)r * w + c] *= 2.0f;",
      why = "the program fixes its own size, W = 256 rows, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "if (r < w) m[(size_t)r * w + c] *= 2.0f;",
      why = "the program fixes its own size, W = 256 rows, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "weaken guard < to <=", line = "if (c < w) m[(size_t)r * w + c] *= 2.0f;",
      why = "the program fixes its own size, W = 256 columns, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
    { mutation = "drop guard", line = "if (c < w) m[(size_t)r * w + c] *= 2.0f;",
      why = "the program fixes its own size, W = 256 columns, a whole number of 256-thread blocks: no thread is past the end, so this guard is never false (the kernel exercises are where tails are checked)" },
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    local unit = on_gpu and "" or " (modeled)"
    local w = t:param("w", on_gpu and 4096 or 512)
    local speedup = t:param("speedup", 2)
    -- the timeline's verdict on scale_cols, for what ncu says after it (nil: not reached)
    local fast
    -- After the verdict (Nsight Compute's own start is ~2 s on the H200, and a class's grading
    -- runs none: one profiled process per GPU at a time), a second run under ncu counts the
    -- sectors of every load request. On the emulator, or without ncu, prof.available is false.
    local function after(prof)
      if not prof.available then
        if on_gpu then t:log("ncu did not run (%s): sectors per request were not measured", prof.reason) end
        return
      end
      local m = {}
      for _, kp in ipairs(prof.kernels) do m[kp.name] = kp.metrics end
      local n0, n1 = ncu_spr(m.scale_cols_orig), ncu_spr(m.scale_cols)
      if not n1 then t:log("ncu ran but did not report scale_cols's load sectors") return end
      local coalesced = n1 <= 8
      t:log("ncu: scale_cols's loads take %.1f sectors per request (the original's: %s; 4 is a warp reading "
        .. "one 128-byte line, 32 a sector per thread)%s", n1, n0 and string.format("%.1f", n0) or "?",
        coalesced and fast == false and ": coalesced, but the timeline's speedup fell short (the verdict's check)"
        or not coalesced and fast and ": ncu disagrees with the verdict: neighbouring threads still read "
          .. "addresses far apart; map threadIdx.x to the column"
        or not coalesced and ": neighbouring threads still read addresses far apart; map threadIdx.x to the column"
        or "")
    end
    local r = t:program{ defines = { W = w }, profile = "ncu",
      metrics = { "gpu__time_duration.sum", SECTORS, REQUESTS }, after = after }
    if on_gpu and t:grading() then
      t:log("graded without Nsight Compute (one profiled process per GPU at a time): the check is the "
        .. "timeline's speedup")
    end
    if not hostcheck.expect_values(t, r, { want_sum(w) }) then return end
    local dur, rec = {}, {}
    for _, e in ipairs(t:timeline().events) do
      if e.kind == "kernel" then dur[short(e.name)] = e.dur_us end
    end
    for _, k in ipairs(r.kernels) do rec[short(k.name)] = k end
    if not (dur.scale_cols_orig and dur.scale_cols and dur.offset_rows and dur.clamp_all) then
      t:fail("the timeline lacks one of scale_cols_orig, offset_rows, scale_cols and clamp_all: keep "
        .. "main() as it is")
      return
    end
    -- the profile as it was: the original scale_cols against the other two
    local before = { offset_rows = dur.offset_rows, scale_cols = dur.scale_cols_orig, clamp_all = dur.clamp_all }
    local hot
    for k, d in pairs(before) do if not hot or d > before[hot] then hot = k end end
    local profile = string.format("offset_rows %.1f us, scale_cols %.1f us, clamp_all %.1f us%s",
      before.offset_rows, before.scale_cols, before.clamp_all, unit)
    local predicted = r.stdout:match("PREDICT: hot=([^\n]*)")
    if not predicted or predicted == "?" then
      t:fail("PREDICT_HOT is not set: read the kernels' times (the timeline) and name the slowest pass")
      return
    end
    if predicted ~= hot then
      t:fail(string.format("you predicted %s, but the profile says %s: %s", predicted, hot, profile))
      return
    end
    local s0, s1 = spr(rec.scale_cols_orig), spr(rec.scale_cols)
    local sectors = s0 and s1 and string.format("; %.1f sectors per request before, %.1f after", s0, s1) or ""
    local gain = dur.scale_cols_orig / math.max(dur.scale_cols, 1e-9)
    fast = gain >= speedup
    t:expect(gain >= speedup, string.format("scale_cols took %.1f us%s, the original %.1f us: %.1fx faster "
      .. "(at least %gx wanted)%s", dur.scale_cols, unit, dur.scale_cols_orig, gain, speedup, sectors))
  end,
}
