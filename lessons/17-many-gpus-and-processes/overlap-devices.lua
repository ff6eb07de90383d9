-- overlap-devices: the work split over the devices as in split-devices,
-- but the host must give every device its work before waiting for any
-- (pinned host memory, a stream per device, cudaMemcpyAsync, one wait per
-- device at the end), so the devices compute at the same time. Checks on
-- the timeline (modeled on the emulator, with one host clock for all
-- devices; CUPTI's on a GPU): every device ran a kernel, and each device's
-- busy span (copies and kernel) overlaps another device's; the values. On a one-GPU machine there
-- is nothing to overlap: the calls and values are checked and it says so.

local function ends(e) return e.start_us + e.dur_us end

-- why the devices took turns, from the program's calls and timeline
local function why_serial(r, tl)
  for _, e in ipairs(tl.events) do
    if (e.kind == "h2d" or e.kind == "d2h") and e.pinned == false then
      return "copies from and to pageable host memory (malloc): a copy from or to it (cudaMemcpy, and cudaMemcpyAsync too) returns "
        .. "only when the copy is done, so the host waits for each device in turn. Allocate h_x and "
        .. "h_y with cudaMallocHost"
    end
  end
  -- a wait between the first launch and the last: the host stopped before it fed every device
  local calls, last = hostcheck.calls(r), 0
  for i, c in ipairs(calls) do
    if hostcheck.is_launch(c.fn) and c.rc == 0 then last = i end
  end
  local launched = false
  for i = 1, last do
    local c = calls[i]
    if hostcheck.is_launch(c.fn) then launched = true end
    if launched and c.rc == 0 and (c.fn == "cudaMemcpy" or c.fn == "cudaDeviceSynchronize"
        or c.fn == "cudaStreamSynchronize") then
      return string.format("calls %s after a launch and before it has given every device its work: "
        .. "it waits there for that device. Queue everything with cudaMemcpyAsync on each device's "
        .. "stream, then wait for the devices in a second loop", c.fn)
    end
  end
  return "waited for one device before it gave the next its work (something in the first loop waits)"
end

-- each device's busy span (its copies and kernels) must overlap another
-- device's: a kernel this small is over before the host has queued the next
-- device's copy, but the devices' copies and kernels together show whether
-- the host fed them at once or in turns
local function check_overlap(t, r, ndev, unit)
  local tl = t:timeline()
  local span, kernels = {}, {}
  for _, e in ipairs(tl.events) do
    if e.kind == "kernel" or e.kind == "h2d" or e.kind == "d2h" then
      local d = e.device or 0
      local s = span[d] or { from = math.huge, to = 0, busy = 0 }
      s.from = math.min(s.from, e.start_us)
      s.to = math.max(s.to, ends(e))
      s.busy = s.busy + e.dur_us
      span[d] = s
      if e.kind == "kernel" then kernels[d] = true end
    end
  end
  for d = 0, ndev - 1 do
    if not kernels[d] then
      t:fail(string.format("with %d devices, device %d ran no kernel: give every device its share "
        .. "(cudaSetDevice(d) before its allocations, copies and launch)", ndev, d))
      return false
    end
  end
  local first, last, busy = math.huge, 0, 0
  for d = 0, ndev - 1 do
    local s, with = span[d], nil
    first, last, busy = math.min(first, s.from), math.max(last, s.to), busy + (s.to - s.from)
    for o = 0, ndev - 1 do
      if o ~= d and s.from < span[o].to and span[o].from < s.to then with = with or o end
    end
    if not with then
      t:fail(string.format("with %d devices, device %d was busy %.1f..%.1f us%s (its copies and kernel) "
        .. "while no other device was: the devices took turns. The host %s", ndev, d, s.from, s.to,
        unit, why_serial(r, tl)))
      return false
    end
  end
  t:log("%d devices: all their copies and kernels within %.1f us%s; taking turns they would need %.1f us",
    ndev, last - first, unit, busy)
  return true
end

return {
  id = "overlap-devices",
  kind = "program",
  gpus = 2,
  title = "All the GPUs at once",
  title_zh = "让所有 GPU 同时工作",
  source = "overlap-devices.cu",
  solution = "solutions/overlap-devices.cu",
  wrong = {
    "solutions/wrong/overlap-devices-sync-copy.cu",
    "solutions/wrong/overlap-devices-pageable.cu",
    "solutions/wrong/overlap-devices-sync-each.cu",
  },
  timeout = 120,
  hints = {
    "One host thread drives all the GPUs, so it must never wait while it hands out the work: a "
      .. "cudaMemcpy, a cudaDeviceSynchronize or a copy from malloc memory makes it wait for the device "
      .. "it just fed. Queue everything first, wait afterwards.",
    "h_x and h_y from cudaMallocHost; in the first loop cudaSetDevice(d), cudaStreamCreate(&stream[d]), "
      .. "cudaMemcpyAsync(..., cudaMemcpyHostToDevice, stream[d]), work<<<blocks, 256, 0, stream[d]>>>, "
      .. "cudaMemcpyAsync(..., cudaMemcpyDeviceToHost, stream[d]); in a second loop cudaSetDevice(d) and "
      .. "cudaStreamSynchronize(stream[d]).",
  },
  hints_zh = {
    "一个主机线程驱动所有 GPU，所以在分发工作时绝不能等待：cudaMemcpy、cudaDeviceSynchronize 或从 "
      .. "malloc 内存出发的拷贝，都会让它等刚刚喂过的那个设备。先把所有工作排进队列，之后再等待。",
    "h_x 和 h_y 用 cudaMallocHost 分配；第一个循环里 cudaSetDevice(d)、cudaStreamCreate(&stream[d])、"
      .. "cudaMemcpyAsync(..., cudaMemcpyHostToDevice, stream[d])、work<<<blocks, 256, 0, stream[d]>>>、"
      .. "cudaMemcpyAsync(..., cudaMemcpyDeviceToHost, stream[d])；第二个循环里 cudaSetDevice(d) 和 "
      .. "cudaStreamSynchronize(stream[d])。",
  },
  -- verify --mutants: mutants of the solution that are still correct
  mutants_equivalent = {
    { mutation = "loop bound < to <=", line = "acc = acc * 0.5f + v * 0.5f;",
      why = "acc starts at v, and acc/2 + v/2 is v again exactly: one more step changes only the time the kernel takes" },
  },
  -- verify --mutants: wrong mutants the emulator cannot catch (its blind spots)
  mutants_undetected = {
    { mutation = "drop cudaStreamSynchronize()", line = "cudaCheck(cudaStreamSynchronize(stream[d]));",
      why = "the host then reads h_y with a device's copy maybe still queued; the emulator runtime finishes every call at once, and hostcheck.expect_waited does not follow streams across devices yet (it flags this solution's own per-device waits), so no check here can see it" },
  },
  run = function(t)
    local on_gpu = t:device().backend == "cuda"
    -- 2^18 + 5 on the emulator: no device's share is a whole number of blocks.
    local n = t:param("n", on_gpu and (1 << 24) or (1 << 18) + 5)
    if on_gpu then
      local r = t:program{ defines = { N = n, ITERS = 256 } }
      if r.exit_code ~= 0 then return hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) }) end
      local ndev = hostcheck.number(r, "devices: (%d+)") or 1
      if ndev == 1 then
        t:log("this machine has one GPU: there is no second device to overlap with, so only the values "
          .. "are checked here; the emulator checks the overlap with 2 and 4 devices")
      elseif not check_overlap(t, r, ndev, "") then
        return
      end
      return hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) })
    end
    for _, ndev in ipairs{ 2, 4 } do
      local r = t:program{ defines = { N = n }, devices = ndev }
      if r.exit_code ~= 0 then return hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) }) end
      if not check_overlap(t, r, ndev, " (modeled)") then return end
      if not hostcheck.expect_values(t, r, { hostcheck.ramp_sum(n) }) then return end
    end
  end,
}
