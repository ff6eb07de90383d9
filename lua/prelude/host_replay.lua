-- lua/prelude/host_replay.lua: the host replay of chapters 06 (events) and
-- 07 (streams), built into cudojo and offered to exercises as the global
-- table `host` (loaded on first use): host.replay(t, spec),
-- host.entry(timeline, r), host.check_outputs(t, H, want_of), host.OP.
--
-- A learner's .cu there holds host_main(): real CUDA host calls (with CUDA's
-- names) that a one-thread kernel, host_program, records as rows; replay()
-- makes the same calls with the exercise API, in order, so the timeline shows
-- what the learner's host code did. See lessons/06-events/README.md.
--
-- Rows are (op, a, b, c, d, e); replay() makes the same calls with the
-- exercise API, in order, and returns what a check needs:
-- the timeline entry of every operation, the elapsed times, the host polls,
-- the host clock readings. A misuse CUDA would reject becomes a failure that
-- says what to change (nil, message).
local OP = { [1] = "cudaEventCreate", [2] = "cudaStreamCreate", [3] = "cudaEventRecord",
  [4] = "cudaEventSynchronize", [5] = "cudaStreamSynchronize", [6] = "cudaDeviceSynchronize",
  [7] = "cudaEventElapsedTime", [8] = "cudaMalloc", [9] = "cudaMallocHost", [10] = "malloc",
  [11] = "cudaMemcpy", [12] = "cudaMemset", [13] = "count_while_busy", [14] = "host_clock_now" }

local function record(t, spec)
  local rs = gpu.stream{ name = "record host_main" }
  local ops = gpu.array("i64", 8 * 512, "host_main calls")
  ops:memset(0, { stream = rs })
  t:kernel("host_program", { defines = spec.defines }):launch{ grid = 1, block = 1, args = { ops }, stream = rs }
  ops:download{ stream = rs }
  rs:synchronize()
  local prog = { rs = rs }
  for i = 0, 510 do
    if ops[8 * i] == 0 then break end
    prog[#prog + 1] = { op = ops[8 * i], ops[8 * i + 1], ops[8 * i + 2], ops[8 * i + 3],
                        ops[8 * i + 4], ops[8 * i + 5] }
  end
  if ops[8 * 510] ~= 0 then return nil, "host_main makes more than 510 CUDA calls: keep it small" end
  return prog
end

-- spec.defines: compile options of the learner's file (N or CHUNK);
-- spec.kernels[op] = { name =, block =, args = function(n) -> the kernel's
-- arguments after (x, y) }. Returns H, or nil and the learner's message.
local function replay(t, spec)
  local prog, why = record(t, spec)
  if not prog then return nil, why end
  local H = { streams = { [0] = gpu.default_stream }, events = {}, recorded = {}, bufs = {},
              arrays = {}, launches = {}, copies = {}, elapsed = {}, polls = {}, clocks = {},
              pageable_copies = {}, sync_copies = {}, input_of = {}, default_memset_at = {}, used_streams = { [0] = true }, nstreams = 0 }

  -- buffers: id -> { id, bytes, where = "device"|"pinned"|"pageable" }; pairs of host and device
  -- buffers (joined by the copies between them) become one gpu.array.
  local function buf_of(addr, what)
    local id, off = addr >> 32, addr & 0xffffffff
    local b = H.bufs[id]
    if not b or off ~= 0 then
      return nil, string.format("%s: the pointer is not the start of a buffer from cudaMalloc, "
        .. "cudaMallocHost or malloc (this exercise moves whole buffers)", what)
    end
    return b
  end
  for _, c in ipairs(prog) do
    if c.op >= 8 and c.op <= 10 then
      H.bufs[c[1]] = { id = c[1], bytes = c[2], where = c.op == 8 and "device" or (c.op == 9 and "pinned" or "pageable") }
    end
  end
  local pair = {}
  for _, c in ipairs(prog) do
    if c.op == 11 then
      local dst, e1 = buf_of(c[1], "cudaMemcpy's destination")
      local src, e2 = buf_of(c[2], "cudaMemcpy's source")
      if not dst or not src then return nil, e1 or e2 end
      local dev, host = dst, src
      if c[4] == 2 then dev, host = src, dst end
      if dev.where ~= "device" or host.where == "device" then
        return nil, string.format("cudaMemcpy with %s copies between a %s and a %s buffer: the kind "
          .. "names the direction (HostToDevice: dst on the device, src on the host)",
          c[4] == 1 and "cudaMemcpyHostToDevice" or "cudaMemcpyDeviceToHost", dst.where, src.where)
      end
      if c[3] ~= dev.bytes or c[3] ~= host.bytes then
        return nil, string.format("cudaMemcpy of %d bytes between buffers of %d and %d bytes: copy "
          .. "whole buffers here", c[3], dev.bytes, host.bytes)
      end
      if (pair[dev.id] and pair[dev.id] ~= host.id) or (pair[host.id] and pair[host.id] ~= dev.id) then
        return nil, "each host buffer here goes with one device buffer: copy a device buffer "
          .. "to and from the same host buffer"
      end
      pair[dev.id], pair[host.id] = host.id, dev.id
    end
  end
  local n_in, n_out = 0, 0
  local function array_of(dev, role)
    if H.arrays[dev.id] then return H.arrays[dev.id] end
    local host = pair[dev.id] and H.bufs[pair[dev.id]]
    local name
    if role == "in" then name = "in" .. n_in; n_in = n_in + 1
    elseif role == "out" then name = "out" .. n_out; n_out = n_out + 1
    else name = role .. dev.id end
    local a = gpu.array("f32", dev.bytes // 4, name, { pinned = host ~= nil and host.where == "pinned" })
    if role == "in" then
      a:random{ lo = -1, hi = 1, seed = 7 + dev.id }
      H.input_of[a] = a:copy()   -- the reference reads this, never the device's array
    end
    H.arrays[dev.id] = a
    dev.array, dev.host, dev.role = a, host, role
    return a
  end
  -- inputs first (so they are named in0, in1... in launch order), then outputs
  for _, c in ipairs(prog) do
    if c.op >= 20 then
      local x, ex = buf_of(c[1], spec.kernels[c.op].name .. "'s input")
      if not x then return nil, ex end
      if x.where ~= "device" then return nil, spec.kernels[c.op].name .. "'s input must be device memory (cudaMalloc)" end
      array_of(x, "in")
    end
  end
  for _, c in ipairs(prog) do
    if c.op >= 20 then
      local y, ey = buf_of(c[2], spec.kernels[c.op].name .. "'s output")
      if not y then return nil, ey end
      if y.where ~= "device" then return nil, spec.kernels[c.op].name .. "'s output must be device memory (cudaMalloc)" end
      if y.role == "in" then return nil, spec.kernels[c.op].name .. " writes its output over an input buffer" end
      array_of(y, "out")
    end
  end

  -- Outputs start as NaN (cudaMalloc does not clear memory), on the record
  -- stream: cudojo's setup, not the learner's work.
  for _, b in pairs(H.bufs) do
    if b.role == "out" then b.array:memset(0xff, { stream = prog.rs }) end
  end
  -- Warm-up: each kernel once with n = 0 (it writes nothing), so the replay's
  -- first launch does not pay the one-time costs (on the H200 they delayed the
  -- next copy by more than a millisecond and broke the pipeline).
  local warm = {}
  for _, c in ipairs(prog) do
    local k = c.op >= 20 and spec.kernels[c.op]
    -- the output twice: it lives on the device already (an input would be
    -- uploaded first, on the legacy stream)
    local y = k and not warm[c.op] and H.bufs[c[2] >> 32] and H.bufs[c[2] >> 32].array
    if y then
      warm[c.op] = true
      local args = { y, y }
      for _, v in ipairs(k.args(0)) do args[#args + 1] = v end
      t:kernel(k.name, { defines = spec.defines }):launch{ grid = 1, block = k.block, args = args, stream = prog.rs }
    end
  end
  prog.rs:synchronize()
  -- timeline entries issued from here on: the n-th of a kind is counted from now
  local base = {}
  for _, e in ipairs(t:timeline().events) do base[e.kind] = (base[e.kind] or 0) + 1 end
  local function entry_ref(kind)
    base[kind] = (base[kind] or 0) + 1
    return { kind = kind, n = base[kind] }
  end

  local function stream(s, call)
    local st = H.streams[s]
    if not st then return nil, call .. ": that stream was never created (cudaStreamCreate)" end
    H.used_streams[s] = true
    return st
  end
  local written = {}
  H.record_at, H.record_stream = {}, {}
  -- Completion by CUDA's rules: position of the last work issued on each
  -- stream, and the position up to which each stream's work is known done.
  -- Work on the legacy default stream (0) waits for all earlier work on
  -- blocking streams, and later work on blocking streams waits for it.
  H.last_work, H.done, H.blocking = {}, {}, { [0] = true }
  local ops = {}     -- stream -> positions of its operations (work and event records), in order
  local function op_at(s, i)
    ops[s] = ops[s] or {}
    table.insert(ops[s], i)
  end
  local function work(s, i) H.last_work[s] = i; op_at(s, i) end
  local function last_op_before(s, upto)
    local p = 0
    for _, q in ipairs(ops[s] or {}) do if q <= upto then p = q end end
    return p
  end
  local function raise(s, upto) if (H.done[s] or 0) < upto then H.done[s] = upto end end
  -- The host saw stream s's operations up to position `upto` complete.
  local function finished(s, upto)
    raise(s, upto)
    local barrier = last_op_before(s, upto)
    if s == 0 then
      for b, blocking in pairs(H.blocking) do
        if b ~= 0 and blocking then raise(b, barrier) end
      end
    elseif H.blocking[s] then
      raise(0, barrier)
    end
  end
  for i, c in ipairs(prog) do
    local op = c.op
    if op == 1 then
      H.events[c[1]] = t:event()
    elseif op == 2 then
      H.nstreams = H.nstreams + 1
      H.streams[c[1]] = gpu.stream{ name = "stream " .. (H.nstreams - 1), blocking = c[2] ~= 1 }
      H.blocking[c[1]] = c[2] ~= 1
    elseif op == 3 or op == 4 or op == 13 then
      local ev = H.events[c[1]]
      if not ev then return nil, OP[op] .. ": that event was never created (cudaEventCreate)" end
      if op == 3 then
        local st, e = stream(c[2], "cudaEventRecord")
        if not st then return nil, e end
        ev:record(st)
        op_at(c[2], i)
        H.recorded[c[1]] = true
        H.record_at[c[1]] = i
        H.record_stream[c[1]] = c[2]
      elseif not H.recorded[c[1]] then
        return nil, OP[op] .. " of an event that was never recorded (cudaEventRecord)"
      elseif op == 4 then
        ev:synchronize()
        finished(H.record_stream[c[1]], H.record_at[c[1]])
      else
        H.polls[#H.polls + 1] = t:host_work(function()
          local n = 0
          while not ev:query() do n = n + 1 end
          return n
        end, { name = "count_while_busy" })
        H.count_entry = entry_ref("host")
        finished(H.record_stream[c[1]], H.record_at[c[1]])
      end
    elseif op >= 8 and op <= 10 then
      -- allocations: the buffers were made above
    elseif op == 5 then
      local st, e = stream(c[1], "cudaStreamSynchronize")
      if not st then return nil, e end
      st:synchronize()
      finished(c[1], i)
    elseif op == 6 then
      t:synchronize()
      for s2, _ in pairs(H.used_streams) do finished(s2, i) end
    elseif op == 7 then
      local e0, e1 = H.events[c[1]], H.events[c[2]]
      if not e0 or not e1 then return nil, "cudaEventElapsedTime: an event that was never created" end
      if not H.recorded[c[1]] or not H.recorded[c[2]] then
        return nil, "cudaEventElapsedTime of an event that was never recorded (cudaEventRecord)"
      end
      local ok, ms = pcall(t.elapsed_ms, t, e0, e1)
      if not ok then
        return nil, "cudaEventElapsedTime returned cudaErrorNotReady: the stop event had not "
          .. "happened yet when the host asked. The host must wait for it first "
          .. "(cudaEventSynchronize(stop))"
      end
      H.elapsed[#H.elapsed + 1] = { ms = ms, start = c[1], stop = c[2] }
    elseif op == 11 then
      local dst, src = buf_of(c[1], ""), buf_of(c[2], "")
      local h2d = c[4] == 1
      local dev, host = h2d and dst or src, h2d and src or dst
      if not h2d and not written[dev.id] then
        return nil, "a cudaMemcpy DeviceToHost copies a device buffer that nothing has written yet"
      end
      local a = dev.array or array_of(dev, "in")
      local opts = nil
      if c[5] >= 0 then
        local st, e = stream(c[5], "cudaMemcpyAsync")
        if not st then return nil, e end
        opts = { stream = st }
      end
      if host.where == "pageable" then H.pageable_copies[#H.pageable_copies + 1] = a.name end
      if c[5] < 0 then H.sync_copies[#H.sync_copies + 1] = a.name end
      if h2d then a:upload(opts); written[dev.id] = true else a:download(opts) end
      local on = c[5] < 0 and 0 or c[5]
      work(on, i)
      -- cudaMemcpy returns when the copy is done; so does an "async" copy
      -- into pageable host memory
      if c[5] < 0 or (not h2d and host.where == "pageable") then finished(on, i) end
      H.copies[#H.copies + 1] = { h2d = h2d, array = a, stream = c[5] < 0 and 0 or c[5],
                                  entry = entry_ref(h2d and "h2d" or "d2h") }
    elseif op == 12 then
      local dev, e = buf_of(c[1], "cudaMemset's pointer")
      if not dev then return nil, e end
      if dev.where ~= "device" then return nil, "cudaMemset sets device memory (from cudaMalloc)" end
      local a = dev.array or array_of(dev, "scratch")
      if c[4] < 0 then H.default_memset_at[#H.default_memset_at + 1] = i end
      if c[4] >= 0 then
        local st, e2 = stream(c[4], "cudaMemsetAsync")
        if not st then return nil, e2 end
        a:memset(c[2] & 0xff, { stream = st })
      else
        -- cudaMemset of device memory is asynchronous to the host: it queues on
        -- the legacy default stream (which waits for blocking streams only).
        -- a:memset() without a stream would also wait for the whole device.
        a:memset(c[2] & 0xff, { stream = H.streams[0] })
      end
      work(c[4] >= 0 and c[4] or 0, i)
      written[dev.id] = true
      H.memsets = (H.memsets or 0) + 1
      entry_ref("memset")
    elseif op == 14 then
      H.clocks[#H.clocks + 1] = { entry = entry_ref("host"), pos = i }
      t:host_work(function() end, { name = "host_clock_now", us = 0 })
    elseif op >= 20 then
      local k = spec.kernels[op]
      local x, y = buf_of(c[1], ""), buf_of(c[2], "")
      if not written[x.id] then
        return nil, string.format("%s reads %s before anything was copied into it: copy the input "
          .. "to the device first (cudaMemcpy ... cudaMemcpyHostToDevice)", k.name, x.array.name)
      end
      local st, e = stream(c[3], k.name)
      if not st then return nil, e end
      local n = x.bytes // 4
      local args = { x.array, y.array }
      for _, v in ipairs(k.args(n)) do args[#args + 1] = v end
      t:kernel(k.name, { defines = spec.defines }):launch{ grid = (n + k.block - 1) // k.block, block = k.block, args = args, stream = st }
      written[y.id] = true
      work(c[3], i)
      H.launches[#H.launches + 1] = { name = k.name, x = x.array, y = y.array, stream = c[3],
                                      entry = entry_ref("kernel"), pos = i }
    else
      return nil, "unknown call in host_main's record (" .. op .. "): keep the notation as it is"
    end
    c.done = true
  end
  -- Did host_main wait for its work before returning (before the host reads
  -- the results)? Decided from CUDA's rules, not by asking the device, so the
  -- answer is the same on a GPU (where the last copy may still be landing
  -- when the host asks) and on the emulator.
  local pending = {}
  local ids = {}
  for s, _ in pairs(H.used_streams) do ids[#ids + 1] = s end
  table.sort(ids)
  for _, s in ipairs(ids) do
    if (H.last_work[s] or 0) > (H.done[s] or 0) then
      pending[#pending + 1] = s == 0 and "the default stream" or H.streams[s].name
    end
  end
  H.pending = pending
  H.prog = prog
  return H
end

-- the timeline entry of an operation replay() made
local function entry(tl, r) return tl:find{ kind = r.kind, n = r.n } end

-- Output checks shared by the exercises: every launch's output came back to
-- the host, right; host_main waited for it.
local function check_outputs(t, H, want_of)
  if #H.launches == 0 then t:fail("host_main launches no kernel") return false end
  local ok = true
  for _, l in ipairs(H.launches) do
    local back = false
    for _, c in ipairs(H.copies) do if not c.h2d and c.array == l.y then back = true end end
    if not back then
      t:fail(string.format("%s is never copied back to the host (cudaMemcpy ... cudaMemcpyDeviceToHost)", l.y.name))
      return false
    end
  end
  if #H.pending > 0 then
    t:fail(string.format("host_main returns while %s still has work queued: the host would read "
      .. "the results before the copies land. Wait for it first (cudaStreamSynchronize, "
      .. "cudaEventSynchronize or cudaDeviceSynchronize)", H.pending[1]))
    return false
  end
  local seen = {}
  for _, l in ipairs(H.launches) do
    if not seen[l.y] then
      seen[l.y] = true
      ok = t:expect_close(l.y, want_of(H.input_of[l.x]), { rel = 1e-6, abs = 0, name = l.y.name }) and ok
    end
  end
  return ok
end

-- Chapter 7's chunked pipeline: host.chunk_spec(t) is the replay spec of
-- its exercises (chunks and kernel length per backend); host.check_pipeline
-- checks the values, every chunk's copy in -> kernel -> copy out in order,
-- the overlap of copies with other chunks' kernels and (unless allowed)
-- nothing on the legacy default stream.
local function chunk_spec(t)
  local on_gpu = t:device().backend == "cuda"
  local chunk = t:param("chunk", on_gpu and (1 << 24) or 32768)
  -- copy-bound on purpose (a chunk's copy takes longer than its kernel), so
  -- that every copy in but the first overlaps another chunk's kernel
  local iters = t:param("iters", on_gpu and 1000 or 300)
  return { defines = { CHUNK = chunk }, kernels = {
    [20] = { name = "busy", block = 256, args = function(m) return { gpu.i32(m), gpu.i32(iters) } end } } }
end

local function check_pipeline(t, H, want_of, allow_default)
  local on_gpu = t:device().backend == "cuda"
  local unit = on_gpu and "" or " (modeled)"
  if not check_outputs(t, H, want_of) then return false end
  local tl = t:timeline()
  local chunks = {}
  for c, l in ipairs(H.launches) do
    local ch = { kernel = entry(tl, l.entry) }
    for _, cp in ipairs(H.copies) do
      if cp.h2d and cp.array == l.x then ch.h2d = entry(tl, cp.entry) end
      if not cp.h2d and cp.array == l.y then ch.d2h = entry(tl, cp.entry) end
    end
    chunks[c] = ch
    local function ends(e) return e.start_us + e.dur_us end
    if ch.h2d and ch.kernel.start_us < ends(ch.h2d) - 1e-6 then
      t:fail(string.format("the kernel of chunk %d started at %.1f us%s, before its input had "
        .. "arrived (%.1f us): nothing orders two streams. Queue a chunk's copy in, kernel and "
        .. "copy out on the same stream", c - 1, ch.kernel.start_us, unit, ends(ch.h2d)))
      return false
    end
    if ch.d2h.start_us < ends(ch.kernel) - 1e-6 then
      t:fail(string.format("the copy of chunk %d's result started at %.1f us%s, before its kernel "
        .. "had finished (%.1f us): queue it on the kernel's stream", c - 1, ch.d2h.start_us,
        unit, ends(ch.kernel)))
      return false
    end
  end
  -- The pipeline's signature: every chunk's copy in, but the first to run,
  -- overlaps the kernel of another chunk. Not "chunk c's copy with chunk
  -- c-1's kernel": on the H200 the copy engine took the streams' copies in
  -- another order than the host issued them (in0, in2, in3, in1).
  local ok = true
  local order = {}
  for c = 1, #chunks do order[c] = c end
  table.sort(order, function(p, q)
    local a, b = chunks[p].h2d, chunks[q].h2d
    if not a or not b then return a ~= nil and b == nil end
    return a.start_us < b.start_us
  end)
  local function overlap(a, b)
    return a and b and a.start_us < b.start_us + b.dur_us and b.start_us < a.start_us + a.dur_us
  end
  for i = 2, #order do
    local c, with = order[i], nil
    for o = 1, #chunks do
      if o ~= c and overlap(chunks[c].h2d, chunks[o].kernel) then with = o break end
    end
    local name = string.format("the copy of chunk %d overlaps another chunk's kernel", c - 1)
    if with then
      ok = t:expect_overlap(chunks[c].h2d, chunks[with].kernel, string.format(
        "the copy of chunk %d overlaps the kernel of chunk %d", c - 1, with - 1)) and ok
    else   -- fails, showing the copy beside the kernel that ran before it
      ok = t:expect_overlap(chunks[c].h2d, chunks[order[i - 1]].kernel, name) and ok
    end
  end
  if not allow_default then
    ok = t:expect_no_default_stream_work("no work on the legacy default stream") and ok
  end
  if not ok and #H.pageable_copies > 0 then
    t:log("pageable host memory (malloc) in the copies of %s: each such copy keeps the host "
      .. "until it is done, so nothing issued after it can overlap it", table.concat(H.pageable_copies, ", "))
  end
  local first, last, busy_us = math.huge, 0, 0
  for _, ch in ipairs(chunks) do
    for _, e in ipairs{ ch.h2d, ch.kernel, ch.d2h } do
      first = math.min(first, e.start_us)
      last = math.max(last, e.start_us + e.dur_us)
      busy_us = busy_us + e.dur_us
    end
  end
  t:log("%d chunks in %.1f us%s; one after another they would take %.1f us", #chunks,
    last - first, unit, busy_us)
  return ok
end

return { OP = OP, replay = replay, entry = entry, check_outputs = check_outputs,
         chunk_spec = chunk_spec, check_pipeline = check_pipeline }
